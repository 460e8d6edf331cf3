import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestEmulator } from '../../helpers/emulator.js';
import type { RunningEmulator, EmulatorOptions } from '../../../src/emulator/index.js';
import { secret, workdir } from '../../helpers/cli.js';
import type { Workdir } from '../../helpers/cli.js';

const ADMIN_TOKEN = secret('admin-token-settings-0123456789');
const CAPTCHA_KEY = secret('captcha-private-key-abcdef');
const CAPTCHA_KEY_2 = secret('captcha-private-key-rotated-xyz');

const seed = {
  users: [{ username: 'root', admin: true, personal_access_tokens: [{ name: 'plumb', token: ADMIN_TOKEN, scopes: ['api'] }] }],
};

let emu: RunningEmulator;
let wd: Workdir;

async function start(opts: Partial<EmulatorOptions> = {}): Promise<void> {
  emu = await startTestEmulator({ seed, ...opts });
  wd = workdir({ PLUMB_TOKEN: ADMIN_TOKEN });
}

function config(settings: string, extra = ''): void {
  wd.write(
    'plumb.yaml',
    `version: 1
instances:
  local:
    url: ${emu.url}
    token_env: PLUMB_TOKEN
    settings_verify_seconds: 5
${extra}    settings:
${settings
  .trim()
  .split('\n')
  .map((l) => '      ' + l)
  .join('\n')}
`,
  );
}

const count = (method: string, path = '/application/settings') => emu.requests.filter((r) => r.method === method && r.path === path).length;

