/**
 * The CI/CD variables' part of resolving a configuration: `variables:` and `prune_variables:` of a
 * project or a group (`instances.<name>.projects.<ref>`, `….groups.<ref>`; under `defaults:` and
 * selectors alike). The schema pass checks types; this checks what the service would refuse (the
 * key's alphabet and length, the scope, a masked literal value that breaks the masking rules: the
 * rules are src/catalogue/ci-variables.ts, which the emulator answers with) and fills in the
 * service's defaults. A secret value (`${env:…}`, `${file:…}`) is checked at plan, never here.
 */
import {
  ENVIRONMENT_SCOPE_MAX,
  ENVIRONMENT_SCOPE_MESSAGE,
  ENVIRONMENT_SCOPE_PATTERN,
  VARIABLE_KEY_MAX,
  VARIABLE_KEY_PATTERN,
  VARIABLE_TYPES,
  VARIABLE_VALUE_MAX,
  ciVariableClaim,
  maskRuleText,
  maskable,
} from '../../catalogue/ci-variables.js';
import type { VariableType } from '../../catalogue/ci-variables.js';
import type { InstanceClaim, KindConfig, KindSchema, ResolveAt } from '../../config/kinds.js';
import type { DesiredInstance } from '../../config/model.js';
import { joinPointer } from '../../config/pointer.js';
import type { KindPointer } from '../../config/pointer.js';
import { obj, push } from '../../config/resolve-context.js';
import type { Ctx } from '../../config/resolve-context.js';
import type { DesiredVariable, VariableFields, VariablesOwner } from './model.js';
import { describeVariable, ownerNoun, variablesOf } from './model.js';
import { variableSchema, variableScopeSchema, variablesProperties } from './schema.js';

/**
 * One key in one environment scope is one resource: under `scopes:` it is defined in one place only;
 * a variable's own fields (its `*` scope, or `environment_scope`) are owned field by field, so a
 * Terraform resource per key and scope (`plumb_project_variable`) merges into one key's `scopes:`.
 * Only values may be interpolated.
 */
export const VARIABLE_POINTERS: readonly KindPointer[] = (['projects', 'groups'] as const).flatMap((c) => {
  const noun = c === 'projects' ? 'project' : 'group';
  return [
    { pattern: ['instances', '*', c, '*', 'variables', '*', 'scopes', '*'], resource: true, describe: (s: readonly string[]) => `variable "${s[5]}" (scope ${s[7]}) of ${noun} "${s[3]}"`, interpolation: [['value']] },
    { pattern: ['instances', '*', c, '*', 'variables', '*'], resource: false, describe: (s: readonly string[]) => `variable "${s[5]}" of ${noun} "${s[3]}"`, interpolation: [['value'], ['scopes', '*', 'value']] },
  ];
});

