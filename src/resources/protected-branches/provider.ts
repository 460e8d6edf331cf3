/**
 * Protected branches as a resource: per declared project, one listing of its rules
 * (GET /projects/:id/protected_branches), compared with the declared rules by exact name:
 * - a rule the instance lacks is created (POST, the declared fields; the service's defaults fill the rest);
 * - a rule whose flags differ (`allow_force_push`, `code_owner_approval_required`) is updated in
 *   place (PATCH, the fields that differ);
 * - a rule whose push, merge or unprotect level differs is replaced: the update request does not
 *   take the levels (the free tier's has no `allowed_to_*` either), so apply unprotects the branch
 *   (DELETE) and protects it again at once (POST, the whole rule: the declared fields, the others as
 *   the instance had them). The plan shows the replacement and flags the moment in between, when
 *   the branch is unprotected, as a risk (`protected-branch-replaced`);
 * - a rule the configuration does not declare is left alone and reported, or removed (DELETE) with
 *   `prune_protected_branches: true`.
 * A field the instance does not return (the Premium fields, on the FOSS edition) is left alone with a warning.
 */
import { ApiError, ApiForbiddenError, ApiNotFoundError } from '../../api/errors.js';
import { joinPointer } from '../../config/pointer.js';
import { stateFingerprint } from '../../engine/fingerprint.js';
import type { AttributeChange, DriftEntry, PlanDiagnostic, PlanRisk, ResourceChange } from '../../engine/plan.js';
import type { ApplyResponse, DescribedAttribute, InstanceContext, PlannedBranchProtection, PlanResponse, ResourceProvider } from '../../engine/resource.js';
import { mergePlanResponses, planDiagnostic } from '../../engine/resource.js';
import { flagRisk } from '../../engine/risks.js';
import { distinctProjects } from '../../engine/same-project.js';
import { createRule, deleteRule, listRules, updateRule } from './api.js';
import type { CreateRule, LiveRule, UpdateRule } from './api.js';
import { PROTECTED_BRANCH_CODES } from './codes.js';
import { REPLACED_RISK } from './config.js';
import { FLAG_FIELDS, LEVEL_FIELDS, levelWord } from './levels.js';
import type { FlagField, Level, LevelField } from './levels.js';
import { KIND, protectedBranchesOf } from './model.js';
import type { DesiredProtection, ProtectedBranchesProject } from './model.js';
import { parseProtectedBranchPayload } from './payload.js';
import type { ProtectedBranchPayload } from './payload.js';
import { API_DEFAULTS } from './levels.js';
import { mayPush, protectionAfterApply, protectionOf } from './protection.js';
import type { RuleValues } from './protection.js';

type Field = LevelField | FlagField;
const FIELDS: readonly Field[] = [...LEVEL_FIELDS, ...FLAG_FIELDS];

export function projectAddress(instance: string, ref: string): string {
  return `${instance}.project[${JSON.stringify(ref)}]`;
}

export function protectedBranchAddress(instance: string, ref: string, name: string): string {
  return `${projectAddress(instance, ref)}.protected_branch[${JSON.stringify(name)}]`;
}

/** A field's value as plans show it: a level by its word. */
function shown(field: Field, v: Level | boolean | undefined): unknown {
  return v === undefined ? undefined : (LEVEL_FIELDS as readonly string[]).includes(field) ? levelWord(v as Level) : v;
}

/** What the plan compared for one rule: the rule as the instance holds it, or its absence. */
function ruleFingerprint(live: LiveRule | undefined): string {
  return stateFingerprint(live ?? { absent: true });
}

function pointerOfProject(project: ProtectedBranchesProject): string {
  return joinPointer(project.pointer, 'protected_branches');
}

