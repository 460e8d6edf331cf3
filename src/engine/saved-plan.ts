/**
 * The check of a saved plan at apply (docs/plans.md#what-apply-checks-in-a-saved-plan): a plan file
 * is an artifact anybody with access to the pipeline can edit, so apply never trusts its changes.
 * It plans again from the configuration and the live state (the same reads apply needs anyway, made
 * with the plan's recorded clock) and executes the saved plan only when every change, and every
 * risk, is exactly what that plan yields now:
 *
 * - a change whose live fingerprint differs: the instance moved since the plan (`PLUMB_PLAN_STALE`);
 * - a change whose address, kind, action, payload, attributes, reasons, ordering or content diff
 *   differs, a change the configuration does not yield, or a change the saved plan lacks:
 *   `PLUMB_PLAN_EDITED`;
 * - a risk or a destroy's gate that differs (acknowledged where the configuration does not accept
 *   it, deleted, its gate removed): `PLUMB_PLAN_EDITED`.
 *
 * Salted secret fingerprints (a write-only setting, a file whose content is a secret) differ between
 * two plans by construction (a fresh salt each time): they are compared as "a fingerprint is here";
 * the kind checks the saved fingerprint against the secret before it sends anything
 * (`PLUMB_PLAN_STALE_SECRET`, `PLUMB_FILE_SOURCE_CHANGED`).
 */
import { createHash } from 'node:crypto';
import jsYaml from 'js-yaml';
import { canonical } from '../util/canonical.js';
import type { Plan, PlanDiagnostic, PlanRisk, ResourceChange } from './plan.js';

/** Most values one document's meaning may hold before it is digested as text (an alias expanding without end). */
const MEANING_LIMIT = 1_000_000;

/**
 * What one configuration document means: its data as the loader parses it (YAML core schema), so
 * that comments, blank lines, indentation and quoting do not move a saved plan; key order does (it
 * orders the plan). A document that does not parse here, or whose data is out of all proportion
 * to its text, is digested as text.
 */
function documentDigest(text: string): string {
  let meaning: string;
  try {
    let values = 0;
    meaning = `data\0${JSON.stringify(jsYaml.load(text, { schema: jsYaml.CORE_SCHEMA }) ?? null, (_k, v: unknown) => {
      if (++values > MEANING_LIMIT) throw new RangeError('too large');
      return v;
    })}`;
  } catch {
    meaning = `text\0${text}`;
  }
  return 'sha256:' + createHash('sha256').update(meaning).digest('hex');
}

/** Each configuration document's digest, by the name plumb shows it under (`Plan.configFiles`). */
export function configDigests(texts: ReadonlyMap<string, string>): Record<string, string> {
  return Object.fromEntries([...texts].map(([file, text]) => [file, documentDigest(text)]));
}

/**
 * Fingerprint of the configuration: its documents' meanings, in load order. A change of meaning
 * makes a saved plan stale; a comment or a change of layout does not. Interpolated values are not
 * in the documents; the ones a plan sends are checked through their own fingerprints at apply.
 */
export function configFingerprint(texts: ReadonlyMap<string, string>): string {
  const hash = createHash('sha256');
  for (const digest of Object.values(configDigests(texts))) hash.update(`${digest}\0`);
  return 'sha256:' + hash.digest('hex');
}

/**
 * What moved in the configuration since a saved plan, as a clause: the files whose meaning
 * changed, appeared or went away, by the plan's `configFiles` (a plan without it: unknown).
 */
export function configMoves(saved: Readonly<Record<string, string>> | undefined, texts: ReadonlyMap<string, string>): string {
  if (!saved) return 'the plan does not say which of its files it was made from';
  const now = configDigests(texts);
  const changed = Object.keys(now).filter((f) => saved[f] !== undefined && saved[f] !== now[f]);
  const added = Object.keys(now).filter((f) => saved[f] === undefined);
  const gone = Object.keys(saved).filter((f) => now[f] === undefined);
  const parts = [
    ...(changed.length > 0 ? [`${changed.join(', ')} changed`] : []),
    ...(added.length > 0 ? [`${added.join(', ')} ${added.length === 1 ? 'is' : 'are'} new`] : []),
    ...(gone.length > 0 ? [`${gone.join(', ')} ${gone.length === 1 ? 'is' : 'are'} gone`] : []),
  ];
  return parts.length > 0 ? parts.join('; ') : 'the same files are read in another order';
}

