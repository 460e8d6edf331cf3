/**
 * Fleet-scale plans (docs/plans.md#plans-of-a-fleet): changes that are identical but for the
 * project or group in their address (same instance, kind, action, reasons, attributes, origin,
 * content diff and selector) are shown once, with the list of projects or groups they apply to.
 * Only a set of at least `GROUP_MIN` such changes is grouped, so a small plan reads as before.
 * The JSON plan is not touched: it keeps every change.
 */
import type { PlanBlocked } from '../engine/plan.js';
import { scopeOf } from '../engine/plan.js';
import type { ResourceChange } from '../engine/plan.js';

export { scopeOf };

/** The fewest identical changes shown as one group. */
export const GROUP_MIN = 5;

export interface ChangeGroup {
  /** The address with the project or group replaced by `*`: `prod.project[*].branch["main"].file["CODEOWNERS"]`. */
  readonly template: string;
  /** What varies: `project` or `group`. */
  readonly scope: 'project' | 'group';
  /** The changes, in plan order (the first stands for all of them). */
  readonly changes: readonly ResourceChange[];
  /** Each change's project or group path, in plan order. */
  readonly names: readonly string[];
  /** The selector that declared them (`ResourceChange.selector`), when the plan says. */
  readonly selector?: string;
}

/** A plan's changes as shown: one change, or a group of identical ones. */
export type PlanItem = { readonly change: ResourceChange } | { readonly group: ChangeGroup };

/** What two changes of one group share: everything shown but the address. */
function groupKey(c: ResourceChange, template: string): string {
  return JSON.stringify([template, c.instance, c.kind, c.action, c.reasons, c.origin ?? null, c.attributes, c.diff ?? null, c.selector ?? null, c.deliveries ?? null]);
}

/**
 * The changes in plan order, each set of at least `min` identical ones (but for their project or
 * group) replaced by one group at the place of its first change.
 */
export function groupChanges(changes: readonly ResourceChange[], min = GROUP_MIN): PlanItem[] {
  const keys = changes.map((c) => {
    const s = scopeOf(c.address);
    return s && { key: groupKey(c, s.template), ...s };
  });
  const members = new Map<string, number[]>();
  keys.forEach((k, i) => {
    if (!k) return;
    const list = members.get(k.key);
    if (list) list.push(i);
    else members.set(k.key, [i]);
  });
  const items: PlanItem[] = [];
  changes.forEach((change, i) => {
    const k = keys[i];
    const list = k && members.get(k.key);
    if (!k || !list || list.length < min) {
      items.push({ change });
      return;
    }
    if (list[0] !== i) return;
    const grouped = list.map((j) => changes[j]!);
    items.push({
      group: {
        template: k.template,
        scope: k.scope,
        changes: grouped,
        names: list.map((j) => keys[j]!.name),
        ...(change.selector !== undefined && { selector: change.selector }),
      },
    });
  });
  return items;
}

/** `1,204` */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** `3,000 projects`, `1 group`, and `matching platform/**` when a selector declared them. */
export function groupExtent(g: Pick<ChangeGroup, 'scope' | 'names' | 'selector'>): string {
  const n = g.names.length;
  return `${count(n)} ${g.scope}${n === 1 ? '' : 's'}${g.selector !== undefined ? ` matching ${g.selector}` : ''}`;
}

/** The first `shown` names and how many more: `a, b, c, … and 2,997 more`. */
export function someNames(names: readonly string[], shown = 3): string {
  const head = names.slice(0, shown).join(', ');
  return names.length > shown ? `${head}, … and ${count(names.length - shown)} more` : head;
}

/**
 * One line per address template that has a group: its changes by action across every project or
 * group, grouped or not (`create in 1,204 projects; update in 12 projects`).
 */
export function templateSummary(items: readonly PlanItem[]): { template: string; kind: string; actions: string }[] {
  const templates = new Map<string, { kind: string; byAction: Map<string, { n: number; scope: string }> }>();
  for (const item of items) if ('group' in item) templates.set(item.group.template, { kind: item.group.changes[0]!.kind, byAction: new Map() });
  for (const item of items) {
    const changes = 'group' in item ? item.group.changes : [item.change];
    for (const c of changes) {
      const s = scopeOf(c.address);
      const t = s && templates.get(s.template);
      if (!t) continue;
      const a = t.byAction.get(c.action) ?? { n: 0, scope: s.scope };
      a.n++;
      t.byAction.set(c.action, a);
    }
  }
  return [...templates].map(([template, t]) => ({
    template,
    kind: t.kind,
    actions: [...t.byAction].map(([action, a]) => `${action} in ${count(a.n)} ${a.scope}${a.n === 1 ? '' : 's'}`).join('; '),
  }));
}

/**
 * Blocked units (docs/plans.md#blocked-matches) of one selector blocked for the same reasons, as one
 * entry: a problem of a selector's body blocks every match, and 1,000 lines would bury the rest.
 * Units without a selector (a change that waits) stay one each.
 */
export function groupBlocked(blocked: readonly PlanBlocked[]): { readonly first: PlanBlocked; readonly addresses: readonly string[] }[] {
  const out = new Map<string, { first: PlanBlocked; addresses: string[] }>();
  for (const b of blocked) {
    const key = b.selector === undefined ? `\0${b.address}` : JSON.stringify([b.instance, b.selector, [...b.codes].sort()]);
    const g = out.get(key);
    if (g) g.addresses.push(b.address);
    else out.set(key, { first: b, addresses: [b.address] });
  }
  return [...out.values()];
}