/** What a refusal of the instance means, on the YAML line it is about. */
function refusal(ctx: InstanceContext, project: ProtectedBranchesProject, err: ApiError, address: string, call: string, pointer: string): PlanDiagnostic | undefined {
  const said = err.serverMessage ? ` (the instance said: ${err.serverMessage})` : '';
  if (err instanceof ApiNotFoundError && /project not found/i.test(err.serverMessage ?? '')) {
    return planDiagnostic(ctx, {
      severity: 'error',
      code: PROTECTED_BRANCH_CODES.PLUMB_PROTECTED_BRANCH_PROJECT_NOT_FOUND,
      summary: `Project "${project.ref}" does not exist on instance "${ctx.instance.name}", or plumb's token cannot see it`,
      detail: `${call} answered 404${said}.`,
      suggestion: 'check the project path (or numeric id), and that the token belongs to a member of the project or an administrator',
      address,
      pointer: project.pointer,
    });
  }
  if (err instanceof ApiForbiddenError) {
    return planDiagnostic(ctx, {
      severity: 'error',
      code: PROTECTED_BRANCH_CODES.PLUMB_PROTECTED_BRANCH_FORBIDDEN,
      summary: `plumb's token may not ${call.startsWith('GET') ? 'read' : 'change'} the protected branches of project "${project.ref}": it needs the Maintainer role there${call.startsWith('GET') ? '' : ' and the api scope'}`,
      detail: `${call} answered 403${said}.`,
      suggestion: `give the token's user the Maintainer role in "${project.ref}" (or use an administrator's token with the api scope)`,
      address,
      pointer,
    });
  }
  if (err.status !== undefined && err.status >= 400 && err.status < 500) {
    return planDiagnostic(ctx, {
      severity: 'error',
      code: PROTECTED_BRANCH_CODES.PLUMB_PROTECTED_BRANCH_REJECTED,
      summary: `The instance refused ${call}: ${err.serverMessage ?? `it answered ${err.status}`}`,
      detail: `${call} answered ${err.status}.`,
      suggestion: 'fix the rule in the configuration, or run `plumb plan` to see what the instance holds now',
      address,
      pointer,
    });
  }
  return undefined;
}

interface ProjectPlan {
  readonly changes: ResourceChange[];
  readonly drift: DriftEntry[];
  readonly diagnostics: PlanDiagnostic[];
  readonly risks: PlanRisk[];
}

/** The declared fields the instance returns; the others are reported and left alone. */
function comparable(ctx: InstanceContext, project: ProtectedBranchesProject, d: DesiredProtection, live: LiveRule, address: string, out: ProjectPlan): Field[] {
  const fields: Field[] = [];
  for (const f of FIELDS) {
    if (d[f] === undefined) continue;
    if (live[f] !== undefined) {
      fields.push(f);
      continue;
    }
    out.diagnostics.push(
      planDiagnostic(ctx, {
        severity: 'warning',
        code: PROTECTED_BRANCH_CODES.PLUMB_PROTECTED_BRANCH_FIELD_NOT_RETURNED,
        summary: `The instance does not return ${f} for protected branch "${d.name}" of project "${project.ref}"; plumb leaves it alone`,
        detail: 'unprotect_access_level and code_owner_approval_required are Premium fields: the FOSS edition neither returns nor takes them.',
        suggestion: 'remove it from the configuration for this instance',
        address,
        pointer: joinPointer(d.pointer, f),
      }),
    );
  }
  return fields;
}

/** The whole rule a replacement creates: every declared field, the others as the instance has them. */
function wholeRule(d: DesiredProtection, live: LiveRule): CreateRule {
  const rule: Record<string, unknown> = { name: d.name };
  for (const f of FIELDS) {
    const v = d[f] !== undefined && live[f] !== undefined ? d[f] : live[f];
    if (v !== undefined) rule[f] = v;
  }
  return rule as unknown as CreateRule;
}

