/**
 * One way to pass a secret that works through both doors of a CDKTF app (issue 21 defect 11): a
 * sensitive TerraformVariable on a secret setting. plumb's CDKTF reader takes it from TF_VAR_name,
 * as Terraform does; nothing else of plumb's environment can be routed by the app.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromStacks } from '../helpers/kinds.js';
import { startTestEmulator } from '../helpers/emulator.js';
import { removeWhenDone } from '../helpers/scratch.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { appSource, cdktfApp, root } from './helpers.js';
import { failWithoutCliInCi, onPath, runCombined, writeDevOverrides, TERRAFORM_TEST_TIMEOUT_MS } from '../helpers/terraform.js';

const TODAY = '2026-06-01';
const SECRET = 'cdktf-variable-captcha-key-6502';

/** cdk.tf.json as cdktf synthesizes `new TerraformVariable(stack, NAME, {...})` and its use in a setting. */
function stack(variable: Record<string, unknown> | undefined, settings: Record<string, unknown>) {
  return {
    name: 'prod',
    json: {
      ...(variable && { variable: { captcha_key: variable } }),
      provider: { plumb: [{ url: 'https://code.example.com', token_env: 'PLUMB_TOKEN' }] },
      resource: { plumb_application_settings: { settings: { '//': { metadata: { path: 'prod/settings' } }, captcha_enabled: true, captcha_site_key: 'site', ...settings } } },
    },
  };
}

describe('a secret setting from a TerraformVariable, read by plumb\'s CDKTF reader', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-cdktf-var-'));
  removeWhenDone(dir);
  const env = { PATH: process.env.PATH ?? '', TF_VAR_captcha_key: SECRET, TF_VAR_other: 'other-value-1234' };

  it('takes a sensitive variable\'s value from TF_VAR_name, as a secret', () => {
    const r = fromStacks([stack({ type: 'string', sensitive: true }, { captcha_private_key: '${var.captcha_key}' })], dir, { cwd: dir, env, today: TODAY });
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(r.config).toBeDefined();
    // Read from the environment as an interpolated value: registered as a secret, masked everywhere.
    expect(r.sources.secrets.redact(`x ${SECRET} x`)).not.toContain(SECRET);
  });

  it('refuses a variable the stack does not declare, one with a default, one not sensitive, and a variable in any other attribute, reading no environment', () => {
    const cases = [
      stack(undefined, { captcha_private_key: '${var.captcha_key}' }),
      stack({ type: 'string', sensitive: true, default: 'in-the-code' }, { captcha_private_key: '${var.captcha_key}' }),
      stack({ type: 'string' }, { captcha_private_key: '${var.captcha_key}' }),
      stack({ type: 'string', sensitive: true }, { captcha_private_key: 'prefix-${var.captcha_key}' }),
      stack({ type: 'string', sensitive: true }, { captcha_site_key: '${var.captcha_key}', captcha_private_key: 'literal-key-1234' }),
    ];
    const why = cases.map((c) => {
      const r = fromStacks([c], dir, { cwd: dir, env, today: TODAY });
      expect(JSON.stringify(r.config ?? null)).not.toContain(SECRET);
      return r.diagnostics.filter((d) => d.code === 'PLUMB_CDKTF_REFERENCE').map((d) => d.summary);
    });
    expect(why[0]).toEqual([expect.stringContaining('the stack declares no variable "captcha_key"')]);
    expect(why[1]).toEqual([expect.stringContaining('has a default')]);
    expect(why[2]).toEqual([expect.stringContaining('is not marked sensitive')]);
    expect(why[3]).toEqual([expect.stringContaining('only as the whole value of a secret setting')]);
    expect(why[4]).toEqual([expect.stringContaining('only as the whole value of a secret setting')]);
  });

  it('takes a sensitive variable as a CI/CD variable\'s value too (a place where a secret may be read), and refuses it in the variable\'s description', () => {
    const withVariable = (fields: Record<string, unknown>) => ({
      name: 'prod',
      json: {
        variable: { captcha_key: { type: 'string', sensitive: true } },
        provider: { plumb: [{ url: 'https://code.example.com', token_env: 'PLUMB_TOKEN' }] },
        resource: { plumb_project_variable: { deploy: { '//': { metadata: { path: 'prod/deploy' } }, project: 'platform/app', key: 'DEPLOY_KEY', environment_scope: 'production', ...fields } } },
      },
    });
    const ok = fromStacks([withVariable({ value: '${var.captcha_key}', masked: true })], dir, { cwd: dir, env, today: TODAY });
    expect(ok.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(ok.sources.secrets.redact(`x ${SECRET} x`)).not.toContain(SECRET);
    const refused = fromStacks([withVariable({ value: 'literal-value-1', description: '${var.captcha_key}' })], dir, { cwd: dir, env, today: TODAY });
    expect(JSON.stringify(refused.config ?? null)).not.toContain(SECRET);
    expect(refused.diagnostics.filter((d) => d.code === 'PLUMB_CDKTF_REFERENCE').map((d) => d.summary)).toEqual([expect.stringContaining("only as the whole value of a secret setting, a file's content or a CI/CD variable's value")]);
  });
});

