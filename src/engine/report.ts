/**
 * `plumb report`: the compliance report, plain versioned data (docs/report.md#the-json-document),
 * its JSON Schema in schemas/plumb-report.schema.json. The report is a view of a plan: every entry
 * comes from the plan's changes, drift and diagnostics (`buildReport`), never from a second diff.
 * Renderers (human, markdown, HTML) read only this document.
 */
import { compilePathGlob, pathGlobProblem } from '../util/path-glob.js';
import { VERSION } from '../version.js';
import { scopeOf } from './plan.js';
import type { Action, AttributeChange, DriftEntry, ExpiryHorizon, Plan, PlanDiagnostic, PlanRisk, PlanSelector, Reason, ResourceChange, ResourceKindName, ShownValue } from './plan.js';

/**
 * Bumped whenever a consumer of the report must change (a field removed or its meaning changed);
 * a minor for additions an older consumer may ignore.
 */
export const REPORT_FORMAT_VERSION = '1.0';

/**
 * - `compliant`: the instance holds what the configuration declares (apply would do nothing, or
 *   only rotate a token on schedule);
 * - `drifted`: it exists and differs (apply would update, replace or delete);
 * - `missing`: it does not exist (apply would create it);
 * - `unreadable`: reading it failed (no access, not found, an error of the instance); `problem` says why;
 * - `not-checked`: the request budget (`--max-requests`) ran out before it was read.
 */
export type ComplianceStatus = 'compliant' | 'drifted' | 'missing' | 'unreadable' | 'not-checked';

export const COMPLIANCE_STATUSES: readonly ComplianceStatus[] = ['compliant', 'drifted', 'missing', 'unreadable', 'not-checked'];

/** How many resources (or objects) have each status. */
export interface ComplianceCounts {
  readonly total: number;
  readonly compliant: number;
  readonly drifted: number;
  readonly missing: number;
  readonly unreadable: number;
  readonly notChecked: number;
}

/**
 * A declared field that differs, or that plumb cannot compare. Values are as the plan shows them:
 * a secret is `(sensitive value)`, a write-only value is never shown (compared through fingerprints).
 */
export interface ReportField {
  readonly name: string;
  /** The instance's value (absent: none, or write-only). */
  readonly live?: ShownValue;
  /** The configuration's value (masked when sensitive). */
  readonly declared?: ShownValue;
  readonly sensitive?: boolean;
  readonly writeOnly?: boolean;
  /** `differs`; or `not-comparable`: a write-only value with no fingerprint to compare with. */
  readonly comparison: 'differs' | 'not-comparable';
}

/** Why a resource is `unreadable` or `not-checked`: the diagnostic that says so. */
export interface ReportProblem {
  readonly code: string;
  /** Instance text may be quoted: escape it when rendering. */
  readonly summary: string;
  readonly detail?: string;
  readonly suggestion?: string;
}

/**
 * One declared resource. An `unreadable` or `not-checked` entry may stand for everything of its
 * kind under its address (a group whose token list could not be read is one entry at the group's
 * address), since what the instance holds there was never seen.
 */
export interface ReportResource {
  /** The plan's address (`prod.project["a/b"].pages`), or the group/project/kind whose read failed. */
  readonly address: string;
  readonly instance: string;
  readonly kind: ResourceKindName;
  readonly status: ComplianceStatus;
  /** The group or project it belongs to (absent: instance-wide, e.g. application settings). */
  readonly scope?: { readonly container: 'groups' | 'projects'; readonly path: string };
  /** The selector that declared it for its group or project (`platform/**`), as written. */
  readonly selector?: string;
  /** What apply would do to converge (absent for `unreadable` and `not-checked`). */
  readonly action?: Action;
  /** The plan's reasons (names; texts come from the kinds). */
  readonly reasons: readonly Reason[];
  /** The declared fields that differ or cannot be compared (empty when compliant, or missing). */
  readonly fields: readonly ReportField[];
  /** Informational notes the plan has about it (an unavailable secret not compared here). */
  readonly notes: readonly string[];
  /** `unreadable` / `not-checked`: why. */
  readonly problem?: ReportProblem;
  /** JSON pointer of its declaration (cosmetic). */
  readonly pointer?: string;
}

