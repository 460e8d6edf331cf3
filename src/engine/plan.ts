import type { FlatDiagnostic } from '../diagnostics/diagnostic.js';
import { targetProblem } from './targets.js';
import { DESTROY_IDS, isDestroyId } from '../config/risk-ids.js';

/**
 * The plan is data: plain, versioned, serializable. Renderers read only this JSON form; apply
 * executes exactly its changes and never re-diffs. Fields marked "cosmetic" exist to explain things
 * to people: apply must not read them.
 */

/**
 * Bumped whenever a consumer of the JSON plan must change. 1.1: `risks` (apply refuses an
 * unacknowledged one), which an older plumb would ignore. 1.2: a change's cosmetic `selector`.
 * 1.3: `blocked` (selector matches left out of an applicable plan, so an error no longer means
 * "not applicable": a consumer must read `applicable`, and `blocked` to know what is missing) and
 * `locks` (where apply holds the lock on each instance, and whether that moved).
 * 1.3 also: the cosmetic `expiring` horizon (`--expiring-within`), an attribute's `notComparable`
 * and a diagnostic's `kind`.
 */
export const PLAN_FORMAT_VERSION = '1.3';

/**
 * The formats this plumb reads: its own, and the older minors whose plans are valid plans of it
 * (1.1 lacks only the optional `selector`, 1.2 the optional `blocked`, `locks`, `expiring` and
 * `notComparable`).
 */
export const READABLE_PLAN_FORMATS: readonly string[] = ['1.1', '1.2', PLAN_FORMAT_VERSION];

export type Action = 'no-op' | 'create' | 'update' | 'replace' | 'rotate' | 'delete';

/**
 * Why an action was planned. Cosmetic. Each kind owns its reasons and their texts (its
 * `KindEntry.reasons`, src/resources/<kind>/index.ts), as Terraform's providers own their
 * `ActionReason`s: the plan format carries the name, the registry the text (`REASON_TEXT`), and a
 * test (test/resources/reasons.test.ts) checks that every reason a kind gives is one it declared.
 */
export type Reason = string;

/** A resource kind's name (`KindEntry.kind`), e.g. `application_settings`; kinds come from the registry. */
export type ResourceKindName = string;

/** A value as the plan shows it: masked when sensitive or write-only. */
export type ShownValue = unknown;

/**
 * Where a value declared in `defaults:` came from (docs/config.md#shared-defaults). Cosmetic.
 * Places are `file:line:col`.
 */
export interface ValueOrigin {
  /** `inherited`: the instance does not declare it; `overridden`: it does, and its own value wins. */
  readonly from: 'inherited' | 'overridden';
  /** The declaration in `defaults:` (absent when a selector gave the value). */
  readonly defaults?: string;
  /** The selector that gave the value to this project or group (`platform/**`); `declared` says where. */
  readonly selector?: string;
  /** With `selector`: the selector's declaration. */
  readonly declared?: string;
  /** The instance's own declaration (overridden only). */
  readonly override?: string;
}

export interface AttributeChange {
  readonly name: string;
  /** Live value (masked when sensitive). `undefined` when absent. */
  readonly before?: ShownValue;
  /** Desired value (masked when sensitive). */
  readonly after?: ShownValue;
  /** The value is secret: shown as "(sensitive value)". */
  readonly sensitive?: boolean;
  /** The instance never returns it; plumb knows only whether it changed. */
  readonly writeOnly?: boolean;
  /**
   * Cosmetic: not compared, because the variable it reads is not given to this pipeline
   * (`--unavailable-secrets skip`); shown as a change so that no plan hides it, never counted as drift.
   */
  readonly unavailable?: boolean;
  /**
   * Cosmetic (1.3): plumb cannot tell whether it differs (a write-only value with no fingerprint
   * recorded by an earlier apply); the plan sends it to be sure. A report shows it as "not comparable".
   */
  readonly notComparable?: boolean;
  /** Cosmetic: the attribute (a setting, a Pages field) is inherited from or overrides `defaults:`. */
  readonly origin?: ValueOrigin;
}

