/**
 * Secrets unavailable in this pipeline: in a merge-request pipeline protected variables are absent.
 * With `--unavailable-secrets skip`, a secret setting whose `${env:NAME}` is unset is not compared,
 * and the plan shows it as a change of its own ("new value from ${env:NAME}, not available here":
 * issue 28.1, a value that cannot be compared is never hidden behind "no changes"); drift notes it
 * without counting it. Without the option (and always for apply) the missing variable is an error.
 */
import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestEmulator } from '../helpers/emulator.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { secret, workdir } from '../helpers/cli.js';
import type { Workdir } from '../helpers/cli.js';

const ADMIN_TOKEN = secret('admin-token-unavailable-0123456789');
const CAPTCHA_KEY = secret('captcha-private-key-unavailable-x');

let emu: RunningEmulator;
let wd: Workdir;

function config(extra = ''): void {
  wd.write(
    'plumb.yaml',
    `version: 1\ninstances:\n  local:\n    url: ${emu.url}\n    token_env: PLUMB_TOKEN\n    settings:\n      captcha_enabled: true\n      captcha_site_key: site-key\n      captcha_private_key: \${env:CAPTCHA_KEY}\n${extra}`,
  );
}

beforeEach(async () => {
  emu = await startTestEmulator({ seed: { users: [{ username: 'root', admin: true, personal_access_tokens: [{ name: 'plumb', token: ADMIN_TOKEN, scopes: ['api'] }] }] } });
  wd = workdir({ PLUMB_TOKEN: ADMIN_TOKEN });
  config();
  expect((await wd.run(['apply', '--auto-approve'], { CAPTCHA_KEY })).code).toBe(0);
});
afterEach(async () => {
  await emu.close();
  rmSync(wd.dir, { recursive: true, force: true });
});

describe('a secret unavailable to this pipeline', () => {
  it('is not compared, and the plan shows it as a change of its own, never "no changes"', async () => {
    const r = await wd.run(['plan', '--detailed-exitcode', '--unavailable-secrets', 'skip', '--markdown', 'plan.md']);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stdout).not.toContain('No changes');
    expect(r.stdout).toContain('~ captcha_private_key = (write-only) -> "(new value from ${env:CAPTCHA_KEY}, not available here)"');
    expect(r.stdout).toContain('captcha_private_key: not compared here (unavailable to this pipeline)');
    expect(wd.read('plan.md')).not.toMatch(/no changes/i);
    expect(wd.read('plan.md')).toContain('new value from ${env:CAPTCHA_KEY}, not available here');
    const json = JSON.parse((await wd.run(['plan', '--json', '--unavailable-secrets', 'skip'])).stdout);
    expect(json.changes).toMatchObject([
      {
        action: 'update',
        reasons: ['write-only-unavailable'],
        attributes: [{ name: 'captcha_private_key', after: '(new value from ${env:CAPTCHA_KEY}, not available here)', sensitive: true, writeOnly: true, unavailable: true }],
        payload: { set: {}, secrets: {}, unavailable: { captcha_private_key: ['${env:CAPTCHA_KEY}'] } },
      },
    ]);
    expect(json.summary).toMatchObject({ update: 1 });
    // Drift cannot tell either: a note, not drift.
    expect(json.drift).toMatchObject([{ informational: true, summary: 'captcha_private_key: not compared here (unavailable to this pipeline)' }]);
    expect((await wd.run(['drift', '--unavailable-secrets', 'skip'])).code).toBe(0);
  });

  it('renders a saved plan with it (show, show --markdown) and never applies it', async () => {
    expect((await wd.run(['plan', '--unavailable-secrets', 'skip', '--out', 'plan.json'])).code).toBe(0);
    const show = await wd.run(['show', 'plan.json']);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain('new value from ${env:CAPTCHA_KEY}, not available here');
    const md = await wd.run(['show', 'plan.json', '--markdown']);
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toContain('new value from ${env:CAPTCHA_KEY}, not available here');
    const apply = await wd.run(['apply', 'plan.json', '--auto-approve'], { CAPTCHA_KEY });
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('PLUMB_PLAN_STALE_SECRET');
    expect(apply.stderr).toContain('made with --unavailable-secrets skip: captcha_private_key was not compared');
  });

  it('leaves a real change beside it a change (exit 2), and only that one', async () => {
    config('      signup_enabled: false\n');
    const r = await wd.run(['plan', '--json', '--detailed-exitcode', '--unavailable-secrets', 'skip']);
    expect(r.code).toBe(2);
    const plan = JSON.parse(r.stdout);
    expect(plan.changes[0].attributes.map((a: { name: string }) => a.name)).toEqual(['signup_enabled', 'captcha_private_key']);
    expect(plan.changes[0].payload).toEqual({ set: { signup_enabled: false }, secrets: {}, unavailable: { captcha_private_key: ['${env:CAPTCHA_KEY}'] } });
  });

  it('is an error without the option, in validate too, and always in apply', async () => {
    const plan = await wd.run(['plan']);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('PLUMB_ENV_MISSING');
    expect((await wd.run(['validate'])).code).toBe(1);
    const v = await wd.run(['validate', '--unavailable-secrets', 'skip', '--json']);
    expect(v.code).toBe(0);
    expect(JSON.parse(v.stdout).diagnostics).toMatchObject([{ severity: 'info', code: 'PLUMB_SECRET_UNAVAILABLE' }]);
    expect((await wd.run(['apply', '--auto-approve', '--unavailable-secrets', 'skip'])).stderr).toContain('Unknown option "--unavailable-secrets"');
    const apply = await wd.run(['apply', '--auto-approve']);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('PLUMB_ENV_MISSING');
  });

  it('does not apply to a variable outside application settings', async () => {
    wd.write('other.yaml', 'version: 1\ninstances:\n  local:\n    projects:\n      ops/x:\n        files:\n          A.md:\n            content: ${env:NOT_SET}\n');
    const r = await wd.run(['validate', 'other.yaml', 'plumb.yaml', '--unavailable-secrets', 'skip']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Environment variable NOT_SET is not set');
  });
});