const terraform = onPath('terraform');
failWithoutCliInCi(terraform, 'the same app through both doors', 'terraform (>= 1.11)');

function filesUnder(d: string): string[] {
  return readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.name === 'node_modules' || e.name === '.terraform' ? [] : e.isDirectory() ? filesUnder(path.join(d, e.name)) : e.isFile() ? [path.join(d, e.name)] : []));
}

describe.runIf(terraform)('the same app through both doors: plumb plan --cdktf and terraform on the synthesized stack', { timeout: TERRAFORM_TEST_TIMEOUT_MS }, () => {
  const ADMIN = 'cdktf-variable-admin-token-0123';
  let emu: RunningEmulator;
  let app: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    emu = await startTestEmulator({ seed: { users: [{ username: 'root', admin: true, personal_access_tokens: [{ name: 'plumb', token: ADMIN, scopes: ['api'], expires_at: null }] }] } });
    app = cdktfApp({
      'main.ts': appSource(
        'local',
        `const captchaKey = new TerraformVariable(stack, 'captcha_key', { type: 'string', sensitive: true });
new provider.PlumbProvider(stack, 'plumb', { url: ${JSON.stringify(emu.url)}, tokenEnv: 'PLUMB_TOKEN' });
new applicationSettings.ApplicationSettings(stack, 'settings', { captchaEnabled: true, captchaSiteKey: 'site-key', captchaPrivateKey: captchaKey.stringValue });
`,
      ).replace("import { App, TerraformStack } from 'cdktf';", "import { App, TerraformStack, TerraformVariable } from 'cdktf';"),
    });
    const rc = writeDevOverrides(app, root);
    env = {
      PATH: [path.join(app, 'node_modules/.bin'), process.env.PATH ?? ''].join(path.delimiter),
      HOME: app,
      TF_CLI_CONFIG_FILE: rc,
      PLUMB_TOKEN: ADMIN,
      TF_VAR_captcha_key: SECRET,
      TF_IN_AUTOMATION: '1',
      CHECKPOINT_DISABLE: '1',
    };
  }, 120_000);

  afterAll(async () => {
    await emu?.close();
  });

  function run(cmd: string, args: string[], cwd: string, extra: Record<string, string> = {}): Promise<{ code: number | null; out: string }> {
    return runCombined(cmd, args, { cwd, env: { ...env, ...extra }, timeoutMs: 90_000 });
  }

  it('plans the secret with plumb, and terraform applies it from the same TF_VAR_captcha_key', async () => {
    const plumb = await run(process.execPath, [path.join(root, 'bin/plumb.js'), 'plan', '--cdktf', '.', '--detailed-exitcode'], app);
    expect(plumb.code, plumb.out).toBe(2);
    expect(plumb.out).toContain('captcha_private_key');
    expect(plumb.out).not.toContain(SECRET);

    const out = path.join(app, 'cdktf.out');
    const synth = await run('sh', ['-c', 'tsx main.ts'], app, { CDKTF_OUTDIR: out, CDKTF_CONTEXT_JSON: '{}' });
    expect(synth.code, synth.out).toBe(0);
    const stackDir = path.join(out, 'stacks/local');
    const version = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
    const platform = `${os.platform()}_${os.arch() === 'x64' ? 'amd64' : os.arch()}`;
    const at = path.join(app, 'plugins/plumb.invalid/plumb/plumb', version, platform);
    mkdirSync(at, { recursive: true });
    symlinkSync(path.join(root, 'bin/terraform-provider-plumb'), path.join(at, 'terraform-provider-plumb'));
    const init = await run(terraform!, [`-chdir=${stackDir}`, 'init', '-input=false', '-no-color', `-plugin-dir=${path.join(app, 'plugins')}`], app);
    expect(init.code, init.out).toBe(0);
    const apply = await run(terraform!, [`-chdir=${stackDir}`, 'apply', '-input=false', '-no-color', '-auto-approve'], app);
    expect(apply.code, apply.out).toBe(0);
    expect(apply.out).toContain('plumb will send write-only settings: captcha_private_key');
    expect(apply.out).not.toContain(SECRET);
    const live = (await (await fetch(`${emu.url}/api/v4/application/settings`, { headers: { 'PRIVATE-TOKEN': ADMIN } })).json()) as Record<string, unknown>;
    expect(live).toMatchObject({ captcha_enabled: true, captcha_site_key: 'site-key' });
    // Not in Terraform's state (cdktf's local backend) nor anywhere else outside the app's sources.
    const states = filesUnder(app).filter((f) => f.endsWith('.tfstate'));
    expect(states.length).toBeGreaterThan(0);
    expect(filesUnder(app).filter((f) => readFileSync(f).includes(Buffer.from(SECRET)))).toEqual([]);
  });
});