export interface ResourceChange {
  /** Stable address, e.g. `local.application_settings` or `local.group["platform"].access_token["ci"]`. */
  readonly address: string;
  readonly instance: string;
  readonly kind: ResourceKindName;
  readonly action: Action;
  /** Cosmetic. */
  readonly reasons: readonly Reason[];
  /** Cosmetic: per-attribute before/after, masked. */
  readonly attributes: readonly AttributeChange[];
  /**
   * JSON pointer of the declaration in the configuration (under its instance, also when the value
   * is inherited from `defaults:`; `origin` then says where it was written). Cosmetic.
   */
  readonly pointer?: string;
  /** Cosmetic: the whole resource (a token, a file) is inherited from or overrides `defaults:`. */
  readonly origin?: ValueOrigin;
  /**
   * Cosmetic: the selector of the configuration (`platform/**`) that declared this resource for its
   * project or group (1.2). Renderers label a group of identical changes with it
   * (docs/plans.md#plans-of-a-fleet). Apply must not read it.
   */
  readonly selector?: string;
  /**
   * What apply needs, kind-specific and free of secrets (a secret is referenced by its config
   * pointer and fingerprint, and resolved again from the configuration at apply time).
   */
  readonly payload: Readonly<Record<string, unknown>>;
  /** Fingerprint of the live state this change was planned against. */
  readonly liveFingerprint: string;
  /**
   * Cosmetic: a content diff for people (a repository file with `plan --show-content`), bounded.
   * For a file of a private project it starts with PRIVATE_CONTENT_WITHHELD instead, unless the
   * plan was made with `--show-private-content`.
   */
  readonly diff?: string;
  /** How apply orders this change among the others; absent: it may run at any time. */
  readonly order?: ChangeOrder;
  /**
   * Cosmetic: every delivery of a new secret this change makes (a token's sinks), in words, e.g.
   * `ci_variable platform/app DEPLOY_TOKEN (protected, masked)`; and sinks it stops delivering to
   * (`stop`). Never a value.
   */
  readonly deliveries?: readonly PlannedDelivery[];
}

/** One place a change delivers a new secret to (`deliver`), or no longer delivers to (`stop`). Cosmetic. */
export interface PlannedDelivery {
  readonly action: 'deliver' | 'stop';
  readonly to: string;
}

/**
 * How a content diff starts when it would show the live content of a private project's file
 * (docs/security.md#what-plumb-reads-and-executes). Apply of a saved plan reads private content
 * again only when the plan holds no such diff (the plan was made with `--show-private-content`).
 */
export const PRIVATE_CONTENT_WITHHELD = '(content of a private project not shown';

/**
 * Ordering a kind declares for a change, as data in the plan, so apply (from memory or a saved
 * file) runs changes concurrently yet in the order each kind needs:
 * - `lane`: changes with the same lane run one at a time, in plan order (commits to one branch);
 * - `after`: addresses that must have finished first, whatever their outcome (plumb's own
 *   credential is rotated after every other token change);
 * - `dependsOn`: addresses that must have been applied first; when one failed or was skipped, this
 *   change is skipped and reported.
 * Addresses that are not changes of the plan (no-ops) are ignored.
 */
export interface ChangeOrder {
  readonly lane?: string;
  readonly after?: readonly string[];
  readonly dependsOn?: readonly string[];
}

/** A selector of the configuration and how many objects it matched at plan (docs/plans.md#selectors). */
export interface PlanSelector {
  readonly instance: string;
  readonly container: 'projects' | 'groups';
  /** As written: `platform/**`. */
  readonly selector: string;
  readonly matched: number;
  /** `file:line:col` of the selector. */
  readonly at?: string;
}

/**
 * A unit left out of an applicable plan (1.3; docs/plans.md#blocked-matches): a selector match that
 * could not be planned (its sink directory does not exist, its project cannot be read…), or a change
 * that waits for every other change of its instance. None of its changes is in the plan; apply
 * carries out the rest, reports these and exits 1. Its diagnostics carry `blocks` = `address`.
 */
