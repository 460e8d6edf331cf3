/**
 * CI/CD variables of projects and groups, as the real v4 API has them (lib/api/ci/variables.rb,
 * lib/api/group_variables.rb; the models Ci::Variable and Ci::GroupVariable with the concerns
 * HasVariable, Maskable and HidableVariable): list (paginated), get, create, update and delete,
 * one key allowed once per environment scope. docs/emulator.md#cicd-variables. The rules themselves
 * (key, masking, scope) are data in src/catalogue/ci-variables.ts, which plumb's variables kind reads too.
 */
import { findGroup, findProject, requireCaller, type Caller } from './auth.js';
import { apiError, forbidden, json, noContent, notFound, paramErrors, validationErrors, type ApiResponse, type Params } from './http.js';
import { paginate, type PageRequest } from './pagination.js';
import { boolParam, enumParam, stringParam } from './params.js';
import type { EmulatorState, GroupRecord, ProjectRecord, VariableRecord } from './state.js';
import type { SeedVariable } from './types.js';
import {
  ENVIRONMENT_SCOPE_MAX,
  ENVIRONMENT_SCOPE_MESSAGE,
  ENVIRONMENT_SCOPE_PATTERN,
  VARIABLE_KEY_MAX,
  VARIABLE_KEY_PATTERN,
  VARIABLE_TYPES,
  VARIABLE_VALUE_MAX,
  maskable,
} from '../catalogue/ci-variables.js';

export interface VariableCtx {
  readonly state: EmulatorState;
  readonly caller: Caller | null;
  readonly params: Params;
  readonly page: PageRequest;
}

export const AMBIGUOUS = "There are multiple variables with provided parameters. Please use 'filter[environment_scope]'";

type Owner = { kind: 'project'; record: ProjectRecord } | { kind: 'group'; record: GroupRecord };

/** A variable as the API shows it (Entities::Ci::Variable): a hidden one's value is null. */
export function renderVariable(v: VariableRecord): Record<string, unknown> {
  return {
    variable_type: v.variableType,
    key: v.key,
    value: v.hidden ? null : v.value,
    hidden: v.hidden,
    protected: v.protected,
    masked: v.masked,
    raw: v.raw,
    environment_scope: v.environmentScope,
    description: v.description,
  };
}

/**
 * The model validations of a variable about to be saved, as `{"message":{field:[...]}}` would list
 * them (empty when valid). `siblings` are the owner's other variables (the uniqueness scope).
 */
export function variableErrors(v: VariableRecord, siblings: readonly VariableRecord[]): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (field: string, message: string): void => {
    (errors[field] ??= []).push(message);
  };
  if (v.key === '') add('key', "can't be blank");
  else {
    if (v.key.length > VARIABLE_KEY_MAX) add('key', `is too long (maximum is ${VARIABLE_KEY_MAX} characters)`);
    if (!VARIABLE_KEY_PATTERN.test(v.key)) add('key', "can contain only letters, digits and '_'.");
  }
  if (v.value.length > VARIABLE_VALUE_MAX) add('value', `is too long (maximum is ${VARIABLE_VALUE_MAX} characters)`);
  if (v.masked && !maskable(v.value, v.raw)) add('value', 'is invalid');
  if (v.environmentScope === '') add('environment_scope', "can't be blank");
  else {
    if (v.environmentScope.length > ENVIRONMENT_SCOPE_MAX) add('environment_scope', `is too long (maximum is ${ENVIRONMENT_SCOPE_MAX} characters)`);
    if (!ENVIRONMENT_SCOPE_PATTERN.test(v.environmentScope)) add('environment_scope', ENVIRONMENT_SCOPE_MESSAGE);
  }
  if (siblings.some((o) => o.key === v.key && o.environmentScope === v.environmentScope)) add('key', `(${v.key}) has already been taken`);
  return errors;
}

