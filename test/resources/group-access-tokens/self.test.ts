/**
 * Self rotation: a declared token with `self: true` is plumb's own credential (the value of the
 * instance's token_env). It rotates through `POST …/access_tokens/self/rotate` with that credential,
 * and the rest of the run uses the new secret.
 *
 * The emulator lets only administrators and Owners (people) manage group tokens, so these tests make
 * the credential's bot user an administrator: the stand-in for an instance where plumb runs as a
 * group token allowed to manage its own group's tokens.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BASE_DAY, addDays, expectNoFamilyRevoked, harness, seedToken } from './helpers.js';
import type { Harness } from './helpers.js';
import { applyInMemory } from '../../helpers/apply-in-memory.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const CREDENTIAL = 'group-credential-of-plumb-0001';

async function start(): Promise<void> {
  h = await harness({
    groups: [{ full_path: 'platform', access_tokens: [seedToken('plumb', CREDENTIAL, { id: 70, scopes: ['api'], access_level: 50, expires_at: addDays(BASE_DAY, 3) })] }],
  });
  const bot = h.emu.state.userById(h.emu.state.tokenById(70)!.userId)!;
  bot.admin = true;
  h.config({ platform: { tokens: { plumb: { scopes: ['api'], access_level: 50, self: true }, ci: {} } } });
}

const asCredential = { PLUMB_TOKEN: CREDENTIAL };

describe('self rotation', () => {
  it("rotates plumb's own credential last, through self, and delivers the new secret to its sink", async () => {
    await start();
    const plan = JSON.parse((await h.run(['plan', '--json'], asCredential)).stdout);
    expect(plan.changes.map((c: { action: string }) => c.action)).toEqual(['create', 'rotate']);
    expect(plan.changes[1].attributes).toContainEqual({ name: 'rotated_by', after: "self (plumb's own credential)" });
    const r = await h.run(['apply', '--auto-approve'], asCredential);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('plumb uses the new secret for the rest of this run');
    expect(h.count('POST', /^\/groups\/platform\/access_tokens\/self\/rotate$/)).toBe(1);
    expect(h.count('POST', /\/70\/rotate$/)).toBe(0);
    expect(h.emu.state.tokenById(70)!.revoked).toBe(true);
    const fresh = h.tokenInSink('plumb')!;
    expect(fresh.previousId).toBe(70);
    // The next run authenticates with the delivered secret and finds nothing to do.
    expect((await h.run(['plan', '--detailed-exitcode'], { PLUMB_TOKEN: h.sinkValue('plumb')! })).code).toBe(0);
  });

  it('uses the new credential for every later change of the same run', async () => {
    await start();
    // The plan orders the self rotation after the create. Order the reverse in memory (a saved plan
    // edited so is refused): the create that follows must go out with the new secret.
    const r = await applyInMemory({
      dir: h.wd.dir,
      env: { ...asCredential, PLUMB_SINK_TIMEOUT_SECONDS: '5' },
      today: h.today,
      edit: (changes) => {
        const [create, self] = changes;
        expect(self!.order).toEqual({ after: [create!.address] });
        delete (self as { order?: unknown }).order;
        (create as { order?: unknown }).order = { after: [self!.address] };
      },
      beforeApply: () => h.emu.resetRequests(),
    });
    expect(r.code, r.stderr).toBe(0);
    const writes = h.emu.requests.filter((x) => x.method === 'POST').map((x) => `${x.path} ${x.status}`);
    expect(writes).toEqual(['/groups/platform/access_tokens/self/rotate 200', '/groups/platform/access_tokens 201']);
    const fresh = h.tokenInSink('plumb')!;
    expect(fresh.lastUsedAt).not.toBeNull();
    expect(h.active('platform', 'ci')).toHaveLength(1);
    expectNoFamilyRevoked(h.emu);
  });

  it("refuses with PLUMB_TOKEN_SELF_NOT_CREDENTIAL when plumb's credential is not that group token, rotating nothing", async () => {
    await start();
    const r = await h.run(['apply', '--auto-approve']); // the administrator's personal token
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_TOKEN_SELF_NOT_CREDENTIAL');
    expect(r.stderr).toContain('nothing was rotated');
    expect(h.emu.state.isActive(h.emu.state.tokenById(70)!)).toBe(true);
    expect(h.sinkValue('plumb')).toBeUndefined();
  });

  it('reports a lost credential when the answer to its rotation is lost, and never repeats the rotation', async () => {
    await start();
    h.addFault({ method: 'POST', path: '/groups/*/access_tokens/self/rotate', action: { kind: 'drop', when: 'after' } });
    const r = await h.run(['apply', '--auto-approve'], asCredential);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_TOKEN_SELF_LOST');
    expect(r.stderr).toContain('PLUMB_TOKEN');
    expect(h.count('POST', /\/self\/rotate$/)).toBe(1);
    // The instance did rotate: the old credential is revoked, the new one is active (no family revocation).
    const next = h.emu.state.tokens.find((t) => t.previousId === 70)!;
    expect(h.emu.state.isActive(next)).toBe(true);
    expectNoFamilyRevoked(h.emu);
  });

  it('says the rotation did not happen when the self-rotate fails while the credential still works', async () => {
    await start();
    h.addFault({ method: 'POST', path: '/groups/*/access_tokens/self/rotate', action: { kind: 'drop', when: 'before' } });
    const r = await h.run(['apply', '--auto-approve'], asCredential);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("plumb's credential still works, so the rotation did not happen");
    expect(h.emu.state.isActive(h.emu.state.tokenById(70)!)).toBe(true);
    h.emu.clearFaults();
    expect((await h.run(['apply', '--auto-approve'], asCredential)).code).toBe(0);
    expect(h.tokenInSink('plumb')!.previousId).toBe(70);
  });

  it('blames the missing read scope, not the role, when a credential holding only self_rotate cannot list the group', async () => {
    h = await harness({
      groups: [{ full_path: 'platform', access_tokens: [seedToken('plumb', 'group-credential-self-rotate-only', { id: 71, scopes: ['self_rotate'], access_level: 50 })] }],
    });
    h.emu.state.userById(h.emu.state.tokenById(71)!.userId)!.admin = true;
    h.config({ platform: { tokens: { plumb: { scopes: ['self_rotate', 'read_api'], access_level: 50, self: true } } } });
    const r = await h.run(['plan'], { PLUMB_TOKEN: 'group-credential-self-rotate-only' });
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain('lacks a scope to read the group\'s tokens: it needs read_api or api');
    expect(r.stdout + r.stderr).not.toContain('Owner');
  });

  it('renews other tokens by replacement when plumb runs as a group token, which may rotate only itself', async () => {
    h = await harness({
      groups: [
        {
          full_path: 'platform',
          access_tokens: [
            seedToken('plumb', 'group-credential-of-plumb-0003', { id: 72, scopes: ['api'], access_level: 50, expires_at: addDays(BASE_DAY, 30) }),
            seedToken('ci', 'seeded-ci-due-000000073', { id: 73, expires_at: addDays(BASE_DAY, 2) }),
          ],
        },
      ],
    });
    h.emu.state.userById(h.emu.state.tokenById(72)!.userId)!.admin = true;
    h.config({ platform: { tokens: { plumb: { scopes: ['api'], access_level: 50, self: true }, ci: {} } } });
    const env = { PLUMB_TOKEN: 'group-credential-of-plumb-0003' };
    const plan = JSON.parse((await h.run(['plan', '--json'], env)).stdout);
    const ci = plan.changes.find((c: { address: string }) => c.address.endsWith('["ci"]'));
    expect(ci).toMatchObject({ action: 'replace', reasons: ['expiring-soon'], payload: { op: 'replace', tokenId: 73 } });
    const r = await h.run(['apply', '--auto-approve'], env);
    expect(r.code).toBe(0);
    expect(h.emu.requests.filter((x) => /\/rotate$/.test(x.path))).toEqual([]);
    expect(h.emu.state.tokenById(73)!.revoked).toBe(true);
    expect(h.tokenInSink('ci')!.id).not.toBe(73);
    expect(h.emu.state.isActive(h.tokenInSink('ci')!)).toBe(true);
  });

  it('flags pruning of the token plumb runs with as a risk, and revokes nothing without --allow-risky', async () => {
    h = await harness({
      groups: [{ full_path: 'platform', access_tokens: [seedToken('plumb', 'group-credential-of-plumb-0004', { id: 74, scopes: ['api'], access_level: 50, expires_at: addDays(BASE_DAY, 30) })] }],
    });
    h.emu.state.userById(h.emu.state.tokenById(74)!.userId)!.admin = true;
    // The credential is not declared, and pruning is on: the plan would revoke plumb's own token.
    h.config({ platform: { prune: true, tokens: { ci: {} } } });
    const env = { PLUMB_TOKEN: 'group-credential-of-plumb-0004' };
    const plan = JSON.parse((await h.run(['plan', '--json'], env)).stdout);
    expect(plan.risks).toEqual([expect.objectContaining({ id: 'prune-own-credential', acknowledged: false, address: expect.stringContaining('#74') })]);
    const r = await h.run(['apply', '--auto-approve'], env);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain('PLUMB_RISK_NOT_ACCEPTED');
    expect(h.emu.requests.filter((x) => x.method !== 'GET')).toEqual([]);
    expect(h.emu.state.isActive(h.emu.state.tokenById(74)!)).toBe(true);
  });

  it('makes no credential request when the plan revokes nothing', async () => {
    await start();
    await h.run(['plan'], asCredential);
    expect(h.emu.requests.filter((x) => x.path === '/personal_access_tokens/self')).toEqual([]);
  });
});