async function putOutOfBand(body: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${emu.url}/api/v4/application/settings`, {
    method: 'PUT',
    headers: { 'PRIVATE-TOKEN': ADMIN_TOKEN, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
}

describe('application settings: plan, apply, drift against the emulator', () => {
  beforeEach(async () => {
    await start();
  });
  afterEach(async () => {
    await emu.close();
  });

  it('plans exactly the declared differences with one request', async () => {
    config(`
signup_enabled: false
deletion_adjourned_period: 14
default_branch_name: trunk
`);
    emu.resetRequests();
    const r = await wd.run(['plan', '--json']);
    expect(r.code).toBe(0);
    expect(emu.requests).toHaveLength(1);
    const plan = JSON.parse(r.stdout);
    expect(plan.formatVersion).toBe('1.4');
    expect(plan.changes).toHaveLength(1);
    const change = plan.changes[0];
    expect(change.action).toBe('update');
    expect(change.address).toBe('local.application_settings');
    const names = change.attributes.map((a: { name: string }) => a.name).sort();
    expect(names).toEqual(['default_branch_name', 'deletion_adjourned_period', 'signup_enabled']);
    const d = change.attributes.find((a: { name: string }) => a.name === 'deletion_adjourned_period');
    expect(d.after).toBe(14);
    expect(plan.summary.update).toBe(1);
  });

  it('shows the plan in the human view with Terraform symbols and a summary line', async () => {
    config('deletion_adjourned_period: 14');
    const r = await wd.run(['plan']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('~ deletion_adjourned_period = ');
    expect(r.stdout).toContain('-> 14');
    expect(r.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');
    expect(r.stdout).not.toMatch(/\u001b\[/);
  });

  it('applies with one PUT of only the changed keys and a read-back, then the next plan is empty', async () => {
    config(`
signup_enabled: false
deletion_adjourned_period: 14
restricted_visibility_levels: [public, internal]
users_api_limit_keys: 99
domain_denylist_enabled: true
domain_denylist: [spam.example, junk.example]
`);
    emu.resetRequests();
    const r = await wd.run(['apply', '--auto-approve']);
    expect(r.code).toBe(0);
    expect(count('PUT')).toBe(1);
    expect(count('GET')).toBe(2);
    const again = await wd.run(['plan', '--detailed-exitcode']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('No changes');
  });

  it('converges on the deprecated alias signin_enabled: false, typed as a boolean like its target', async () => {
    config('signin_enabled: false');
    const r = await wd.run(['apply', '--auto-approve']);
    expect(r.code).toBe(0);
    expect((await wd.run(['drift'])).code).toBe(0);
    expect((await wd.run(['plan'])).stdout).toContain('No changes');
  });

  it('refuses to apply an empty ${env:} over a secret setting, before any request', async () => {
    config('spam_check_api_key: ${env:SPAM_KEY}');
    emu.resetRequests();
    const r = await wd.run(['apply', '--auto-approve'], { SPAM_KEY: '' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error[PLUMB_ENV_EMPTY]');
    expect(emu.requests).toHaveLength(0);
  });

  it('exits 2 with --detailed-exitcode when there are changes', async () => {
    config('signup_enabled: false');
    expect((await wd.run(['plan', '--detailed-exitcode'])).code).toBe(2);
  });

  it('reports drift with exit 2 after an out-of-band change and exit 0 when in sync', async () => {
    config('signup_enabled: false\nmax_login_attempts: 7');
    expect((await wd.run(['apply', '--auto-approve'])).code).toBe(0);
    expect((await wd.run(['drift'])).code).toBe(0);
    await putOutOfBand({ signup_enabled: true });
    const r = await wd.run(['drift']);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('Drift detected');
    expect(r.stdout).toContain('signup_enabled');
    const j = await wd.run(['drift', '--json']);
    expect(j.code).toBe(2);
    const report = JSON.parse(j.stdout);
    expect(report.inSync).toBe(false);
    expect(report.drift[0].attributes).toEqual([{ name: 'signup_enabled', before: true, after: false }]);
  });

  it('refuses a saved plan when a declared setting moved on the instance since, without writing', async () => {
    config('signup_enabled: false\nmax_login_attempts: 7');
    expect((await wd.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    await putOutOfBand({ max_login_attempts: 3 });
    emu.resetRequests();
    const r = await wd.run(['apply', 'plan.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_PLAN_STALE');
    expect(r.stderr).toContain('local.application_settings changed on the instance');
    expect(count('PUT')).toBe(0);
  });

  it('answers --json with JSON, not a sentence, when a saved plan has no changes', async () => {
    config('signup_enabled: false');
    expect((await wd.run(['apply', '--auto-approve'])).code).toBe(0);
    expect((await wd.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    const r = await wd.run(['apply', 'plan.json', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ ok: true, outcomes: [] });
    const human = await wd.run(['apply', 'plan.json']);
    expect(human.stdout).toContain('The saved plan has no changes.');
  });

  it('still applies a saved plan when only undeclared settings moved', async () => {
    config('signup_enabled: false');
    expect((await wd.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    await putOutOfBand({ max_login_attempts: 3 });
    emu.resetRequests();
    expect((await wd.run(['apply', 'plan.json'])).code).toBe(0);
    expect(count('PUT')).toBe(1);
  });

  it('applies a fresh saved plan exactly, with no prompt and one PUT', async () => {
    config('deletion_adjourned_period: 21');
    expect((await wd.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    emu.resetRequests();
    const r = await wd.run(['apply', 'plan.json']);
    expect(r.code).toBe(0);
    expect(count('PUT')).toBe(1);
    expect((await wd.run(['plan', '--detailed-exitcode'])).code).toBe(0);
  });

  it('refuses a saved plan whose settings payload was edited into a wrong shape, before any request', async () => {
    config('deletion_adjourned_period: 21');
    expect((await wd.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    const plan = JSON.parse(wd.read('plan.json'));
    plan.changes[0].payload.set = 'deletion_adjourned_period=21';
    wd.write('plan.json', JSON.stringify(plan));
    emu.resetRequests();
    const r = await wd.run(['apply', 'plan.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_PLAN_INVALID');
    expect(r.stderr).toContain('change 1 (local.application_settings) has a malformed payload: payload.set is not an object');
    expect(emu.requests).toHaveLength(0);
  });

  it('refuses a saved plan whose change lacks its live fingerprint, before any request', async () => {
    config('deletion_adjourned_period: 21');
    expect((await wd.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    const plan = JSON.parse(wd.read('plan.json'));
    delete plan.changes[0].liveFingerprint;
    wd.write('plan.json', JSON.stringify(plan));
    emu.resetRequests();
    const r = await wd.run(['apply', 'plan.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('change 1 of the plan lacks its liveFingerprint');
    expect(emu.requests).toHaveLength(0);
  });

  it('shows a configuration warning once in a plan, not again on standard error', async () => {
    config('housekeeping_bitmaps_enabled: true');
    const r = await wd.run(['plan']);
    expect(r.code).toBe(0);
    const both = r.stdout + r.stderr;
    expect(both.split('PLUMB_SETTING_DEPRECATED').length - 1).toBe(1);
    expect(r.stdout).toMatch(/warning\[PLUMB_SETTING_DEPRECATED\]: Setting "housekeeping_bitmaps_enabled" is deprecated.* \(plumb\.yaml:\d+:\d+\)/);
  });

  it('refuses a saved plan made from another configuration', async () => {
    config('deletion_adjourned_period: 21');
    expect((await wd.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    config('deletion_adjourned_period: 22');
    emu.resetRequests();
    const r = await wd.run(['apply', 'plan.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_PLAN_STALE_CONFIG');
    expect(count('PUT')).toBe(0);
  });

  it('refuses to apply an unsaved plan without a terminal or --auto-approve', async () => {
    config('signup_enabled: false');
    emu.resetRequests();
    const r = await wd.run(['apply']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--auto-approve');
    expect(emu.requests).toHaveLength(0);
  });

  it('asks on a terminal and applies only after "yes"', async () => {
    config('signup_enabled: false');
    const { runApply } = await import('../../../src/commands/reconcile.js');
    let out = '';
    const io = { stdout: (s: string) => (out += s), stderr: (s: string) => (out += s), isTTY: true, env: { PLUMB_TOKEN: ADMIN_TOKEN }, cwd: wd.dir };
    const no = await runApply({ config: [], json: false, autoApprove: false, confirm: async () => false }, io);
    expect(no).toBe(1);
    expect(count('PUT')).toBe(0);
    const yes = await runApply({ config: [], json: false, autoApprove: false, confirm: async () => true }, io);
    expect(yes).toBe(0);
    expect(count('PUT')).toBe(1);
  });

  it('maps a 400 from the instance back to the YAML line that set the field', async () => {
    config('signup_enabled: false\ndeletion_adjourned_period: 14');
    emu.addFault({ method: 'PUT', path: '/application/settings', action: { kind: 'status', status: 400, body: { message: { deletion_adjourned_period: ['must be less than or equal to 10'] } } } });
    const r = await wd.run(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_API_REJECTED_SETTING');
    expect(r.stderr).toContain('must be less than or equal to 10');
    expect(r.stderr).toContain('plumb.yaml:9:7');
  });

  it('writes a markdown comment and a create/update/delete report', async () => {
    config('signup_enabled: false');
    const r = await wd.run(['plan', '--markdown', 'comment.md', '--report', 'report.json']);
    expect(r.code).toBe(0);
    expect(wd.read('comment.md')).toContain('<details>');
    expect(wd.read('comment.md')).toContain('local.application_settings');
    expect(JSON.parse(wd.read('report.json'))).toEqual({ create: 0, update: 1, delete: 0 });
  });

  it('refuses a visibility default that the undeclared live restricted levels forbid, before writing', async () => {
    await putOutOfBand({ restricted_visibility_levels: ['public'] });
    config('default_project_visibility: public');
    emu.resetRequests();
    const r = await wd.run(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain('PLUMB_VISIBILITY_CONFLICT');
    expect(count('PUT')).toBe(0);
  });

  it('sends a flag\'s partner settings in the same request that turns it on', async () => {
    config('require_two_factor_authentication: false\ntwo_factor_grace_period: 48');
    expect((await wd.run(['apply', '--auto-approve'])).code).toBe(0);
    config('require_two_factor_authentication: true\ntwo_factor_grace_period: 48');
    const r = await wd.run(['apply', '--auto-approve']);
    expect(r.code).toBe(0);
    expect((await wd.run(['plan', '--detailed-exitcode'])).code).toBe(0);
  });

  it('does not claim the instance is in sync when it could not be read', async () => {
    wd.write('plumb.yaml', `version: 1\ninstances:\n  local:\n    url: http://127.0.0.1:1\n    token_env: PLUMB_TOKEN\n    settings:\n      signup_enabled: false\n`);
    const r = await wd.run(['plan', '--concurrency', '1']);
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain('No changes');
    expect(r.stdout).toContain('could not be completed');
    expect(r.stdout).toContain('PLUMB_API_NETWORK');
  });

  it('names the host it could not reach, and the variable and URL of a token the instance refuses', async () => {
    wd.write('plumb.yaml', `version: 1\ninstances:\n  local:\n    url: http://127.0.0.1:1\n    token_env: PLUMB_TOKEN\n    settings:\n      signup_enabled: false\n`);
    const down = await wd.run(['plan', '--concurrency', '1']);
    expect(down.stdout).toContain('error[PLUMB_API_NETWORK]: Cannot reach 127.0.0.1:1: GET /application/settings failed: ECONNREFUSED');
    expect(down.stdout).toContain('GET http://127.0.0.1:1/api/v4/application/settings failed.');
    wd.write('plumb.yaml', `version: 1\ninstances:\n  local:\n    url: ${emu.url}\n    token_env: LOCAL_ADMIN\n    settings:\n      signup_enabled: false\n`);
    const refused = await wd.run(['plan'], { LOCAL_ADMIN: 'not-a-token-of-this-instance' });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('error[PLUMB_API_UNAUTHORIZED]');
    expect(refused.stdout).toContain(`help: ${emu.url} refused the token in LOCAL_ADMIN (token_env of instance "local"): check that LOCAL_ADMIN holds a token of this instance, not expired and not revoked`);
    expect(refused.stdout).toContain(`GET ${emu.url}/api/v4/application/settings answered 401.`);
  });

  it('prints one line per API call with --debug, and never the token', async () => {
    config('signup_enabled: false');
    const r = await wd.run(['plan', '--debug']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/debug: GET \/api\/v4\/application\/settings → 200 \(\d+ ms\)/);
    const quiet = await wd.run(['plan']);
    expect(quiet.stderr).not.toContain('debug:');
  });

  it('refuses a --concurrency that is not a whole number from 1 to 64', async () => {
    config('signup_enabled: false');
    const r = await wd.run(['plan', '--concurrency', '0']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--concurrency must be a whole number from 1 to 64');
    expect((await wd.run(['plan', '--concurrency', '2'])).code).toBe(0);
  });

  it('fails with a clear message when the token variable is not set, before any request', async () => {
    config('signup_enabled: false');
    emu.resetRequests();
    const r = await wd.run(['plan'], { PLUMB_TOKEN: '' });
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain('PLUMB_TOKEN_ENV_MISSING');
    expect(emu.requests).toHaveLength(0);
  });
});

