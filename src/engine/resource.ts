import type { ApiClient } from '../api/client.js';
import type { DesiredInstance } from '../config/model.js';
import type { SecretRegistry } from '../config/secrets.js';
import type { ListedProject } from '../config/selectors.js';
import type { SourceLocation } from '../diagnostics/index.js';
import type { Action, DriftEntry, ExpiryEntry, PlanDiagnostic, PlanRisk, ResourceChange, ResourceKindName, ShownValue } from './plan.js';
import type { StateStore } from './state.js';
import type { TargetSet } from './targets.js';
import type { SessionMemo } from './memo.js';

export type { ReadCache } from './memo.js';

/** Everything a resource kind needs to read, plan and apply on one instance. */
export interface InstanceContext {
  readonly instance: DesiredInstance;
  readonly client: ApiClient;
  /** Current date (YYYY-MM-DD), overridable with --now for rotation decisions and tests. */
  readonly today: string;
  readonly now: Date;
  readonly secrets: SecretRegistry;
  readonly state: StateStore;
  /** Maps a configuration pointer to file:line:col. */
  readonly locate: (pointer: string) => SourceLocation | undefined;
  /**
   * Where the value at a pointer overrides a `defaults:` value (docs/config.md#shared-defaults):
   * the default's location, for a diagnostic's `related`. Absent or undefined: it does not.
   */
  readonly overriddenDefault?: (pointer: string) => SourceLocation | undefined;
  /**
   * The selector match a pointer lies in, when its value comes from the selector's body (not from
   * an explicit entry): plan diagnostics about it are collapsed per selector ({@link collapseSelectorDiagnostics}).
   */
  readonly selectorMatch?: (pointer: string) => SelectorMatchOf | undefined;
  /**
   * What a selector's listing of this run said of a project (by its path as listed): that it
   * exists, and its default branch. Undefined for a project no selector listed. A kind may skip a
   * read the listing answered (repository files: whether a file's project and branch exist).
   */
  readonly listedProject?: (ref: string) => ListedProject | undefined;
  /** Progress and notes for people (stderr); never secrets. */
  readonly log: (message: string) => void;
  /** Sleeps (injectable so tests do not wait on the settings cache for real). */
  readonly sleep: (ms: number) => Promise<void>;
  /**
   * `--target`: which addresses this run selects (everything without `--target`). A kind asks
   * `targets.within(prefix)` before reading a group's or a project's live state and
   * `targets.targeted(address)` before reading one resource, so an unmatched declaration costs no
   * request; the engine drops any change, drift or risk whose address is not targeted.
   */
  readonly targets: TargetSet;
  /**
   * `--expiring-within` (plan, drift, report): a kind that holds things that expire lists those that
   * expire or lapse by `until` (`PlanResponse.expiring`), reading as little as it can for it.
   * Absent: nothing is listed, and nothing is read for it.
   */
  readonly expiring?: ExpiryWindow;
  /**
   * The plan is made to be read, never applied (`plumb report`): a kind skips the checks that only
   * protect an apply (that a token's sink can receive a secret), which would otherwise stop the
   * kind's plan on a machine that holds no sink.
   */
  readonly readOnly?: boolean;
  /**
   * The plan only compares the instance with the configuration and is never applied (`plumb drift`,
   * and `plumb report`, which sets `readOnly` too): a kind skips the checks that only judge whether
   * apply could carry a change out with plumb's token (whether it may push a file's commit to its
   * branch). A difference is reported whoever may fix it.
   */
  readonly compareOnly?: boolean;
  /**
   * What the registry's kinds tell each other about the instance as this plan will leave it
   * ({@link KindFacts}): a kind asks here, never by importing another kind.
   */
  readonly facts: KindFacts;
  /** `plan --show-content`: a kind may read content to show a diff (repository files). */
  readonly showContent?: boolean;
  /**
   * `plan --show-private-content`: the diff may show the live content of a private project's file
   * too; without it such a diff is withheld (PRIVATE_CONTENT_WITHHELD, engine/plan.ts).
   */
  readonly showPrivateContent?: boolean;
  /**
   * The environment plumb runs in (PATH for command sinks, the environment they inherit). Defaults
   * to `process.env` when absent.
   */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * Machine-readable standard output, unredacted: only token sinks with `stdout: true` write here
   * (one JSON line per issued secret). Defaults to `process.stdout` when absent.
   */
  readonly stdout?: (s: string) => void;
  /**
   * What this run remembers (memo.ts): this session's reads and checks for this instance
   * (`session`), the reads a front-end shares across sessions (`reads`: the Terraform provider's
   * walk), and who plumb's credential is (`identity`). A kind keeps its caches here, never in a
   * module-level map.
   */
  readonly memo: SessionMemo;
  /**
   * Another instance of this configuration, as this session opened it (its URL pin, its
   * credential), or undefined when it is not open in this run: for a kind whose resource reaches
   * across instances (a token's ci_variable sink on `instance: NAME`). Never a client for any other URL.
   */
  readonly peer?: (name: string) => InstanceContext | undefined;
}