export interface PlanBlocked {
  readonly instance: string;
  /**
   * A match: the project or group (`prod.group["teams/new"]`), every change under it left out. A
   * change that runs last: that change's own address.
   */
  readonly address: string;
  /** The selector whose match it is (absent: a change that runs last). */
  readonly selector?: string;
  /** The codes of the errors that blocked it; for a change that runs last, the matches it waits for (`after`). */
  readonly codes: readonly string[];
  readonly after?: readonly string[];
}

/** Where apply holds the lock on an instance (`lock:`, docs/state.md#the-lock-on-the-instance). */
export interface LockLocation {
  /** The project, as written (full path or numeric id). */
  readonly project: string;
  readonly path: string;
  /** Absent: the project's default branch. */
  readonly branch?: string;
}

/**
 * The lock on one instance as the plan shows it (1.3; docs/plans.md#the-lock-location): apply
 * commits the lock file there with plumb's administrator token, so a reviewer sees where. Cosmetic
 * but for the saved-plan check (apply refuses a plan whose `location` is not the configuration's).
 */
export interface PlanLock {
  readonly instance: string;
  /** Where apply holds the lock; null: the configuration declares none (listed only when `before` says one was held). */
  readonly location: LockLocation | null;
  /** `file:line:col` of the `lock:` block. */
  readonly at?: string;
  /**
   * Present only when the location differs from the one the last apply on this state held: that
   * location, or null when it held none. Absent: the same, or no apply recorded one yet. A plan
   * whose lock moved has a change to show, even with no resource change (`lockChanged`).
   */
  readonly before?: LockLocation | null;
}

/** A difference between the instance and the configuration that arose outside plumb. */
export interface DriftEntry {
  readonly address: string;
  readonly instance: string;
  readonly kind: ResourceKindName;
  readonly summary: string;
  readonly attributes: readonly AttributeChange[];
  /** Information only (e.g. undeclared tokens while pruning is off): not counted as drift. */
  readonly informational?: boolean;
}

/**
 * A planned change that can lock the administrators or plumb itself out. Apply reads `id` and
 * `acknowledged`: it refuses before the first write while an unacknowledged risk remains and
 * `--allow-risky` was not given.
 */
export interface PlanRisk {
  /** The change the risk belongs to. */
  readonly address: string;
  readonly instance: string;
  /** Stable id (src/engine/risks.ts), the name `allow_risky` lists. */
  readonly id: string;
  /** One line: what would happen and why. Cosmetic. */
  readonly summary: string;
  /**
   * Accepted in the configuration: the instance's `allow_risky` lists this id or, for a destroy,
   * the resource's own opt-in (`allow_unpublish` of a Pages block).
   */
  readonly acknowledged: boolean;
  /**
   * Which apply flag accepts it when the configuration does not. Absent: a lock-out risk, accepted
   * by `--allow-risky`. `destroy`: the change removes something people use (unpublishing Pages);
   * only `--allow-destroy` accepts it, never `--allow-risky`.
   */
  readonly gate?: 'destroy';
  /**
   * The configuration value that asks for the change (a setting, `published` of a Pages block),
   * when one does: where a door shows the refusal (Terraform's attribute path). Absent: the change.
   */
  readonly pointer?: string;
}

/** A diagnostic in a plan: the flat form, plus the resource it is about. */
export interface PlanDiagnostic extends FlatDiagnostic {
  readonly address?: string;
  /**
   * An error confined to one selector match: the address of the unit it blocks (one of the plan's
   * `blocked`, 1.3). The plan leaves that unit out and stays applicable for the rest; an error
   * without it makes the plan not applicable.
   */
  readonly blocks?: string;
  /** Cosmetic (1.3): the kind whose plan gave it (a report files an unread resource under it). */
  readonly kind?: ResourceKindName;
  /** Other places the diagnostic is about (the `defaults:` value an instance's value overrides). */
  readonly related?: readonly { readonly message: string; readonly file?: string; readonly line?: number; readonly column?: number }[];
}