describe('write-only secret settings', () => {
  beforeEach(async () => {
    await start();
  });
  afterEach(async () => {
    await emu.close();
  });

  it('sends a secret once, records only its fingerprint, and re-sends it only when it changes', async () => {
    config('captcha_enabled: true\ncaptcha_site_key: site-key-public\ncaptcha_private_key: ${env:CAPTCHA_KEY}');
    const env = { CAPTCHA_KEY: CAPTCHA_KEY };
    const plan = await wd.run(['plan'], env);
    expect(plan.stdout).toContain('captcha_private_key = (write-only) -> "(sensitive value)"');
    expect((await wd.run(['apply', '--auto-approve'], env)).code).toBe(0);
    const state = wd.read('.plumb/state.json');
    expect(state).toContain('captcha_private_key');
    expect(state).not.toContain(CAPTCHA_KEY);
    const again = await wd.run(['plan', '--detailed-exitcode'], env);
    expect(again.code).toBe(0);
    const changed = await wd.run(['plan', '--json'], { CAPTCHA_KEY: CAPTCHA_KEY_2 });
    const p = JSON.parse(changed.stdout);
    expect(p.changes[0].reasons).toEqual(['write-only-changed']);
    expect(p.changes[0].attributes).toEqual([{ name: 'captcha_private_key', after: '(sensitive value)', sensitive: true, writeOnly: true }]);
  });

  it('refuses a saved plan whose secret value changed after planning', async () => {
    config('captcha_enabled: false\ncaptcha_private_key: ${env:CAPTCHA_KEY}');
    expect((await wd.run(['plan', '--out', 'plan.json'], { CAPTCHA_KEY })).code).toBe(0);
    emu.resetRequests();
    const r = await wd.run(['apply', 'plan.json'], { CAPTCHA_KEY: CAPTCHA_KEY_2 });
    expect(r.code).toBe(1);
    expect(count('PUT')).toBe(0);
  });

  it('never shows a secret in plan, apply, drift, json or markdown output', async () => {
    config('captcha_enabled: true\ncaptcha_site_key: site\ncaptcha_private_key: ${env:CAPTCHA_KEY}');
    const env = { CAPTCHA_KEY };
    // The helper fails the test if any output or written file contains a registered secret.
    await wd.run(['plan', '--json', '--out', 'p.json', '--markdown', 'c.md'], env);
    await wd.run(['apply', '--auto-approve', '--json'], env);
    await wd.run(['drift', '--json'], env);
    const r = await wd.run(['plan'], { CAPTCHA_KEY: CAPTCHA_KEY_2 });
    expect(r.stdout).toContain('(sensitive value)');
  });
});

describe('tiers and the settings cache', () => {
  afterAll(async () => {
    await emu?.close();
  });

  it('warns about a higher-tier setting the instance does not return and leaves it out of the update', async () => {
    await start({ tier: 'free' });
    config('signup_enabled: false\nmaintenance_mode: true');
    const r = await wd.run(['plan', '--json']);
    const plan = JSON.parse(r.stdout);
    expect(plan.diagnostics.map((d: { code: string }) => d.code)).toContain('PLUMB_SETTING_NOT_RETURNED');
    expect(plan.changes[0].attributes.map((a: { name: string }) => a.name)).toEqual(['signup_enabled']);
    await emu.close();
  });

  it('waits for the settings cache within the bound before verifying, and says so', async () => {
    await start({ settingsCacheSeconds: 1 });
    config('deletion_adjourned_period: 9');
    const r = await wd.run(['apply', '--auto-approve']);
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).toMatch(/settings cache/);
    expect(r.stdout + r.stderr).not.toContain('PLUMB_SETTING_NOT_CONVERGED');
  });
});