/**
 * A selector's fleet: how many objects (projects or groups) it matched and how they stand. An
 * object is as bad as its worst resource (not-checked < unreadable < missing < drifted < compliant
 * in order of precedence: an object with one unread resource is `not-checked`).
 */
export interface SelectorSummary {
  readonly instance: string;
  readonly container: 'projects' | 'groups';
  /** As written: `platform/**`. */
  readonly selector: string;
  /** `file:line:col` of the selector. */
  readonly at?: string;
  /** Objects the selector matched (discovery). */
  readonly matched: number;
  /** Per object (each of the `matched`); an object with no resource in the plan counts as not-checked. */
  readonly objects: ComplianceCounts;
  /** Per resource declared through the selector. */
  readonly resources: ComplianceCounts;
}

/** Something on the instance the configuration does not declare (an undeclared token while pruning is off). */
export interface ReportNote {
  readonly address: string;
  readonly instance: string;
  readonly kind: ResourceKindName;
  readonly summary: string;
}

/** The request budget (`--max-requests`) and how much of it the report used. */
export interface ReportBudget {
  /** `--max-requests`; absent: no budget. */
  readonly maxRequests?: number;
  /** Requests sent (retries included), every instance together. */
  readonly used: number;
  /** The budget ran out: some resources are `not-checked`. */
  readonly exhausted: boolean;
}

export interface Report {
  /** REPORT_FORMAT_VERSION. */
  readonly formatVersion: string;
  readonly plumbVersion: string;
  /** ISO datetime. */
  readonly createdAt: string;
  /** The date the report was made against (YYYY-MM-DD; `--now`). */
  readonly today: string;
  /** The plan format the report was built from (engine/plan.ts PLAN_FORMAT_VERSION). */
  readonly planFormatVersion: string;
  readonly configFingerprint: string;
  readonly instances: readonly { readonly name: string; readonly url: string }[];
  /** Every declared resource was read (no `unreadable`, no `not-checked`). */
  readonly complete: boolean;
  readonly budget: ReportBudget;
  /** Every resource of the report. */
  readonly summary: ComplianceCounts;
  /** One per selector of the configuration, in the configuration's order. */
  readonly selectors: readonly SelectorSummary[];
  /** Sorted: by status (drifted, missing, unreadable, not-checked, compliant), then address. */
  readonly resources: readonly ReportResource[];
  /** What the instance holds beyond the configuration (informational). */
  readonly notes: readonly ReportNote[];
  /** What converging would risk (the plan's risks): for reviewers; the report changes nothing. */
  readonly risks: readonly PlanRisk[];
  /** With `--expiring-within`. */
  readonly expiring?: ExpiryHorizon;
  readonly diagnostics: readonly PlanDiagnostic[];
}

/** The fields a report shows for a plan attribute (helper shared by the builder and tests). */
export function reportField(a: AttributeChange): ReportField {
  return {
    name: a.name,
    ...(a.before !== undefined && { live: a.before }),
    ...(a.after !== undefined && { declared: a.after }),
    ...(a.sensitive && { sensitive: true }),
    ...(a.writeOnly && { writeOnly: true }),
    comparison: a.notComparable ? 'not-comparable' : 'differs',
  };
}

/** The diagnostic code of a read the request budget refused (api/client.ts `requestBudget`). */
export const BUDGET_CODE = 'PLUMB_API_BUDGET_EXHAUSTED';

/** Order of precedence when one object has resources of several statuses (worst last). */
const RANK: Readonly<Record<ComplianceStatus, number>> = { compliant: 0, drifted: 1, missing: 2, unreadable: 3, 'not-checked': 4 };

/** Order of the report's resource list. */
const LISTED: Readonly<Record<ComplianceStatus, number>> = { drifted: 0, missing: 1, unreadable: 2, 'not-checked': 3, compliant: 4 };

const COUNT_KEY: Readonly<Record<ComplianceStatus, Exclude<keyof ComplianceCounts, 'total'>>> = { compliant: 'compliant', drifted: 'drifted', missing: 'missing', unreadable: 'unreadable', 'not-checked': 'notChecked' };

export function countStatuses(statuses: Iterable<ComplianceStatus>): ComplianceCounts {
  const c = { total: 0, compliant: 0, drifted: 0, missing: 0, unreadable: 0, notChecked: 0 };
  for (const s of statuses) {
    c.total++;
    c[COUNT_KEY[s]]++;
  }
  return c;
}

