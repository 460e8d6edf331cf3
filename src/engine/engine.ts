/**
 * The reconcile engine: desired state + live state → plan; plan → apply. Apply executes exactly the
 * plan's changes (from memory or a saved file). A saved plan is untrusted: apply plans again and
 * refuses it when the live state it was made from has moved (stale) or when it is not what the
 * configuration and the live state yield (edited; saved-plan.ts).
 */
import { flattenDiagnostic } from '../diagnostics/index.js';
import type { DesiredConfig, DesiredInstance } from '../config/model.js';
import type { ConfigResult } from '../config/validate.js';
import { VERSION } from '../version.js';
import { PLAN_FORMAT_VERSION, PRIVATE_CONTENT_WITHHELD, summarize, unacknowledgedRisks } from './plan.js';
import type { ChangeOrder, ExpiryEntry, ExpiryHorizon, Plan, PlanBlocked, PlanDiagnostic, PlanRisk, ResourceChange, DriftEntry, ValueOrigin } from './plan.js';
import type { KindRegistry } from './resource.js';
import { blockingDiagnostic, collapseSelectorDiagnostics, kindDiagnostic, moreMatchesNote, providerFor, selectorMatchOfDiagnostic } from './resource.js';
import type { BlockedMatch } from '../config/load.js';
import { PayloadError } from './payload.js';
import { runScheduled } from './scheduler.js';
import { compareSavedPlan, configDigests, configFingerprint as fingerprintOf, configMoves, planClock } from './saved-plan.js';
import { blastRadius, LARGE_CHANGE_SET, riskRefusals } from './risks.js';
import type { Door } from './risks.js';
import { ENDS_CREDENTIAL, RUNS_LAST, WAITS_FOR_REISSUES } from '../config/risk-ids.js';
import type { ApplyInterrupt } from './interrupt.js';
import { targetSet } from './targets.js';
import { planSelectors, recordSelectorCounts, selectorRisks } from './selector-counts.js';
import { planLocks, recordLockLocations } from './instance-lock.js';
import { expiryWindow, openSession, selectedInstances } from './session.js';
import type { EngineOptions, Session } from './session.js';
import { apiFailure } from './api-failure.js';

export { openSession } from './session.js';
export type { EngineOptions, Session } from './session.js';
export { apiFailure, apiSuggestion } from './api-failure.js';
export type { CalledInstance } from './api-failure.js';

/** Requests in flight at once when --concurrency is not given (the client's default too). */
const DEFAULT_CONCURRENCY = 8;

/**
 * Changes in progress at once, per request slot. A change holds its place while it does things
 * that are not requests (writing and syncing a secret file, waiting for its group's list), so
 * bounding changes by --concurrency left request slots idle (5 of 8 busy on average, measured).
 * The HTTP client bounds the requests in flight to --concurrency whatever runs above it.
 */
const CHANGES_PER_REQUEST_SLOT = 8;

/** Fingerprint of the configuration's meaning (saved-plan.ts): a comment does not make a saved plan stale. */
export function configFingerprint(loaded: ConfigResult): string {
  return fingerprintOf(loaded.sources.texts);
}