/**
 * What the expiry horizon lists (docs/report.md#the-expiry-horizon): a group access token (declared
 * or not, in a declared group), a Pages domain's TLS certificate, a Pages domain whose ownership is
 * not verified and whose grace period lapses.
 */
export type ExpiryWhat = 'access_token' | 'pages_certificate' | 'pages_domain_verification';

/**
 * - `expired`: already expired or lapsed (`daysLeft` ≤ 0 or the instance says so);
 * - `expiring`: expires or lapses within the window; a warning (`drift --expiring-within` exits 2);
 * - `rotating`: a declared token plumb rotates before it expires (its `rotation`, or a rotation
 *   this plan already holds): shown, not a warning.
 */
export type ExpiryState = 'expired' | 'expiring' | 'rotating';

/** One thing that expires or lapses within the window. Cosmetic: apply never reads it. */
export interface ExpiryEntry {
  readonly what: ExpiryWhat;
  /**
   * A plan address: the token's (`prod.group["a"].access_token["ci"]`, or for an undeclared token
   * `….access_token["ci"]#12`), or the domain's under its project's Pages
   * (`prod.project["a/site"].pages.domain["www.example.com"]`).
   */
  readonly address: string;
  readonly instance: string;
  /** Where it lives: the group (tokens) or the project (Pages). */
  readonly container: 'groups' | 'projects';
  /** The group's or project's path as the configuration names it. */
  readonly path: string;
  /** The token's name or the domain: instance text (escape it when rendering). */
  readonly name: string;
  /** When it expires or lapses: `YYYY-MM-DD` (tokens) or an ISO datetime (certificates, domains). */
  readonly expiresAt: string;
  /** Whole days from the plan's `today` to `expiresAt` (0: today; negative: already past). */
  readonly daysLeft: number;
  readonly state: ExpiryState;
  /** Tokens: whether the configuration declares it. */
  readonly declared?: boolean;
  /** `rotating`: the day plumb rotates it (YYYY-MM-DD), today when this plan holds the rotation. */
  readonly rotatesOn?: string;
  /** Certificates: the certificate's subject, as the instance gives it (instance text). */
  readonly subject?: string;
}

/** The expiry horizon of a plan or report made with `--expiring-within`. Cosmetic. */
export interface ExpiryHorizon {
  /** The window as written on the command line: `30d`. */
  readonly within: string;
  readonly days: number;
  /** The end of the window (ISO datetime): now + days. */
  readonly until: string;
  /** Soonest first (then by address). */
  readonly entries: readonly ExpiryEntry[];
}

export interface PlanSummary {
  readonly create: number;
  readonly update: number;
  readonly replace: number;
  readonly rotate: number;
  readonly delete: number;
  readonly noop: number;
}

