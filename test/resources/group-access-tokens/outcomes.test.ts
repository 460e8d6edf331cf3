/**
 * Outcomes plumb could not learn, and the state that keeps them visible: which token id's secret
 * each sink holds, an issue whose answer and re-check both failed, and tokens plumb revoked itself.
 * Regression tests for defects found by independent testing (issue 8, defects 1, 2 and 7).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, BASE_DAY, addDays, expectNoFamilyRevoked, expectNoRepeatedRotation, harness, seedToken, sha256 } from './helpers.js';
import type { Harness } from './helpers.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const LIST = '/groups/platform/access_tokens';

interface Slot {
  held?: number;
  unknown?: { op: string; tokenId?: number };
  revokedByPlumb?: number[];
}

function slot(name: string): Slot | undefined {
  try {
    const data = JSON.parse(h.wd.read('.plumb/state.json'));
    return data.instances[h.emu.url]?.token_slots?.[JSON.stringify(['platform', name])] as Slot | undefined;
  } catch {
    return undefined;
  }
}

function expectSinkHoldsActive(name: string): void {
  const active = h.active('platform', name);
  expect(active).toHaveLength(1);
  expect(sha256(h.sinkValue(name)!)).toBe(h.emu.state.tokenById(active[0]!.id)!.digest);
}

describe('an issue whose outcome is unknown', () => {
  it('records a rotation whose answer and re-check both failed, and every later plan and drift shows it until apply delivers a fresh secret', async () => {
    h = await harness({ groups: [{ full_path: 'platform', access_tokens: [seedToken('due', 'seeded-due-0000000301', { id: 101, expires_at: addDays(BASE_DAY, 2) })] }] });
    h.config({ platform: { tokens: { due: {} } } });
    // The rotation happens but its answer is lost; then every list fails (503) until the faults go.
    h.addFault({ method: 'POST', path: `${LIST}/101/rotate`, action: { kind: 'drop', when: 'after' } });
    const listsBefore = 2; // the plan's list, and apply's own list before a rotation
    h.addFault({ method: 'GET', path: LIST, nth: listsBefore + 1, times: 1000, action: { kind: 'status', status: 503 } });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_TOKEN_OUTCOME_UNKNOWN');
    expect(r.stderr).toContain('do not rotate or revoke "due" by hand');
    expect(r.stderr).toContain('.plumb/state.json');
    expect(slot('due')?.unknown).toMatchObject({ op: 'rotate', tokenId: 101 });

    h.emu.clearFaults();
    const next = h.emu.state.tokens.find((t) => t.previousId === 101)!;
    expect(h.emu.state.isActive(next)).toBe(true);
    // Before the fix: "No changes" and drift exit 0 while the sink holds nothing usable.
    const plan = await h.run(['plan', '--json', '--detailed-exitcode']);
    expect(plan.code).toBe(2);
    const change = JSON.parse(plan.stdout).changes.find((c: { address: string }) => c.address.endsWith('["due"]'));
    expect(change).toMatchObject({ action: 'rotate', reasons: ['sink-holds-other-token'], payload: { tokenId: next.id } });
    const drift = await h.run(['drift']);
    expect(drift.code).toBe(2);
    expect(drift.stdout + drift.stderr).toContain(`holds the secret of id 101, but the active token is id ${next.id}`);
    // Never "X (instance) ≠ X (configuration)": a rotation for another reason shows no equal values.
    expect(drift.stdout).not.toMatch(/: (".*?"|null) \(instance\) ≠ \1 \(configuration\)/);

    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    expectSinkHoldsActive('due');
    expect(slot('due')).toEqual({ held: h.active('platform', 'due')[0]!.id });
    expect((await h.run(['drift'])).code).toBe(0);
    expectNoRepeatedRotation(h.emu);
    expectNoFamilyRevoked(h.emu);
  });

  it('records a create whose answer and re-check both failed, and the next plan rotates the token nobody holds', async () => {
    h = await harness();
    h.config({ platform: { tokens: { ci: {} } } });
    h.addFault({ method: 'POST', path: LIST, action: { kind: 'drop', when: 'after' } });
    // A create reuses the plan's list: the second list is the re-check.
    h.addFault({ method: 'GET', path: LIST, nth: 2, times: 1000, action: { kind: 'status', status: 503 } });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.stderr).toContain('PLUMB_TOKEN_OUTCOME_UNKNOWN');
    expect(slot('ci')?.unknown).toMatchObject({ op: 'create' });
    h.emu.clearFaults();
    const created = h.active('platform', 'ci')[0]!;
    expect(h.sinkValue('ci')).toBeUndefined();
    expect((await h.run(['drift'])).code).toBe(2);
    const plan = JSON.parse((await h.run(['plan', '--json'])).stdout);
    expect(plan.changes[0]).toMatchObject({ action: 'rotate', reasons: ['sink-holds-other-token'], payload: { tokenId: created.id } });
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    expectSinkHoldsActive('ci');
    expect((await h.run(['plan', '--detailed-exitcode'])).code).toBe(0);
  });

  it('settles the note without a change when the re-check shows the rotation did not happen', async () => {
    h = await harness({ groups: [{ full_path: 'platform', access_tokens: [seedToken('due', 'seeded-due-0000000302', { id: 101, expires_at: addDays(BASE_DAY, 2) })] }] });
    h.config({ platform: { tokens: { due: {} } } });
    h.addFault({ method: 'POST', path: `${LIST}/101/rotate`, action: { kind: 'drop', when: 'before' } });
    h.addFault({ method: 'GET', path: LIST, nth: 3, times: 1000, action: { kind: 'status', status: 503 } });
    expect((await h.run(['apply', '--auto-approve'])).stderr).toContain('PLUMB_TOKEN_OUTCOME_UNKNOWN');
    h.emu.clearFaults();
    // Token 101 is still the active one: the plan is the ordinary scheduled rotation, no alarm.
    const plan = JSON.parse((await h.run(['plan', '--json'])).stdout);
    expect(plan.changes[0]).toMatchObject({ action: 'rotate', reasons: ['expiring-soon'], payload: { tokenId: 101 } });
  });
});

describe('which token a sink holds', () => {
  it('plans a rotation of the active token when it was rotated outside plumb after plumb delivered another', async () => {
    h = await harness();
    h.config({ platform: { tokens: { ci: {} } } });
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    const delivered = h.active('platform', 'ci')[0]!.id;
    expect(slot('ci')).toEqual({ held: delivered });
    // An Owner rotates it by hand: the sink now holds a revoked secret.
    const outside = await fetch(`${h.emu.url}/api/v4/groups/platform/access_tokens/${delivered}/rotate`, {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': ADMIN_TOKEN },
    });
    expect(outside.status).toBe(200);
    const other = h.active('platform', 'ci')[0]!.id;
    const plan = JSON.parse((await h.run(['plan', '--json'])).stdout);
    expect(plan.changes[0]).toMatchObject({ action: 'rotate', reasons: ['sink-holds-other-token'], payload: { tokenId: other } });
    expect(plan.drift[0].summary).toContain(`holds the secret of id ${delivered}, but the active token is id ${other} (it was rotated or replaced outside plumb)`);
  });
});

describe('self-rotation whose follow-up list fails', () => {
  it('reports an unknown outcome, not a lost credential, when the list answers 503 and nothing was rotated', async () => {
    const CREDENTIAL = 'group-credential-of-plumb-0002';
    h = await harness({
      groups: [{ full_path: 'platform', access_tokens: [seedToken('plumb', CREDENTIAL, { id: 70, scopes: ['api'], access_level: 50, expires_at: addDays(BASE_DAY, 3) })] }],
    });
    h.emu.state.userById(h.emu.state.tokenById(70)!.userId)!.admin = true;
    h.config({ platform: { tokens: { plumb: { scopes: ['api'], access_level: 50, self: true } } } });
    h.addFault({ method: 'POST', path: '/groups/*/access_tokens/self/rotate', action: { kind: 'drop', when: 'before' } });
    h.addFault({ method: 'GET', path: LIST, nth: 3, times: 1000, action: { kind: 'status', status: 503 } });
    const r = await h.run(['apply', '--auto-approve'], { PLUMB_TOKEN: CREDENTIAL });
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain('PLUMB_TOKEN_SELF_LOST');
    expect(r.stderr).toContain('PLUMB_TOKEN_OUTCOME_UNKNOWN');
    expect(h.emu.state.isActive(h.emu.state.tokenById(70)!)).toBe(true);
    h.emu.clearFaults();
    expect((await h.run(['apply', '--auto-approve'], { PLUMB_TOKEN: CREDENTIAL })).code).toBe(0);
    expect(h.tokenInSink('plumb')!.previousId).toBe(70);
  });
});

