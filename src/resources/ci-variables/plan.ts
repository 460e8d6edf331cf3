/**
 * Planning CI/CD variables: one listing (all pages) per declared project or group, each declared
 * variable compared by key and environment scope. Values are never shown: a readable value is
 * compared in memory with the declared one; a hidden variable's value (never returned) through the
 * salted fingerprint of what plumb last wrote (./state.ts), and without one it is sent again to be
 * sure. A difference while the state says plumb wrote the declared value is an edit by hand: drift,
 * named (`project platform/app variable DEPLOY_KEY (scope production)`).
 */
import { listVariables } from '../../api/variables.js';
import type { CiVariable } from '../../api/variables.js';
import { ApiError, ApiForbiddenError, ApiNotFoundError } from '../../api/errors.js';
import { fingerprintSecret, matchesFingerprint, stateFingerprint } from '../../engine/fingerprint.js';
import { ciVariableClaim } from '../../catalogue/ci-variables.js';
import type { AttributeChange, DriftEntry, PlanDiagnostic, Reason, ResourceChange } from '../../engine/plan.js';
import type { InstanceContext, PlanResponse } from '../../engine/resource.js';
import { mergePlanResponses, planDiagnostic } from '../../engine/resource.js';
import { valueProblem } from './config.js';
import { KIND, apiOwner, describeVariable, ownerAddress, ownerNoun, variableAddress, variablesOf } from './model.js';
import type { DesiredVariable, VariableFields, VariablesOwner } from './model.js';
import type { VariablePayload, VariableSet } from './payload.js';
import { writtenFingerprint } from './state.js';

/** The fields compared besides the value, in the order a plan shows them. */
export const VARIABLE_FIELDS_COMPARED = ['variable_type', 'protected', 'masked', 'raw', 'description'] as const;
type Compared = (typeof VARIABLE_FIELDS_COMPARED)[number];

/** How a plan shows a value it never shows. */
export const NOT_SHOWN = '(not shown)';
const shownValue = (v: DesiredVariable): string => (v.references.length > 0 ? `(secret from ${v.references.join(', ')})` : v.secret ? '(secret)' : '(new value, not shown)');

/** A live field as compared (a description the service holds as null is empty). */
export function liveField(live: CiVariable, f: Compared): string | boolean {
  return f === 'description' ? (live.description ?? '') : live[f];
}

export const isHidden = (live: CiVariable): boolean => live.hidden === true || live.value === null;

/** What a change was planned against, without the value: the fields, and whether the value held the declared one. */
export function variableFingerprint(live: CiVariable | undefined, holdsValue: boolean | undefined): string {
  if (!live) return stateFingerprint({ absent: true });
  return stateFingerprint({ fields: Object.fromEntries(VARIABLE_FIELDS_COMPARED.map((f) => [f, liveField(live, f)])), hidden: isHidden(live), holdsValue: holdsValue ?? null });
}

export const liveKey = (key: string, scope: string): string => JSON.stringify([key, scope]);

interface OwnerPlan {
  readonly changes: ResourceChange[];
  readonly drift: DriftEntry[];
  readonly diagnostics: PlanDiagnostic[];
}

/** A refusal of the listing, on the owner's line. */
export function ownerRefusal(ctx: InstanceContext, owner: VariablesOwner, err: ApiError, call: string, address: string): PlanDiagnostic | undefined {
  const noun = ownerNoun(owner);
  const said = err.serverMessage ? ` (the instance said: ${err.serverMessage})` : '';
  if (err instanceof ApiNotFoundError) {
    return planDiagnostic(ctx, {
      severity: 'error',
      code: 'PLUMB_CI_VARIABLE_OWNER_NOT_FOUND',
      summary: `${noun === 'project' ? 'Project' : 'Group'} "${owner.ref}" does not exist on instance "${ctx.instance.name}", or plumb's token cannot see it`,
      detail: `${call} answered 404${said}.`,
      suggestion: `check the ${noun} path (or numeric id), and that the token's user is a member or an administrator`,
      address,
      pointer: owner.pointer,
    });
  }
  if (err instanceof ApiForbiddenError) {
    return planDiagnostic(ctx, {
      severity: 'error',
      code: 'PLUMB_CI_VARIABLE_FORBIDDEN',
      summary: `plumb's token may not manage the CI/CD variables of ${noun} "${owner.ref}": it needs ${noun === 'project' ? 'the Maintainer role in the project' : 'the Owner role in the group'} (or an administrator), and the api scope`,
      detail: `${call} answered 403${said}.`,
      suggestion: `give the token's user ${noun === 'project' ? 'Maintainer' : 'Owner'} in "${owner.ref}", or use an administrator's token`,
      address,
      pointer: owner.pointer,
    });
  }
  return undefined;
}

