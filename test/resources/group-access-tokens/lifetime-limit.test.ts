/**
 * Lowering max_personal_access_token_lifetime: the instance revokes every token that outlives the
 * new limit. plumb flags it as a risk naming the tokens it revokes (its own first), refuses it
 * unless accepted, and after applying it reports which managed tokens the instance revoked.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { secret } from '../../helpers/cli.js';
import { ADMIN_TOKEN, BASE_DAY, addDays, expectNoFamilyRevoked, harness, seedToken } from './helpers.js';
import type { Harness } from './helpers.js';

const OPS_TOKEN = secret('ops-admin-token-lifetime-000001');

let h: Harness;
afterEach(async () => {
  await h?.close();
});

async function start(opts: { ownExpires?: string; limit?: number } = {}): Promise<void> {
  h = await harness({
    users: opts.ownExpires ? [{ username: 'ops', admin: true, personal_access_tokens: [{ name: 'plumb-ops', token: OPS_TOKEN, scopes: ['api'], expires_at: opts.ownExpires }] }] : [],
    groups: [
      {
        full_path: 'platform',
        access_tokens: [
          seedToken('deployer', 'seeded-deployer-00001', { id: 11, expires_at: addDays(BASE_DAY, 60) }),
          seedToken('short', 'seeded-short-0000001', { id: 12, expires_at: addDays(BASE_DAY, 10) }),
        ],
      },
    ],
  });
  h.wd.write(
    'plumb.yaml',
    `version: 1
instances:
  local:
    url: ${h.emu.url}
    token_env: PLUMB_TOKEN
    settings_verify_seconds: 0
    settings:
      max_personal_access_token_lifetime: ${opts.limit ?? 30}
    groups:
      platform:
        access_tokens:
          short:
            scopes: [read_api]
            access_level: 30
            expires_at: ${addDays(BASE_DAY, 10)}
            sink: {file: secrets/short.token}
`,
  );
  h.allow('secrets/short.token');
}

const env = (): Record<string, string> => (h.emu.state.tokenByValue(OPS_TOKEN) ? { PLUMB_TOKEN: OPS_TOKEN } : {});

describe('lowering the token lifetime limit', () => {
  it('is a risk naming the managed tokens it revokes, refused at apply until accepted', async () => {
    await start({ ownExpires: addDays(BASE_DAY, 20) });
    const plan = await h.run(['plan', '--json'], env());
    expect(plan.code).toBe(0);
    const risks = JSON.parse(plan.stdout).risks;
    expect(risks).toHaveLength(1);
    expect(risks[0]).toMatchObject({ id: 'token-lifetime-lowered', address: 'local.application_settings', acknowledged: false });
    expect(risks[0].summary).toContain('"deployer" of group "platform" (id 11');
    expect(risks[0].summary).not.toContain('"short"');
    expect(risks[0].summary).not.toContain("plumb's own");

    const refused = await h.run(['apply', '--auto-approve'], env());
    expect(refused.code).toBe(1);
    expect(refused.stderr + refused.stdout).toContain('token-lifetime-lowered');
    expect(h.active('platform', 'deployer')).toHaveLength(1);
  });

  it("names plumb's own token first when it outlives the limit", async () => {
    await start();
    const plan = await h.run(['plan', '--json']);
    const risks = JSON.parse(plan.stdout).risks;
    expect(risks.map((r: { id: string }) => r.id)).toEqual(['token-lifetime-revokes-credential']);
    const summary: string = risks[0].summary;
    expect(summary.indexOf("plumb's own token")).toBeGreaterThan(-1);
    expect(summary.indexOf("plumb's own token")).toBeLessThan(summary.indexOf('"deployer"'));
  });

  it('reports after apply which managed tokens the instance revoked', async () => {
    await start({ ownExpires: addDays(BASE_DAY, 20) });
    const r = await h.run(['apply', '--auto-approve', '--allow-risky'], env());
    expect(h.active('platform', 'deployer')).toHaveLength(0);
    expect(h.active('platform', 'short')).toHaveLength(1);
    const out = r.stdout + r.stderr;
    expect(out).toContain('PLUMB_TOKENS_REVOKED_BY_LIMIT');
    expect(out).toMatch(/revoke 1 managed token\(s\): "deployer" of group "platform" \(id 11/);
  });
});

const CREDENTIAL = 'group-credential-lifetime-0001';
const LOCKS = 'ops/locks';

/** The lock file on the instance now, or undefined. */
function lockFile(): string | undefined {
  const p = h.emu.state.projects.find((x) => x.pathWithNamespace === LOCKS)!;
  return p.repo.branchHead(p.defaultBranch)?.files.get('plumb.lock')?.data.toString('utf8');
}