/** The clock a saved plan is planned again with: its own day (rotations and expiry dates depend on it). */
export function planClock(plan: Pick<Plan, 'today' | 'createdAt'>): Date {
  // `createdAt` is the wall clock, `today` the day decisions were made against (`--now`): the time
  // of day of createdAt is kept when both name the same day, which no decision of plumb depends on.
  return plan.createdAt.slice(0, 10) === plan.today && !Number.isNaN(Date.parse(plan.createdAt)) ? new Date(plan.createdAt) : new Date(`${plan.today}T00:00:00.000Z`);
}

/** A salted fingerprint's random parts, replaced so two plans of one value compare equal. */
function withoutSalts(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSalts);
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    const salted = typeof o.salt === 'string' && typeof o.hash === 'string';
    return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, salted && (k === 'salt' || k === 'hash') ? '(salted)' : withoutSalts(v)]));
  }
  return value;
}

/**
 * An origin's places (`defaults`, `declared`, `override`: FILE:LINE:COL) without line and column:
 * the configuration's meaning is checked by its fingerprint, and a comment above a declaration
 * moves its line without changing what the plan does.
 */
function withoutLines(value: unknown, inOrigin = false): unknown {
  if (Array.isArray(value)) return value.map((v) => withoutLines(v));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [
        k,
        inOrigin && typeof v === 'string' && ['defaults', 'declared', 'override'].includes(k) ? v.replace(/:\d+:\d+$/, '') : withoutLines(v, k === 'origin'),
      ]),
    );
  }
  return value;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(canonical(withoutLines(a)) ?? null) === JSON.stringify(canonical(withoutLines(b)) ?? null);

/** The fields of a change apply or a reviewer reads, each compared as the plan writes it. */
const COMPARED: readonly { readonly key: keyof ResourceChange; readonly what: string }[] = [
  { key: 'instance', what: 'instance' },
  { key: 'kind', what: 'kind' },
  { key: 'action', what: 'action' },
  { key: 'payload', what: 'payload (what apply sends)' },
  { key: 'attributes', what: 'attributes (what the plan shows)' },
  { key: 'reasons', what: 'reasons' },
  { key: 'pointer', what: 'configuration pointer' },
  { key: 'origin', what: 'origin' },
  { key: 'selector', what: 'selector' },
  { key: 'order', what: 'ordering' },
  { key: 'diff', what: 'content diff' },
  { key: 'deliveries', what: 'deliveries' },
];

function edited(address: string, summary: string, detail?: string): PlanDiagnostic {
  return {
    severity: 'error',
    code: 'PLUMB_PLAN_EDITED',
    summary,
    detail: detail ?? 'Apply executes only what the configuration and the live state yield; this saved plan says something else, so none of it was applied.',
    suggestion: 'make a new plan with `plumb plan --out FILE` from the reviewed configuration, and apply that file as it was written',
    address,
  };
}

function stale(address: string): PlanDiagnostic {
  return {
    severity: 'error',
    code: 'PLUMB_PLAN_STALE',
    summary: `${address} changed on the instance since the plan was made`,
    detail: 'Applying the saved plan could undo that change unseen.',
    suggestion: 'run `plumb plan` again and review the new plan',
    address,
  };
}

/**
 * A selector's match moved on the instance (a project created, archived, renamed or moved): the
 * plan made now has changes for an object the saved plan has none for, or the other way round.
 */