export function resolveOwner(raw: Readonly<Record<string, unknown>>, where: ResolveAt, ctx: Ctx): VariablesOwner | undefined {
  const container = where.container === 'groups' ? 'groups' : 'projects';
  const ref = where.ref ?? '';
  const variables: DesiredVariable[] = [];
  const base = joinPointer(where.pointer, 'variables');
  for (const [key, body] of Object.entries(obj(raw.variables))) {
    const p = joinPointer(base, key);
    if (!keyUsable(key, p, ctx)) continue;
    const v = obj(body);
    const scoped = Object.entries(obj(v.scopes));
    const own = Object.keys(v).filter((k) => k !== 'scopes');
    if (scoped.length === 0 || own.length > 0) {
      // The fields beside scopes: (or alone) are the variable in environment_scope, * by default.
      if (typeof v.value !== 'string') {
        push(ctx, {
          severity: 'error',
          code: 'PLUMB_CI_VARIABLE_SHAPE',
          summary: `Variable "${key}" has no value`,
          suggestion: 'give it a value: (a literal or ${env:NAME}), or scopes: with a value per environment scope',
          pointer: own.length > 0 ? joinPointer(p, own[0]!) : p,
          on: 'key',
        });
        continue;
      }
      const scope = typeof v.environment_scope === 'string' ? v.environment_scope : '*';
      if (scoped.some(([s]) => s === scope)) {
        push(ctx, {
          severity: 'error',
          code: 'PLUMB_CI_VARIABLE_SHAPE',
          summary: `Variable "${key}" is declared twice in scope ${JSON.stringify(scope)}: by its own fields and under scopes:`,
          suggestion: `keep one: remove scopes.${scope}, or the fields beside scopes:`,
          pointer: joinPointer(p, 'scopes', scope),
          on: 'key',
        });
        continue;
      }
      if (scopeUsable(scope, joinPointer(p, 'environment_scope'), 'value', ctx)) {
        const d = variable(key, scope, v, p, ctx);
        if (d) variables.push(d);
      }
    }
    for (const [scope, fields] of scoped) {
      const sp = joinPointer(p, 'scopes', scope);
      if (!scopeUsable(scope, sp, 'key', ctx)) continue;
      const d = variable(key, scope, obj(fields), sp, ctx);
      if (d) variables.push(d);
    }
  }
  const prune = raw.prune_variables === true;
  if (prune && variables.length === 0 && Object.keys(obj(raw.variables)).length === 0) {
    push(ctx, {
      severity: 'warning',
      code: 'PLUMB_CI_VARIABLE_PRUNE_ALL',
      summary: `prune_variables is on for ${container === 'projects' ? 'project' : 'group'} "${ref}", which declares no variable: apply deletes every CI/CD variable it has`,
      suggestion: 'declare the variables to keep under variables:, or set prune_variables: false',
      pointer: joinPointer(where.pointer, 'prune_variables'),
    });
  }
  if (variables.length === 0 && !prune) return undefined;
  // By key, then scope: the order a plan lists them in, whichever file or construct declared each.
  variables.sort((a, b) => (a.key === b.key ? (a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : 0) : a.key < b.key ? -1 : 1));
  return { container, ref, pointer: where.pointer, prune, variables };
}

function keyUsable(key: string, p: string, ctx: Ctx): boolean {
  if (key.length <= VARIABLE_KEY_MAX && VARIABLE_KEY_PATTERN.test(key)) return true;
  push(ctx, {
    severity: 'error',
    code: 'PLUMB_CI_VARIABLE_KEY_INVALID',
    summary: key.length > VARIABLE_KEY_MAX ? `Variable key "${key.slice(0, 40)}…" is ${key.length} characters long; the service allows at most ${VARIABLE_KEY_MAX}` : `Variable key ${JSON.stringify(key)} can contain only letters, digits and '_'`,
    detail: 'The service refuses any other key (HasVariable: [A-Za-z0-9_], at most 255 characters).',
    suggestion: key.length > VARIABLE_KEY_MAX ? 'shorten the key' : `write it as ${JSON.stringify(key.replace(/[^A-Za-z0-9_]/g, '_').slice(0, VARIABLE_KEY_MAX) || 'MY_VARIABLE')}`,
    pointer: p,
    on: 'key',
  });
  return false;
}

function scopeUsable(scope: string, p: string, on: 'key' | 'value', ctx: Ctx): boolean {
  if (scope.length > 0 && scope.length <= ENVIRONMENT_SCOPE_MAX && ENVIRONMENT_SCOPE_PATTERN.test(scope)) return true;
  push(ctx, {
    severity: 'error',
    code: 'PLUMB_CI_VARIABLE_SCOPE_INVALID',
    summary: `Environment scope ${JSON.stringify(scope)} ${scope.length === 0 ? 'is empty' : scope.length > ENVIRONMENT_SCOPE_MAX ? `is longer than ${ENVIRONMENT_SCOPE_MAX} characters` : ENVIRONMENT_SCOPE_MESSAGE}`,
    suggestion: 'write an environment name (production), a pattern (review/*) or * for every environment',
    pointer: p,
    on,
  });
  return false;
}

const bool = (v: unknown, dflt: boolean): boolean => (typeof v === 'boolean' ? v : dflt);