export async function makePlan(loaded: ConfigResult, config: DesiredConfig, opts: EngineOptions, session?: Session): Promise<Plan> {
  const own = session ?? openSession(loaded, config, opts);
  const redact = (s: string) => loaded.sources.secrets.redact(s);
  const changes: ResourceChange[] = [];
  const drift: DriftEntry[] = [];
  const risks: PlanRisk[] = [];
  const blocked: PlanBlocked[] = [];
  const expiring: ExpiryEntry[] = [];
  const diagnostics: PlanDiagnostic[] = [...own.diagnostics, ...loaded.diagnostics.map(flattenDiagnostic)];
  try {
    const perInstance = await Promise.all(
      [...own.contexts.values()].map(async (ctx) => {
        const out = { changes: [] as ResourceChange[], drift: [] as DriftEntry[], risks: [] as PlanRisk[], diagnostics: [] as PlanDiagnostic[], expiring: [] as ExpiryEntry[] };
        for (const provider of opts.kinds.providers) {
          if (!provider.declares(ctx.instance)) continue;
          try {
            const r = await provider.plan(ctx);
            // A kind skips what no target can select before reading it; this keeps exactly the
            // targeted resources of what it had to read together (one group's token list).
            const kept = (x: { address: string }) => ctx.targets.targeted(x.address);
            out.changes.push(...r.changes.filter(kept));
            out.drift.push(...r.drift.filter(kept));
            out.risks.push(...(r.risks ?? []).filter(kept));
            out.expiring.push(...(r.expiring ?? []).filter(kept));
            // Marked with the kind; collapsed per kind once the blocked matches are known (below).
            out.diagnostics.push(...r.diagnostics.map((d) => kindDiagnostic(d, provider.kind)));
          } catch (err) {
            out.diagnostics.push({ ...apiFailure(err, `${ctx.instance.name}.${provider.kind}`, redact, ctx.instance), kind: provider.kind });
          }
        }
        const blocked = blockConfinedMatches(ctx.instance.name, out, (loaded.sources.expansion?.blocked ?? []).filter((b) => b.instance === ctx.instance.name));
        out.changes = runLast(out.changes, out.risks);
        return { ...out, blocked };
      }),
    );
    for (const r of perInstance) {
      blocked.push(...r.blocked);
      changes.push(...r.changes);
      drift.push(...r.drift);
      risks.push(...r.risks);
      expiring.push(...r.expiring);
      diagnostics.push(...collapsedPerKind(r.diagnostics));
    }
  } finally {
    if (!session) await own.close();
  }
  if (loaded.sources.defaults.size > 0 || loaded.sources.expansion) changes.splice(0, changes.length, ...changes.map((c) => withOrigins(c, loaded)));
  const selected = selectedInstances(config, opts, own.targets);
  // Each target must select something declared (a no-op counts): a typo would otherwise pass as
  // "In sync" for ever. Not judged when reading failed (the failure says why, and is an error).
  if (own.targets.written.length > 0 && !diagnostics.some(blocksPlan)) {
    const addresses = [...changes, ...drift, ...blocked].map((x) => x.address);
    const unmatched = own.targets.written.filter((t) => {
      const one = targetSet([t]);
      return !addresses.some((a) => one.targeted(a));
    });
    if (unmatched.length > 0) {
      diagnostics.push({
        severity: 'error',
        code: 'PLUMB_TARGET_MATCHES_NOTHING',
        summary: `No declared resource matches --target ${unmatched.join(', ')}`,
        suggestion: 'targets are addresses as the plan shows them, e.g. prod.group["platform/*"] (docs/plans.md#targeting); quote them for the shell',
      });
    }
  }
  for (const instance of selected) diagnostics.push(...unmanagedKinds(instance, opts.kinds));
  risks.push(...blastRadius(changes, selected, opts.maxChanges));
  const selectors = planSelectors(loaded, new Set(own.contexts.keys()));
  risks.push(...selectorRisks(selectors, own.contexts, opts.selectorChange));
  const locks = planLocks(own.contexts);
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    plumbVersion: VERSION,
    createdAt: new Date().toISOString(),
    today: opts.now.toISOString().slice(0, 10),
    configFingerprint: configFingerprint(loaded),
    configFiles: configDigests(loaded.sources.texts),
    instances: selected.map((i) => ({ name: i.name, url: i.url })),
    changes,
    drift,
    risks,
    diagnostics,
    summary: summarize(changes),
    applicable: !diagnostics.some(blocksPlan),
    ...(own.targets.written.length > 0 && { targets: own.targets.written }),
    ...(selectors.length > 0 && { selectors }),
    ...(blocked.length > 0 && { blocked }),
    ...(locks.length > 0 && { locks }),
    ...(opts.expiringWithin && { expiring: horizon(opts.expiringWithin, opts.now, expiring) }),
  };
}

/**
 * A selector's body gives one kind's diagnostics: each kind's are collapsed on their own
 * ({@link collapseSelectorDiagnostics}), after the blocked matches were marked from the uncollapsed
 * ones, in the order each kind first appears.
 */
function collapsedPerKind(diagnostics: readonly PlanDiagnostic[]): PlanDiagnostic[] {
  const byKind = new Map<string | undefined, PlanDiagnostic[]>();
  for (const d of diagnostics) {
    const list = byKind.get(d.kind);
    if (list) list.push(d);
    else byKind.set(d.kind, [d]);
  }
  return [...byKind.values()].flatMap((list) => collapseSelectorDiagnostics(list));
}

/** An error that is not confined to a blocked unit: the plan cannot be applied. */
const blocksPlan = (d: PlanDiagnostic): boolean => d.severity === 'error' && d.blocks === undefined;

/**
 * One instance's plan, with every selector match that could not be planned left out
 * (docs/plans.md#blocked-matches): an error a kind made about a selector's body in one match (its
 * sink directory does not exist, its project has no default branch…) blocks that match's project or
 * group — every change and risk under its address — and nothing else, so a subgroup anyone may
 * create cannot stop the fleet. Its diagnostics are marked (`blocks`) and stay errors (exit 1).
 *
 * A change that runs after every other change of the instance (a RUNS_LAST risk: it may end plumb's
 * credential, or revoke the tokens the others re-issue: a lower token lifetime limit would revoke the
 * blocked group's tokens this apply should have re-issued first), or that depends on a blocked
 * change, is left out too while anything of its instance is blocked (`PLUMB_BLOCKED_BY_MATCH`).
 */