function planRule(ctx: InstanceContext, project: ProtectedBranchesProject, d: DesiredProtection, live: LiveRule | undefined, out: ProjectPlan): void {
  const { instance } = ctx;
  const address = protectedBranchAddress(instance.name, project.ref, d.name);
  const base = { address, instance: instance.name, kind: KIND, pointer: d.pointer, liveFingerprint: ruleFingerprint(live) };
  if (!live) {
    const rule: Record<string, unknown> = { name: d.name };
    for (const f of FIELDS) if (d[f] !== undefined) rule[f] = d[f];
    out.changes.push({
      ...base,
      action: 'create',
      reasons: ['missing-in-live'],
      attributes: FIELDS.filter((f) => d[f] !== undefined).map((f) => ({ name: f, after: shown(f, d[f]) })),
      payload: { type: 'create', project: project.ref, rule: rule as unknown as CreateRule } satisfies ProtectedBranchPayload,
    });
    return;
  }
  const fields = comparable(ctx, project, d, live, address, out);
  const differs = fields.filter((f) => d[f] !== live[f]);
  if (differs.length === 0) {
    out.changes.push({ ...base, action: 'no-op', reasons: [], attributes: [], payload: { type: 'none', project: project.ref, name: d.name } satisfies ProtectedBranchPayload });
    return;
  }
  const changed: AttributeChange[] = differs.map((f) => ({ name: f, before: shown(f, live[f]), after: shown(f, d[f]) }));
  out.drift.push({
    address,
    instance: instance.name,
    kind: KIND,
    summary: `protected branch "${d.name}" of project "${project.ref}": ${differs.map((f) => `${f} is ${String(shown(f, live[f]))}, declared ${String(shown(f, d[f]))}`).join('; ')}`,
    attributes: changed,
  });
  const levels = differs.filter((f): f is LevelField => (LEVEL_FIELDS as readonly string[]).includes(f));
  if (levels.length > 0) {
    const rule = wholeRule(d, live);
    const kept = FIELDS.filter((f) => !differs.includes(f) && rule[f] !== undefined).map((f): AttributeChange => ({ name: f, before: shown(f, live[f]), after: shown(f, rule[f]) }));
    out.changes.push({
      ...base,
      action: 'replace',
      reasons: ['level-changed', ...(levels.length < differs.length ? ['field-changed'] : [])],
      attributes: [...changed, ...kept],
      payload: { type: 'replace', project: project.ref, rule } satisfies ProtectedBranchPayload,
    });
    out.risks.push(
      flagRisk<typeof REPLACED_RISK>(ctx, {
        id: REPLACED_RISK,
        address,
        summary: `${levels.join(' and ')} of protected branch "${d.name}" of project "${project.ref}" cannot change in place: apply unprotects the branch and protects it again, and in between anyone with the Developer role may push or force-push to it`,
        pointer: joinPointer(d.pointer, levels[0]!),
      }),
    );
    return;
  }
  const set: Record<string, boolean> = {};
  for (const f of differs) set[f] = d[f] as boolean;
  out.changes.push({ ...base, action: 'update', reasons: ['field-changed'], attributes: changed, payload: { type: 'update', project: project.ref, name: d.name, set: set as UpdateRule } satisfies ProtectedBranchPayload });
}

async function planProject(ctx: InstanceContext, project: ProtectedBranchesProject): Promise<ProjectPlan> {
  const out: ProjectPlan = { changes: [], drift: [], diagnostics: [], risks: [] };
  const { instance } = ctx;
  const call = `GET /projects/${project.ref}/protected_branches`;
  let live: LiveRule[];
  try {
    live = await rulesOf(ctx, project.ref);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const d = refusal(ctx, project, err, projectAddress(instance.name, project.ref), call, pointerOfProject(project));
    if (!d) throw err;
    out.diagnostics.push(d);
    return out;
  }
  const byName = new Map(live.map((r) => [r.name, r]));
  for (const d of project.protections) {
    if (!ctx.targets.targeted(protectedBranchAddress(instance.name, project.ref, d.name))) continue;
    planRule(ctx, project, d, byName.get(d.name), out);
  }
  const declared = new Set(project.protections.map((d) => d.name));
  for (const rule of live) {
    if (declared.has(rule.name)) continue;
    const address = protectedBranchAddress(instance.name, project.ref, rule.name);
    if (!ctx.targets.targeted(address)) continue;
    const before: AttributeChange[] = FIELDS.filter((f) => rule[f] !== undefined).map((f) => ({ name: f, before: shown(f, rule[f]) }));
    if (!project.prune) {
      out.drift.push({ address, instance: instance.name, kind: KIND, summary: `protected branch "${rule.name}" of project "${project.ref}" is not declared; left as it is (prune_protected_branches: true would unprotect it)`, attributes: before, informational: true });
      continue;
    }
    out.changes.push({
      address,
      instance: instance.name,
      kind: KIND,
      action: 'delete',
      reasons: ['not-in-config'],
      attributes: before,
      pointer: joinPointer(project.pointer, 'prune_protected_branches'),
      payload: { type: 'delete', project: project.ref, name: rule.name } satisfies ProtectedBranchPayload,
      liveFingerprint: ruleFingerprint(rule),
    });
  }
  return out;
}

function declaredProjects(ctx: Pick<InstanceContext, 'instance'>): ProtectedBranchesProject[] {
  return [...protectedBranchesOf(ctx.instance)];
}

function nameOf(p: ProtectedBranchPayload): string {
  return p.type === 'create' || p.type === 'replace' ? p.rule.name : p.name;
}