export interface Plan {
  /** PLAN_FORMAT_VERSION when made by this plumb; a saved plan of an older readable format keeps its own. */
  readonly formatVersion: string;
  readonly plumbVersion: string;
  /** ISO datetime. Cosmetic. */
  readonly createdAt: string;
  /** The date rotation decisions were made against (YYYY-MM-DD). */
  readonly today: string;
  /** Fingerprint of the configuration the plan was made from (secrets included only as hashes). */
  readonly configFingerprint: string;
  /**
   * Each configuration document's digest by its name (saved-plan.ts `configDigests`). Cosmetic:
   * names the files that moved when `configFingerprint` no longer matches; apply decides by that alone.
   */
  readonly configFiles?: Readonly<Record<string, string>>;
  readonly instances: readonly { readonly name: string; readonly url: string }[];
  readonly changes: readonly ResourceChange[];
  readonly drift: readonly DriftEntry[];
  /** Changes that can lock people or plumb out; see PlanRisk. */
  readonly risks: readonly PlanRisk[];
  readonly diagnostics: readonly PlanDiagnostic[];
  readonly summary: PlanSummary;
  /** Whether the plan can be applied: no error diagnostic but those confined to a `blocked` unit. */
  readonly applicable: boolean;
  /**
   * The `--target` addresses the plan was limited to (docs/plans.md#targeting); absent: the whole
   * configuration. Apply of a saved plan opens only the instances they select. An older plumb
   * ignores the field and applies the same changes, which the plan already limits.
   */
  readonly targets?: readonly string[];
  /**
   * Each selector of the planned instances and how many objects it matched (1.2; cosmetic but for
   * apply recording the counts in the state for the next plan's `selector-match-count-changed`).
   */
  readonly selectors?: readonly PlanSelector[];
  /**
   * Units left out because they could not be planned (1.3): the plan is applicable for the rest
   * when every error diagnostic `blocks` one of them. Absent: none.
   */
  readonly blocked?: readonly PlanBlocked[];
  /**
   * Set on a plan made for a merge request (1.3; docs/security.md#what-a-merge-request-plan-reveals):
   * the names of `matches` selector matches are replaced by placeholders. `why` says how plumb knew
   * (`CI_PIPELINE_SOURCE is merge_request_event`, `--withhold-matches`). Apply refuses such a plan.
   */
  readonly withheld?: { readonly why: string; readonly matches: number };
  /** The lock location of each planned instance that declares one or held one at the last apply (1.3). */
  readonly locks?: readonly PlanLock[];
  /**
   * 1.3, cosmetic: with `--expiring-within`, what expires or lapses within the window (tokens of
   * the declared groups, Pages certificates and unverified domains of the declared projects).
   */
  readonly expiring?: ExpiryHorizon;
}