function variable(key: string, scope: string, raw: Record<string, unknown>, p: string, ctx: Ctx): DesiredVariable | undefined {
  const valuePointer = joinPointer(p, 'value');
  const value = typeof raw.value === 'string' ? raw.value : '';
  const secret = ctx.sources.secrets.isSecretPointer(valuePointer);
  const hidden = bool(raw.masked_and_hidden, false);
  if (hidden && raw.masked === false) {
    push(ctx, {
      severity: 'error',
      code: 'PLUMB_CI_VARIABLE_SHAPE',
      summary: `Variable "${key}" is masked_and_hidden but says masked: false`,
      detail: 'A hidden variable is always masked (the service masks it; it never unmasks a hidden variable).',
      suggestion: 'remove masked: false, or masked_and_hidden: true',
      pointer: joinPointer(p, 'masked'),
    });
    return undefined;
  }
  const fields: VariableFields = {
    variable_type: (VARIABLE_TYPES as readonly string[]).includes(raw.variable_type as string) ? (raw.variable_type as VariableType) : 'env_var',
    protected: bool(raw.protected, false),
    masked: hidden || bool(raw.masked, false),
    masked_and_hidden: hidden,
    raw: bool(raw.raw, false),
    description: typeof raw.description === 'string' ? raw.description : '',
  };
  // A literal value is checked here, offline; a secret one at plan (valueProblem), without showing it.
  if (!secret) {
    const problem = valueProblem(value, fields);
    if (problem) {
      push(ctx, { severity: 'error', ...problem, summary: `Variable "${key}"${scope === '*' ? '' : ` (scope ${scope})`}: ${problem.summary}`, pointer: valuePointer });
      return undefined;
    }
  }
  return { key, scope, pointer: p, valuePointer, value, secret, references: secret ? referencesAt(ctx, valuePointer) : [], fields };
}

/** What the service would refuse about a value (never quoting it): too long, or masked and not maskable. */
export function valueProblem(value: string, f: Pick<VariableFields, 'masked' | 'raw'>): { code: 'PLUMB_CI_VARIABLE_VALUE_TOO_LONG' | 'PLUMB_CI_VARIABLE_UNMASKABLE'; summary: string; suggestion: string } | undefined {
  if (value.length > VARIABLE_VALUE_MAX) {
    return { code: 'PLUMB_CI_VARIABLE_VALUE_TOO_LONG', summary: `the value is ${value.length} characters long; the service allows at most ${VARIABLE_VALUE_MAX}`, suggestion: 'store a longer value as a file elsewhere, or shorten it' };
  }
  if (f.masked && !maskable(value, f.raw)) {
    return {
      code: 'PLUMB_CI_VARIABLE_UNMASKABLE',
      summary: `the value cannot be masked: ${maskRuleText(f.raw)}`,
      suggestion: f.raw ? 'use a longer value without whitespace, or masked: false' : 'use a value the rules allow, raw: true (then only whitespace is refused), or masked: false',
    };
  }
  return undefined;
}

/** The `${env:…}`/`${file:…}` references written at a value (from its line of the source), for the plan's words. */
function referencesAt(ctx: Ctx, pointer: string): string[] {
  const l = ctx.sources.locations.get(pointer)?.value;
  const text = l ? ctx.sources.texts.get(l.file) : undefined;
  if (!l || text === undefined) return [];
  const lines = text.split('\n').slice(l.line - 1, (l.endLine ?? l.line));
  const found = lines.join('\n').slice(l.column - 1).match(/\$\{(?:env|file):[^}\s]*\}/g) ?? [];
  return [...new Set(found)];
}

function schema(): KindSchema {
  return { properties: variablesProperties(), definitions: { ci_variable: variableSchema(), ci_variable_scope: variableScopeSchema() } };
}

/** This kind's configuration side, carried by its registry entry (./index.ts). */
export const CI_VARIABLES_CONFIG: KindConfig = { kind: 'cicd_variable', pointers: VARIABLE_POINTERS, mount: { container: ['projects', 'groups'], keys: ['variables', 'prune_variables'] }, schema, resolve: resolveOwner, claims };

/** Every declared variable, as the one thing on the instance it writes (`KindConfig.claims`). */
function claims(instance: DesiredInstance): InstanceClaim[] {
  return variablesOf(instance).flatMap((o) =>
    o.variables.map((v) => ({ id: ciVariableClaim(instance.name, ownerNoun(o), o.ref, v.key, v.scope), pointer: v.pointer, what: describeVariable(o, v.key, v.scope), as: 'a variables: entry' })),
  );
}
