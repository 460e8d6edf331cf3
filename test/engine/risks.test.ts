/**
 * Safety rails: settings changes that can lock administrators or plumb out are flagged in the plan
 * with a reason, and applied only with --allow-risky or an `allow_risky` opt-in.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestEmulator } from '../helpers/emulator.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { checkPlanFile } from '../../src/engine/plan.js';
import { settingByName } from '../../src/catalogue/index.js';
import { secret, workdir } from '../helpers/cli.js';
import type { Workdir } from '../helpers/cli.js';

/** `signin_enabled: false` as the catalogue types it (string as the spec writes it, or boolean like its target). */
const SIGNIN_OFF = settingByName('signin_enabled')?.type === 'boolean' ? 'signin_enabled: false' : 'signin_enabled: "false"';
const TOKEN = secret('admin-token-risks-0123456789');
const inDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

let emu: RunningEmulator;
let wd: Workdir;

async function start(token: { scopes?: string[]; expires_at?: string | null } = {}): Promise<void> {
  emu = await startTestEmulator({
    seed: { users: [{ username: 'root', admin: true, personal_access_tokens: [{ name: 'plumb', token: TOKEN, scopes: token.scopes ?? ['api'], expires_at: token.expires_at ?? null }] }] },
  });
  wd = workdir({ PLUMB_TOKEN: TOKEN });
}

afterEach(async () => {
  await emu?.close();
});

function config(settings: string, allowRisky?: string): void {
  wd.write(
    'plumb.yaml',
    `version: 1
instances:
  local:
    url: ${emu.url}
    token_env: PLUMB_TOKEN
    settings_verify_seconds: 0
${allowRisky ? `    allow_risky: ${allowRisky}\n` : ''}    settings:
${settings
  .trim()
  .split('\n')
  .map((l) => '      ' + l)
  .join('\n')}
`,
  );
}

const puts = () => emu.requests.filter((r) => r.method === 'PUT').length;

async function riskIds(): Promise<string[]> {
  const r = await wd.run(['plan', '--json']);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout).risks.map((x: { id: string }) => x.id);
}