/** The fields a rule the instance answered with does not hold as sent (read-back); fields it does not return are not compared. */
function missed(sent: Partial<Record<Field, Level | boolean>>, got: LiveRule): Field[] {
  return FIELDS.filter((f) => sent[f] !== undefined && got[f] !== undefined && got[f] !== sent[f]);
}

function notApplied(ctx: InstanceContext, project: ProtectedBranchesProject | undefined, change: ResourceChange, call: string, fields: readonly Field[], got: LiveRule): PlanDiagnostic {
  return planDiagnostic(ctx, {
    severity: 'error',
    code: PROTECTED_BRANCH_CODES.PLUMB_PROTECTED_BRANCH_NOT_APPLIED,
    summary: `${call} was accepted, but the instance holds ${fields.map((f) => `${f} = ${String(shown(f, got[f]))}`).join(', ')} for protected branch "${got.name}"`,
    detail: fields.includes('code_owner_approval_required') ? 'Code-owner approval is a Premium feature: an instance without the licence ignores it.' : undefined,
    suggestion: 'run `plumb plan` to see what the instance holds; remove the field from the configuration if this instance cannot hold it',
    address: change.address,
    pointer: change.pointer ?? project?.pointer,
  });
}

async function applyChange(ctx: InstanceContext, change: ResourceChange, payload: ProtectedBranchPayload): Promise<ApplyResponse> {
  const project = declaredProjects(ctx).find((p) => p.ref === payload.project);
  const name = nameOf(payload);
  const fail = (err: unknown, call: string, extra = ''): ApplyResponse => {
    if (!(err instanceof ApiError)) throw err;
    const d = project ? refusal(ctx, project, err, change.address, call, change.pointer ?? project.pointer) : undefined;
    if (!d) throw err;
    return { applied: false, diagnostics: [extra ? { ...d, summary: `${d.summary}${extra}` } : d], notes: [] };
  };
  switch (payload.type) {
    case 'none':
      return { applied: false, diagnostics: [], notes: ['nothing to do'] };
    case 'delete': {
      const call = `DELETE /projects/${payload.project}/protected_branches/${name}`;
      try {
        await deleteRule(ctx.client, payload.project, name);
      } catch (err) {
        // Already gone (removed by hand since the plan, or a retried request): what was asked holds.
        if (err instanceof ApiNotFoundError && !/project not found/i.test(err.serverMessage ?? '')) return { applied: true, diagnostics: [], notes: [`${call} answered 404: the branch was already unprotected`] };
        return fail(err, call);
      }
      return { applied: true, diagnostics: [], notes: ['unprotected'] };
    }
    case 'update': {
      const call = `PATCH /projects/${payload.project}/protected_branches/${name}`;
      try {
        const got = await updateRule(ctx.client, payload.project, name, payload.set);
        const wrong = missed(payload.set, got);
        if (wrong.length > 0) return { applied: false, diagnostics: [notApplied(ctx, project, change, call, wrong, got)], notes: [] };
        return { applied: true, diagnostics: [], notes: [`updated ${Object.keys(payload.set).join(', ')} in one request`] };
      } catch (err) {
        return fail(err, call);
      }
    }
    case 'create':
    case 'replace': {
      if (payload.type === 'replace') {
        const call = `DELETE /projects/${payload.project}/protected_branches/${name}`;
        try {
          await deleteRule(ctx.client, payload.project, name);
        } catch (err) {
          if (!(err instanceof ApiNotFoundError) || /project not found/i.test(err.serverMessage ?? '')) return fail(err, call, ' (nothing was changed: the branch is protected as before)');
        }
      }
      const call = `POST /projects/${payload.project}/protected_branches`;
      try {
        const got = await createRule(ctx.client, payload.project, payload.rule);
        const wrong = missed(payload.rule, got);
        if (wrong.length > 0) return { applied: false, diagnostics: [notApplied(ctx, project, change, call, wrong, got)], notes: [] };
        return { applied: true, diagnostics: [], notes: [payload.type === 'replace' ? 'unprotected and protected again with the declared levels' : 'protected'] };
      } catch (err) {
        // After the DELETE of a replacement, a failed POST leaves the branch unprotected: say so first.
        return fail(err, call, payload.type === 'replace' ? `; the branch "${name}" is UNPROTECTED now (the replacement removed its rule first): run apply again, or protect it by hand` : '');
      }
    }
  }
}