/**
 * Reasons of a renewal on schedule, not of a difference: a token within its `rotate_before_days`
 * is renewed by rotation, or by replacement where plumb runs as a group access token.
 */
const SCHEDULED: ReadonlySet<Reason> = new Set(['expiring-soon']);

/** What a change says of its resource: apply's action is the difference (a renewal on schedule is not one). */
function statusOf(c: Pick<ResourceChange, 'action' | 'reasons'>): ComplianceStatus {
  if (c.action === 'create') return 'missing';
  if (c.action === 'no-op' || c.action === 'rotate') return 'compliant';
  return c.reasons.length > 0 && c.reasons.every((r) => SCHEDULED.has(r)) ? 'compliant' : 'drifted';
}

export interface ReportInputs {
  /** `--max-requests`, when given. */
  readonly maxRequests?: number;
  /** Requests sent while making the plan (every instance). */
  readonly requestsUsed: number;
  /** Whether the budget refused a request. */
  readonly budgetExhausted: boolean;
}

/**
 * The report of a plan (made without `--target`): one entry per resource the plan holds a change
 * for (its action gives the status; a non-informational drift entry at its address makes it
 * drifted even when apply cannot fix it, such as Pages declared published with nothing deployed),
 * plus one `unreadable` (or `not-checked`, when the request budget refused the read) entry per
 * address an error diagnostic names and no change covers. A change whose differing fields are all
 * write-only values plumb cannot compare is compliant, its fields listed as not comparable.
 */