export async function planOwner(ctx: InstanceContext, owner: VariablesOwner): Promise<OwnerPlan> {
  const out: OwnerPlan = { changes: [], drift: [], diagnostics: [] };
  const inst = ctx.instance.name;
  const base = ownerAddress(inst, owner);
  const selected = owner.variables.filter((v) => ctx.targets.targeted(variableAddress(inst, owner, v.key, v.scope)));
  if (selected.length === 0 && !(owner.prune && ctx.targets.within(base))) return out;

  // A secret value is checked here (a literal one was at validate), never quoted.
  const usable: DesiredVariable[] = [];
  for (const v of selected) {
    const problem = v.secret ? valueProblem(v.value, v.fields) : undefined;
    if (!problem) {
      usable.push(v);
      continue;
    }
    out.diagnostics.push(
      planDiagnostic(ctx, { severity: 'error', code: problem.code, summary: `Variable "${v.key}"${v.scope === '*' ? '' : ` (scope ${v.scope})`} of ${ownerNoun(owner)} "${owner.ref}": ${problem.summary}`, suggestion: problem.suggestion, address: variableAddress(inst, owner, v.key, v.scope), pointer: v.valuePointer }),
    );
  }
  if (out.diagnostics.length > 0) return out;

  const call = `GET /${owner.container}/${owner.ref}/variables`;
  let live: CiVariable[];
  try {
    live = await listVariables(ctx.client, apiOwner(owner));
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const d = ownerRefusal(ctx, owner, err, call, base);
    if (!d) throw err;
    out.diagnostics.push(d);
    return out;
  }
  const byKey = new Map(live.map((l) => [liveKey(l.key, l.environment_scope), l]));
  const results = await Promise.all(usable.map((v) => planVariable(ctx, owner, v, byKey.get(liveKey(v.key, v.scope)))));
  for (const r of results) {
    if (r.change) out.changes.push(r.change);
    if (r.drift) out.drift.push(r.drift);
  }
  if (owner.prune) {
    const declared = new Set(owner.variables.map((v) => liveKey(v.key, v.scope)));
    for (const l of live) {
      if (declared.has(liveKey(l.key, l.environment_scope))) continue;
      // Written by another kind (a token's ci_variable sink): not this kind's to delete.
      const other = ctx.instance.claims?.get(ciVariableClaim(inst, ownerNoun(owner), owner.ref, l.key, l.environment_scope));
      if (other !== undefined && other !== KIND) continue;
      const address = variableAddress(inst, owner, l.key, l.environment_scope);
      if (!ctx.targets.targeted(address)) continue;
      out.changes.push({
        address,
        instance: inst,
        kind: KIND,
        action: 'delete',
        reasons: ['variable-pruned'],
        attributes: [{ name: 'environment_scope', before: l.environment_scope }, ...VARIABLE_FIELDS_COMPARED.map((f) => ({ name: f, before: liveField(l, f) }))],
        pointer: owner.pointer,
        payload: { type: 'delete', container: owner.container, ref: owner.ref, key: l.key, scope: l.environment_scope } satisfies VariablePayload,
        liveFingerprint: variableFingerprint(l, undefined),
      });
    }
  }
  return out;
}

