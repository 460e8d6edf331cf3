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
import { canonical } from '../util/canonical.js';
import type { Plan, PlanDiagnostic, PlanRisk, ResourceChange } from './plan.js';

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

const same = (a: unknown, b: unknown): boolean => JSON.stringify(canonical(a) ?? null) === JSON.stringify(canonical(b) ?? null);

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
  saved: Pick<Plan, 'changes' | 'risks'>,
  now: Pick<Plan, 'changes' | 'risks'>,
  explain: (saved: ResourceChange, derived: ResourceChange) => PlanDiagnostic | undefined = () => undefined,
): SavedPlanCheck {
  const out: SavedPlanCheck = { stale: [], edited: [], unmatched: [] };
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
      if (c.action !== 'no-op') out.unmatched.push(c);
      continue;
    }
    if (c.liveFingerprint !== d.liveFingerprint) {
      out.stale.push(stale(c.address));
      continue;
    }
    const differs = COMPARED.filter(({ key }) => !same(key === 'payload' ? withoutSalts(c[key]) : c[key], key === 'payload' ? withoutSalts(d[key]) : d[key]));
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
    if (d.action === 'no-op' || seen.has(d.address)) continue;
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
