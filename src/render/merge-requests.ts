/**
 * Where each merge request of delivered files stands (a change's cosmetic `mergeRequest`, plan
 * format 1.4; docs/plans.md#merge-requests), in words every view shares: "2 files → new merge
 * request", "merge request !12 up to date (waiting for review)", "merge request !12 will be updated
 * (1 file changed)", and the fleet's count ("merge requests: 1,180 to open, 20 up to date").
 */
import type { DriftEntry, MergeRequestStanding, Plan, ResourceChange } from '../engine/plan.js';
import { scopeOf } from '../engine/plan.js';
import { count, someNames } from './groups.js';

const files = (n: number) => `${count(n)} file${n === 1 ? '' : 's'}`;

/** One merge request's standing, for people. */
export function standingText(m: MergeRequestStanding): string {
  const mr = m.iid !== undefined ? `merge request !${m.iid}` : 'merge request';
  switch (m.state) {
    case 'new':
      return `${files(m.files)} → new merge request (${m.sourceBranch} into ${m.targetBranch})`;
    case 'up-to-date':
      return `${mr} up to date (waiting for review)`;
    case 'update':
      return `${mr} will be updated (${m.changed !== undefined ? `${files(m.changed)} changed` : 'its title or labels changed'})`;
    case 'close':
      return `${mr} will be closed and its branch ${m.sourceBranch} removed (${m.targetBranch} already holds the declared files)`;
    case 'foreign':
      return `${mr} left untouched (someone else pushed to ${m.sourceBranch})`;
  }
}

const ORDER: readonly MergeRequestStanding['state'][] = ['new', 'update', 'up-to-date', 'close', 'foreign'];
const COUNTED: Record<MergeRequestStanding['state'], string> = { new: 'to open', update: 'to update', 'up-to-date': 'up to date', close: 'to close', foreign: 'left untouched' };

/** The changes of a plan that deliver files by merge request (no-ops included: up to date, left untouched). */
export function mergeRequestChanges(plan: Pick<Plan, 'changes'>): ResourceChange[] {
  return plan.changes.filter((c) => c.mergeRequest !== undefined);
}

/** `merge requests: 1,180 to open, 20 up to date`; empty when the plan has none. */
export function mergeRequestCount(plan: Pick<Plan, 'changes'>): string {
  const by = new Map<string, number>();
  for (const c of mergeRequestChanges(plan)) by.set(c.mergeRequest!.state, (by.get(c.mergeRequest!.state) ?? 0) + 1);
  if (by.size === 0) return '';
  return `merge requests: ${ORDER.filter((s) => by.has(s)).map((s) => `${count(by.get(s)!)} ${COUNTED[s]}`).join(', ')}`;
}

/** Open merge requests with nothing to apply: up to date (waiting for review), or left untouched. */
export function waitingCount(plan: Pick<Plan, 'changes'>): number {
  return mergeRequestChanges(plan).filter((c) => c.mergeRequest!.state === 'up-to-date' || c.mergeRequest!.state === 'foreign').length;
}

/** `2 open merge requests of plumb's wait for review, 1 is left untouched`: what a plan without changes still holds. */
export function waitingText(plan: Pick<Plan, 'changes'>): string {
  const mrs = mergeRequestChanges(plan);
  const up = mrs.filter((c) => c.mergeRequest!.state === 'up-to-date').length;
  const foreign = mrs.filter((c) => c.mergeRequest!.state === 'foreign').length;
  const parts: string[] = [];
  if (up > 0) parts.push(`${count(up)} open merge request${up === 1 ? '' : 's'} of plumb's wait${up === 1 ? 's' : ''} for review`);
  if (foreign > 0) parts.push(`${count(foreign)} merge request${foreign === 1 ? ' is' : 's are'} left untouched (someone else pushed to ${foreign === 1 ? 'its branch' : 'their branches'})`);
  return parts.join(', ');
}

/** The project a merge request change is about. */
function projectOf(c: ResourceChange): string {
  return scopeOf(c.address)?.name ?? c.address;
}

/**
 * The human plan's section: the count, then each merge request (when there are at most `each`) or,
 * per standing, how many and the first few projects.
 */
export function mergeRequestLines(plan: Pick<Plan, 'changes'>, each = 20): string[] {
  const mrs = mergeRequestChanges(plan);
  if (mrs.length === 0) return [];
  const out = ['', `Merge requests (${mergeRequestCount(plan)}):`];
  if (mrs.length <= each) {
    for (const c of mrs) out.push(`  ${c.mergeRequest!.state === 'up-to-date' || c.mergeRequest!.state === 'foreign' ? ' ' : '~'} project ${projectOf(c)}: ${standingText(c.mergeRequest!)}${c.mergeRequest!.url ? ` ${c.mergeRequest!.url}` : ''}`);
    return out;
  }
  for (const state of ORDER) {
    const of = mrs.filter((c) => c.mergeRequest!.state === state);
    if (of.length > 0) out.push(`  ${COUNTED[state]}: ${count(of.length)} (${someNames(of.map(projectOf))})`);
  }
  return out;
}

/** Drift pending in open merge requests, per merge request: `!12 (url): CODEOWNERS, SECURITY.md`. */
export function pendingByMergeRequest(drift: readonly DriftEntry[]): { url: string; iid: number; entries: DriftEntry[] }[] {
  const by = new Map<string, { url: string; iid: number; entries: DriftEntry[] }>();
  for (const d of drift) {
    if (!d.mergeRequest) continue;
    const g = by.get(d.mergeRequest.url) ?? { url: d.mergeRequest.url, iid: d.mergeRequest.iid, entries: [] };
    g.entries.push(d);
    by.set(d.mergeRequest.url, g);
  }
  return [...by.values()];
}
