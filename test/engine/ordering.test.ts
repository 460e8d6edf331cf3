/**
 * The apply scheduler's ordering rules, observed from the instance's side: the emulator answers
 * every request after a latency (so concurrent requests visibly overlap), records when each arrived
 * and was answered, and counts the requests in flight.
 *
 * - writes of one lane never overlap, and run in plan order (lanes are data in the plan: the test
 *   plans in-process, gives changes lanes and edges in memory, and applies that plan; a saved plan
 *   file edited so is refused, test/security/saved-plan.test.ts);
 * - plumb's own credential is rotated after every other token change has finished;
 * - a failed change skips only the changes that depend on it (and theirs), the rest go on;
 * - never more requests in flight than --concurrency.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../src/emulator/index.js';
import { applyInMemory } from '../helpers/apply-in-memory.js';
import { ADMIN_TOKEN, BASE_DAY, addDays, harness, seedToken } from '../resources/group-access-tokens/helpers.js';
import type { GroupSpec, Harness } from '../resources/group-access-tokens/helpers.js';

const LATENCY_MS = 25;

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** Token creates, `n` in the group, named t0, t1, …, each with its own sink file. */
function creates(group: string, n: number): GroupSpec {
  return { tokens: Object.fromEntries(Array.from({ length: n }, (_, i) => [`t${i}`, { sink: `{file: secrets/${group}-t${i}.token}` }])) };
}

const writes = (group: string): RecordedRequest[] =>
  h.emu.requests.filter((r) => r.method !== 'GET' && r.path.startsWith(`/groups/${group}/`)).sort((a, b) => a.receivedMs - b.receivedMs);

/** Pairs of requests that were in flight at the same time. */
function overlaps(list: readonly RecordedRequest[]): number {
  let n = 0;
  for (let i = 0; i < list.length; i++) for (let j = i + 1; j < list.length; j++) if (list[j]!.receivedMs < list[i]!.answeredMs && list[i]!.receivedMs < list[j]!.answeredMs) n++;
  return n;
}

interface SavedChange {
  address: string;
  payload: { group: string; name: string };
  order?: { lane?: string; after?: string[]; dependsOn?: string[] };
}

let edited: ((changes: SavedChange[]) => void) | undefined;

/** Remembers how to edit the plan's changes; `applyEdited` plans, edits and applies in-process. */
async function savedPlan(edit: (changes: SavedChange[]) => void): Promise<void> {
  edited = edit;
  h.emu.resetRequests();
}

/** Plans in-process, edits the plan's ordering in memory, applies it (test/helpers/apply-in-memory.ts). */
function applyEdited(concurrency?: number): Promise<{ code: number; stderr: string }> {
  return applyInMemory({
    dir: h.wd.dir,
    env: { PLUMB_TOKEN: ADMIN_TOKEN, PLUMB_SINK_TIMEOUT_SECONDS: '5' },
    today: h.today,
    ...(concurrency !== undefined && { concurrency }),
    edit: (changes) => edited?.(changes as unknown as SavedChange[]),
    beforeApply: () => h.emu.resetRequests(),
  });
}

const change = (changes: SavedChange[], group: string, name: string): SavedChange => changes.find((c) => c.payload.group === group && c.payload.name === name)!;

describe('lanes', () => {
  it('runs the writes of one lane one at a time and in plan order, while other lanes and unlaned changes run side by side', async () => {
    h = await harness({ groups: [{ full_path: 'alpha' }, { full_path: 'beta' }, { full_path: 'gamma' }], latencyMs: LATENCY_MS });
    h.config({ alpha: creates('alpha', 4), beta: creates('beta', 4), gamma: creates('gamma', 4) });
    await savedPlan((changes) => {
      for (const c of changes) if (c.payload.group !== 'gamma') c.order = { lane: `lane-${c.payload.group}` };
    });
    const r = await applyEdited(8);
    expect(r.code, r.stderr).toBe(0);
    const alpha = writes('alpha');
    const beta = writes('beta');
    expect(alpha).toHaveLength(4);
    expect(beta).toHaveLength(4);
    // Within a lane: each write arrives only after the previous one was answered.
    expect(overlaps(alpha)).toBe(0);
    expect(overlaps(beta)).toBe(0);
    // In plan order: the instance issued t0, t1, t2, t3 in that order.
    for (const group of ['alpha', 'beta']) {
      const g = h.emu.state.groupByRef(group)!;
      const issued = h.emu.state.tokens.filter((t) => t.groupId === g.id).sort((a, b) => a.id - b.id);
      expect(issued.map((t) => t.name)).toEqual(['t0', 't1', 't2', 't3']);
    }
    // Not one at a time overall: the two lanes overlap each other, and gamma's unlaned creates overlap.
    expect(overlaps([...alpha, ...beta])).toBeGreaterThan(0);
    expect(overlaps(writes('gamma'))).toBeGreaterThan(0);
  });
});

