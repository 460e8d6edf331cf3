/**
 * Selectors in a plan (docs/plans.md#selectors): how many objects each matched, and the blast
 * radius of a selector whose match count moved since the last apply (the risk
 * `selector-match-count-changed`). The counts an apply carried out are kept in the state file
 * (section `selectors` of the instance), so the next plan compares with them.
 */
import type { ConfigResult } from '../config/validate.js';
import type { PlanRisk, PlanSelector } from './plan.js';
import type { InstanceContext } from './resource.js';

/** The risk id of a selector whose match count changed by more than the threshold. */
export const SELECTOR_COUNT_CHANGED = 'selector-match-count-changed';

/**
 * The threshold: a count that moved by more than `percent` % of the last one AND by more than
 * `objects` objects (a small group growing from 2 to 4 projects is not a blast radius).
 */
export interface SelectorChangeThreshold {
  readonly percent: number;
  readonly objects: number;
}

export const DEFAULT_SELECTOR_CHANGE: SelectorChangeThreshold = { percent: 10, objects: 5 };

const SECTION = 'selectors';

/** The plan's `selectors`: each expanded selector of a planned instance, with its count. */
export function planSelectors(loaded: ConfigResult, instances: ReadonlySet<string>): PlanSelector[] {
  const counts = loaded.sources.expansion?.counts ?? [];
  return counts
    .filter((c) => instances.has(c.selector.instance))
    .map((c) => {
      const l = loaded.sources.locations.get(c.selector.pointer);
      const at = l?.key ?? l?.value;
      return {
        instance: c.selector.instance,
        container: c.selector.container,
        selector: c.selector.key,
        matched: c.matched,
        ...(at && { at: `${at.file}:${at.line}:${at.column}` }),
      };
    });
}

const slot = (s: Pick<PlanSelector, 'container' | 'selector'>) => `${s.container}/${s.selector}`;

/** A risk per selector whose count moved beyond the threshold since the last apply recorded it. */
export function selectorRisks(selectors: readonly PlanSelector[], contexts: ReadonlyMap<string, InstanceContext>, threshold: SelectorChangeThreshold = DEFAULT_SELECTOR_CHANGE): PlanRisk[] {
  const risks: PlanRisk[] = [];
  for (const s of selectors) {
    const ctx = contexts.get(s.instance);
    if (!ctx) continue;
    const last = ctx.state.section<number>(ctx.instance.url, SECTION)?.[slot(s)];
    if (typeof last !== 'number') continue;
    const moved = Math.abs(s.matched - last);
    if (moved <= threshold.objects || moved * 100 <= threshold.percent * last) continue;
    const noun = s.container === 'projects' ? 'project' : 'group';
    const pct = last === 0 ? '' : ` (${s.matched > last ? '+' : '−'}${Math.round((moved * 100) / last)}%)`;
    risks.push({
      address: `${s.instance}.${s.container}[${JSON.stringify(s.selector)}]`,
      instance: s.instance,
      id: SELECTOR_COUNT_CHANGED,
      summary: `selector "${s.selector}" matches ${s.matched.toLocaleString('en-US')} ${noun}s, ${last.toLocaleString('en-US')} at the last apply${pct}: more than ${threshold.percent}% and ${threshold.objects} ${noun}s; a group moved or a pattern changed meaning`,
      acknowledged: ctx.instance.allowRisky.includes(SELECTOR_COUNT_CHANGED),
    });
  }
  return risks;
}

/** Apply remembers each selector's count, for the next plan's comparison. */
export function recordSelectorCounts(selectors: readonly PlanSelector[], contexts: ReadonlyMap<string, InstanceContext>): void {
  for (const s of selectors) {
    const ctx = contexts.get(s.instance);
    if (!ctx) continue;
    ctx.state.writableSection<number>(ctx.instance.url, SECTION)[slot(s)] = s.matched;
    ctx.state.markDirty();
  }
}