async function planVariable(ctx: InstanceContext, owner: VariablesOwner, v: DesiredVariable, live: CiVariable | undefined): Promise<{ change?: ResourceChange; drift?: DriftEntry }> {
  const inst = ctx.instance.name;
  const address = variableAddress(inst, owner, v.key, v.scope);
  const recorded = writtenFingerprint(ctx.state, ctx.instance.url, address);
  const common = { address, instance: inst, kind: KIND, pointer: v.pointer } as const;
  const ids = { container: owner.container, ref: owner.ref, key: v.key, scope: v.scope } as const;
  const valueAttr = (before: string | undefined, writeOnly = false): AttributeChange => ({ name: 'value', ...(before !== undefined && { before }), after: shownValue(v), sensitive: true, ...(writeOnly && { writeOnly: true }) });

  if (!live) {
    const attributes: AttributeChange[] = [valueAttr(undefined), ...(v.scope === '*' ? [] : [{ name: 'environment_scope', after: v.scope }]), ...fieldsShown(v.fields)];
    const change: ResourceChange = {
      ...common,
      action: 'create',
      reasons: ['variable-absent'],
      attributes,
      payload: { type: 'create', ...ids, set: fullSet(v.fields), hidden: v.fields.masked_and_hidden, value: { pointer: v.valuePointer, ...(await fingerprintSecret(v.value)) } } satisfies VariablePayload,
      liveFingerprint: variableFingerprint(undefined, undefined),
    };
    // plumb wrote it before: someone deleted it.
    const drift: DriftEntry | undefined = recorded ? { address, instance: inst, kind: KIND, summary: `${describeVariable(owner, v.key, v.scope)} was deleted on the instance`, attributes: [{ name: 'value', before: undefined, after: NOT_SHOWN, sensitive: true }] } : undefined;
    return { change, ...(drift && { drift }) };
  }

  const hidden = isHidden(live);
  // masked_and_hidden is set at creation only (and a hidden variable cannot be unmasked): delete and create again.
  if (hidden !== v.fields.masked_and_hidden) {
    const change: ResourceChange = {
      ...common,
      action: 'replace',
      reasons: ['variable-hidden-changed'],
      attributes: [{ name: 'masked_and_hidden', before: hidden, after: v.fields.masked_and_hidden }, valueAttr(hidden ? undefined : NOT_SHOWN, hidden), ...VARIABLE_FIELDS_COMPARED.map((f) => ({ name: f, before: liveField(live, f), after: v.fields[f] }))],
      payload: { type: 'replace', ...ids, set: fullSet(v.fields), hidden: v.fields.masked_and_hidden, value: { pointer: v.valuePointer, ...(await fingerprintSecret(v.value)) } } satisfies VariablePayload,
      liveFingerprint: variableFingerprint(live, hidden ? undefined : live.value === v.value),
    };
    return { change };
  }

  const set: { -readonly [K in keyof VariableSet]: VariableSet[K] } = {};
  const attributes: AttributeChange[] = [];
  for (const f of VARIABLE_FIELDS_COMPARED) {
    const want = v.fields[f];
    const now = liveField(live, f);
    if (now === want) continue;
    (set as Record<string, unknown>)[f] = want;
    attributes.push({ name: f, before: now, after: want });
  }
  const reasons: Reason[] = attributes.length > 0 ? ['field-changed'] : [];
  let holdsValue: boolean | undefined;
  let sendValue: boolean;
  if (!hidden) {
    holdsValue = live.value === v.value;
    sendValue = !holdsValue;
    if (sendValue) reasons.push('variable-value-changed');
  } else if (recorded) {
    sendValue = !(await matchesFingerprint(v.value, recorded));
    if (sendValue) reasons.push('variable-value-changed');
  } else {
    sendValue = true;
    reasons.push('variable-value-not-comparable');
  }
  if (sendValue) attributes.unshift({ ...valueAttr(hidden ? undefined : NOT_SHOWN, hidden), ...(hidden && !recorded && { notComparable: true }) });
  if (attributes.length === 0) return {};

  // The declared value is what plumb last wrote, yet the instance differs: edited by hand.
  const configUnchanged = recorded !== undefined && (await matchesFingerprint(v.value, recorded));
  const drift: DriftEntry | undefined = configUnchanged
    ? { address, instance: inst, kind: KIND, summary: `${describeVariable(owner, v.key, v.scope)} was edited on the instance (${attributes.map((a) => a.name).join(', ')})`, attributes: attributes.map((a) => (a.name === 'value' ? { name: 'value', before: NOT_SHOWN, after: NOT_SHOWN, sensitive: true } : a)) }
    : undefined;
  const change: ResourceChange = {
    ...common,
    action: 'update',
    reasons,
    attributes,
    payload: { type: 'update', ...ids, set, ...(sendValue && { value: { pointer: v.valuePointer, ...(await fingerprintSecret(v.value)) } }) } satisfies VariablePayload,
    liveFingerprint: variableFingerprint(live, holdsValue),
  };
  return { change, ...(drift && { drift }) };
}

/** Every field a create sends (the service's defaults included: the declaration owns them all). */
export function fullSet(f: VariableFields): VariableSet {
  return { variable_type: f.variable_type, protected: f.protected, masked: f.masked, raw: f.raw, description: f.description };
}

function fieldsShown(f: VariableFields): AttributeChange[] {
  return [...VARIABLE_FIELDS_COMPARED.map((k) => ({ name: k, after: f[k] })), ...(f.masked_and_hidden ? [{ name: 'masked_and_hidden', after: true }] : [])];
}

export async function planVariables(ctx: InstanceContext): Promise<PlanResponse> {
  const perOwner = await Promise.all(variablesOf(ctx.instance).map((o) => planOwner(ctx, o)));
  return mergePlanResponses(perOwner);
}