/** `inst.project["path"]…` / `inst.group["path"]…`: the instance, the scope, the path (a JSON string), the rest. */
const SCOPED = /^([^."\\[\]]+)\.(project|group)\[("(?:[^"\\]|\\.)*")\](.*)$/s;

/** The address's template and its project or group, when it is under one. */
export function scopeOf(address: string): { template: string; scope: 'project' | 'group'; name: string } | undefined {
  const m = SCOPED.exec(address);
  if (!m) return undefined;
  let name: unknown;
  try {
    name = JSON.parse(m[3]!);
  } catch {
    return undefined;
  }
  if (typeof name !== 'string') return undefined;
  return { template: `${m[1]}.${m[2]}[*]${m[4]}`, scope: m[2] as 'project' | 'group', name };
}

export function summarize(changes: readonly ResourceChange[]): PlanSummary {
  const s = { create: 0, update: 0, replace: 0, rotate: 0, delete: 0, noop: 0 };
  for (const c of changes) {
    if (c.action === 'no-op') s.noop++;
    else s[c.action]++;
  }
  return s;
}

/** The apply flags that accept risks the configuration does not. */
export interface RiskAcceptance {
  /** `--allow-risky`: lock-out risks. */
  readonly allowRisky?: boolean;
  /** `--allow-destroy`: destroys (`gate: 'destroy'`). */
  readonly allowDestroy?: boolean;
}

/** Risks that neither the configuration nor the flag of their gate accepted. */
/** A destroy gate's opt-in in the configuration, in plumb's YAML (renderers of the CLI show it). */
export function destroyOptIn(id: string): string | undefined {
  return isDestroyId(id) ? DESTROY_IDS[id].cli : undefined;
}

export function unacknowledgedRisks(plan: Pick<Plan, 'risks'>, accept: RiskAcceptance = {}): readonly PlanRisk[] {
  return plan.risks.filter((r) => !r.acknowledged && !(r.gate === 'destroy' ? accept.allowDestroy : accept.allowRisky));
}

export function hasChanges(plan: Plan): boolean {
  return plan.changes.some((c) => c.action !== 'no-op');
}

/** Whether the lock on some instance moved (or appeared, or went) since the last apply on this state. */
export function lockChanged(plan: Pick<Plan, 'locks'>): boolean {
  return (plan.locks ?? []).some((l) => l.before !== undefined);
}

/** Validates the shape of a plan read from a file; returns a message when it cannot be used. */
export function checkPlanFile(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null) return 'the file does not hold a JSON object';
  const p = data as Partial<Plan>;
  if (typeof p.formatVersion !== 'string' || !READABLE_PLAN_FORMATS.includes(p.formatVersion)) {
    return `plan format ${JSON.stringify(p.formatVersion)} is not supported (this plumb reads ${READABLE_PLAN_FORMATS.join(' and ')}); make a new plan`;
  }
  if (!Array.isArray(p.changes) || !Array.isArray(p.instances)) return 'the plan has no changes or instances list';
  if (!Array.isArray(p.risks)) return 'the plan has no risks list';
  for (const key of ['plumbVersion', 'createdAt', 'today', 'configFingerprint'] as const) {
    if (typeof p[key] !== 'string') return `its ${key} is not a string; make a new plan`;
  }
  if (p.configFiles !== undefined && !(isObject(p.configFiles) && Object.entries(p.configFiles).every(([f, d]) => typeof d === 'string' && !/[\u0000-\u001f\u007f-\u009f]/.test(f)))) {
    return 'its configFiles is not a map of file names to digests; make a new plan';
  }
  if (typeof p.applicable !== 'boolean') return 'its applicable flag is not true or false; make a new plan';
  const inst = (p.instances as unknown[]).findIndex((i) => !isObject(i) || typeof i.name !== 'string' || typeof i.url !== 'string');
  if (inst >= 0) return `instance ${inst + 1} of the plan lacks its name or url; make a new plan`;
  if (!Array.isArray(p.diagnostics)) return 'the plan has no diagnostics list';
  const diag = (p.diagnostics as unknown[]).findIndex(
    (d) => !isObject(d) || !['error', 'warning', 'info'].includes(d.severity as string) || typeof d.code !== 'string' || typeof d.summary !== 'string' || !optional(d, ['detail', 'suggestion', 'address', 'file', 'blocks'], 'string') || !optional(d, ['line', 'column'], 'number') || !(d.related === undefined || (Array.isArray(d.related) && d.related.every((r) => isObject(r) && typeof r.message === 'string' && optional(r, ['file'], 'string') && optional(r, ['line', 'column'], 'number')))),
  );
  if (diag >= 0) return `diagnostic ${diag + 1} of the plan lacks its severity, code or summary, or has a field of the wrong type; make a new plan`;
  if (!Array.isArray(p.drift)) return 'the plan has no drift list';
  const drift = (p.drift as unknown[]).findIndex((d) => !isObject(d) || typeof d.address !== 'string' || typeof d.instance !== 'string' || typeof d.kind !== 'string' || typeof d.summary !== 'string' || !attributesOk(d.attributes) || !optional(d, ['informational'], 'boolean'));
  if (drift >= 0) return `drift entry ${drift + 1} of the plan lacks its address, kind or summary, or has malformed attributes; make a new plan`;
  if (!isObject(p.summary) || !['create', 'update', 'replace', 'rotate', 'delete', 'noop'].every((k) => typeof (p.summary as unknown as Record<string, unknown>)[k] === 'number')) {
    return 'its summary lacks a count; make a new plan';
  }
  if (p.targets !== undefined && !(Array.isArray(p.targets) && p.targets.every((t) => typeof t === 'string' && targetProblem(t) === undefined))) {
    return 'its targets are not a list of addresses; make a new plan';
  }
  if (p.blocked !== undefined && !(Array.isArray(p.blocked) && p.blocked.every((b) => isObject(b) && typeof b.instance === 'string' && typeof b.address === 'string' && optional(b, ['selector'], 'string') && Array.isArray(b.codes) && b.codes.every((c) => typeof c === 'string') && (b.after === undefined || (Array.isArray(b.after) && b.after.every((a) => typeof a === 'string')))))) {
    return 'its blocked units are not a list of addresses and codes; make a new plan';
  }
  if (p.withheld !== undefined && !(isObject(p.withheld) && typeof p.withheld.why === 'string' && typeof p.withheld.matches === 'number')) {
    return 'its withheld note is not a reason and a count; make a new plan';
  }
  if (p.locks !== undefined && !(Array.isArray(p.locks) && p.locks.every((l) => isObject(l) && typeof l.instance === 'string' && lockLocationOk(l.location) && (l.before === undefined || lockLocationOk(l.before)) && optional(l, ['at'], 'string')))) {
    return 'its locks are not a list of lock locations; make a new plan';
  }
  const bad = (p.risks as unknown[]).findIndex((r) => {
    const x = r as Partial<PlanRisk> | null;
    return typeof x !== 'object' || x === null || typeof x.id !== 'string' || typeof x.address !== 'string' || typeof x.acknowledged !== 'boolean' || !(x.gate === undefined || x.gate === 'destroy');
  });
  if (bad >= 0) return `risk ${bad + 1} of the plan lacks its id, address or acknowledged flag, or names an unknown gate; make a new plan`;
  for (const [i, c] of (p.changes as unknown[]).entries()) {
    const problem = changeProblem(c);
    if (problem) return `change ${i + 1} of the plan ${problem}; make a new plan`;
  }
  return undefined;
}

const ACTIONS: readonly Action[] = ['no-op', 'create', 'update', 'replace', 'rotate', 'delete'];

/** What is wrong with a change read from a plan file, in the generic fields every kind shares. */
function changeProblem(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return 'is not an object';
  const c = data as Record<string, unknown>;
  for (const key of ['address', 'instance', 'kind', 'liveFingerprint'] as const) {
    if (typeof c[key] !== 'string') return `lacks its ${key}`;
  }
  if (!ACTIONS.includes(c.action as Action)) return `(${String(c.address)}) has an unknown action ${JSON.stringify(c.action)}`;
  if (!Array.isArray(c.reasons) || !c.reasons.every((r) => typeof r === 'string')) return `(${String(c.address)}) lacks its reasons list`;
  if (!attributesOk(c.attributes)) return `(${String(c.address)}) lacks its attributes list, or an attribute lacks its name`;
  if (!optional(c, ['pointer', 'diff', 'selector'], 'string')) return `(${String(c.address)}) has a pointer, diff or selector that is not a string`;
  if (typeof c.payload !== 'object' || c.payload === null || Array.isArray(c.payload)) return `(${String(c.address)}) lacks its payload`;
  if (c.deliveries !== undefined && !(Array.isArray(c.deliveries) && c.deliveries.every((d) => isObject(d) && (d.action === 'deliver' || d.action === 'stop') && typeof d.to === 'string'))) {
    return `(${String(c.address)}) has deliveries that are not a list of {action, to}`;
  }
  if (c.order !== undefined) {
    const o = c.order as Record<string, unknown> | null;
    const list = (v: unknown) => v === undefined || (Array.isArray(v) && v.every((x) => typeof x === 'string'));
    if (typeof o !== 'object' || o === null || !(o.lane === undefined || typeof o.lane === 'string') || !list(o.after) || !list(o.dependsOn)) {
      return `(${String(c.address)}) has a malformed order`;
    }
  }
  return undefined;
}

function lockLocationOk(v: unknown): boolean {
  return v === null || (isObject(v) && typeof v.project === 'string' && typeof v.path === 'string' && optional(v, ['branch'], 'string'));
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Each of `keys` absent or of type `type`. */
function optional(o: Record<string, unknown>, keys: readonly string[], type: 'string' | 'number' | 'boolean'): boolean {
  return keys.every((k) => o[k] === undefined || typeof o[k] === type);
}

function attributesOk(v: unknown): boolean {
  return Array.isArray(v) && v.every((a) => isObject(a) && typeof a.name === 'string' && optional(a, ['sensitive', 'writeOnly', 'unavailable'], 'boolean'));
}