/** The expiry horizon's window (`--expiring-within 30d`). */
export interface ExpiryWindow {
  readonly days: number;
  /** The end of the window: now + days. */
  readonly until: Date;
}

/** Whole days from `today` (YYYY-MM-DD) to the day of `when` (a date or an ISO datetime, UTC). */
export function daysUntil(today: string, when: string): number {
  return Math.round((Date.parse(when.slice(0, 10) + 'T00:00:00Z') - Date.parse(today + 'T00:00:00Z')) / 86_400_000);
}

export interface PlanResponse {
  readonly changes: ResourceChange[];
  readonly drift: DriftEntry[];
  readonly diagnostics: PlanDiagnostic[];
  /** Changes that can lock people or plumb out (made with `flagRisk`, src/engine/risks.ts). */
  readonly risks?: PlanRisk[];
  /** With `ctx.expiring`: what expires or lapses within the window (the engine sorts them). */
  readonly expiring?: ExpiryEntry[];
}

/**
 * One response from the responses of a kind's parts (a response per project, group or owner, planned
 * concurrently): their changes, drift, diagnostics, risks and expiring entries in the parts' order,
 * after `first` (diagnostics found before the parts were planned, e.g. a project declared twice).
 */
export function mergePlanResponses(parts: readonly PlanResponse[], first: readonly PlanDiagnostic[] = []): PlanResponse {
  const expiring = parts.flatMap((r) => r.expiring ?? []);
  return {
    changes: parts.flatMap((r) => r.changes),
    drift: parts.flatMap((r) => r.drift),
    diagnostics: [...first, ...parts.flatMap((r) => r.diagnostics)],
    risks: parts.flatMap((r) => r.risks ?? []),
    ...(parts.some((r) => r.expiring) && { expiring }),
  };
}

export interface ApplyResponse {
  /** Set when the change was carried out (possibly with warnings). */
  readonly applied: boolean;
  readonly diagnostics: PlanDiagnostic[];
  /** Human notes on what happened (verification waits, delivered secrets by sink, …). */
  readonly notes: string[];
}

/**
 * Something a configuration can declare. The engine warns (PLUMB_KIND_NOT_MANAGED) about a kind an
 * instance declares that no provider manages, so "No changes" never hides what was not compared.
 */
export interface KindDeclaration {
  readonly kind: ResourceKindName;
  /** Whether the instance declares anything of this kind. */
  declares(instance: DesiredInstance): boolean;
}

/**
 * One resource kind: reads live state, plans changes against the desired state, applies one planned
 * change. Each kind is a folder under src/resources/ (docs/architecture.md); the engine receives the
 * list from commands/ (a `KindRegistry`) and imports none. `P` is the kind's payload: the engine
 * parses it with `parsePayload` before handing it to `liveFingerprint` or `apply`, so a kind never
 * casts the plan's JSON.
 */
export interface ResourceProvider<P = unknown> extends KindDeclaration {
  plan(ctx: InstanceContext): Promise<PlanResponse>;
  /**
   * Reads a change's payload, planned in this run or loaded from a saved plan file; throws a
   * `PayloadError` naming what is wrong when it is not a payload of this kind.
   */
  parsePayload(payload: unknown): P;
  /** Fingerprint of the live state a change was planned against, read again (saved plans). */
  liveFingerprint(ctx: InstanceContext, change: ResourceChange, payload: P): Promise<string>;
  apply(ctx: InstanceContext, change: ResourceChange, payload: P): Promise<ApplyResponse>;
  /**
   * Applies the changes of one batch (`ChangeOrder.batch`) together, in one request where the
   * service allows it (repository files: one commit per project and branch), and answers one
   * response per change, in the order given. Absent: batched changes are applied one by one.
   */
  applyBatch?(ctx: InstanceContext, changes: readonly ResourceChange[], payloads: readonly P[]): Promise<ApplyResponse[]>;
  /**
   * What a payload means, as the address, action and attributes a plan shows for it, read from the
   * payload alone (no configuration, no instance). `plumb show` and `plumb comment` render a saved
   * plan offline: they refuse a change whose attributes say something its payload does not
   * (`checkPlanMeaning`, payload-check.ts), so what a reviewer reads is what apply would send.
   * Throws a `PayloadError` when the payload contradicts itself.
   */
  describePayload?(instance: string, payload: P): PayloadMeaning;
  /**
   * A saved change that differs from the change planned again at apply (saved-plan.ts), with the
   * same live fingerprint: when an input outside the configuration's text can explain it (a
   * `source:` file changed since the plan), the diagnostic that says so; otherwise undefined and
   * the engine reports the plan as edited. Either way apply refuses the whole plan.
   */
  explainDifference?(saved: ResourceChange, derived: ResourceChange): PlanDiagnostic | undefined;
  /**
   * Whether applying to this instance writes machine-readable output (issued secrets) to standard
   * output; the commands then send everything meant for people to standard error. Absent: never.
   */
  writesStdout?(instance: DesiredInstance): boolean;
  /** The facts this kind answers for the others ({@link KindFacts}). */
  readonly facts?: KindFacts;
}