function blockConfinedMatches(
  instance: string,
  out: { changes: ResourceChange[]; risks: PlanRisk[]; diagnostics: PlanDiagnostic[] },
  checked: readonly BlockedMatch[],
): PlanBlocked[] {
  const units = new Map<string, { selector: string; codes: Set<string> }>();
  const unitOf = (container: 'projects' | 'groups', match: string) => `${instance}.${container === 'projects' ? 'project' : 'group'}[${JSON.stringify(match)}]`;
  // Matches the configuration checks failed for alone (engine/selectors.ts): never planned. One
  // problem of the selector's body is reported once, naming how many more matches it blocks.
  const seen = new Map<string, { index: number; more: number }>();
  for (const b of checked) {
    const address = unitOf(b.container, b.match);
    units.set(address, { selector: b.selector, codes: new Set(b.diagnostics.map((d) => d.code)) });
    for (const d of b.diagnostics) {
      const key = [d.code, d.location?.file, d.location?.line, d.location?.column, d.summary.replaceAll(b.match, '')].join('\0');
      const first = seen.get(key);
      if (first) {
        first.more++;
        continue;
      }
      seen.set(key, { index: out.diagnostics.length, more: 0 });
      out.diagnostics.push({ ...flattenDiagnostic(d), blocks: address });
    }
  }
  for (const { index, more } of seen.values()) {
    if (more === 0) continue;
    const d = out.diagnostics[index]!;
    out.diagnostics[index] = { ...d, related: [...(d.related ?? []), { message: moreMatchesNote(more) }] };
  }
  out.diagnostics = out.diagnostics.map((d) => {
    const m = d.severity === 'error' ? selectorMatchOfDiagnostic(d) : undefined;
    if (!m) return d;
    const address = unitOf(m.container, m.match);
    const unit = units.get(address) ?? { selector: m.key, codes: new Set<string>() };
    unit.codes.add(d.code);
    units.set(address, unit);
    return blockingDiagnostic(d, address);
  });
  if (units.size === 0) return [];
  const matches = [...units.keys()];
  const under = (a: string) => matches.some((u) => a === u || a.startsWith(u + '.'));
  const blocked: PlanBlocked[] = [...units].map(([address, u]) => ({ instance, address, selector: u.selector, codes: [...u.codes] }));
  const last = new Set(out.risks.filter((r) => RUNS_LAST.has(r.id)).map((r) => r.address));
  const waiting = out.changes.filter((c) => !under(c.address) && c.action !== 'no-op' && (last.has(c.address) || (c.order?.dependsOn ?? []).some(under)));
  for (const c of waiting) {
    blocked.push({ instance, address: c.address, codes: ['PLUMB_BLOCKED_BY_MATCH'], after: matches });
    out.diagnostics.push({
      severity: 'error',
      code: 'PLUMB_BLOCKED_BY_MATCH',
      summary: `${c.address} (${c.action}) is left out of the plan: it runs after every other change of instance "${instance}", and ${matches.join(', ')} could not be planned`,
      detail: 'It may end plumb\'s credential or revoke tokens the other changes re-issue (a lower token lifetime limit revokes the tokens of a blocked group that this apply would have re-issued first), so it waits until nothing of its instance is blocked.',
      suggestion: 'fix the errors of the blocked matches above and plan again',
      address: c.address,
      blocks: c.address,
    });
  }
  const gone = (a: string) => under(a) || waiting.some((c) => c.address === a);
  out.changes = out.changes.filter((c) => !gone(c.address));
  out.risks = out.risks.filter((r) => !gone(r.address));
  return blocked;
}

