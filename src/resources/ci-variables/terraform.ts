/**
 * CI/CD variables as Terraform resources (`plumb_project_variable`, `plumb_group_variable`: ./shape.ts),
 * one per key and environment scope, on plumb's engine through the provider's door
 * (src/resources/terraform.ts). The value is write-only: Terraform never stores it; plumb compares
 * it (./plan.ts) and a change of it shows through `write_only_revision`.
 */
import { randomBytes } from 'node:crypto';
import { listVariables } from '../../api/variables.js';
import { ApiError } from '../../api/errors.js';
import type { Plan, ResourceChange } from '../../engine/plan.js';
import { UNKNOWN, containsUnknown, applyFresh, describeChange, isUnknown, shapeParts } from '../terraform.js';
import type { ApplyResult, CtyValue, PathStep, PlanResult, TerraformPart, TfJsonAttribute, TfObject } from '../terraform.js';
import { CI_VARIABLE_REASONS } from './reasons.js';
import { KIND, apiOwner, variableAddress } from './model.js';
import { GROUP_VARIABLE_SHAPE, PROJECT_VARIABLE_SHAPE } from './shape.js';
import { VARIABLE_FIELDS_COMPARED, liveField } from './plan.js';

const FIELDS = ['value', 'variable_type', 'protected', 'masked', 'masked_and_hidden', 'raw', 'description'] as const;
/** A change that writes the value (Terraform sees it only through write_only_revision); a change of fields alone does not. */
const sendsValue = (c: ResourceChange): boolean => c.action !== 'update' || c.attributes.some((a) => a.name === 'value');
const computed = (description: string): TfJsonAttribute => ({ type: 'string', description, description_kind: 'plain', computed: true });