/** One attribute as a payload decides it (`describePayload`). */
export interface DescribedAttribute {
  readonly name: string;
  /** Compared when present (a key set to undefined means "no value"). */
  readonly after?: ShownValue;
  readonly before?: ShownValue;
  readonly sensitive?: boolean;
  /** The change must show it; otherwise it is compared only when shown. */
  readonly required: boolean;
}

/** What a payload means for people: where, what, and the attributes it decides. */
export interface PayloadMeaning {
  /** The addresses a change with this payload may have. */
  readonly addresses: readonly string[];
  readonly action: Action;
  readonly attributes: readonly DescribedAttribute[];
  /** Attributes the payload does not decide (live values, notes for people): shown as the plan says. */
  readonly cosmetic?: readonly string[];
}

/**
 * A branch's protection once the plan is applied, as push rights go (a {@link KindFacts} answer):
 * what the service decides a push with (`Gitlab::UserAccess#can_push_to_branch?`).
 */
export interface PlannedBranchProtection {
  readonly protected: boolean;
  /** The lowest role that may push: 0 nobody (administrators included), 30 Developer (an unprotected branch), 40 Maintainer, 60 administrators. */
  readonly pushAccessLevel: number;
  /** Whether a role (30 Developer, 40 Maintainer, 50 Owner, 60 an administrator) may push under it. */
  allowsPush(role: number): boolean;
  /** The rules that make it, by name, with where the configuration declares each (absent: a rule the instance keeps). */
  readonly rules: readonly { readonly name: string; readonly pointer?: string }[];
  /** The addresses of the plan's changes that make it so: a write to the branch is applied after them. */
  readonly madeBy: readonly string[];
}

/**
 * Named questions one kind answers for the others about the instance as the configuration will
 * leave it (docs/architecture.md#facts-between-kinds). A kind never imports another: it answers a
 * fact through its provider's `facts`, the session hands every kind the registry's answers
 * (`InstanceContext.facts`), and a kind asks there. Each fact is answered by at most one kind of a
 * registry; a fact no kind answers is absent, and the asking kind does without it.
 */
export interface KindFacts {
  /**
   * The protection `branch` of `project` (as the configuration writes the project: a path or an id)
   * will have once the plan is applied, where the configuration declares that project's protected
   * branches and they change the branch's push rights; undefined everywhere else (what the instance
   * holds now stands).
   */
  readonly branchProtectionAfterApply?: (ctx: InstanceContext, project: string, branch: string) => Promise<PlannedBranchProtection | undefined>;
}

/** The facts a registry's kinds answer, together (`InstanceContext.facts`); a fact answered twice is a registry mistake. */
export function registryFacts(kinds: KindRegistry): KindFacts {
  const facts: Record<string, unknown> = {};
  const by = new Map<string, string>();
  for (const p of kinds.providers) {
    for (const [name, answer] of Object.entries(p.facts ?? {})) {
      if (answer === undefined) continue;
      const other = by.get(name);
      if (other !== undefined) throw new Error(`kinds ${other} and ${p.kind} both answer the fact ${name}`);
      by.set(name, p.kind);
      facts[name] = answer;
    }
  }
  return facts as KindFacts;
}

/** The kinds a command runs the engine with, in the order a plan lists and apply executes them. */
export interface KindRegistry {
  readonly providers: readonly ResourceProvider[];
  /** Kinds the configuration can declare that are validated but not planned or applied yet. */
  readonly validatedOnly: readonly KindDeclaration[];
}

export function providerFor(kinds: KindRegistry, kind: string): ResourceProvider | undefined {
  return kinds.providers.find((p) => p.kind === kind);
}