describe('tokens plumb revoked itself', () => {
  it('does not call a token plumb revoked after a failed delivery "revoked outside plumb"', async () => {
    h = await harness();
    h.wd.write('fail.mjs', 'process.exit(3);\n');
    h.config({ platform: { tokens: { ci: { sink: `{command: [${JSON.stringify(process.execPath)}, fail.mjs]}` } } } });
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(1);
    const revoked = h.emu.state.tokens.find((t) => t.name === 'ci')!;
    expect(revoked.revoked).toBe(true);
    const r = await h.run(['plan', '--json']);
    const plan = JSON.parse(r.stdout);
    expect(plan.changes[0]).toMatchObject({ action: 'create', reasons: ['revoked-by-plumb'] });
    expect(plan.drift[0].summary).toContain(`(id ${revoked.id}) was revoked by plumb after its secret could not be delivered`);
    expect(JSON.stringify(plan)).not.toContain('outside plumb');
  });
});


describe('one group under two names', () => {
  it('refuses a group declared by its path and by its numeric id, naming both places, and writes nothing', async () => {
    h = await harness({ groups: [{ full_path: 'platform', access_tokens: [seedToken('a', 'seeded-a-00000000000401'), seedToken('b', 'seeded-b-00000000000402')] }] });
    const id = h.emu.state.groupByRef('platform')!.id;
    h.config({ platform: { prune: true, tokens: { a: {} } }, [String(id)]: { prune: true, tokens: { b: {} } } });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    const out = r.stdout + r.stderr;
    expect(out).toContain('PLUMB_DUPLICATE_RESOURCE');
    // The numeric key comes first in the file (an object's integer keys sort first).
    expect(out).toContain(`Group "platform" is the same group as "${id}" (declared at plumb.yaml:7:7) (id ${id}) (plumb.yaml:15:7)`);
    expect(h.emu.requests.filter((x) => x.method !== 'GET')).toEqual([]);
    expect(h.active('platform', 'a')).toHaveLength(1);
    expect(h.active('platform', 'b')).toHaveLength(1);
  });

  it('refuses two paths that differ only in case without asking the instance', async () => {
    h = await harness();
    h.config({ platform: { tokens: { a: {} } }, Platform: { tokens: { b: {} } } });
    const r = await h.run(['plan']);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain('Group "Platform" is the same group as "platform"');
    expect(h.emu.requests.filter((x) => /^\/groups\/[^/]+$/.test(x.path))).toEqual([]);
  });

  it('resolves nothing when every group is named by its path', async () => {
    h = await harness({ groups: [{ full_path: 'platform' }, { full_path: 'other' }] });
    h.config({ platform: { tokens: { a: {} } }, other: { tokens: { b: {} } } });
    expect((await h.run(['plan'])).code).toBe(0);
    expect(h.emu.requests.map((x) => `${x.method} ${x.path}`).sort()).toEqual(['GET /groups/other/access_tokens', 'GET /groups/platform/access_tokens']);
  });
});