export function buildReport(plan: Plan, inputs: ReportInputs): Report {
  const driftAt = new Map<string, DriftEntry[]>();
  for (const d of plan.drift) driftAt.set(d.address, [...(driftAt.get(d.address) ?? []), d]);
  const byAddress = new Map<string, ReportResource>();
  const notes: ReportNote[] = [];
  for (const c of plan.changes) byAddress.set(c.address, fromChange(c, driftAt.get(c.address) ?? []));
  for (const d of plan.drift) {
    if (byAddress.has(d.address)) continue;
    if (d.mergeRequest) {
      // A file pending in an open merge request (delivery by merge request): it differs from its
      // branch, and the fix waits for review; drifted, with the merge request named.
      byAddress.set(d.address, pendingResource(d, plan.changes));
      continue;
    }
    // Drift about something no change covers: what the instance holds beyond the configuration.
    notes.push({ address: d.address, instance: d.instance, kind: d.kind, summary: d.summary });
  }
  for (const d of plan.diagnostics) {
    if (d.address === undefined) continue;
    const known = byAddress.get(d.address);
    if (known) {
      if (d.severity !== 'error') byAddress.set(d.address, { ...known, notes: [...known.notes, d.summary] });
      continue;
    }
    if (d.severity !== 'error') continue;
    byAddress.set(d.address, fromProblem(d));
  }
  const selectors = plan.selectors ?? [];
  // A change names the selector that declared it; an unread resource has only its address.
  const resources = [...byAddress.values()].map((r) => (r.problem && r.scope ? withSelector(r, selectors) : r));
  resources.sort((a, b) => LISTED[a.status] - LISTED[b.status] || (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  const summary = countStatuses(resources.map((r) => r.status));
  return {
    formatVersion: REPORT_FORMAT_VERSION,
    plumbVersion: VERSION,
    createdAt: plan.createdAt,
    today: plan.today,
    planFormatVersion: plan.formatVersion,
    configFingerprint: plan.configFingerprint,
    instances: plan.instances,
    complete: summary.unreadable === 0 && summary.notChecked === 0 && !plan.diagnostics.some((d) => d.severity === 'error' && d.address === undefined),
    budget: { ...(inputs.maxRequests !== undefined && { maxRequests: inputs.maxRequests }), used: inputs.requestsUsed, exhausted: inputs.budgetExhausted },
    summary,
    selectors: selectors.map((s) => selectorSummary(s, resources)),
    resources,
    notes,
    risks: plan.risks,
    ...(plan.expiring && { expiring: plan.expiring }),
    diagnostics: plan.diagnostics,
  };
}

function scopeField(address: string): ReportResource['scope'] {
  const s = scopeOf(address);
  return s ? { container: s.scope === 'project' ? 'projects' : 'groups', path: s.name } : undefined;
}

function fromChange(c: ResourceChange, drift: readonly DriftEntry[]): ReportResource {
  const attributes = new Map<string, AttributeChange>();
  const scheduled = statusOf(c) === 'compliant';
  for (const a of scheduled ? [] : c.attributes) attributes.set(a.name, a);
  const driftNotes: string[] = [];
  let drifted = false;
  for (const d of drift) {
    if (d.informational) {
      driftNotes.push(d.summary);
      continue;
    }
    drifted = true;
    for (const a of d.attributes) if (!attributes.has(a.name)) attributes.set(a.name, a);
  }
  // A resource that does not exist has no differing fields: everything it declares is to be made.
  const fields = c.action === 'create' ? [] : [...attributes.values()].map(reportField);
  let status = statusOf(c);
  if (status === 'drifted' && fields.length > 0 && fields.every((f) => f.comparison === 'not-comparable')) status = 'compliant';
  if (status === 'compliant' && drifted && fields.some((f) => f.comparison === 'differs')) status = 'drifted';
  const scope = scopeField(c.address);
  return {
    address: c.address,
    instance: c.instance,
    kind: c.kind,
    status,
    ...(scope && { scope }),
    ...(c.selector !== undefined && { selector: c.selector }),
    action: c.action,
    reasons: c.reasons,
    fields,
    notes: driftNotes,
    ...(c.pointer !== undefined && { pointer: c.pointer }),
  };
}

/** A file pending in an open merge request: drifted, not fixed by an apply (it waits for review). */
function pendingResource(d: DriftEntry, changes: readonly ResourceChange[]): ReportResource {
  const scope = scopeField(d.address);
  const mr = changes.find((c) => c.mergeRequest !== undefined && c.instance === d.instance && scope !== undefined && scopeOf(c.address)?.name === scope.path);
  return {
    address: d.address,
    instance: d.instance,
    kind: d.kind,
    status: 'drifted',
    ...(scope && { scope }),
    ...(mr?.selector !== undefined && { selector: mr.selector }),
    reasons: ['pending-in-merge-request'],
    fields: [],
    notes: [`pending in merge request !${d.mergeRequest!.iid} (${d.mergeRequest!.url}), waiting for review`],
  };
}

function fromProblem(d: PlanDiagnostic): ReportResource {
  const scope = scopeField(d.address!);
  const instance = d.address!.split('.')[0]!;
  return {
    address: d.address!,
    instance,
    kind: d.kind ?? 'unknown',
    status: d.code === BUDGET_CODE ? 'not-checked' : 'unreadable',
    ...(scope && { scope }),
    reasons: [],
    fields: [],
    notes: [],
    problem: { code: d.code, summary: d.summary, ...(d.detail !== undefined && { detail: d.detail }), ...(d.suggestion !== undefined && { suggestion: d.suggestion }) },
  };
}

/**
 * The selector of a resource the plan has no change for (its read failed): the first selector of
 * its instance and container whose pattern matches its project or group. (An entry written
 * explicitly for a path a selector also matches is attributed to the selector too.)
 */
function withSelector(r: ReportResource, selectors: readonly PlanSelector[]): ReportResource {
  const s = selectors.find((s) => s.instance === r.instance && s.container === r.scope!.container && !pathGlobProblem(s.selector) && compilePathGlob(s.selector)(r.scope!.path));
  return s ? { ...r, selector: s.selector } : r;
}

function selectorSummary(s: PlanSelector, resources: readonly ReportResource[]): SelectorSummary {
  const mine = resources.filter((r) => r.instance === s.instance && r.selector === s.selector && r.scope?.container === s.container);
  const objects = new Map<string, ComplianceStatus>();
  for (const r of mine) {
    const key = r.scope!.path.toLowerCase();
    const was = objects.get(key);
    if (was === undefined || RANK[r.status] > RANK[was]) objects.set(key, r.status);
  }
  // Matched objects the plan holds nothing for were not read (the budget ran out before them).
  const unseen = Math.max(0, s.matched - objects.size);
  const statuses = [...objects.values(), ...Array<ComplianceStatus>(unseen).fill('not-checked')];
  return {
    instance: s.instance,
    container: s.container,
    selector: s.selector,
    ...(s.at !== undefined && { at: s.at }),
    matched: s.matched,
    objects: countStatuses(statuses),
    resources: countStatuses(mine.map((r) => r.status)),
  };
}