/**
 * The lock declared on the instance, and the limit lowered to 30 days while every token lives 60
 * more days. `self`: plumb runs as the group token "plumb" (its bot an administrator, as in
 * self.test.ts), declared with `self: true` and so rotated within the limit; otherwise plumb runs as
 * an administrator's personal token it does not manage, which nothing can save from the new limit.
 */
async function startLocked(declareSelf: boolean): Promise<void> {
  h = await harness({
    users: [{ username: 'ops', admin: true, personal_access_tokens: [{ name: 'plumb-ops', token: OPS_TOKEN, scopes: ['api'], expires_at: addDays(BASE_DAY, 60) }] }],
    groups: [
      {
        full_path: 'platform',
        access_tokens: [
          seedToken('plumb', CREDENTIAL, { id: 70, scopes: ['api'], access_level: 50, expires_at: addDays(BASE_DAY, 60) }),
          seedToken('deployer', 'seeded-deployer-00002', { id: 71, expires_at: addDays(BASE_DAY, 60) }),
        ],
      },
      { full_path: 'ops' },
    ],
    projects: [{ path_with_namespace: LOCKS, files: { 'README.md': 'locks of plumb applies\n' } }],
  });
  h.emu.state.userById(h.emu.state.tokenById(70)!.userId)!.admin = true;
  // The administrators' own token already fits the coming limit (not plumb's to manage).
  h.emu.state.tokenByValue(ADMIN_TOKEN)!.expiresAt = addDays(BASE_DAY, 10);
  const token = (name: string, extra: string) =>
    `          ${name}:\n            scopes: [${name === 'plumb' ? 'api' : 'read_api'}]\n            access_level: ${name === 'plumb' ? 50 : 30}\n            rotation: {lifetime_days: 25, rotate_before_days: 7}\n            sink: {file: secrets/${name}.token}\n${extra}`;
  h.wd.write(
    'plumb.yaml',
    `version: 1
instances:
  local:
    url: ${h.emu.url}
    token_env: PLUMB_TOKEN
    settings_verify_seconds: 0
    lock: {project: ${LOCKS}, path: plumb.lock}
    settings:
      max_personal_access_token_lifetime: 30
    groups:
      platform:
        access_tokens:
${token('deployer', '')}${declareSelf ? token('plumb', '            self: true\n') : ''}`,
  );
  h.allow('secrets/deployer.token');
  h.allow('secrets/plumb.token');
}

describe('setting the token lifetime limit where it was blank', () => {
  // The service revokes the tokens beyond the limit whenever the value changes, not only when it
  // is lowered: blank (365 for a new token) to 365 still revokes every token that never expires,
  // plumb's own among them (docs/emulator.md). Comparing 365 with "blank counts as 365" hid it.
  it("is the risk that revokes plumb's own never-expiring token, although 365 is what blank means", async () => {
    await start({ limit: 365 });
    const plan = await h.run(['plan', '--json']);
    expect(plan.code).toBe(0);
    const risks = JSON.parse(plan.stdout).risks;
    expect(risks.map((r: { id: string }) => r.id)).toEqual(['token-lifetime-revokes-credential']);
    expect(risks[0].summary).toContain("plumb's own token");
  });
});

