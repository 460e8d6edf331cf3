/**
 * A protected branch as a Terraform resource (`plumb_protected_branch`), on plumb's engine through
 * the provider's door (src/resources/terraform.ts): plan and apply are the engine's plan of the one
 * declared rule (a level change is the engine's replacement, and its risk an error at plan unless
 * the provider's `allow_risky` lists `protected-branch-replaced`); refresh and import read the
 * project's listing; destroy unprotects the branch.
 */
import { PROTECTED_BRANCH_SHAPE as SHAPE } from './shape.js';
import { ApiError, ApiNotFoundError } from '../../api/errors.js';
import type { Plan, ResourceChange } from '../../engine/plan.js';
import { UNKNOWN, applyFresh, containsUnknown, shapeParts } from '../terraform.js';
import type { ApplyResult, CtyValue, PathStep, PlanResult, TerraformDoor, TerraformPart, TfObject } from '../terraform.js';
import { deleteRule, listRules } from './api.js';
import type { LiveRule } from './api.js';
import { FLAG_FIELDS, LEVEL_FIELDS, levelWord } from './levels.js';
import { KIND } from './model.js';

const ATTRIBUTES = [...LEVEL_FIELDS, ...FLAG_FIELDS];

function ruleChanges(plan: Plan | undefined): ResourceChange[] {
  return (plan?.changes ?? []).filter((c) => c.kind === KIND && c.action !== 'no-op');
}

const idOf = (v: TfObject) => `${String(v.project)}:${String(v.branch)}`;

/** The rule as the instance holds it (undefined: not protected), or the read's problem. */
async function liveRule(door: TerraformDoor, project: string, branch: string): Promise<{ rule?: LiveRule; problem?: ApplyResult }> {
  const r = await door.read(async (ctx) => {
    try {
      return (await listRules(ctx.client, project)).find((x) => x.name === branch) ?? null;
    } catch (err) {
      if (err instanceof ApiError) return `Cannot read the protected branches of ${project}: ${err.message}`;
      throw err;
    }
  });
  if (typeof r.value === 'string') return { problem: { newState: null, diagnostics: [{ severity: 'error', summary: r.value, detail: `GET /projects/${project}/protected_branches` }] } };
  if (r.value === undefined) return { problem: { newState: null, diagnostics: r.diagnostics } };
  return r.value === null ? {} : { rule: r.value };
}

/** A live field as the resource holds it: levels by their words. */
function stateValue(rule: LiveRule, f: (typeof ATTRIBUTES)[number]): CtyValue {
  const v = rule[f];
  if (v === undefined) return null;
  return typeof v === 'number' ? levelWord(v) : v;
}

export const protectedBranchTerraform: TerraformPart = {
  ...shapeParts(SHAPE),
  mount: 'projects',
  computed: { id: { type: 'string', description: 'PROJECT:BRANCH.', description_kind: 'plain', computed: true } },

  document: (v) => (h) => {
    if (typeof v.project !== 'string' || typeof v.branch !== 'string') return {};
    return { projects: { [v.project]: { protected_branches: { [v.branch]: Object.fromEntries(ATTRIBUTES.filter((k) => h.known(v[k])).map((k) => [k, h.literal(v[k]!)])) } } } };
  },

  pathOf(rest): PathStep[] | undefined {
    // projects/<ref>/protected_branches/<branch>/<field>
    if (rest.length <= 2) return [{ attribute: 'project' }];
    if (rest.length <= 4) return rest.length === 4 ? [{ attribute: 'branch' }] : undefined;
    return [{ attribute: rest[4]! }];
  },

  async plan(door, prior, proposed, config): Promise<PlanResult> {
    const known = typeof config.project === 'string' && typeof config.branch === 'string';
    const planned: Record<string, CtyValue> = { ...proposed, id: known ? idOf(config) : UNKNOWN };
    const requiresReplace: PathStep[][] = prior ? this.identity.filter((k) => prior[k] !== proposed[k]).map((k) => [{ attribute: k }]) : [];
    if (containsUnknown(config) || requiresReplace.length > 0) return { planned, requiresReplace, diagnostics: [] };
    const { plan, diagnostics } = await door.plan(this.document(config));
    for (const c of ruleChanges(plan)) diagnostics.push(...door.riskDiagnostics(plan, c.address));
    return { planned, requiresReplace, diagnostics };
  },

  async apply(door, prior, planned, config): Promise<ApplyResult> {
    if (planned === null || config === null) {
      // Destroy: unprotect the branch (a rule already gone is what was asked).
      if (!prior || typeof prior.project !== 'string' || typeof prior.branch !== 'string') return { newState: null, diagnostics: [] };
      const { project, branch } = prior;
      const r = await door.read(async (ctx) => {
        try {
          await deleteRule(ctx.client, project, branch);
          return '';
        } catch (err) {
          if (err instanceof ApiNotFoundError && !/project not found/i.test(err.serverMessage ?? '')) return '';
          if (err instanceof ApiError) return `Cannot unprotect ${branch} of ${project}: ${err.message}`;
          throw err;
        }
      });
      if (r.value) return { newState: prior, diagnostics: [{ severity: 'error', summary: r.value, detail: `DELETE /projects/${project}/protected_branches/${branch}` }] };
      return { newState: r.value === undefined ? prior : null, diagnostics: r.diagnostics };
    }
    const { ok, diagnostics } = await applyFresh(door, this.document(config), ruleChanges);
    if (!ok) return { newState: prior, diagnostics };
    return { newState: { ...planned, id: idOf(config) }, diagnostics: diagnostics.filter((d) => d.severity === 'error') };
  },

  /** Refresh: each declared field as the instance holds it; gone → null (Terraform plans a create). */
  async read(door, current): Promise<ApplyResult> {
    if (typeof current.project !== 'string' || typeof current.branch !== 'string') return { newState: current, diagnostics: [] };
    const { rule, problem } = await liveRule(door, current.project, current.branch);
    if (problem) return { newState: current, diagnostics: problem.diagnostics };
    if (!rule) return { newState: null, diagnostics: [] };
    const state: Record<string, CtyValue> = { ...current, id: idOf(current) };
    for (const f of ATTRIBUTES) if (state[f] !== null && state[f] !== undefined) state[f] = stateValue(rule, f);
    return { newState: state, diagnostics: [] };
  },

  /** `PROJECT:BRANCH` (a project path has no colon; the branch may be a wildcard). */
  async importState(door, id): Promise<ApplyResult> {
    const m = /^([^:]+):(.+)$/.exec(id);
    if (!m) return { newState: null, diagnostics: [{ severity: 'error', summary: `Cannot import "${id}"`, detail: 'A protected branch is imported as PROJECT:BRANCH, e.g. platform/infra/config:main or platform/app:release/*.' }] };
    const { rule, problem } = await liveRule(door, m[1]!, m[2]!);
    if (problem) return problem;
    if (!rule) return { newState: null, diagnostics: [{ severity: 'error', summary: `Branch ${m[2]!} of ${m[1]!} is not protected`, detail: 'Check the project path and the branch name or wildcard, exactly as the project lists it (PROJECT:BRANCH).' }] };
    const state: Record<string, CtyValue> = { id, project: m[1]!, branch: m[2]! };
    for (const f of ATTRIBUTES) state[f] = stateValue(rule, f);
    return { newState: state, diagnostics: [] };
  },
};