/** Ci::VariablesFinder plus `find_variable`: by key, and by scope when `filter[environment_scope]` is given. */
function findVariable(owner: Owner, key: string, params: Params): VariableRecord {
  const filter = params['filter'];
  const scope = typeof filter === 'object' && filter !== null && !Array.isArray(filter) ? (filter as Params)['environment_scope'] : undefined;
  const matches = owner.record.variables.filter((v) => v.key === key && (typeof scope !== 'string' || v.environmentScope === scope));
  if (matches.length > 1) throw apiError(409, AMBIGUOUS);
  if (matches.length === 0) throw notFound('Variable');
  return matches[0]!;
}

/**
 * Who may manage variables: `admin_cicd_variables`, Maintainer of a project, Owner of a group (an
 * administrator anywhere). A project or group the caller cannot see is a 404 first.
 */
function ownerOf(ctx: VariableCtx, kind: Owner['kind'], ref: string): Owner {
  const caller = requireCaller(ctx.caller);
  if (kind === 'project') {
    const record = findProject(ctx.state, caller, ref);
    if (!caller.admin && ctx.state.projectAccess(caller.user.id, record) < 40) throw forbidden();
    return { kind, record };
  }
  const record = findGroup(ctx.state, caller, ref);
  if (!caller.admin && ctx.state.groupAccess(caller.user.id, record) < 50) throw forbidden();
  return { kind, record };
}

export function listVariables(ctx: VariableCtx, kind: Owner['kind'], ref: string): ApiResponse {
  const owner = ownerOf(ctx, kind, ref);
  const { items, headers } = paginate(owner.record.variables, ctx.page);
  return json(200, items.map(renderVariable), headers);
}

export function getVariable(ctx: VariableCtx, kind: Owner['kind'], ref: string, key: string): ApiResponse {
  const owner = ownerOf(ctx, kind, ref);
  return json(200, renderVariable(findVariable(owner, key, ctx.params)));
}

interface Changes {
  key?: string;
  value?: string;
  variableType?: VariableRecord['variableType'];
  protected?: boolean;
  masked?: boolean;
  maskedAndHidden?: boolean;
  raw?: boolean;
  environmentScope?: string;
  description?: string;
}

/** The declared parameters (Grape's coercion errors, all at once); `required` lists the `requires`. */
function changes(ctx: VariableCtx, owner: Owner, required: readonly string[]): Changes {
  const p = ctx.params;
  const errors: string[] = [];
  for (const name of required) if (p[name] === undefined) errors.push(`${name} is missing`);
  const take = <T>(r: { value?: T; error?: string }): T | undefined => {
    if (r.error) errors.push(r.error);
    return r.value;
  };
  const out: Changes = {};
  const set = <K extends keyof Changes>(k: K, v: Changes[K] | undefined): void => {
    if (v !== undefined) out[k] = v;
  };
  // HasVariable#key= strips the key.
  set('key', take(stringParam(p, 'key'))?.trim());
  set('value', take(stringParam(p, 'value')));
  set('variableType', take(enumParam(p, 'variable_type', VARIABLE_TYPES)) as Changes['variableType']);
  set('protected', take(boolParam(p, 'protected')));
  set('masked', take(boolParam(p, 'masked')));
  set('maskedAndHidden', take(boolParam(p, 'masked_and_hidden')));
  set('raw', take(boolParam(p, 'raw')));
  set('environmentScope', take(stringParam(p, 'environment_scope')));
  set('description', take(stringParam(p, 'description')));
  if (errors.length > 0) throw paramErrors([...new Set(errors)]);
  // Scoped group variables are a paid feature: on the free tier the scope is dropped (EE's
  // filter_variable_parameters), and the variable applies to every environment.
  if (owner.kind === 'group' && ctx.state.tier === 'free') delete out.environmentScope;
  return out;
}

