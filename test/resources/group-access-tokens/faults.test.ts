/**
 * Fault runs: one apply that creates, rotates, replaces and prunes, with a fault injected around one
 * kind of call (list, create, rotate, revoke). Afterwards, from the emulator's own state:
 * - no token was rotated twice and no token family was revoked by a reuse attempt;
 * - every secret the instance issued reached its sink, or plumb reported it and noted it in its
 *   state file;
 * - after the faults are gone, the next runs converge: the plan after them has no changes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FaultAction } from '../../../src/emulator/index.js';
import { BASE_DAY, addDays, expectNoFamilyRevoked, expectNoRepeatedRotation, harness, seedToken, sha256 } from './helpers.js';
import type { Harness } from './helpers.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const SEEDED_MAX_ID = 103;
const DECLARED = ['fresh', 'due', 'changed'] as const;

async function start(): Promise<void> {
  h = await harness({
    groups: [
      {
        full_path: 'platform',
        access_tokens: [
          seedToken('due', 'seeded-due-0000000201', { id: 101, expires_at: addDays(BASE_DAY, 2) }),
          seedToken('changed', 'seeded-chg-0000000202', { id: 102 }),
          seedToken('stray', 'seeded-str-0000000203', { id: SEEDED_MAX_ID }),
        ],
      },
    ],
  });
  h.config({ platform: { prune: true, tokens: { fresh: {}, due: {}, changed: { scopes: ['api'] } } } });
}

function notes(): Record<string, { kind: string; name: string }> {
  try {
    return (JSON.parse(h.wd.read('.plumb/state.json')).instances[h.emu.url]?.tokens ?? {}) as Record<string, { kind: string; name: string }>;
  } catch {
    return {};
  }
}

/** Every token the instance issued during the test is delivered, noted, or no longer active. */
function expectEverySecretAccountedFor(report: string): void {
  const noted = notes();
  for (const t of h.emu.state.tokens) {
    if (t.kind !== 'group' || t.id <= SEEDED_MAX_ID || !h.emu.state.isActive(t)) continue;
    const inSink = h.sinkValue(t.name);
    const delivered = inSink !== undefined && sha256(inSink) === t.digest;
    if (delivered) continue;
    expect(noted[String(t.id)], `issued token ${t.id} ("${t.name}") is neither delivered nor noted`).toBeDefined();
    expect(report, `issued token ${t.id} is not reported`).toContain(`id ${t.id}`);
  }
}

async function converge(droppedBefore = false): Promise<void> {
  h.emu.clearFaults();
  for (let i = 0; i < 3; i++) {
    const r = await h.run(['apply', '--auto-approve']);
    if (r.code === 0) break;
  }
  expect((await h.run(['plan', '--detailed-exitcode'])).code).toBe(0);
  for (const name of DECLARED) {
    const active = h.active('platform', name);
    expect(active, `active tokens named ${name}`).toHaveLength(1);
    expect(sha256(h.sinkValue(name)!)).toBe(h.emu.state.tokenById(active[0]!.id)!.digest);
  }
  expect(h.active('platform', 'stray')).toHaveLength(0);
  expect(h.active('platform', 'changed')[0]!.scopes).toEqual(['api']);
  expect(notes()).toEqual({});
  expectNoRepeatedRotation(h.emu, { droppedBefore });
  expectNoFamilyRevoked(h.emu);
}

const LIST = '/groups/platform/access_tokens';
const ONE = '/groups/platform/access_tokens/*';
const ROTATE = '/groups/platform/access_tokens/*/rotate';

const status = (s: number): FaultAction => ({ kind: 'status', status: s, ...(s === 429 && { retryAfter: 0 }) });
const drop = (when: 'before' | 'after'): FaultAction => ({ kind: 'drop', when });

const CASES: { call: string; method: string; path: string; action: FaultAction; times?: number }[] = [
  { call: 'list', method: 'GET', path: LIST, action: status(503), times: 2 },
  { call: 'list', method: 'GET', path: LIST, action: status(429), times: 2 },
  { call: 'list', method: 'GET', path: LIST, action: status(500) },
  { call: 'list', method: 'GET', path: LIST, action: drop('after') },
  { call: 'create', method: 'POST', path: LIST, action: status(502) },
  { call: 'create', method: 'POST', path: LIST, action: status(500) },
  { call: 'create', method: 'POST', path: LIST, action: status(429) },
  { call: 'create', method: 'POST', path: LIST, action: drop('after') },
  { call: 'rotate', method: 'POST', path: ROTATE, action: status(503) },
  { call: 'rotate', method: 'POST', path: ROTATE, action: status(429) },
  { call: 'rotate', method: 'POST', path: ROTATE, action: drop('before') },
  { call: 'rotate', method: 'POST', path: ROTATE, action: drop('after') },
  { call: 'revoke', method: 'DELETE', path: ONE, action: status(503) },
  { call: 'revoke', method: 'DELETE', path: ONE, action: status(500), times: 3 },
  { call: 'revoke', method: 'DELETE', path: ONE, action: drop('after') },
  { call: 'second create (the replacement)', method: 'POST', path: LIST, action: drop('after') },
];

const label = (a: FaultAction): string =>
  a.kind === 'status' ? `a ${a.status}` : a.kind === 'drop' ? `a connection dropped ${a.when} the instance acted` : `${a.ms} ms of latency`;

describe('fault runs', () => {
  it.each(CASES.map((c) => ({ ...c, what: label(c.action) })))('$call: survives $what without a repeated rotation, a lost secret or a revoked family', async (c) => {
    await start();
    const nth = c.call.startsWith('second') ? 2 : 1;
    h.addFault({ method: c.method, path: c.path, nth, times: c.times ?? 1, action: c.action });
    const r = await h.run(['apply', '--auto-approve']);
    const report = r.stdout + r.stderr;
    expect(h.emu.requests.some((x) => x.method === c.method && x.status === (c.action.kind === 'status' ? c.action.status : 0)), `the fault (${label(c.action)}) fired`).toBe(true);
    if (r.code !== 0) expect(report).toMatch(/error\[PLUMB_/);
    const droppedBefore = c.action.kind === 'drop' && c.action.when === 'before';
    expectNoRepeatedRotation(h.emu, { droppedBefore });
    expectNoFamilyRevoked(h.emu);
    expectEverySecretAccountedFor(report);
    await converge(droppedBefore);
  });

  it('rotates, on the next run, a token whose rotation happened but whose answer was lost', async () => {
    await start();
    h.addFault({ method: 'POST', path: '/groups/platform/access_tokens/101/rotate', action: drop('after') });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    const next = h.emu.state.tokens.find((t) => t.previousId === 101)!;
    expect(r.stderr).toContain('PLUMB_TOKEN_SECRET_NOT_RECEIVED');
    expect(r.stderr).toContain(`Token "due" was rotated (id 101 → id ${next.id}) but the answer was lost`);
    expect(r.stderr).toContain(`the next plan rotates id ${next.id}`);
    expect(notes()[String(next.id)]).toMatchObject({ kind: 'secret-not-received', name: 'due' });
    h.emu.clearFaults();
    const plan = JSON.parse((await h.run(['plan', '--json'])).stdout);
    const due = plan.changes.find((x: { address: string }) => x.address.endsWith('["due"]'));
    expect(due).toMatchObject({ action: 'rotate', reasons: ['secret-not-received'] });
    expect(due.attributes[0]).toEqual({ name: 'id', before: next.id, after: '(known after apply)' });
    await converge();
    expect(h.tokenInSink('due')!.previousId).toBe(next.id);
  });
});
