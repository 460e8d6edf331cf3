/**
 * The apply scheduler: runs a plan's changes concurrently, up to a limit, in the order their kinds
 * declared (`ChangeOrder` in plan.ts). Knows nothing about kinds; only about lanes, `after` and
 * `dependsOn` edges between addresses.
 *
 * - A change starts when every change it comes after has finished, and at most `concurrency`
 *   changes run at once (the HTTP client bounds the requests in flight separately).
 * - Changes of one lane form a chain: each comes after the previous one of its lane.
 * - A change whose `dependsOn` failed or was skipped is skipped, and so on down the chain of its
 *   own dependents; independent changes go on when one fails.
 * - Cycles cannot occur from plumb's own kinds (edges point backwards in plan order or to a later
 *   "last" change); a saved plan edited by hand is guarded anyway: edges to later changes of a lane
 *   or cycles leave changes unstarted, reported as skipped.
 */
import type { ChangeOrder } from './plan.js';

/** `not-started`: a stop was asked for (`stopped`) before the change could start. */
export type ScheduledStatus = 'applied' | 'failed' | 'skipped' | 'not-started';

export interface Schedulable {
  readonly address: string;
  /** Every address the item stands for (a batch of changes applied together); default: `address`. */
  readonly addresses?: readonly string[];
  readonly order?: ChangeOrder;
}

export interface ScheduleOptions<T extends Schedulable> {
  readonly concurrency: number;
  /** Applies one change; resolves with whether it was applied. Must not throw. */
  readonly run: (item: T) => Promise<boolean>;
  /** Called once per finished item (applied, failed, skipped or not started), in completion order. */
  readonly onDone?: (item: T, status: ScheduledStatus, cause?: string) => void;
  /** A stop was asked for: no further item starts; those running finish, the rest are `not-started`. */
  readonly stopped?: () => boolean;
}

interface Node<T> {
  readonly item: T;
  readonly index: number;
  /** Must finish first (any outcome). */
  readonly waitsFor: Set<number>;
  /** Must be applied first. */
  readonly needs: Set<number>;
  status?: ScheduledStatus;
  started: boolean;
}


/** Runs `items` and returns each one's status, in the items' order. */
export async function runScheduled<T extends Schedulable>(items: readonly T[], opts: ScheduleOptions<T>): Promise<ScheduledStatus[]> {
  const byAddress = new Map<string, number>();
  items.forEach((it, i) => {
    for (const a of it.addresses ?? [it.address]) byAddress.set(a, i);
  });
  const lastOfLane = new Map<string, number>();
  const nodes: Node<T>[] = items.map((item, index) => {
    const waitsFor = new Set<number>();
    const needs = new Set<number>();
    for (const a of item.order?.after ?? []) {
      const j = byAddress.get(a);
      if (j !== undefined && j !== index) waitsFor.add(j);
    }
    for (const a of item.order?.dependsOn ?? []) {
      const j = byAddress.get(a);
      if (j !== undefined && j !== index) {
        waitsFor.add(j);
        needs.add(j);
      }
    }
    const lane = item.order?.lane;
    if (lane !== undefined) {
      const prev = lastOfLane.get(lane);
      if (prev !== undefined) waitsFor.add(prev);
      lastOfLane.set(lane, index);
    }
    return { item, index, waitsFor, needs, started: false };
  });
  const dependents = nodes.map(() => [] as number[]);
  for (const n of nodes) for (const j of n.waitsFor) dependents[j]!.push(n.index);
  // Unfinished predecessors per node; a node with none is ready. Keeps every step O(edges).
  const waiting = nodes.map((n) => n.waitsFor.size);
  const queue: number[] = nodes.filter((n) => n.waitsFor.size === 0).map((n) => n.index);
  let head = 0;

  const limit = Math.max(1, opts.concurrency);
  let running = 0;
  let settle!: () => void;
  const allDone = new Promise<void>((r) => (settle = r));

  const finish = (n: Node<T>, status: ScheduledStatus, cause?: string): void => {
    n.status = status;
    opts.onDone?.(n.item, status, cause);
    for (const d of dependents[n.index]!) if (--waiting[d]! === 0) queue.push(d);
  };

  const pump = (): void => {
    if (opts.stopped?.()) {
      if (running > 0) return;
      for (const n of nodes) if (n.status === undefined) finish(n, 'not-started');
      settle();
      return;
    }
    while (running < limit && head < queue.length) {
      const n = nodes[queue[head++]!]!;
      // A change whose required change did not apply never starts.
      const failedDep = [...n.needs].find((j) => nodes[j]!.status !== 'applied');
      if (failedDep !== undefined) {
        finish(n, 'skipped', nodes[failedDep]!.item.address);
        continue;
      }
      n.started = true;
      running++;
      void opts.run(n.item).then(
        (ok) => done(n, ok),
        () => done(n, false),
      );
    }
    if (running === 0 && head >= queue.length) {
      // Nothing runs and nothing can start: whatever is left waits on a cycle or a hand-edited edge.
      for (const n of nodes) if (n.status === undefined) finish(n, 'skipped', 'an ordering that cannot be satisfied');
      settle();
    }
  };
  const done = (n: Node<T>, ok: boolean): void => {
    running--;
    finish(n, ok ? 'applied' : 'failed');
    pump();
  };

  if (nodes.length === 0) return [];
  pump();
  await allDone;
  return nodes.map((n) => n.status!);
}