/** A new variable from its declared fields, with the real defaults. */
function newVariable(c: Changes & { key: string; value: string }): VariableRecord {
  const hidden = c.maskedAndHidden ?? false;
  return {
    key: c.key,
    value: c.value,
    variableType: c.variableType ?? 'env_var',
    protected: c.protected ?? false,
    // `masked_and_hidden: true` makes the variable masked too (the UI's "Masked and hidden").
    masked: hidden || (c.masked ?? false),
    hidden,
    raw: c.raw ?? false,
    environmentScope: c.environmentScope ?? '*',
    description: c.description ?? null,
  };
}

export function createVariable(ctx: VariableCtx, kind: Owner['kind'], ref: string): ApiResponse {
  const owner = ownerOf(ctx, kind, ref);
  const c = changes(ctx, owner, ['key', 'value']);
  const variable = newVariable({ ...c, key: c.key!, value: c.value! });
  const errors = variableErrors(variable, owner.record.variables);
  if (Object.keys(errors).length > 0) throw validationErrors(errors);
  owner.record.variables.push(variable);
  return json(201, renderVariable(variable));
}

export function updateVariable(ctx: VariableCtx, kind: Owner['kind'], ref: string, key: string): ApiResponse {
  const owner = ownerOf(ctx, kind, ref);
  const current = findVariable(owner, key, ctx.params);
  // The update's declared parameters leave out `key`, `filter` and `masked_and_hidden`: a variable
  // is neither renamed nor hidden (or revealed) by an update.
  const c = changes(ctx, owner, []);
  const next: VariableRecord = {
    ...current,
    ...(c.value !== undefined ? { value: c.value } : {}),
    ...(c.variableType !== undefined ? { variableType: c.variableType } : {}),
    ...(c.protected !== undefined ? { protected: c.protected } : {}),
    ...(c.masked !== undefined ? { masked: c.masked } : {}),
    ...(c.raw !== undefined ? { raw: c.raw } : {}),
    ...(c.environmentScope !== undefined ? { environmentScope: c.environmentScope } : {}),
    ...(c.description !== undefined ? { description: c.description } : {}),
  };
  const errors = variableErrors(next, owner.record.variables.filter((v) => v !== current));
  if (current.hidden && next.masked !== current.masked) {
    (errors['base'] ??= []).push('Updating masked attribute is not allowed on updates for hidden variables.');
  }
  if (Object.keys(errors).length > 0) throw validationErrors(errors);
  Object.assign(current, next);
  return json(200, renderVariable(current));
}

export function deleteVariable(ctx: VariableCtx, kind: Owner['kind'], ref: string, key: string): ApiResponse {
  const owner = ownerOf(ctx, kind, ref);
  const current = findVariable(owner, key, ctx.params);
  owner.record.variables.splice(owner.record.variables.indexOf(current), 1);
  return noContent();
}

/**
 * A seeded variable (the seed's `variables:` of a project or group), checked by the same model
 * validations as a created one; answers the problems (`key can contain only ...`), empty when added.
 */
export function seedVariable(owner: { variables: VariableRecord[] }, v: SeedVariable): string[] {
  const variable = newVariable({
    key: v.key,
    value: v.value,
    ...(v.variable_type !== undefined ? { variableType: v.variable_type } : {}),
    ...(v.protected !== undefined ? { protected: v.protected } : {}),
    ...(v.masked !== undefined ? { masked: v.masked } : {}),
    ...(v.hidden !== undefined ? { maskedAndHidden: v.hidden } : {}),
    ...(v.raw !== undefined ? { raw: v.raw } : {}),
    ...(v.environment_scope !== undefined ? { environmentScope: v.environment_scope } : {}),
    ...(v.description !== undefined ? { description: v.description } : {}),
  });
  const errors = variableErrors(variable, owner.variables);
  const problems = Object.entries(errors).flatMap(([field, messages]) => messages.map((m) => `${field} ${m}`));
  if (problems.length === 0) owner.variables.push(variable);
  return problems;
}