describe('risky settings changes in the plan and at apply', () => {
  it('flags admin_mode without the scope in the JSON plan and explains it in one line of the human plan', async () => {
    await start();
    config('admin_mode: true');
    const plan = JSON.parse((await wd.run(['plan', '--json'])).stdout);
    expect(plan.formatVersion).toBe('1.4');
    expect(plan.risks).toHaveLength(1);
    expect(plan.risks[0]).toMatchObject({ address: 'local.application_settings', instance: 'local', id: 'admin-mode-without-scope', acknowledged: false });
    expect(plan.risks[0].summary).toContain('lacks the admin_mode scope');
    const human = await wd.run(['plan']);
    const lines = human.stdout.split('\n').filter((l) => l.includes('[admin-mode-without-scope]'));
    expect(lines).toHaveLength(1);
    expect(human.stdout).toContain('--allow-risky');
  });

  it('refuses to apply an unaccepted risk before any write, naming the risk and both ways to accept it', async () => {
    await start();
    config('admin_mode: true\nsignup_enabled: false');
    emu.resetRequests();
    const r = await wd.run(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(puts()).toBe(0);
    expect(r.stderr).toContain('PLUMB_RISK_NOT_ACCEPTED');
    expect(r.stderr).toContain('admin-mode-without-scope');
    expect(r.stderr).toContain('--allow-risky');
    expect(r.stderr).toContain('add "admin-mode-without-scope" to allow_risky of instance "local"');
    expect(emu.state.settings['signup_enabled']).not.toBe(false);
  });

  it('applies the risky change with --allow-risky', async () => {
    await start();
    config('two_factor_grace_period: 0\nrequire_two_factor_authentication: true');
    const r = await wd.run(['apply', '--auto-approve', '--allow-risky']);
    expect(r.code).toBe(0);
    expect(emu.state.settings['require_two_factor_authentication']).toBe(true);
  });

  it('applies the risky change when the instance accepts its id in allow_risky, and the plan says it is accepted', async () => {
    await start();
    config('two_factor_grace_period: 0\nrequire_two_factor_authentication: true', '[two-factor-without-grace]');
    const plan = JSON.parse((await wd.run(['plan', '--json'])).stdout);
    expect(plan.risks).toEqual([expect.objectContaining({ id: 'two-factor-without-grace', acknowledged: true })]);
    expect((await wd.run(['plan'])).stdout).toContain('(accepted by allow_risky)');
    expect((await wd.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(emu.state.settings['require_two_factor_authentication']).toBe(true);
  });

  it('refuses a saved plan with an unaccepted risk unless --allow-risky is given', async () => {
    await start();
    config('password_authentication_enabled_for_web: false\npassword_authentication_enabled_for_git: false');
    expect((await wd.run(['plan', '--out', 'plan.json', '--markdown', 'plan.md'])).code).toBe(0);
    expect(wd.read('plan.md')).toContain('`password-sign-in-off`');
    emu.resetRequests();
    const refused = await wd.run(['apply', 'plan.json']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('password-sign-in-off');
    expect(puts()).toBe(0);
    expect((await wd.run(['apply', 'plan.json', '--allow-risky'])).code).toBe(0);
    expect(emu.state.settings['password_authentication_enabled_for_git']).toBe(false);
  });

  it('does not ask for confirmation on a terminal when apply would refuse the plan for its risks', async () => {
    await start();
    config('require_two_factor_authentication: true\ntwo_factor_grace_period: 0');
    const { runApply } = await import('../../src/commands/reconcile.js');
    let asked = false;
    let err = '';
    const io = { stdout: () => undefined, stderr: (s: string) => void (err += s), isTTY: true, env: { PLUMB_TOKEN: TOKEN }, cwd: wd.dir };
    const code = await runApply({ config: [], json: false, autoApprove: false, confirm: async () => (asked = true) }, io);
    expect(code).toBe(1);
    expect(asked).toBe(false);
    expect(err).toContain('PLUMB_RISK_NOT_ACCEPTED');
    expect(puts()).toBe(0);
  });

  it('reads plumb\'s credential only when a declared change could be risky', async () => {
    await start();
    config('signup_enabled: false\nmax_login_attempts: 9');
    emu.resetRequests();
    expect(await riskIds()).toEqual([]);
    expect(emu.requests.map((r) => r.path)).toEqual(['/application/settings']);
    config('admin_mode: true');
    emu.resetRequests();
    await riskIds();
    expect(emu.requests.map((r) => r.path).sort()).toEqual(['/application/settings', '/personal_access_tokens/self', '/user']);
  });
});

describe('which settings changes are risky', () => {
  it('does not flag admin_mode when plumb\'s token has the admin_mode scope', async () => {
    await start({ scopes: ['api', 'admin_mode'] });
    config('admin_mode: true');
    expect(await riskIds()).toEqual([]);
  });

  it('assumes the worst, and says so, when plumb cannot read its own token', async () => {
    await start();
    emu.addFault({ method: 'GET', path: '/personal_access_tokens/self', action: { kind: 'status', status: 404 } });
    config('admin_mode: true');
    const plan = JSON.parse((await wd.run(['plan', '--json'])).stdout);
    expect(plan.risks[0].id).toBe('admin-mode-without-scope');
    expect(plan.risks[0].summary).toContain('plumb could not read');
  });

  it('flags disable_personal_access_tokens when plumb runs with a personal access token', async () => {
    await start();
    config('disable_personal_access_tokens: true');
    expect(await riskIds()).toEqual(['personal-tokens-disabled']);
  });

  it('flags password sign-in off for web and Git together (also through signin_enabled), not one of them alone', async () => {
    await start();
    config('password_authentication_enabled_for_web: false');
    expect(await riskIds()).toEqual([]);
    config(`${SIGNIN_OFF}\npassword_authentication_enabled_for_git: false`);
    expect(await riskIds()).toEqual(['password-sign-in-off']);
  });

  it("flags a lower max_personal_access_token_lifetime when plumb's token outlives it, not when it expires before", async () => {
    await start({ expires_at: inDays(300) });
    config('max_personal_access_token_lifetime: 30');
    const plan = JSON.parse((await wd.run(['plan', '--json'])).stdout);
    expect(plan.risks.map((r: { id: string }) => r.id)).toEqual(['token-lifetime-revokes-credential']);
    expect(plan.risks[0].summary).toContain(`expires on ${inDays(300)}`);
    await emu.close();
    await start({ expires_at: inDays(10) });
    config('max_personal_access_token_lifetime: 30');
    expect(await riskIds()).toEqual([]);
  });

  it('flags two-factor authentication with a zero grace period, not with a grace period', async () => {
    await start();
    config('require_two_factor_authentication: true\ntwo_factor_grace_period: 48');
    expect(await riskIds()).toEqual([]);
    config('require_two_factor_authentication: true\ntwo_factor_grace_period: 0');
    expect(await riskIds()).toEqual(['two-factor-without-grace']);
  });
});

describe('allow_risky in the configuration and risks in a saved plan', () => {
  it('refuses an unknown risk id offline, with a did-you-mean', async () => {
    await start();
    config('signup_enabled: false', '[admin-mode-without-scopes]');
    const r = await wd.run(['validate']);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain('PLUMB_UNKNOWN_RISK');
    expect(r.stdout + r.stderr).toContain('did you mean "admin-mode-without-scope"?');
    expect(r.stdout + r.stderr).toContain("plumb.yaml:7:19");
  });

  it('refuses a saved plan without a risks list (format 1.0), asking for a new plan', () => {
    const old = { formatVersion: '1.0', changes: [], instances: [] };
    expect(checkPlanFile(old)).toMatch(/make a new plan/);
    // The rest of a plan, complete (the whole file is parsed before use, issue 20).
    const rest = { plumbVersion: '0.1.0', createdAt: '2026-03-01T00:00:00.000Z', today: '2026-03-01', configFingerprint: 'sha256:x', drift: [], diagnostics: [], applicable: true, summary: { create: 0, update: 0, replace: 0, rotate: 0, delete: 0, noop: 0 } };
    expect(checkPlanFile({ ...rest, formatVersion: '1.1', changes: [], instances: [], risks: [{ id: 'x' }] })).toMatch(/risk 1/);
    expect(checkPlanFile({ ...rest, formatVersion: '1.1', changes: [], instances: [], risks: [] })).toBeUndefined();
    expect(checkPlanFile({ formatVersion: '1.1', changes: [], instances: [], risks: [] })).toMatch(/plumbVersion/);
  });
});