/** The horizon of a plan: soonest first, then by address (the same input gives the same order). */
function horizon(within: NonNullable<EngineOptions['expiringWithin']>, now: Date, entries: readonly ExpiryEntry[]): ExpiryHorizon {
  const at = (e: ExpiryEntry) => Date.parse(e.expiresAt.length === 10 ? e.expiresAt + 'T00:00:00Z' : e.expiresAt);
  const sorted = [...entries].sort((a, b) => at(a) - at(b) || (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  return { within: within.written, days: within.days, until: expiryWindow(now, within.days).until.toISOString(), entries: sorted };
}

/**
 * Orders each change of one instance that carries a RUNS_LAST risk (risk-ids.ts: it may end
 * plumb's credential, or revoke tokens the other changes re-issue) after every other change of the
 * instance, whatever their outcome; a lower token lifetime limit (WAITS_FOR_REISSUES) moreover
 * depends on every re-issue of its instance (a `rotate` or `replace`): when one failed, the old
 * token is still live and the limit would revoke it, so the limit is skipped and reported instead.
 * An edge back to a change that already waits for it is left out.
 */
function runLast(changes: ResourceChange[], risks: readonly PlanRisk[]): ResourceChange[] {
  const last = new Set(risks.filter((r) => RUNS_LAST.has(r.id)).map((r) => r.address));
  if (last.size === 0) return changes;
  const waitsForReissues = new Set(risks.filter((r) => WAITS_FOR_REISSUES.has(r.id)).map((r) => r.address));
  const reissues = (o: ResourceChange) => o.action === 'rotate' || o.action === 'replace';
  return changes.map((c) => {
    if (c.action === 'no-op' || !last.has(c.address)) return c;
    const waitsFor = (o: ResourceChange) => [...(o.order?.after ?? []), ...(o.order?.dependsOn ?? [])].includes(c.address);
    const others = changes.filter((o) => o.action !== 'no-op' && !last.has(o.address) && !waitsFor(o));
    if (others.length === 0) return c;
    const needed = waitsForReissues.has(c.address) ? others.filter(reissues).map((o) => o.address) : [];
    const before = others.filter((o) => !needed.includes(o.address)).map((o) => o.address);
    return {
      ...c,
      order: {
        ...c.order,
        ...(before.length > 0 && { after: [...new Set([...(c.order?.after ?? []), ...before])] }),
        ...(needed.length > 0 && { dependsOn: [...new Set([...(c.order?.dependsOn ?? []), ...needed])] }),
      },
    };
  });
}

/** A value's origin when `defaults:` declares it: the default's place, and the override's. */
function originAt(loaded: ConfigResult, pointer: string): ValueOrigin | undefined {
  const place = (p: string) => {
    const l = loaded.sources.locations.get(p);
    const at = l?.key ?? l?.value;
    return at ? `${at.file}:${at.line}:${at.column}` : p;
  };
  const o = loaded.sources.defaults.at(pointer);
  if (!o) {
    // A value a selector gave this project or group (config/selectors.ts).
    const s = loaded.sources.expansion?.origins.at(pointer);
    if (!s) return undefined;
    return s.how === 'inherited' ? { from: 'inherited', selector: s.selector.key, declared: s.at } : { from: 'overridden', selector: s.selector.key, declared: s.at, override: place(pointer) };
  }
  return o.how === 'inherited' ? { from: 'inherited', defaults: place(o.defaults) } : { from: 'overridden', defaults: place(o.defaults), override: place(pointer) };
}

/**
 * Notes on a change where its resource, or an attribute of it (a setting, a Pages field: a key
 * under the change's pointer), is inherited from or overrides `defaults:`. Cosmetic.
 */
function withOrigins(change: ResourceChange, loaded: ConfigResult): ResourceChange {
  if (change.pointer === undefined) return change;
  const own = originAt(loaded, change.pointer);
  let touched = own !== undefined;
  const attributes = change.attributes.map((a) => {
    const origin = originAt(loaded, `${change.pointer}/${a.name.replace(/~/g, '~0').replace(/\//g, '~1')}`);
    if (!origin) return a;
    touched = true;
    return { ...a, origin };
  });
  const selector = loaded.sources.expansion?.origins.selectorOf(change.pointer)?.key;
  if (selector !== undefined) touched = true;
  return touched ? { ...change, attributes, ...(own && { origin: own }), ...(selector !== undefined && { selector }) } : change;
}

/** Kinds the configuration declares that this version of plumb does not plan yet. */
function unmanagedKinds(instance: DesiredInstance, kinds: KindRegistry): PlanDiagnostic[] {
  return kinds.validatedOnly
    .filter((k) => k.declares(instance) && !providerFor(kinds, k.kind))
    .map(({ kind }) => ({
      severity: 'warning' as const,
      code: 'PLUMB_KIND_NOT_MANAGED',
      summary: `Instance "${instance.name}" declares ${kind} resources, which this version of plumb validates but does not plan or apply yet`,
      suggestion: 'see CHANGELOG.md for when they are managed; they are left untouched',
    }));
}

export { checkPlanPayloads } from './payload-check.js';

export interface ApplyOutcome {
  readonly address: string;
  readonly action: ResourceChange['action'];
  /**
   * `skipped`: a change it depends on did not apply; `not-attempted`: apply refused before any write,
   * or was interrupted before the change started; `unknown`: the change was still in flight when an
   * interrupted apply stopped waiting for it (docs/plans.md#interrupted-applies).
   */
  readonly status: 'applied' | 'failed' | 'skipped' | 'not-attempted' | 'unknown';
  readonly notes: readonly string[];
}

export interface ApplyReport {
  readonly ok: boolean;
  /** Why nothing was written, when apply refused before the first write. */
  readonly refused?: string;
  readonly outcomes: readonly ApplyOutcome[];
  /** Units the plan left out (docs/plans.md#blocked-matches): not planned, not applied; `ok` is false. */
  readonly blocked?: readonly PlanBlocked[];
  readonly diagnostics: readonly PlanDiagnostic[];
  /** The signal that interrupted apply (`SIGINT`, `SIGTERM`): it started no change after it. */
  readonly interrupted?: string;
}

export interface ApplyOptions extends EngineOptions {
  /** The plan came from a file: check it still matches the configuration and the live state. */
  readonly fromFile: boolean;
  /** Called as changes finish (a terminal's progress line). */
  readonly onProgress?: (done: number, total: number, address: string) => void;
  /** `--allow-risky`: apply even with risks the configuration does not acknowledge. */
  readonly allowRisky?: boolean;
  /** `--allow-destroy`: apply destroys (risks with `gate: 'destroy'`) the configuration does not opt into. */
  readonly allowDestroy?: boolean;
  /** The door the configuration came through: how refusals word their help (default `cli`). */
  readonly door?: Door;
  /** A stop asked for from outside (the CLI's SIGINT/SIGTERM, interrupt.ts); absent: apply runs to its end. */
  readonly interrupt?: ApplyInterrupt;
}

/**
 * A saved plan is untrusted input: plan again from the configuration and the live state, with the
 * plan's own clock, and refuse unless every change and risk is what that yields (saved-plan.ts).
 * The reads are the ones apply needs anyway: a kind shares them with its apply (one token list per
 * group), so the check costs no request the in-memory apply does not make.
 */
async function checkSavedPlan(
  plan: Plan,
  loaded: ConfigResult,
  config: DesiredConfig,
  opts: ApplyOptions,
  own: Session,
): Promise<{ why: string; diagnostics: PlanDiagnostic[] } | undefined> {
  const redact = (s: string) => loaded.sources.secrets.redact(s);
  const today = opts.now.toISOString().slice(0, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(plan.today) || Number.isNaN(Date.parse(plan.today)) || plan.today > today) {
    return {
      why: 'the plan\'s date is not a day up to today; nothing was applied',
      diagnostics: [
        {
          severity: 'error',
          code: 'PLUMB_PLAN_EDITED',
          summary: `The saved plan says it was made on ${JSON.stringify(plan.today)}, which is not a date up to today (${today})`,
          detail: 'Apply plans again with the plan\'s date (token expiry dates and rotations depend on it); a plan cannot come from the future.',
          suggestion: 'make a new plan with `plumb plan --out FILE`',
        },
      ],
    };
  }
  const clock = planClock(plan);
  const showContent = plan.changes.some((c) => c.diff !== undefined);
  // The plan made again is compared, never shown: private content is read again only when the saved
  // plan shows it (made with --show-private-content), so that its diffs compare equal.
  const showPrivateContent = showContent && !plan.changes.some((c) => c.diff?.startsWith(PRIVATE_CONTENT_WITHHELD));
  const again: Session = {
    ...own,
    contexts: new Map([...own.contexts].map(([k, c]) => [k, { ...c, today: plan.today, now: clock, ...(showContent && { showContent: true }), ...(showPrivateContent && { showPrivateContent: true }) }])),
    close: async () => {},
  };
  const now = await makePlan(loaded, config, { ...opts, now: clock }, again);
  if (!now.applicable) {
    return { why: 'planning again from the configuration and the live state failed; nothing was applied', diagnostics: now.diagnostics.filter((d) => d.severity === 'error') };
  }
  // The units left out must be the ones left out now: a match that can be planned now, or one that
  // cannot any more, means the plan's view of the fleet is out of date.
  const blockedNow = (p: Plan) => JSON.stringify((p.blocked ?? []).map((b) => b.address).sort());
  if (blockedNow(plan) !== blockedNow(now)) {
    return {
      why: 'the units the plan left out are not the ones left out now; nothing was applied',
      diagnostics: [
        {
          severity: 'error',
          code: 'PLUMB_PLAN_STALE',
          summary: `The saved plan leaves out ${(plan.blocked ?? []).map((b) => b.address).join(', ') || 'nothing'}, but planning again now leaves out ${(now.blocked ?? []).map((b) => b.address).join(', ') || 'nothing'}`,
          detail: 'A selector match that could not be planned then can be now, or the other way round (a sink directory created, a project changed): the saved plan is not what apply would carry out.',
          suggestion: 'run `plumb plan` again and review the new plan',
        },
      ],
    };
  }
  const result = compareSavedPlan(plan, now, (saved, derived) => providerFor(opts.kinds, derived.kind)?.explainDifference?.(saved, derived));
  const stale = [...result.stale];
  const edited = [...result.edited, ...compareLockLocations(plan, now)];
  // A saved change the configuration and the live state no longer yield at all: ask its kind
  // whether the live state it was planned against moved (stale) or not (the file was edited).
  await Promise.all(
    result.unmatched.map(async (change) => {
      const ctx = own.contexts.get(change.instance);
      const provider = providerFor(opts.kinds, change.kind);
      if (!ctx || !provider) {
        edited.push({ severity: 'error', code: 'PLUMB_PLAN_UNKNOWN_TARGET', summary: `The plan names ${change.address}, which this configuration does not select`, address: change.address });
        return;
      }
      try {
        if ((await provider.liveFingerprint(ctx, change, provider.parsePayload(change.payload))) !== change.liveFingerprint) {
          stale.push({ severity: 'error', code: 'PLUMB_PLAN_STALE', summary: `${change.address} changed on the instance since the plan was made`, suggestion: 'run `plumb plan` again and review the new plan', address: change.address });
          return;
        }
      } catch (err) {
        if (!(err instanceof PayloadError)) {
          stale.push(apiFailure(err, change.address, redact, ctx.instance));
          return;
        }
      }
      edited.push({
        severity: 'error',
        code: 'PLUMB_PLAN_EDITED',
        summary: `The saved plan ${change.action}s ${change.address}, which the configuration and the live state do not yield`,
        detail: 'Apply executes only what the configuration and the live state yield. Nothing was applied.',
        suggestion: 'make a new plan with `plumb plan --out FILE` from the reviewed configuration, and apply that file as it was written',
        address: change.address,
      });
    }),
  );
  if (stale.length > 0) return { why: 'the live state moved since the plan was made; nothing was applied', diagnostics: stale };
  if (edited.length > 0) return { why: 'the saved plan is not what the configuration and the live state yield (it was edited); nothing was applied', diagnostics: edited };
  return undefined;
}

/**
 * The lock location a saved plan showed must be the one apply holds (the configuration's): a plan
 * of format 1.3 lists every instance's. Older formats did not show it and are not compared. Where
 * the last apply held it (`before`) is not compared: this apply records its own lock before it
 * plans again.
 */
function compareLockLocations(saved: Plan, now: Plan): PlanDiagnostic[] {
  if (saved.formatVersion !== PLAN_FORMAT_VERSION) return [];
  const key = (p: Plan) => JSON.stringify((p.locks ?? []).filter((l) => l.location !== null).map((l) => [l.instance, l.location!.project, l.location!.path, l.location!.branch ?? null]).sort());
  if (key(saved) === key(now)) return [];
  return [
    {
      severity: 'error',
      code: 'PLUMB_PLAN_EDITED',
      summary: 'The saved plan shows a lock location that is not the one the configuration declares',
      detail: 'apply commits the lock file where the configuration says; the plan a reviewer read must say the same. Nothing was applied.',
      suggestion: 'make a new plan with `plumb plan --out FILE` from the reviewed configuration, and apply that file as it was written',
    },
  ];
}

/** What apply runs as one: a change alone, or the changes of one batch of a kind that applies batches together. */
interface ApplyUnit {
  readonly address: string;
  readonly addresses: readonly string[];
  readonly order?: ChangeOrder;
  readonly changes: readonly ResourceChange[];
  /** Applied with the kind's `applyBatch` (`order.batch`, a kind that has it). */
  readonly batched: boolean;
}

/**
 * The plan's changes as apply runs them: the changes of one instance and kind with the same
 * `order.batch` (when the kind applies batches) become one unit, placed at its first change, with
 * its changes' lane and the union of their edges; every other change is a unit of its own.
 */
function applyUnits(todo: readonly ResourceChange[], kinds: KindRegistry): ApplyUnit[] {
  const groups: ResourceChange[][] = [];
  const byBatch = new Map<string, ResourceChange[]>();
  for (const c of todo) {
    const batch = c.order?.batch;
    if (batch === undefined || !providerFor(kinds, c.kind)?.applyBatch) {
      groups.push([c]);
      continue;
    }
    const key = JSON.stringify([c.instance, c.kind, batch]);
    const group = byBatch.get(key);
    if (group) group.push(c);
    else {
      const fresh = [c];
      byBatch.set(key, fresh);
      groups.push(fresh);
    }
  }
  return groups.map((changes) => {
    const first = changes[0]!;
    const addresses = changes.map((c) => c.address);
    const inside = new Set(addresses);
    const edges = (pick: (o: ChangeOrder) => readonly string[] | undefined) => [...new Set(changes.flatMap((c) => (c.order ? (pick(c.order) ?? []) : [])))].filter((a) => !inside.has(a));
    const after = edges((o) => o.after);
    const dependsOn = edges((o) => o.dependsOn);
    const order: ChangeOrder = { ...(first.order?.lane !== undefined && { lane: first.order.lane }), ...(after.length > 0 && { after }), ...(dependsOn.length > 0 && { dependsOn }) };
    return { address: first.address, addresses, order, changes, batched: first.order?.batch !== undefined && providerFor(kinds, first.kind)?.applyBatch !== undefined };
  });
}

/**
 * Executes a plan's changes concurrently, in the order their kinds declared (scheduler.ts): an
 * independent change goes on when another fails, one that depends on a failed change is skipped.
 * Reports every change's fate.
 */
export async function applyPlan(plan: Plan, loaded: ConfigResult, config: DesiredConfig, opts: ApplyOptions, session?: Session): Promise<ApplyReport> {
  const own = session ?? openSession(loaded, config, opts);
  const redact = (s: string) => loaded.sources.secrets.redact(s);
  const todo = plan.changes.filter((c) => c.action !== 'no-op');
  const refuse = (why: string, diagnostics: PlanDiagnostic[] = []): ApplyReport => ({
    ok: false,
    refused: why,
    outcomes: todo.map((c) => ({ address: c.address, action: c.action, status: 'not-attempted', notes: [] })),
    diagnostics,
  });
  try {
    if (own.diagnostics.some((d) => d.severity === 'error')) return refuse('the session could not be opened', own.diagnostics);
    if (!plan.applicable) return refuse('the plan has errors; fix them and plan again', [...plan.diagnostics]);
    // The blast radius is judged by this apply (its --max-changes, the configuration's allow_risky)
    // from the changes it would carry out, whatever the plan said (a saved plan's changes are
    // checked against the configuration and the live state below, before any write).
    const risks = [...plan.risks.filter((r) => r.id !== LARGE_CHANGE_SET), ...blastRadius(todo, config.instances, opts.maxChanges)];
    const risky = unacknowledgedRisks({ risks }, opts);
    if (risky.length > 0) {
      const why = risky.every((r) => r.gate === 'destroy') ? 'the plan destroys something nobody accepted' : 'the plan has risky changes nobody accepted';
      return refuse(`${why}; nothing was applied`, riskRefusals(risky, opts.door));
    }
    if (opts.fromFile) {
      if (plan.configFingerprint !== configFingerprint(loaded)) {
        return refuse('the configuration changed since this plan was made; make a new plan', [
          {
            severity: 'error',
            code: 'PLUMB_PLAN_STALE_CONFIG',
            summary: `The configuration is not the one this plan was made from: ${configMoves(plan.configFiles, loaded.sources.texts)}`,
            detail: 'A saved plan is applied only with the configuration it was made from (its meaning: comments and layout do not count).',
            suggestion: 'run `plumb plan --out FILE` again',
          },
        ]);
      }
      const checked = await checkSavedPlan(plan, loaded, config, opts, own);
      if (checked) return refuse(checked.why, checked.diagnostics);
    }

    // The counts this apply carries out are the ones the next plan compares with.
    if (plan.selectors) recordSelectorCounts(plan.selectors, own.contexts);
    recordLockLocations(own.contexts);
    const endsCredential = new Set(plan.risks.filter((r) => ENDS_CREDENTIAL.has(r.id)).map((r) => r.address));
    const results = new Map<ResourceChange, { applied: boolean; notes: readonly string[] }>();
    const diagnostics: PlanDiagnostic[] = [];
    let done = 0;
    // An interruption from here on lets the changes in flight finish (at most its grace period),
    // starts no other, and writes the state even if the process must end at once.
    const interrupt = opts.interrupt;
    interrupt?.writing();
    const unregister = interrupt?.atHardExit(() => {
      for (const ctx of own.contexts.values()) ctx.state.flush();
    });
    const started = new Set<ResourceChange>();
    const finished = new Map<ResourceChange, ApplyOutcome['status']>();
    let graceTimer: NodeJS.Timeout | undefined;
    let offStop: (() => void) | undefined;
    const graceOver = new Promise<'grace-over'>((resolve) => {
      offStop = interrupt?.onStop(() => {
        graceTimer = setTimeout(() => resolve('grace-over'), interrupt.graceMs);
        graceTimer.unref();
      });
    });
    const scheduled = runScheduled(applyUnits(todo, opts.kinds), {
      concurrency: (opts.concurrency ?? DEFAULT_CONCURRENCY) * CHANGES_PER_REQUEST_SLOT,
      stopped: () => interrupt?.stopRequested() !== undefined,
      run: async (unit) => {
        const first = unit.changes[0]!;
        for (const change of unit.changes) {
          started.add(change);
          opts.log(`${change.address}: ${change.action}…`);
        }
        const ctx = own.contexts.get(first.instance)!;
        const provider = providerFor(opts.kinds, first.kind)!;
        // plumb's credential may not survive this change (ordered after every other change of its
        // instance): give the instance's lock back first, while the credential can still delete it.
        const lock = own.instanceLocks?.get(first.instance);
        const ending = unit.changes.find((c) => endsCredential.has(c.address));
        if (lock && ending) {
          own.instanceLocks!.delete(first.instance);
          await lock.release();
          opts.log(`${ending.address}: gave the lock on the instance "${first.instance}" back first: plumb's credential may not survive this change`);
        }
        try {
          const payloads = unit.changes.map((c) => provider.parsePayload(c.payload));
          const responses = unit.batched && provider.applyBatch ? await provider.applyBatch(ctx, unit.changes, payloads) : [await provider.apply(ctx, first, payloads[0])];
          unit.changes.forEach((change, i) => {
            const r = responses[i] ?? { applied: false, diagnostics: [], notes: [] };
            diagnostics.push(...r.diagnostics);
            results.set(change, { applied: r.applied, notes: r.notes });
          });
          return unit.changes.every((c) => results.get(c)?.applied === true);
        } catch (err) {
          for (const change of unit.changes) diagnostics.push(apiFailure(err, change.address, redact, ctx.instance));
          return false;
        }
      },
      onDone: (unit, status, cause) => {
        for (const change of unit.changes) {
          // A unit fails when one of its changes does; a change it applied is still applied.
          const mine = status === 'failed' && results.get(change)?.applied === true ? 'applied' : status;
          finished.set(change, mine === 'not-started' ? 'not-attempted' : mine);
          if (status === 'skipped') {
            diagnostics.push({
              severity: 'error',
              code: 'PLUMB_APPLY_SKIPPED',
              summary: `${change.address} was not applied: it depends on ${cause}, which was not applied`,
              suggestion: 'fix the failure above and run `plumb plan` and `plumb apply` again',
              address: change.address,
            });
          }
          opts.onProgress?.(++done, todo.length, change.address);
        }
      },
    });
    const ended = await Promise.race([scheduled, graceOver]);
    clearTimeout(graceTimer);
    offStop?.();
    unregister?.();
    // A change still in flight when the grace period ended has an unknown outcome; one that never started was not attempted.
    const outcomes: ApplyOutcome[] = todo.map((change) => ({
      address: change.address,
      action: change.action,
      status: finished.get(change) ?? (started.has(change) ? 'unknown' : 'not-attempted'),
      notes: results.get(change)?.notes ?? [],
    }));
    const signal = interrupt?.stopRequested();
    if (signal !== undefined) {
      const notStarted = outcomes.filter((o) => o.status === 'not-attempted').length;
      const unknown = outcomes.filter((o) => o.status === 'unknown').length;
      diagnostics.push({
        severity: 'error',
        code: 'PLUMB_APPLY_INTERRUPTED',
        summary: `Apply was interrupted by ${signal}: ${notStarted} change(s) not started${unknown > 0 ? `, ${unknown} still in flight after ${Math.round(interrupt!.graceMs / 1000)} s (outcome unknown)` : ''}`,
        detail:
          ended === 'grace-over'
            ? 'The changes in flight did not finish within the grace period; what they did is on the instance, and the state holds what plumb learned (a token issue whose answer never came is noted, so it is never adopted unseen).'
            : 'Every change that had started finished and is reported above; its outcome is recorded in the state.',
        suggestion: 'run `plumb plan` to see what is left, then `plumb apply`',
      });
    }
    const failed = outcomes.some((o) => o.status !== 'applied');
    // Blocked units were never planned: the rest is done, and the run still fails, saying why.
    const blocked = plan.blocked ?? [];
    return {
      ok: !failed && blocked.length === 0,
      outcomes,
      ...(blocked.length > 0 && { blocked }),
      diagnostics: [...plan.diagnostics.filter((d) => d.blocks !== undefined), ...diagnostics],
      ...(signal !== undefined && { interrupted: signal }),
    };
  } finally {
    for (const ctx of own.contexts.values()) ctx.state.flush();
    if (!session) await own.close();
  }
}