/** A plan diagnostic located at a configuration pointer. */
export function planDiagnostic(
  ctx: Pick<InstanceContext, 'locate' | 'overriddenDefault' | 'selectorMatch'>,
  d: Omit<PlanDiagnostic, 'file' | 'line' | 'column'> & { pointer?: string },
): PlanDiagnostic {
  const { pointer, ...rest } = d;
  const loc = pointer !== undefined ? ctx.locate(pointer) : undefined;
  const over = pointer !== undefined ? ctx.overriddenDefault?.(pointer) : undefined;
  const out: PlanDiagnostic = {
    ...rest,
    ...(loc && { file: loc.file, line: loc.line, column: loc.column }),
    ...(over && { related: [...(rest.related ?? []), { message: 'this overrides the value in defaults declared here', file: over.file, line: over.line, column: over.column }] }),
  };
  const from = pointer !== undefined ? ctx.selectorMatch?.(pointer) : undefined;
  if (from) fromSelector.set(out, from);
  return out;
}

/** One match of one selector (docs/config.md#selectors). */
export interface SelectorMatchOf {
  /** The selector's pointer (`/instances/prod/projects/platform~1**`): one per instance. */
  readonly pointer: string;
  readonly key: string;
  readonly container: 'projects' | 'groups';
  /** The match's full path. */
  readonly match: string;
  /**
   * The selector lists archived projects too (`include_archived: true`); otherwise its listing left
   * them out, so a project it matched was not archived when it was listed.
   */
  readonly includeArchived: boolean;
}

/** Plan diagnostics made about a selector's body in one match (kept off the plan's format). */
const fromSelector = new WeakMap<PlanDiagnostic, SelectorMatchOf>();

/** The selector match a plan diagnostic is about, when a kind made it about a selector's body in one match. */
export function selectorMatchOfDiagnostic(d: PlanDiagnostic): SelectorMatchOf | undefined {
  return fromSelector.get(d);
}

/** `d` with `extra` fields, still known as its selector match's. */
function derived(d: PlanDiagnostic, extra: Partial<PlanDiagnostic>): PlanDiagnostic {
  const out = { ...d, ...extra };
  const from = fromSelector.get(d);
  if (from) fromSelector.set(out, from);
  return out;
}

/** `d` marked as blocking the unit `address` (PlanDiagnostic.blocks), still known as its selector match's. */
export function blockingDiagnostic(d: PlanDiagnostic, address: string): PlanDiagnostic {
  return derived(d, { blocks: address });
}

/** `d` marked with the kind whose plan gave it (PlanDiagnostic.kind), still known as its selector match's. */
export function kindDiagnostic(d: PlanDiagnostic, kind: ResourceKindName): PlanDiagnostic {
  return d.address === undefined || d.kind !== undefined ? d : derived(d, { kind });
}

/** The wording of a problem of a selector's body reported once: which match, then how many more. */
export const selectorMatchNote = (s: Pick<SelectorMatchOf, 'key' | 'container'>, match: string): string =>
  `declared by selector "${s.key}" for ${s.container === 'projects' ? 'project' : 'group'} "${match}"`;
export const moreMatchesNote = (more: number): string => `and ${more.toLocaleString('en-US')} more of its matches`;

/**
 * A problem a kind finds at plan in the body of a selector is one place in the files: the
 * diagnostics one selector's matches give with the same code, place and summary (the match's path
 * taken out) are reported once, the first one naming its match and how many more there were, as
 * config/validate's are (engine/selectors.ts).
 */
export function collapseSelectorDiagnostics(diagnostics: readonly PlanDiagnostic[]): PlanDiagnostic[] {
  const seen = new Map<string, { index: number; more: number }>();
  const out: PlanDiagnostic[] = [];
  for (const d of diagnostics) {
    const from = fromSelector.get(d);
    if (!from) {
      out.push(d);
      continue;
    }
    const key = [from.pointer, d.severity, d.code, d.file, d.line, d.column, d.summary.replaceAll(from.match, '')].join('\0');
    const first = seen.get(key);
    if (first) {
      first.more++;
      continue;
    }
    seen.set(key, { index: out.length, more: 0 });
    out.push({ ...d, related: [...(d.related ?? []), { message: selectorMatchNote(from, from.match) }] });
  }
  for (const { index, more } of seen.values()) {
    if (more === 0) continue;
    const d = out[index]!;
    out[index] = { ...d, related: [...(d.related ?? []), { message: moreMatchesNote(more) }] };
  }
  return out;
}