describe('applying a lower token lifetime limit', () => {
  it("re-issues the declared tokens within the new limit before it sends the limit, so the instance revokes none of them, plumb's own credential included", async () => {
    await startLocked(true);
    const r = await h.run(['apply', '--auto-approve', '--allow-risky'], { PLUMB_TOKEN: CREDENTIAL });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    for (const name of ['deployer', 'plumb']) {
      const t = h.tokenInSink(name);
      expect(t && h.emu.state.isActive(t), `${name}: its sink holds an active token`).toBe(true);
      expect(t!.expiresAt! <= addDays(BASE_DAY, 30), `${name} fits the new limit`).toBe(true);
    }
    expectNoFamilyRevoked(h.emu);
    // The limit went out after the last token change: plumb's own rotation.
    const at = (re: RegExp, method: string) => h.emu.requests.findIndex((q) => q.method === method && re.test(q.path));
    expect(at(/^\/application\/settings$/, 'PUT')).toBeGreaterThan(at(/\/access_tokens\/self\/rotate$/, 'POST'));
    expect(r.stdout + r.stderr).not.toContain('could not be released');
    expect(lockFile(), 'the lock is released').toBeUndefined();
    expect((await h.run(['plan', '--detailed-exitcode'], { PLUMB_TOKEN: h.sinkValue('plumb')! })).code).toBe(0);
  });

  it('does not send the limit when a declared re-issue failed before the instance acted (502): the token stays live, apply exits 1', async () => {
    await startLocked(true);
    // The re-issue of "deployer" (a replacement: its scopes change) is refused before the instance acts.
    h.addFault({ method: 'POST', path: '/groups/platform/access_tokens', action: { kind: 'status', status: 502 } });
    const r = await h.run(['apply', '--auto-approve', '--allow-risky', '--json'], { PLUMB_TOKEN: CREDENTIAL });
    expect(r.code).toBe(1);
    expect(h.emu.requests.filter((q) => q.method === 'PUT' && q.path === '/application/settings'), 'the limit is not sent').toEqual([]);
    expect(h.emu.state.settings.max_personal_access_token_lifetime).not.toBe(30);
    // The declared token whose re-issue failed is still live, not revoked by a limit.
    expect(h.active('platform', 'deployer').map((t) => t.id)).toEqual([71]);
    const report = JSON.parse(r.stdout) as { outcomes: { address: string; status: string }[] };
    expect(report.outcomes.find((o) => o.address === 'local.application_settings')?.status).toBe('skipped');
    expect(r.stdout + r.stderr).toContain('PLUMB_APPLY_SKIPPED');
    expect(lockFile(), 'the lock is released').toBeUndefined();
  });

  it("gives the instance lock back before the write that revokes plumb's own credential, and reports the revocation", async () => {
    await startLocked(false);
    const r = await h.run(['apply', '--auto-approve', '--allow-risky'], { PLUMB_TOKEN: OPS_TOKEN });
    const out = r.stdout + r.stderr;
    expect(h.emu.state.isActive(h.emu.state.tokenByValue(OPS_TOKEN)!), 'the new limit revoked the credential').toBe(false);
    expect(h.active('platform', 'deployer').map((t) => t.expiresAt! <= addDays(BASE_DAY, 30))).toEqual([true]);
    expect(out).toContain('PLUMB_TOKENS_REVOKED_BY_LIMIT');
    expect(out).not.toContain('could not be released');
    expect(lockFile(), 'the lock is released').toBeUndefined();
    // The lock went before the limit: the delete of the lock file, then the settings.
    const at = (re: RegExp, method: string) => h.emu.requests.findIndex((q) => q.method === method && re.test(q.path));
    expect(at(/\/repository\/files\/plumb(\.|%2E)lock$/, 'DELETE')).toBeGreaterThan(-1);
    expect(at(/\/repository\/files\/plumb(\.|%2E)lock$/, 'DELETE')).toBeLessThan(at(/^\/application\/settings$/, 'PUT'));
  });
});
