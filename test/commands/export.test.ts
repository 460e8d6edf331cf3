/**
 * `plumb export` against the emulator over HTTP: every kind round-trips (export, then plan of the
 * export against the same instance is "No changes", apart from the secrets it lists), the output is
 * byte-for-byte stable, and a token without a chosen sink keeps the configuration from validating.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorSeed, RunningEmulator } from '../../src/emulator/index.js';
import type { Plan } from '../../src/engine/plan.js';
import { ADMIN, Clock, OWNER, SEED } from '../helpers/emulator.js';
import { secret, workdir } from '../helpers/cli.js';
import type { Workdir } from '../helpers/cli.js';

secret(ADMIN);
secret(OWNER);
const CAPTCHA_KEY = secret('captcha-private-key-for-export');
const TODAY = '2025-06-15';

/** The test seed with changed settings (one of them needing a secret partner) and root as an Owner of platform. */
const EXPORT_SEED: EmulatorSeed = {
  ...SEED,
  settings: {
    ...(SEED.settings ?? {}),
    signup_enabled: false,
    deletion_adjourned_period: 14,
    captcha_enabled: true,
    captcha_site_key: 'site-key-public',
    captcha_private_key: CAPTCHA_KEY,
    terms: 'Be kind.\nSecond line: with a colon.',
    enforce_terms: true,
  },
  groups: (SEED.groups ?? []).map((g) => (g.full_path === 'platform' ? { ...g, members: [...(g.members ?? []), { username: 'root', access_level: 50 }] } : g)),
};

let emu: RunningEmulator;
let wd: Workdir;

async function start(seed: EmulatorSeed = EXPORT_SEED): Promise<void> {
  const clock = new Clock();
  emu = await startTestEmulator({ seed, now: clock.now });
  wd = workdir({ PLUMB_TOKEN: ADMIN, PLUMB_NOW: TODAY });
}

afterEach(async () => {
  await emu?.close();
});

const KINDS_ARGS = ['--file', 'platform/infra/config:scripts/deploy.sh', '--file', 'platform/infra/config:bin/data.bin', '--file', 'platform/infra/config:README.md', '--pages', 'platform/site'];

async function exportTo(out: string, extra: readonly string[] = []): Promise<{ code: number; stdout: string; stderr: string }> {
  return wd.run(['export', '--instance-url', emu.url, '--out', out, '--instance', 'local', '--sink-dir', 'secrets', ...KINDS_ARGS, ...extra]);
}

async function planOf(dir: string, env: Record<string, string> = { CAPTCHA_PRIVATE_KEY: CAPTCHA_KEY }): Promise<Plan> {
  const r = await wd.run(['plan', dir, '--out', `${dir}.plan.json`, '--detailed-exitcode'], env);
  expect(r.code, r.stderr).not.toBe(1);
  return JSON.parse(wd.read(`${dir}.plan.json`)) as Plan;
}

function tree(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (d: string): void => {
    for (const e of readdirSync(d).sort()) {
      const full = path.join(d, e);
      if (statSync(full).isDirectory()) walk(full);
      else out.set(path.relative(dir, full), readFileSync(full));
    }
  };
  walk(dir);
  return out;
}