/** A project's rules as the instance holds them: one listing per plan, shared by the plan and the fact below. */
function rulesOf(ctx: InstanceContext, ref: string): Promise<LiveRule[]> {
  return ctx.memo.session.get(`protected-branches:rules:${ref}`, () => listRules(ctx.client, ref));
}

/** A live rule whole: the Premium fields the instance does not return as the service's defaults (they decide no push). */
function ruleValues(r: LiveRule): RuleValues {
  return { ...r, unprotect_access_level: r.unprotect_access_level ?? API_DEFAULTS.unprotect_access_level, code_owner_approval_required: r.code_owner_approval_required ?? false };
}

/**
 * The fact `branchProtectionAfterApply` (engine/resource.ts `KindFacts`): the protection a branch of
 * a declared project has once this plan is applied (./protection.ts `protectionAfterApply`, from the
 * project's rules as the plan listed them and the rules `--target` selects), where that moves its
 * push rights; undefined where the configuration declares nothing for the project, and where it
 * leaves the branch's push rights as they are. Where the rules cannot be read (this kind's plan
 * reports why), the declared rules alone answer for a branch they protect.
 */
async function branchProtectionAfterApply(ctx: InstanceContext, ref: string, branch: string): Promise<PlannedBranchProtection | undefined> {
  const project = protectedBranchesOf(ctx.instance).find((p) => p.ref === ref);
  if (!project || !ctx.targets.within(projectAddress(ctx.instance.name, ref))) return undefined;
  const address = (name: string) => protectedBranchAddress(ctx.instance.name, ref, name);
  const applies = (name: string) => ctx.targets.targeted(address(name));
  let live: RuleValues[] | undefined;
  try {
    live = (await rulesOf(ctx, ref)).map(ruleValues);
  } catch {
    live = undefined; // this kind's plan reports why; the declared rules alone say what the configuration guarantees
  }
  const now = live && protectionOf(live, branch);
  const after = protectionAfterApply(project, branch, live, applies);
  if (now ? now.protected === after.protected && now.push_access_level === after.push_access_level : !after.protected) return undefined;
  const declared = new Map(project.protections.filter((d) => applies(d.name)).map((d) => [d.name, d.pointer]));
  return {
    protected: after.protected,
    pushAccessLevel: after.push_access_level,
    allowsPush: (role) => mayPush(after, role),
    rules: after.rules.map((name) => ({ name, ...(declared.has(name) && { pointer: declared.get(name)! }) })),
    madeBy: [...new Set([...(now?.rules ?? []), ...after.rules])].map(address),
  };
}

export const protectedBranchesProvider: ResourceProvider<ProtectedBranchPayload> = {
  kind: KIND,

  declares(instance) {
    return protectedBranchesOf(instance).length > 0;
  },

  async plan(ctx): Promise<PlanResponse> {
    // One listing per project, all at once (the client bounds the concurrency).
    const selected = declaredProjects(ctx).filter((p) => ctx.targets.within(projectAddress(ctx.instance.name, p.ref)));
    // A project declared under two names (id and path) is planned under neither.
    const { distinct, diagnostics: duplicates } = await distinctProjects(ctx, selected, 'protected branches', pointerOfProject);
    const perProject = await Promise.all(distinct.map((p) => planProject(ctx, p)));
    return mergePlanResponses(perProject, duplicates);
  },

  parsePayload: parseProtectedBranchPayload,

  /** A payload as a plan shows it: the fields the request sends, levels by their words. */
  describePayload(instance, p) {
    const addresses = [protectedBranchAddress(instance, p.project, nameOf(p))];
    if (p.type === 'none') return { addresses, action: 'no-op', attributes: [] };
    if (p.type === 'delete') return { addresses, action: 'delete', attributes: [], cosmetic: [...FIELDS] };
    const sent: Partial<Record<Field, Level | boolean>> = p.type === 'update' ? p.set : p.rule;
    const attributes: DescribedAttribute[] = FIELDS.filter((f) => sent[f] !== undefined).map((f) => ({ name: f, after: shown(f, sent[f]), required: true }));
    return { addresses, action: p.type, attributes };
  },

  async liveFingerprint(ctx, _change, payload) {
    const rules = await listRules(ctx.client, payload.project);
    return ruleFingerprint(rules.find((r) => r.name === nameOf(payload)));
  },

  apply: applyChange,

  facts: { branchProtectionAfterApply },
};