describe('a group access token without access to the group tokens', () => {
  it('names the kind of credential as the cause of the 401, not an invalid or expired token', async () => {
    h = await harness({
      groups: [{ full_path: 'platform', access_tokens: [seedToken('plumb', CREDENTIAL, { id: 70, scopes: ['api'], access_level: 50, expires_at: addDays(BASE_DAY, 30) })] }],
    });
    h.config({ platform: { tokens: { ci: {} } } });
    const r = await h.run(['plan'], asCredential);
    expect(r.code).toBe(1);
    const out = r.stdout + r.stderr;
    expect(out).toContain('is a group or project access token');
    expect(out).not.toContain('valid, not expired');
  });
});

describe('self: true on a token that is not the credential', () => {
  it('names on the ✗ line the token the instance revoked (the credential), not the declared one', async () => {
    h = await harness({
      groups: [
        {
          full_path: 'platform',
          access_tokens: [
            seedToken('plumb', CREDENTIAL, { id: 70, scopes: ['api'], access_level: 50, expires_at: addDays(BASE_DAY, 30) }),
            seedToken('other', 'other-group-token-00001', { id: 71, scopes: ['api'], access_level: 50, expires_at: addDays(BASE_DAY, 3) }),
          ],
        },
      ],
    });
    h.emu.state.userById(h.emu.state.tokenById(70)!.userId)!.admin = true;
    h.config({ platform: { tokens: { other: { scopes: ['api'], access_level: 50, self: true } } } });
    const r = await h.run(['apply', '--auto-approve'], asCredential);
    expect(r.code).toBe(1);
    const line = r.stderr.split('\n').find((l) => l.startsWith('✗'))!;
    expect(line).toBeDefined();
    expect(line).not.toContain('id 71 is revoked');
    expect(line).toContain('"other" (id 71) was not rotated');
    expect(h.emu.state.tokenById(71)!.revoked).toBe(false);
    expect(h.emu.state.tokenById(70)!.revoked).toBe(true);
  });
});