function part(container: 'projects' | 'groups'): TerraformPart {
  const SHAPE = container === 'projects' ? PROJECT_VARIABLE_SHAPE : GROUP_VARIABLE_SHAPE;
  const owner = container === 'projects' ? 'project' : 'group';
  const scopeOf = (v: TfObject): string => (typeof v.environment_scope === 'string' ? v.environment_scope : '*');
  const idOf = (v: TfObject): string => `${String(v[owner])}:${String(v.key)}:${scopeOf(v)}`;
  const changesOf = (plan: Plan | undefined, v: TfObject): ResourceChange[] => {
    const suffix = variableAddress('', { container, ref: String(v[owner]) }, String(v.key), scopeOf(v));
    return (plan?.changes ?? []).filter((c) => c.kind === KIND && c.action !== 'no-op' && c.address.endsWith(suffix));
  };
  const withoutValue = (v: TfObject): Record<string, CtyValue> => ({ ...v, value: null });

  return {
    ...shapeParts(SHAPE),
    mount: container,
    computed: {
      id: computed(`"${owner}:key:environment_scope".`),
      write_only_revision: computed('Changes whenever plumb sends the value (it compares it with the instance\'s, or a hidden one through a salted fingerprint in its state); never the value, nor a hash of it.'),
    },
    editAttribute: (name, a) => (name === 'value' ? { ...a, sensitive: true, write_only: true } : a),

    document: (v) => (h) => {
      if (typeof v[owner] !== 'string' || typeof v.key !== 'string') return {};
      const fields: Record<string, unknown> = {};
      for (const k of FIELDS) if (h.known(v[k])) fields[k] = k === 'value' && typeof v.value === 'string' ? h.secret(v.value) : h.literal(v[k]!);
      return { [container]: { [v[owner]]: { variables: { [v.key]: { scopes: { [scopeOf(v)]: fields } } } } } };
    },

    pathOf(rest): PathStep[] | undefined {
      // <container>/<ref>/variables/<key>/scopes/<scope>/<field>
      if (rest.length <= 2) return [{ attribute: owner }];
      if (rest.length <= 4) return [{ attribute: 'key' }];
      if (rest.length <= 6) return [{ attribute: 'environment_scope' }];
      return rest.slice(6).map((seg) => ({ attribute: seg }));
    },

    // The fingerprint of the value plumb wrote, keyed by the variable's address.
    ownsStateEntry: (section, key, _entry, values) => section === 'ci_variables' && typeof values[owner] === 'string' && typeof values.key === 'string' && key.endsWith(variableAddress('', { container, ref: values[owner] }, values.key, scopeOf(values))),

    async plan(door, prior, proposed, config): Promise<PlanResult> {
      const planned: Record<string, CtyValue> = { ...withoutValue(proposed), environment_scope: scopeOf(proposed), id: typeof config[owner] === 'string' && typeof config.key === 'string' ? idOf(config) : UNKNOWN };
      planned.write_only_revision = prior?.write_only_revision ?? UNKNOWN;
      const requiresReplace: PathStep[][] = prior ? [owner, 'key', 'environment_scope'].filter((k) => k === 'environment_scope' ? scopeOf(prior) !== scopeOf(proposed) : prior[k] !== proposed[k]).map((k) => [{ attribute: k }]) : [];
      if (containsUnknown(config) || requiresReplace.length > 0) return { planned: { ...planned, write_only_revision: UNKNOWN }, requiresReplace, diagnostics: [] };
      const { plan, diagnostics } = await door.plan(this.document(config));
      for (const c of changesOf(plan, config)) {
        if (sendsValue(c)) planned.write_only_revision = UNKNOWN;
        if (c.attributes.some((a) => a.name === 'value')) diagnostics.push({ severity: 'warning', summary: `plumb will send the value of ${c.address}`, detail: `${describeChange(c, CI_VARIABLE_REASONS)}. The value is never stored in Terraform's state.` });
      }
      return { planned, requiresReplace, diagnostics };
    },

    async apply(door, prior, planned, config): Promise<ApplyResult> {
      // Destroy stops managing the variable; it stays on the instance (said at plan).
      if (planned === null || config === null) return { newState: null, diagnostics: [] };
      const { ok, applied, diagnostics } = await applyFresh(door, this.document(config), (plan) => changesOf(plan, config));
      if (!ok) return { newState: prior, diagnostics };
      const state: Record<string, CtyValue> = { ...withoutValue(planned), id: idOf(config), environment_scope: scopeOf(config), write_only_revision: prior?.write_only_revision ?? 'none' };
      if (applied.some(sendsValue)) state.write_only_revision = randomBytes(8).toString('hex');
      if (isUnknown(state.write_only_revision)) state.write_only_revision = 'none';
      return { newState: state, diagnostics: diagnostics.filter((d) => d.severity === 'error') };
    },

    async planDestroy(_door, prior) {
      return [{ severity: 'warning', summary: `The variable ${String(prior.key)} of ${owner} ${String(prior[owner])} will be left as it is`, detail: `Destroying ${SHAPE.type} stops managing it; the variable stays. To delete it, declare prune_variables in plumb's YAML, or delete it on the instance.` }];
    },

    /** Refresh: the declared fields as the engine's plan finds them; a variable deleted on the instance is gone. */
    async read(door, current): Promise<ApplyResult> {
      if (typeof current[owner] !== 'string' || typeof current.key !== 'string') return { newState: current, diagnostics: [] };
      const r = await door.read(async (ctx) => {
        try {
          return (await listVariables(ctx.client, apiOwner({ container, ref: current[owner] as string }))).find((l) => l.key === current.key && l.environment_scope === scopeOf(current)) ?? null;
        } catch (err) {
          if (err instanceof ApiError) return `Cannot read the variables of ${owner} ${String(current[owner])}: ${err.message}`;
          throw err;
        }
      });
      if (typeof r.value === 'string') return { newState: current, diagnostics: [{ severity: 'error', summary: r.value, detail: `GET /${container}/${String(current[owner])}/variables` }] };
      if (r.value === null) return { newState: null, diagnostics: [] };
      if (r.value === undefined) return { newState: current, diagnostics: r.diagnostics };
      const live = r.value;
      const state: Record<string, CtyValue> = { ...current };
      for (const f of VARIABLE_FIELDS_COMPARED) if (f in state && state[f] !== null) state[f] = liveField(live, f);
      if (state.masked_and_hidden !== null && state.masked_and_hidden !== undefined) state.masked_and_hidden = live.hidden === true || live.value === null;
      return { newState: state, diagnostics: [] };
    },

    /** By `OWNER:KEY` or `OWNER:KEY:SCOPE` (the owner's full path or id): every field but the value (never read into Terraform). */
    async importState(door, id): Promise<ApplyResult> {
      const m = /^(.+):([A-Za-z0-9_]+)(?::([^:]+))?$/.exec(id);
      if (!m) return { newState: null, diagnostics: [{ severity: 'error', summary: `Cannot import "${id}"`, detail: `Give ${owner}:KEY or ${owner}:KEY:SCOPE, e.g. platform/app:DEPLOY_KEY:production.` }] };
      const [, ref, key, scope = '*'] = m as unknown as [string, string, string, string | undefined];
      const r = await door.read(async (ctx) => (await listVariables(ctx.client, apiOwner({ container, ref }))).find((l) => l.key === key && l.environment_scope === scope));
      const live = r.value;
      if (!live) return { newState: null, diagnostics: r.diagnostics.length > 0 ? r.diagnostics : [{ severity: 'error', summary: `${owner} ${ref} has no variable ${key} in scope ${scope}`, detail: `GET /${container}/${ref}/variables` }] };
      const state: Record<string, CtyValue> = { id: `${ref}:${key}:${scope}`, [owner]: ref, key, environment_scope: scope, value: null, write_only_revision: 'none', masked_and_hidden: live.hidden === true || live.value === null };
      for (const f of VARIABLE_FIELDS_COMPARED) state[f] = liveField(live, f);
      return { newState: state, diagnostics: [] };
    },
  };
}

export const projectVariableTerraform: TerraformPart = part('projects');
export const groupVariableTerraform: TerraformPart = part('groups');
