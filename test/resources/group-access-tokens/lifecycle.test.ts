/**
 * Group access tokens against the emulator over HTTP: every row of the spec's state table, every
 * action with its reason, rotation window edges, replace ordering, pruning, identity.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, BASE_DAY, addDays, expectNoFamilyRevoked, expectNoRepeatedRotation, harness, seedToken } from './helpers.js';
import type { Harness } from './helpers.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

interface JsonChange {
  address: string;
  action: string;
  reasons: string[];
  attributes: { name: string; before?: unknown; after?: unknown; sensitive?: boolean }[];
}

async function planJson(): Promise<{ changes: JsonChange[]; drift: { address: string; summary: string; informational?: boolean }[]; diagnostics: { code: string; severity: string; summary: string; suggestion?: string; file?: string; line?: number }[]; applicable: boolean }> {
  const r = await h.run(['plan', '--json']);
  return JSON.parse(r.stdout);
}

const change = (plan: { changes: JsonChange[] }, name: string) => plan.changes.find((c) => c.address.endsWith(`access_token[${JSON.stringify(name)}]`))!;
const LIST = /^\/groups\/[^/]+\/access_tokens$/;

describe('the state table', () => {
  it('creates an absent token (none → active), delivers its secret once to a 0600 file, and the next plan is empty', async () => {
    h = await harness();
    h.config({ platform: { tokens: { deploy: { scopes: ['read_api', 'read_repository'], description: 'CI deploys' } } } });
    h.emu.resetRequests();
    const plan = await planJson();
    expect(h.emu.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /groups/platform/access_tokens']);
    expect(h.emu.requests[0]!.query).toContain('per_page=100');
    const c = change(plan, 'deploy');
    expect(c.action).toBe('create');
    expect(c.reasons).toEqual(['missing-in-live']);
    expect(c.attributes.find((a) => a.name === 'token')).toEqual({ name: 'token', after: '(sensitive value)', sensitive: true });
    expect(c.attributes.find((a) => a.name === 'expires_at')?.after).toBe(addDays(BASE_DAY, 60));

    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code).toBe(0);
    const file = path.join(h.wd.dir, 'secrets/deploy.token');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const t = h.tokenInSink('deploy')!;
    expect(t).toBeDefined();
    expect(t.name).toBe('deploy');
    expect(h.emu.state.isActive(t)).toBe(true);
    expect(t.scopes.sort()).toEqual(['read_api', 'read_repository']);
    expect(t.expiresAt).toBe(addDays(BASE_DAY, 60));
    expect(t.description).toBe('CI deploys');
    expect((await h.run(['plan', '--detailed-exitcode'])).code).toBe(0);
  });

  it('rotates an active token (active → revoked plus a new active one) and delivers the new secret', async () => {
    h = await harness({ groups: [{ full_path: 'platform', access_tokens: [seedToken('ci', 'seeded-ci-000000001', { id: 7, expires_at: addDays(BASE_DAY, 3) })] }] });
    h.config({ platform: { tokens: { ci: {} } } });
    const c = change(await planJson(), 'ci');
    expect(c.action).toBe('rotate');
    expect(c.reasons).toEqual(['expiring-soon']);
    expect(c.attributes.find((a) => a.name === 'id')).toEqual({ name: 'id', before: 7, after: '(known after apply)' });
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(h.emu.state.tokenById(7)!.revoked).toBe(true);
    const fresh = h.tokenInSink('ci')!;
    expect(fresh.previousId).toBe(7);
    expect(h.emu.state.isActive(fresh)).toBe(true);
    expect(fresh.expiresAt).toBe(addDays(BASE_DAY, 60));
    expect(h.count('POST', /\/access_tokens\/7\/rotate$/)).toBe(1);
    expectNoRepeatedRotation(h.emu);
    expect((await h.run(['plan', '--detailed-exitcode'])).code).toBe(0);
  });

  it('revokes with DELETE (active → revoked, 204) when pruning removes an undeclared token', async () => {
    h = await harness({ groups: [{ full_path: 'platform', access_tokens: [seedToken('keep', 'seeded-keep-00000001'), seedToken('stray', 'seeded-stray-0000001', { id: 40 })] }] });
    h.config({ platform: { prune: true, tokens: { keep: {} } } });
    const plan = await planJson();
    const del = plan.changes.find((c) => c.action === 'delete')!;
    expect(del.address).toBe('local.group["platform"].access_token["stray"]#40');
    expect(del.reasons).toEqual(['not-in-config']);
    expect(plan.changes.filter((c) => c.action !== 'no-op')).toHaveLength(1);
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    const deletes = h.emu.requests.filter((r) => r.method === 'DELETE');
    expect(deletes.map((r) => [r.path, r.status])).toEqual([['/groups/platform/access_tokens/40', 204]]);
    expect(h.emu.state.tokenById(40)!.revoked).toBe(true);
    expect(h.active('platform', 'keep')).toHaveLength(1);
  });

  it('creates a new token, never rotating, when the declared one was revoked outside plumb (a rotate would be a reuse attempt)', async () => {
    h = await harness({ groups: [{ full_path: 'platform', access_tokens: [seedToken('ci', 'seeded-ci-000000002', { id: 9 })] }] });
    h.emu.state.tokenById(9)!.revoked = true;
    h.config({ platform: { tokens: { ci: {} } } });
    const plan = await planJson();
    const c = change(plan, 'ci');
    expect(c.action).toBe('create');
    expect(c.reasons).toEqual(['revoked-out-of-band']);
    expect(plan.drift[0]!.summary).toContain('revoked outside plumb');
    const drift = await h.run(['drift']);
    expect(drift.code).toBe(2);
    expect(drift.stdout).toContain('revoked outside plumb');
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(h.count('POST', /\/rotate$/)).toBe(0);
    expect(h.active('platform', 'ci')).toHaveLength(1);
    expectNoFamilyRevoked(h.emu, new Set([9]));
  });

  it('creates a new token with expired-out-of-band when the declared one expired', async () => {
    h = await harness({ groups: [{ full_path: 'platform', access_tokens: [seedToken('ci', 'seeded-ci-000000003', { expires_at: addDays(BASE_DAY, -1) })] }] });
    h.config({ platform: { tokens: { ci: {} } } });
    const c = change(await planJson(), 'ci');
    expect(c.action).toBe('create');
    expect(c.reasons).toEqual(['expired-out-of-band']);
    expect((await h.run(['drift'])).code).toBe(2);
  });
});

describe('rotation timing', () => {
  it('rotates a token that expires in exactly rotate_before_days days and leaves one that expires a day later', async () => {
    h = await harness({
      groups: [
        {
          full_path: 'platform',
          access_tokens: [
            seedToken('edge', 'seeded-edge-00000001', { expires_at: addDays(BASE_DAY, 14) }),
            seedToken('later', 'seeded-later-0000001', { expires_at: addDays(BASE_DAY, 15) }),
          ],
        },
      ],
    });
    const rotation = { lifetime_days: 90, rotate_before_days: 14 };
    h.config({ platform: { tokens: { edge: { rotation }, later: { rotation } } } });
    const plan = await planJson();
    expect(change(plan, 'edge').action).toBe('rotate');
    expect(change(plan, 'edge').reasons).toEqual(['expiring-soon']);
    expect(change(plan, 'later').action).toBe('no-op');
    // A day later the other one is inside the window too.
    h.setToday(addDays(BASE_DAY, 1));
    expect(change(await planJson(), 'later').action).toBe('rotate');
  });

  it('rotates with expiry-changed when the declared expires_at changes, and the new token expires on that date', async () => {
    h = await harness({ groups: [{ full_path: 'platform', access_tokens: [seedToken('fixed', 'seeded-fixed-000001', { expires_at: '2026-06-30' })] }] });
    h.config({ platform: { tokens: { fixed: { expires_at: '2026-06-30' } } } });
    expect(change(await planJson(), 'fixed').action).toBe('no-op');
    h.config({ platform: { tokens: { fixed: { expires_at: '2026-07-31' } } } });
    const c = change(await planJson(), 'fixed');
    expect(c.action).toBe('rotate');
    expect(c.reasons).toEqual(['expiry-changed']);
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(h.tokenInSink('fixed')!.expiresAt).toBe('2026-07-31');
    expect((await h.run(['plan', '--detailed-exitcode'])).code).toBe(0);
  });

  it('uses --now for rotation decisions and the new expiry', async () => {
    h = await harness({ groups: [{ full_path: 'platform', access_tokens: [seedToken('ci', 'seeded-ci-000000004', { expires_at: addDays(BASE_DAY, 30) })] }] });
    h.config({ platform: { tokens: { ci: { rotation: { lifetime_days: 60, rotate_before_days: 7 } } } } });
    expect(change(await planJson(), 'ci').action).toBe('no-op');
    const r = await h.wd.run(['plan', '--json', '--now', addDays(BASE_DAY, 25)]);
    const c = change(JSON.parse(r.stdout), 'ci');
    expect(c.action).toBe('rotate');
    expect(c.attributes.find((a) => a.name === 'expires_at')).toEqual({ name: 'expires_at', before: addDays(BASE_DAY, 30), after: addDays(BASE_DAY, 85) });
  });
});

describe('replace', () => {
  it('creates the new token, delivers its secret, and only then revokes the old one when scopes differ', async () => {
    h = await harness({ groups: [{ full_path: 'platform', access_tokens: [seedToken('ci', 'seeded-ci-000000005', { id: 11, scopes: ['read_api'] })] }] });
    // The sink stores the secret, then asks the instance whether the old token is still active.
    h.wd.write(
      'record.mjs',
      `import { writeFileSync } from 'node:fs';
let s = ''; for await (const c of process.stdin) s += c;
writeFileSync(process.argv[2], s, { mode: 0o600 });
const r = await fetch(process.env.EMU_URL + '/api/v4/groups/platform/access_tokens', { headers: { 'PRIVATE-TOKEN': process.env.EMU_ADMIN } });
writeFileSync(process.argv[3], JSON.stringify((await r.json()).map((t) => ({ id: t.id, active: t.active }))));
`,
    );
    h.allow('secrets/ci.token');
    h.config({ platform: { tokens: { ci: { scopes: ['api'], sink: `{command: [${JSON.stringify(process.execPath)}, record.mjs, secrets/ci.token, seen.json]}` } } } });
    const c = change(await planJson(), 'ci');
    expect(c.action).toBe('replace');
    expect(c.reasons).toEqual(['immutable-field-changed']);
    expect(c.attributes.find((a) => a.name === 'scopes')).toEqual({ name: 'scopes', before: ['read_api'], after: ['api'] });
    h.emu.resetRequests();
    const r = await h.run(['apply', '--auto-approve'], { EMU_URL: h.emu.url, EMU_ADMIN: ADMIN_TOKEN });
    expect(r.code).toBe(0);
    const seq = h.emu.requests.filter((x) => x.method !== 'GET');
    expect(seq.map((x) => `${x.method} ${x.path}`)).toEqual(['POST /groups/platform/access_tokens', 'DELETE /groups/platform/access_tokens/11']);
    // When the sink ran, the new token existed and the old one had not been revoked yet.
    const fresh = h.tokenInSink('ci')!;
    const seen = JSON.parse(h.wd.read('seen.json')) as { id: number; active: boolean }[];
    expect(seen).toContainEqual({ id: 11, active: true });
    expect(seen).toContainEqual({ id: fresh.id, active: true });
    expect(fresh.scopes).toEqual(['api']);
    expect(h.emu.state.tokenById(11)!.revoked).toBe(true);
    expect((await h.run(['plan', '--detailed-exitcode'])).code).toBe(0);
  });

  it('replaces when the access level or the declared description differ, and ignores an undeclared description', async () => {
    h = await harness({
      groups: [
        {
          full_path: 'platform',
          access_tokens: [
            seedToken('level', 'seeded-level-000001', { access_level: 20 }),
            seedToken('desc', 'seeded-desc-0000001', { description: 'old words' }),
            seedToken('quiet', 'seeded-quiet-000001', { description: 'whatever' }),
          ],
        },
      ],
    });
    h.config({ platform: { tokens: { level: { access_level: 'developer' }, desc: { description: 'new words' }, quiet: {} } } });
    const plan = await planJson();
    expect(change(plan, 'level').action).toBe('replace');
    // The new token is shown whole: its unchanged scopes too, as the payload sends them.
    const level = change(plan, 'level');
    expect(level.attributes.find((a: { name: string }) => a.name === 'access_level')).toEqual({ name: 'access_level', before: 20, after: 30 });
    expect(level.attributes.find((a: { name: string }) => a.name === 'scopes')).toEqual({ name: 'scopes', before: ['read_api'], after: ['read_api'] });
    expect(change(plan, 'desc').action).toBe('replace');
    expect(change(plan, 'desc').attributes.find((a: { name: string }) => a.name === 'access_level')).toEqual({ name: 'access_level', before: 30, after: 30 });
    expect(change(plan, 'quiet').action).toBe('no-op');
  });
});

describe('pruning and identity', () => {
  it('leaves undeclared tokens alone when pruning is off and mentions them as notes, not drift', async () => {
    h = await harness({ groups: [{ full_path: 'platform', access_tokens: [seedToken('keep', 'seeded-keep-00000002'), seedToken('stray', 'seeded-stray-0000002')] }] });
    h.config({ platform: { tokens: { keep: {} } } });
    const r = await h.run(['plan', '--detailed-exitcode']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Notes:');
    expect(r.stdout).toContain('active token "stray"');
    expect((await h.run(['drift'])).code).toBe(0);
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(h.emu.requests.filter((x) => x.method === 'DELETE')).toHaveLength(0);
  });

  it('reports two active tokens with one name as PLUMB_TOKEN_NAME_AMBIGUOUS with the way out, and an id pin resolves it', async () => {
    h = await harness({
      groups: [{ full_path: 'platform', access_tokens: [seedToken('ci', 'seeded-ci-000000006', { id: 21 }), seedToken('ci', 'seeded-ci-000000007', { id: 22 })] }],
    });
    h.config({ platform: { prune: true, tokens: { ci: {} } } });
    const r = await h.run(['plan']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('PLUMB_TOKEN_NAME_AMBIGUOUS');
    expect(r.stdout).toContain('ids 21, 22');
    expect(r.stdout).toMatch(/id: 21/);
    expect(r.stdout).toContain('prune_access_tokens');
    expect(r.stdout).toMatch(/plumb\.yaml:\d+:\d+/);
    // Pruning never revokes a token whose identity is in question.
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(1);
    expect(h.emu.requests.filter((x) => x.method === 'DELETE')).toHaveLength(0);

    h.config({ platform: { prune: true, tokens: { ci: { id: 22 } } } });
    const plan = await planJson();
    expect(change(plan, 'ci').action).toBe('no-op');
    expect(plan.changes.find((c) => c.action === 'delete')!.address).toBe('local.group["platform"].access_token["ci"]#21');
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(h.active('platform', 'ci').map((t) => t.id)).toEqual([22]);
  });

  it('falls back to the name with a warning when the pinned id is no longer active', async () => {
    h = await harness({ groups: [{ full_path: 'platform', access_tokens: [seedToken('ci', 'seeded-ci-000000008', { id: 31 })] }] });
    h.config({ platform: { tokens: { ci: { id: 30 } } } });
    const plan = await planJson();
    expect(change(plan, 'ci').action).toBe('no-op');
    expect(plan.diagnostics.map((d) => d.code)).toContain('PLUMB_TOKEN_ID_STALE');
  });

  it('plans every group with exactly one list request each, concurrently', async () => {
    h = await harness({ groups: [{ full_path: 'a' }, { full_path: 'b' }, { full_path: 'c', access_tokens: [seedToken('x', 'seeded-x-0000000001')] }] });
    h.config({ a: { tokens: { t1: {} } }, b: { tokens: { t2: {} } }, c: { prune: true, tokens: {} } });
    h.emu.resetRequests();
    const plan = await planJson();
    const lists = h.emu.requests.filter((r) => r.path.startsWith('/groups/'));
    expect(lists.map((r) => r.path).sort()).toEqual(['/groups/a/access_tokens', '/groups/b/access_tokens', '/groups/c/access_tokens']);
    // A plan that revokes a token also reads plumb's own credential once (the prune safety rail).
    expect(h.emu.requests.filter((r) => !r.path.startsWith('/groups/')).map((r) => r.path).sort()).toEqual(['/personal_access_tokens/self', '/user']);
    expect(plan.changes.map((c) => c.action).sort()).toEqual(['create', 'create', 'delete']);
  });
});

describe('apply safety', () => {
  it('never rotates a token that was revoked between plan and apply', async () => {
    h = await harness({ groups: [{ full_path: 'platform', access_tokens: [seedToken('ci', 'seeded-ci-000000009', { id: 5, expires_at: addDays(BASE_DAY, 2) })] }] });
    h.config({ platform: { tokens: { ci: {} } } });
    // The apply's own list (the second) is slowed down; the token is revoked out of band meanwhile.
    h.addFault({ method: 'GET', path: '/groups/platform/access_tokens', nth: 2, action: { kind: 'latency', ms: 400 } });
    const waiter = (async () => {
      while (h.emu.requests.filter((r) => LIST.test(r.path)).length < 1) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, 100));
      h.emu.state.tokenById(5)!.revoked = true;
    })();
    const r = await h.run(['apply', '--auto-approve']);
    await waiter;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_PLAN_STALE');
    expect(r.stderr).toContain('is revoked now; it was not rotated');
    expect(h.count('POST', /\/rotate$/)).toBe(0);
    expectNoFamilyRevoked(h.emu, new Set([5]));
  });

  it('refuses a saved plan when the token changed on the instance since, before any write', async () => {
    h = await harness({ groups: [{ full_path: 'platform', access_tokens: [seedToken('ci', 'seeded-ci-000000010', { id: 5, expires_at: addDays(BASE_DAY, 2) })] }] });
    h.config({ platform: { tokens: { ci: {}, other: {} } } });
    expect((await h.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    h.emu.state.tokenById(5)!.revoked = true;
    h.emu.resetRequests();
    const r = await h.run(['apply', 'plan.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_PLAN_STALE');
    expect(h.emu.requests.filter((x) => x.method !== 'GET')).toHaveLength(0);
    // One list of the group serves every change of the saved plan.
    expect(h.emu.requests).toHaveLength(1);
  });

  it('refuses a saved plan whose token payload names no token to rotate, before any request', async () => {
    h = await harness({ groups: [{ full_path: 'platform', access_tokens: [seedToken('ci', 'seeded-ci-000000010', { id: 5, expires_at: addDays(BASE_DAY, 2) })] }] });
    h.config({ platform: { tokens: { ci: {} } } });
    expect((await h.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    const plan = JSON.parse(h.wd.read('plan.json'));
    const rotate = plan.changes.find((c: { action: string }) => c.action === 'rotate');
    delete rotate.payload.tokenId;
    h.wd.write('plan.json', JSON.stringify(plan));
    h.emu.resetRequests();
    const r = await h.run(['apply', 'plan.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('has a malformed payload: payload.tokenId is missing for a rotate');
    expect(h.emu.requests).toHaveLength(0);
  });

  it('applies a fresh saved plan exactly and keeps every secret out of plans, reports and comments', async () => {
    h = await harness({ groups: [{ full_path: 'platform', access_tokens: [seedToken('ci', 'seeded-ci-000000011', { expires_at: addDays(BASE_DAY, 2) })] }] });
    h.config({ platform: { tokens: { ci: {}, fresh: {} } } });
    expect((await h.run(['plan', '--out', 'plan.json', '--markdown', 'comment.md', '--report', 'report.json'])).code).toBe(0);
    expect(JSON.parse(h.wd.read('report.json'))).toEqual({ create: 1, update: 1, delete: 0 });
    const r = await h.run(['apply', 'plan.json', '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.outcomes.map((o: { status: string }) => o.status)).toEqual(['applied', 'applied']);
    // The harness scanned stdout, stderr, plan.json, comment.md and the state file for issued secrets.
    expect(h.sinkValue('ci')).toMatch(/^svc-/);
    expect((await h.run(['drift', '--json'])).code).toBe(0);
    expect(r.stdout).not.toContain(ADMIN_TOKEN);
  });
});