describe('plumb export', () => {
  it('exports settings, tokens, files and Pages that plan against the same instance as no change, apart from the listed secret', async () => {
    await start();
    const r = await exportTo('out', []);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('CAPTCHA_PRIVATE_KEY');
    const yaml = wd.read('out/plumb.yaml');
    expect(yaml).toContain('captcha_private_key: ${env:CAPTCHA_PRIVATE_KEY}');
    expect(yaml).toMatch(/# Environment variables this configuration reads[^\n]*\n#\s+CAPTCHA_PRIVATE_KEY: /);
    expect(yaml).toContain('# new users may sign up (default true)\n      signup_enabled: false');
    expect(yaml).toContain('rotation:\n              lifetime_days: 365\n              rotate_before_days: 7');
    expect(wd.read('out/files/platform/infra/config/README.md')).toBe('line one\nline two\nline three\n');
    expect(wd.read('out/secrets/.gitignore')).toContain('*\n!.gitignore');

    const plan = await planOf('out');
    const changed = plan.changes.filter((c) => c.action !== 'no-op');
    expect(changed.map((c) => [c.address, c.attributes.map((a) => a.name)])).toEqual([['local.application_settings', ['captcha_private_key']]]);
    const kinds = new Set(plan.changes.map((c) => c.kind));
    expect([...kinds].sort()).toEqual(['application_settings', 'group_access_token', 'pages', 'repository_file']);
    expect(plan.changes.filter((c) => c.kind === 'group_access_token')).toHaveLength(3);
    expect(plan.changes.filter((c) => c.kind === 'repository_file')).toHaveLength(3);
  });

  it('gives byte-identical output when the same instance is exported twice', async () => {
    await start();
    expect((await exportTo('a')).code).toBe(0);
    expect((await exportTo('b')).code).toBe(0);
    const a = tree(path.join(wd.dir, 'a'));
    const b = tree(path.join(wd.dir, 'b'));
    expect([...a.keys()]).toEqual([...b.keys()]);
    for (const [k, v] of a) expect(b.get(k)!.equals(v), k).toBe(true);
  });

  it('with --all-settings exports every setting the instance returns, and the result still plans as no change', async () => {
    await start();
    const r = await exportTo('all', ['--all-settings']);
    expect(r.code, r.stderr).toBe(0);
    const few = await exportTo('few');
    expect(few.code).toBe(0);
    const count = (s: string) => Number(/(\d+) setting\(s\)/.exec(s)![1]);
    expect(count(r.stdout)).toBeGreaterThan(count(few.stdout) + 100);
    const plan = await planOf('all');
    expect(plan.changes.filter((c) => c.action !== 'no-op').flatMap((c) => c.attributes.map((a) => a.name))).toEqual(['captcha_private_key']);
  });

  it('lists the groups the credential owns when no --group is given, and only their active tokens', async () => {
    await start();
    const r = await wd.run(['export', '--instance-url', `${emu.url}/api/v4/`, '--out', 'owned', '--sink-dir', 'secrets']);
    expect(r.code, r.stderr).toBe(0);
    const yaml = wd.read('owned/plumb.yaml');
    expect(yaml).toContain(`    url: ${emu.url}\n`);
    expect(yaml).toContain('      platform:\n        access_tokens:');
    expect(yaml).not.toContain('elsewhere'); // the group "other" is not root's
    for (const name of ['ci', 'selfie', 'reader']) expect(yaml).toContain(`          ${name}:`);
  });

  it('leaves a TODO instead of a sink without --sink-dir, and the configuration does not validate until one is chosen', async () => {
    await start();
    const r = await wd.run(['export', '--instance-url', emu.url, '--out', 'todo', '--group', 'platform']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Each token needs a sink');
    const yaml = wd.read('todo/plumb.yaml');
    expect(yaml).toContain('TODO(plumb export): choose where plumb delivers this token');
    const v = await wd.run(['validate', 'todo', '--json']);
    expect(v.code).toBe(1);
    const codes = (JSON.parse(v.stdout) as { diagnostics: { code: string }[] }).diagnostics.map((d) => d.code);
    expect(codes.filter((c) => c === 'PLUMB_TOKEN_SINK_MISSING')).toHaveLength(3);
  });

  it("exports a group Owner's tokens without settings when the token is not an administrator's, with a note", async () => {
    await start();
    const r = await wd.run(['export', '--instance-url', emu.url, '--out', 'owner', '--sink-dir', 'secrets', '--json'], { PLUMB_TOKEN: OWNER });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('settings not exported');
    expect(JSON.parse(r.stdout)).toMatchObject({ out: 'owner/plumb.yaml', settings: 0, tokens: 3, groups: 1, env: [] });
    expect(wd.read('owner/plumb.yaml')).not.toContain('settings:');
    const plan = await planOf('owner', { PLUMB_TOKEN: OWNER });
    expect(plan.changes.filter((c) => c.action !== 'no-op')).toEqual([]);
  });

  it('reads the instance from an existing configuration with -c', async () => {
    await start();
    wd.write('existing/plumb.yaml', `version: 1\ninstances:\n  prod:\n    url: ${emu.url}\n    token_env: ADMIN_TOKEN\n`);
    const r = await wd.run(['export', '-c', 'existing', '--out', 'again', '--group', 'platform', '--sink-dir', 's'], { ADMIN_TOKEN: ADMIN });
    expect(r.code, r.stderr).toBe(0);
    expect(wd.read('again/plumb.yaml')).toContain(`  prod:\n    url: ${emu.url}\n    token_env: ADMIN_TOKEN\n`);
  });

  it('keeps the variable names of the secrets an existing configuration declares, so after its apply the export plans as no change at all', async () => {
    await start();
    const spamKey = secret('spam-check-key-for-export');
    const env = { MY_CAPTCHA: CAPTCHA_KEY, SPAM_KEY: spamKey };
    wd.write(
      'existing/plumb.yaml',
      `version: 1\ninstances:\n  prod:\n    url: ${emu.url}\n    token_env: PLUMB_TOKEN\n    settings:\n      captcha_enabled: true\n      captcha_site_key: site-key-public\n      captcha_private_key: \${env:MY_CAPTCHA}\n      spam_check_api_key: "\${env:SPAM_KEY}"\n`,
    );
    expect((await wd.run(['apply', 'existing', '--auto-approve'], env)).code).toBe(0);
    const r = await wd.run(['export', '-c', 'existing', '--out', 'adopted', '--group', 'platform', '--sink-dir', 's'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('MY_CAPTCHA, SPAM_KEY');
    const yaml = wd.read('adopted/plumb.yaml');
    expect(yaml).toContain('captcha_private_key: ${env:MY_CAPTCHA}');
    expect(yaml).toContain('spam_check_api_key: ${env:SPAM_KEY}');
    const plan = await planOf('adopted', env);
    expect(plan.changes.filter((c) => c.action !== 'no-op')).toEqual([]);
  });

  it('refuses a --file that is not PROJECT:PATH, and reports a project it cannot read at the API call', async () => {
    await start();
    const bad = await wd.run(['export', '--instance-url', emu.url, '--out', 'x', '--file', 'platform/site']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--file takes PROJECT:PATH');
    const noOut = await wd.run(['export', '--instance-url', emu.url]);
    expect(noOut.code).toBe(1);
    expect(noOut.stderr).toContain('plumb export needs --out DIR');
    const typo = await wd.run(['export', '--instance-url', emu.url, '--out', 'x', '--all-setting']);
    expect(typo.stderr).toContain('did you mean "--all-settings"?');
    const outside = await wd.run(['export', '--instance-url', emu.url, '--out', 'x', '--sink-dir', '/run/secrets']);
    expect(outside.code).toBe(1);
    expect(outside.stderr).toContain('--sink-dir must be a directory inside the output directory');
    const missing = await wd.run(['export', '--instance-url', emu.url, '--out', 'x', '--group', 'platform', '--pages', 'platform/nothing']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('the Pages of project "platform/nothing" (--pages platform/nothing');
  });

  it('names the token variable and the URL when the instance refuses the token', async () => {
    await start();
    const r = await wd.run(['export', '--instance-url', emu.url, '--out', 'x', '--group', 'platform'], { PLUMB_TOKEN: 'not-a-token-of-this-instance' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error[PLUMB_API_UNAUTHORIZED]: Reading the instance at ${emu.url} failed`);
    expect(r.stderr).toContain(`help: ${emu.url} refused the token in PLUMB_TOKEN`);
  });
});

describe('plumb export of tokens that no rotation policy describes', () => {
  it('pins the newest of two same-named tokens with id, keeps a long-lived expiry fixed, and gives a never-expiring token a policy the first apply rotates to', async () => {
    const seed: EmulatorSeed = {
      ...EXPORT_SEED,
      groups: [
        ...(EXPORT_SEED.groups ?? []),
        {
          full_path: 'legacy',
          id: 40,
          members: [{ username: 'root', access_level: 50 }],
          access_tokens: [
            { id: 400, name: 'twin', token: 'legacy-twin-one-0000001', scopes: ['read_api'], access_level: 20, expires_at: '2025-12-31', created_at: '2025-01-01T00:00:00.000Z' },
            { id: 401, name: 'twin', token: 'legacy-twin-two-0000001', scopes: ['read_api'], access_level: 20, expires_at: '2025-12-31', created_at: '2025-02-01T00:00:00.000Z' },
            { id: 402, name: 'ancient', token: 'legacy-ancient-00000001', scopes: ['api'], access_level: 40, expires_at: '2027-06-30', created_at: '2025-01-01T00:00:00.000Z' },
            { id: 403, name: 'forever', token: 'legacy-forever-00000001', scopes: ['api'], access_level: 50 },
          ],
        },
      ],
    };
    await start(seed);
    const r = await wd.run(['export', '--instance-url', emu.url, '--out', 'legacy', '--instance', 'local', '--group', 'legacy', '--sink-dir', 'secrets']);
    expect(r.code, r.stderr).toBe(0);
    const yaml = wd.read('legacy/plumb.yaml');
    expect(yaml).toMatch(/# 1 other active token\(s\) share this name \(id 400\)[^\n]*\n\s+twin:\n(\s+\S.*\n)*?\s+id: 401\n/);
    expect(yaml).toContain('expires_at: 2027-06-30');
    expect(yaml).toContain('never expires on the instance');
    const plan = await planOf('legacy');
    const changed = plan.changes.filter((c) => c.action !== 'no-op' && c.kind === 'group_access_token');
    expect(changed.map((c) => [c.address, c.action])).toEqual([['local.group["legacy"].access_token["forever"]', 'rotate']]);
  });
});

describe('exporting something that does not exist', () => {
  it('names the file, the Pages or the group as written on the command line, not a URL-encoded API path', async () => {
    await start();
    const file = await wd.run(['export', '--instance-url', emu.url, '--out', 'nofile', '--file', 'platform/infra/config:docs/none.md']);
    expect(file.code).toBe(1);
    expect(file.stderr).toContain('file "docs/none.md" of project "platform/infra/config" (--file platform/infra/config:docs/none.md)');
    expect(file.stderr).not.toContain('%2F');
    const group = await wd.run(['export', '--instance-url', emu.url, '--out', 'nogroup', '--group', 'platform/nope']);
    expect(group.code).toBe(1);
    expect(group.stderr).toContain('group "platform/nope"');
    expect(group.stderr).not.toContain('%2F');
  });
});

describe('exporting instance text that looks like an interpolation (issue 28.7)', () => {
  it('writes ${ as $${, so the export validates, reads back as the same text and plans as no change', async () => {
    const text = 'Prices are ${amount}; ask $${ops} or ${env:PLUMB_TOKEN}';
    const seed: EmulatorSeed = {
      ...EXPORT_SEED,
      settings: { ...EXPORT_SEED.settings, after_sign_up_text: text, help_page_text: '${file:/etc/passwd}' },
      groups: (EXPORT_SEED.groups ?? []).map((g) => (g.full_path === 'platform' ? { ...g, access_tokens: (g.access_tokens ?? []).map((t, i) => (i === 0 ? { ...t, description: 'deploys with ${env:CI_JOB_TOKEN}' } : t)) } : g)),
    };
    await start(seed);
    const r = await exportTo('escaped');
    expect(r.code, r.stderr).toBe(0);
    const yaml = wd.read('escaped/plumb.yaml');
    expect(yaml).toContain('Prices are $${amount}; ask $$${ops} or $${env:PLUMB_TOKEN}');
    expect(yaml).toContain('$${file:/etc/passwd}');
    expect(yaml).toContain('deploys with $${env:CI_JOB_TOKEN}');
    // The secret setting's variable is a reference export means: not escaped.
    expect(yaml).toContain('captcha_private_key: ${env:CAPTCHA_PRIVATE_KEY}');
    const v = await wd.run(['validate', 'escaped'], { CAPTCHA_PRIVATE_KEY: CAPTCHA_KEY });
    expect(v.code, v.stdout + v.stderr).toBe(0);
    const plan = await planOf('escaped');
    const changed = plan.changes.filter((c) => c.action !== 'no-op');
    expect(changed.map((c) => [c.address, c.attributes.map((a) => a.name)])).toEqual([['local.application_settings', ['captcha_private_key']]]);
  });
});

describe('exporting again into the same directory (issue 29.15)', () => {
  it('refuses, located and reading nothing, once plumb.yaml was edited; --force replaces it but keeps the sinks and rotation policies declared there', async () => {
    await start();
    expect((await exportTo('out')).code).toBe(0);
    const first = wd.read('out/plumb.yaml');
    expect(first).toMatch(/^# export digest: sha256:[0-9a-f]{64}$/m);
    expect(first).toMatch(/^#   files\/platform\/infra\/config\/README\.md sha256:[0-9a-f]{64}$/m);
    // Unchanged: exporting again needs no --force and writes the same bytes.
    const again = await exportTo('out');
    expect(again.code, again.stderr).toBe(0);
    expect(wd.read('out/plumb.yaml')).toBe(first);

    const edited = first
      .replace('rotation:\n              lifetime_days: 365\n              rotate_before_days: 7', 'rotation:\n              lifetime_days: 365\n              rotate_before_days: 14')
      .replace(/file: secrets\/platform--ci\.token/, 'file: secrets/handed-over.token');
    expect(edited).not.toBe(first);
    expect(edited).toContain('secrets/handed-over.token');
    wd.write('out/plumb.yaml', edited);
    emu.resetRequests();
    const refused = await exportTo('out');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('PLUMB_EXPORT_EDITED');
    expect(refused.stderr).toContain('out/plumb.yaml:1:1');
    expect(refused.stderr).toContain('--force');
    expect(wd.read('out/plumb.yaml')).toBe(edited);
    expect(emu.requests).toEqual([]);

    const forced = await exportTo('out', ['--force']);
    expect(forced.code, forced.stderr).toBe(0);
    const replaced = wd.read('out/plumb.yaml');
    expect(replaced).toContain('rotate_before_days: 14');
    expect(replaced).toContain('file: secrets/handed-over.token');
    expect(replaced).toContain('rotation policy kept from the earlier export in this directory');
    // And the replaced export is again one export knows as its own.
    expect((await exportTo('out')).code).toBe(0);
  });

  it('refuses once a file it wrote under files/ was edited, naming it', async () => {
    await start();
    expect((await exportTo('out')).code).toBe(0);
    wd.write('out/files/platform/infra/config/README.md', 'my own README\n');
    const r = await exportTo('out');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_EXPORT_EDITED');
    expect(r.stderr).toContain('files/platform/infra/config/README.md');
    expect(wd.read('out/files/platform/infra/config/README.md')).toBe('my own README\n');
  });

  it('refuses an export without a digest (it cannot tell whether it was edited)', async () => {
    await start();
    wd.write('old/plumb.yaml', '# Exported by `plumb export` from somewhere.\nversion: 1\ninstances: {}\n');
    const r = await exportTo('old');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_EXPORT_EDITED');
    expect(r.stderr).toContain('carries no digest');
  });
});