describe("plumb's own credential", () => {
  it('is rotated after every other token change of the apply has finished', async () => {
    const credential = 'group-credential-of-plumb-ordering-01';
    h = await harness({
      groups: [
        {
          full_path: 'platform',
          access_tokens: [
            seedToken('plumb', credential, { id: 70, scopes: ['api'], access_level: 50, expires_at: addDays(BASE_DAY, 3) }),
            seedToken('old-1', 'old-token-for-ordering-0001', { id: 71, expires_at: addDays(BASE_DAY, 2) }),
            seedToken('old-2', 'old-token-for-ordering-0002', { id: 72, expires_at: addDays(BASE_DAY, 2) }),
          ],
        },
      ],
      latencyMs: LATENCY_MS,
    });
    h.emu.state.userById(h.emu.state.tokenById(70)!.userId)!.admin = true;
    const rotating = { rotation: { lifetime_days: 30, rotate_before_days: 7 } };
    h.config({
      platform: {
        tokens: {
          plumb: { scopes: ['api'], access_level: 50, self: true, ...rotating },
          'old-1': rotating,
          'old-2': rotating,
          ...creates('platform', 5).tokens,
        },
      },
    });
    const r = await h.run(['apply', '--auto-approve', '--concurrency', '8'], { PLUMB_TOKEN: credential });
    expect(r.code, r.stderr).toBe(0);
    const all = writes('platform');
    const self = all.filter((x) => x.path === '/groups/platform/access_tokens/self/rotate');
    const others = all.filter((x) => !self.includes(x));
    expect(self).toHaveLength(1);
    // Running as a group token, plumb renews the other tokens by replacement: a create, then a revoke.
    expect(others.map((x) => `${x.method} ${x.path}`).sort()).toEqual([
      'DELETE /groups/platform/access_tokens/71',
      'DELETE /groups/platform/access_tokens/72',
      ...Array.from({ length: 7 }, () => 'POST /groups/platform/access_tokens'),
    ]);
    expect(self[0]!.receivedMs).toBeGreaterThanOrEqual(Math.max(...others.map((x) => x.answeredMs)));
    // The other changes ran side by side, so "after" is the rule and not an accident of running one at a time.
    expect(overlaps(others)).toBeGreaterThan(0);
  });
});

describe('a failed change', () => {
  it('fails alone: the changes that do not depend on it are applied, and the summary counts both', async () => {
    h = await harness({ groups: [{ full_path: 'platform' }, { full_path: 'broken' }], latencyMs: LATENCY_MS });
    h.config({ platform: creates('platform', 4), broken: creates('broken', 1) });
    h.addFault({ method: 'POST', path: '/groups/broken/access_tokens', action: { kind: 'status', status: 400, body: { message: { name: ['is refused by a test fault'] } } } });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Apply stopped: 4 applied, 1 failed, 0 skipped.');
    for (const name of ['t0', 't1', 't2', 't3']) expect(h.active('platform', name)).toHaveLength(1);
    expect(h.active('broken', 't0')).toHaveLength(0);
  });

  it('skips the changes that depend on it, and theirs, and reports each one', async () => {
    h = await harness({ groups: [{ full_path: 'platform' }, { full_path: 'broken' }], latencyMs: LATENCY_MS });
    h.config({ platform: creates('platform', 4), broken: creates('broken', 1) });
    let failing = '';
    await savedPlan((changes) => {
      failing = change(changes, 'broken', 't0').address;
      change(changes, 'platform', 't0').order = { dependsOn: [failing] };
      change(changes, 'platform', 't1').order = { dependsOn: [change(changes, 'platform', 't0').address] };
    });
    h.addFault({ method: 'POST', path: '/groups/broken/access_tokens', action: { kind: 'status', status: 400, body: { message: { name: ['is refused by a test fault'] } } } });
    const r = await applyEdited();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Apply stopped: 2 applied, 1 failed, 2 skipped.');
    expect(r.stderr).toMatch(/· local\.group\["platform"\]\.access_token\["t0"\]: create skipped/);
    expect(r.stderr).toContain(`PLUMB_APPLY_SKIPPED`);
    expect(r.stderr).toContain(`it depends on ${failing}, which was not applied`);
    // The dependents never reached the instance; the independent changes did.
    expect(h.count('POST', /^\/groups\/platform\/access_tokens$/)).toBe(2);
    expect(h.active('platform', 't0')).toHaveLength(0);
    expect(h.active('platform', 't1')).toHaveLength(0);
    expect(h.active('platform', 't2')).toHaveLength(1);
    expect(h.active('platform', 't3')).toHaveLength(1);
  });
});

describe('--concurrency', () => {
  it('never has more requests in flight than --concurrency, and reaches it', async () => {
    h = await harness({ groups: [{ full_path: 'a' }, { full_path: 'b' }, { full_path: 'c' }], latencyMs: LATENCY_MS });
    h.config({ a: creates('a', 4), b: creates('b', 4), c: creates('c', 4) });
    for (const [concurrency, day] of [
      [3, BASE_DAY],
      [1, BASE_DAY],
    ] as const) {
      h.emu.resetRequests();
      expect((await h.run(['plan', '--concurrency', String(concurrency)], { PLUMB_NOW: day })).code).toBe(0);
      expect(h.emu.maxInFlight).toBeLessThanOrEqual(concurrency);
    }
    h.emu.resetRequests();
    const r = await h.run(['apply', '--auto-approve', '--concurrency', '3']);
    expect(r.code, r.stderr).toBe(0);
    expect(h.emu.requests.filter((x) => x.method === 'POST')).toHaveLength(12);
    expect(h.emu.maxInFlight).toBe(3);
  });
});