function matchMoved(change: ResourceChange, match: string, appeared: boolean): PlanDiagnostic {
  const what = /\.group\[/.test(match) ? 'group' : 'project';
  return {
    severity: 'error',
    code: 'PLUMB_PLAN_STALE',
    summary: appeared
      ? `Selector "${change.selector}" matches ${match} now, which it did not match when the plan was made`
      : `Selector "${change.selector}" no longer matches ${match}, which it matched when the plan was made`,
    detail: appeared
      ? `The ${what} was created, renamed, moved or unarchived since; applying the saved plan would leave it out unseen.`
      : `The ${what} was archived, renamed, moved or deleted since; the saved plan's changes to it cannot be applied as reviewed.`,
    suggestion: 'run `plumb plan` again and review the new plan',
    address: match,
  };
}

/** The object of a selector match a change belongs to: `INSTANCE.project["PATH"]` or `INSTANCE.group["PATH"]`. */
const MATCH_OF = /^[^.[]+\.(?:project|group)\["(?:[^"\\]|\\.)*"\]/;

/** A selector of an instance, as the plan's `selectors` list and a change's address name it. */
const selectorKey = (instance: string, container: string, selector: string): string => `${instance}\0${container}\0${selector}`;
const containerOf = (match: string): string => (/^[^.[]+\.group\[/.test(match) ? 'groups' : 'projects');

/** Each selector → the objects its matches' changes (no-ops included) are about. */
function selectorMatches(changes: readonly ResourceChange[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const c of changes) {
    const m = c.selector !== undefined ? MATCH_OF.exec(c.address)?.[0] : undefined;
    if (m === undefined) continue;
    const key = selectorKey(c.instance, containerOf(m), c.selector!);
    if (!out.has(key)) out.set(key, new Set());
    out.get(key)!.add(m);
  }
  return out;
}

/**
 * The selectors whose matches moved on the instance: the objects only one plan has changes for
 * account for the difference of the two plans' counts (`selectors`). One match missing from a
 * saved plan whose count did not move is a change taken out of the file: edited, not stale.
 */
function movedSelectors(saved: Pick<Plan, 'changes' | 'selectors'>, now: Pick<Plan, 'changes' | 'selectors'>, savedMatches: Map<string, Set<string>>, nowMatches: Map<string, Set<string>>): Set<string> {
  const count = (p: Pick<Plan, 'selectors'>) => new Map((p.selectors ?? []).map((x) => [selectorKey(x.instance, x.container, x.selector), x.matched]));
  const before = count(saved);
  const after = count(now);
  const out = new Set<string>();
  for (const key of new Set([...savedMatches.keys(), ...nowMatches.keys()])) {
    const was = savedMatches.get(key) ?? new Set<string>();
    const is = nowMatches.get(key) ?? new Set<string>();
    const appeared = [...is].filter((m) => !was.has(m)).length;
    const gone = [...was].filter((m) => !is.has(m)).length;
    const b = before.get(key);
    const a = after.get(key);
    if ((appeared > 0 || gone > 0) && b !== undefined && a !== undefined && b - gone + appeared === a) out.add(key);
  }
  return out;
}

export interface SavedPlanCheck {
  /** Live state (or an input outside the configuration's text, as a kind explains it) moved: the saved plan is stale. */
  readonly stale: PlanDiagnostic[];
  /** The saved plan says something the configuration and the live state do not yield. */
  readonly edited: PlanDiagnostic[];
  /**
   * Saved changes the plan made now does not hold at all; the caller asks their kind whether the
   * live state they were planned against moved (stale) or not (edited).
   */
  readonly unmatched: ResourceChange[];
}

/**
 * Compares a saved plan with the plan made again now. Changes are matched by address; a no-op on one
 * side that the other lacks is not a difference (a no-op is never applied).
 */
export function compareSavedPlan(
  saved: Pick<Plan, 'changes' | 'risks' | 'selectors'>,
  now: Pick<Plan, 'changes' | 'risks' | 'selectors'>,
  explain: (saved: ResourceChange, derived: ResourceChange) => PlanDiagnostic | undefined = () => undefined,
): SavedPlanCheck {
  const out: SavedPlanCheck = { stale: [], edited: [], unmatched: [] };
  // A selector match that only one of the two plans has moved on the instance: stale, once per match.
  const savedMatches = selectorMatches(saved.changes);
  const nowMatches = selectorMatches(now.changes);
  const movedKeys = movedSelectors(saved, now, savedMatches, nowMatches);
  const told = new Set<string>();
  const moved = (c: ResourceChange, mine: Map<string, Set<string>>, other: Map<string, Set<string>>, appeared: boolean): boolean => {
    const match = c.selector !== undefined ? MATCH_OF.exec(c.address)?.[0] : undefined;
    if (match === undefined) return false;
    const key = selectorKey(c.instance, containerOf(match), c.selector!);
    if (!movedKeys.has(key) || !mine.get(key)?.has(match) || other.get(key)?.has(match)) return false;
    if (!told.has(match)) out.stale.push(matchMoved(c, match, appeared));
    told.add(match);
    return true;
  };
  const derived = new Map<string, ResourceChange>();
  for (const c of now.changes) derived.set(c.address, c);
  const seen = new Set<string>();
  for (const c of saved.changes) {
    if (seen.has(c.address)) {
      out.edited.push(edited(c.address, `The saved plan lists ${c.address} twice`));
      continue;
    }
    seen.add(c.address);
    const d = derived.get(c.address);
    if (!d) {
      if (c.action !== 'no-op' && !moved(c, savedMatches, nowMatches, false)) out.unmatched.push(c);
      continue;
    }
    if (c.liveFingerprint !== d.liveFingerprint) {
      out.stale.push(stale(c.address));
      continue;
    }
    // Each field compared under its own key, so that an `origin` is recognised wherever it is.
    const differs = COMPARED.filter(({ key }) => !same({ [key]: key === 'payload' ? withoutSalts(c[key]) : c[key] }, { [key]: key === 'payload' ? withoutSalts(d[key]) : d[key] }));
    if (differs.length > 0) {
      const why = explain(c, d);
      if (why) {
        out.stale.push(why);
        continue;
      }
      out.edited.push(
        edited(
          c.address,
          `The saved plan's ${c.address} is not what the configuration and the live state yield: its ${differs.map((x) => x.what).join(', ')} differ${differs.length === 1 ? 's' : ''}`,
          `The saved plan has ${describe(c)}; the configuration and the live state yield ${describe(d)}. Nothing was applied.`,
        ),
      );
    }
  }
  for (const d of now.changes) {
    if (d.action === 'no-op' || seen.has(d.address) || moved(d, nowMatches, savedMatches, true)) continue;
    out.edited.push(
      edited(
        d.address,
        `The saved plan lacks ${d.address} (${d.action}), which the configuration and the live state yield now`,
        'Either the change was removed from the plan file, or the instance changed since the plan was made. Nothing was applied.',
      ),
    );
  }
  out.edited.push(...compareRisks(saved.risks, now.risks));
  return out;
}

/** One line for people: the action and, briefly, the payload. Never a secret (payloads hold none). */
function describe(c: ResourceChange): string {
  const text = JSON.stringify(canonical(withoutSalts(c.payload)));
  return `a ${c.action} sending ${text.length > 300 ? `${text.slice(0, 300)}…` : text}`;
}

const riskKey = (r: PlanRisk): string => JSON.stringify([r.instance, r.address, r.id]);

/**
 * Risks are re-derived too: acceptance comes from the configuration and the apply flags only. The
 * blast radius (`large-change-set`) is not compared: apply judges it itself from the changes it
 * carries out and its own --max-changes (engine.ts), which may differ from the plan's.
 */
function compareRisks(savedAll: readonly PlanRisk[], nowAll: readonly PlanRisk[]): PlanDiagnostic[] {
  const judgedAtApply = (r: PlanRisk) => r.id !== 'large-change-set';
  const saved = savedAll.filter(judgedAtApply);
  const now = nowAll.filter(judgedAtApply);
  const out: PlanDiagnostic[] = [];
  const derived = new Map(now.map((r) => [riskKey(r), r]));
  const savedKeys = new Set(saved.map(riskKey));
  for (const r of saved) {
    const d = derived.get(riskKey(r));
    if (!d) {
      out.push(edited(r.address, `The saved plan lists risk "${r.id}" on ${r.address}, which the configuration and the live state do not yield`));
      continue;
    }
    if (r.acknowledged !== d.acknowledged) {
      out.push(
        edited(
          r.address,
          `The saved plan marks risk "${r.id}" on ${r.address} as ${r.acknowledged ? 'accepted' : 'not accepted'}, but the configuration ${d.acknowledged ? 'accepts' : 'does not accept'} it`,
          'A risk is accepted only by the configuration (allow_risky, a resource\'s opt-in) or by --allow-risky / --allow-destroy at apply, never by the plan file. Nothing was applied.',
        ),
      );
    }
    if ((r.gate ?? null) !== (d.gate ?? null) || r.summary !== d.summary) {
      out.push(edited(r.address, `The saved plan's risk "${r.id}" on ${r.address} is not the one the configuration and the live state yield (${r.gate !== d.gate ? 'its gate' : 'its summary'} differs)`));
    }
  }
  for (const d of now) {
    if (savedKeys.has(riskKey(d))) continue;
    out.push(edited(d.address, `The saved plan lacks risk "${d.id}" on ${d.address}${d.gate === 'destroy' ? ' (a destroy)' : ''}, which the configuration and the live state yield`));
  }
  return out;
}
