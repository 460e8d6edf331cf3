/**
 * Shared defaults across instances (docs/config.md#shared-defaults): what an instance inherits, what
 * it overrides and at what granularity, where diagnostics and the plan say a value came from, and
 * that a secret declared once in defaults stays masked for every instance.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { groupsOf } from '../../src/resources/group-access-tokens/model.js';
import { pagesOf } from '../../src/resources/pages/model.js';
import { settingsOf } from '../../src/resources/settings/model.js';
import { loadConfig } from '../helpers/kinds.js';
import type { Diagnostic } from '../../src/diagnostics/index.js';
import { startTestEmulator } from '../helpers/emulator.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { secret, workdir } from '../helpers/cli.js';
import { scratchArea } from '../helpers/scratch.js';

const TODAY = '2026-06-01';
const { project } = scratchArea('plumb-defaults');

const DEFAULTS = `version: 1
defaults:
  settings:
    signup_enabled: false
    default_projects_limit: 10
  groups:
    platform:
      prune_access_tokens: false
      access_tokens:
        ci:
          description: from defaults
          scopes: [read_api]
          expires_at: 2030-01-01
          sink: {stdout: true}
  projects:
    platform/app:
      pages:
        pages_https_only: true
        pages_unique_domain_enabled: true
`;

const INSTANCES = `instances:
  prod:
    url: https://prod.example.com
    token_env: PLUMB_TOKEN
    settings:
      signup_enabled: true
    groups:
      platform:
        access_tokens:
          ci:
            scopes: [api]
            expires_at: 2030-01-01
            sink: {stdout: true}
    projects:
      platform/app:
        pages:
          pages_unique_domain_enabled: false
  staging:
    url: https://staging.example.com
    token_env: PLUMB_TOKEN
`;

function load(files: Record<string, string>, env: Record<string, string> = {}) {
  const dir = project(files);
  return loadConfig([dir], { cwd: dir, env: { PLUMB_TOKEN: 't', ...env }, today: TODAY });
}

const instance = (r: ReturnType<typeof load>, name: string) => r.config!.instances.find((i) => i.name === name)!;

describe('defaults: inheritance and overrides', () => {
  it('gives every instance what defaults declares and it does not, located at the default', () => {
    const r = load({ 'plumb.yaml': DEFAULTS + INSTANCES });
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const staging = instance(r, 'staging');
    expect(settingsOf(staging).get('signup_enabled')).toMatchObject({ value: false, pointer: '/instances/staging/settings/signup_enabled' });
    expect(settingsOf(staging).get('default_projects_limit')?.value).toBe(10);
    expect(groupsOf(staging)[0]!.accessTokens[0]).toMatchObject({ name: 'ci', description: 'from defaults', scopes: ['read_api'] });
    expect(pagesOf(staging)[0]!.pages?.fields).toEqual({ pages_https_only: true, pages_unique_domain_enabled: true });
    const at = r.sources.locations.get('/instances/staging/settings/signup_enabled');
    expect(at?.key).toMatchObject({ file: 'plumb.yaml', line: 4 });
  });

  it('overrides a setting per key, a token whole by name, and Pages per field', () => {
    const r = load({ 'plumb.yaml': DEFAULTS + INSTANCES });
    const prod = instance(r, 'prod');
    expect(settingsOf(prod).get('signup_enabled')?.value).toBe(true);
    // The other setting is still inherited.
    expect(settingsOf(prod).get('default_projects_limit')?.value).toBe(10);
    // The token is replaced whole: the default's description does not leak into prod's token.
    const ci = groupsOf(prod)[0]!.accessTokens[0]!;
    expect(ci.scopes).toEqual(['api']);
    expect(ci.description).toBeUndefined();
    expect(pagesOf(prod)[0]!.pages?.fields).toEqual({ pages_https_only: true, pages_unique_domain_enabled: false });
    expect(r.sources.defaults.at('/instances/prod/settings/signup_enabled')).toEqual({ defaults: '/defaults/settings/signup_enabled', how: 'overridden' });
    expect(r.sources.defaults.at('/instances/prod/projects/platform~1app/pages/pages_https_only')?.how).toBe('inherited');
  });

  it("names both places in a diagnostic about an instance's value that overrides a default", () => {
    const r = load({ 'plumb.yaml': DEFAULTS + INSTANCES.replace('      signup_enabled: true', '      signup_enabled: maybe') });
    const d = r.diagnostics.find((x) => x.pointer === '/instances/prod/settings/signup_enabled')!;
    expect(d.severity).toBe('error');
    expect(d.location).toMatchObject({ file: 'plumb.yaml', line: 25 });
    expect(d.related).toContainEqual({ message: 'this overrides the value in defaults declared here', location: expect.objectContaining({ file: 'plumb.yaml', line: 4 }) });
  });

  it('reports a problem with an inherited value once, at the default, however many instances inherit it', () => {
    const r = load({ 'plumb.yaml': DEFAULTS.replace('default_projects_limit: 10', 'default_projects_limit: ten') + INSTANCES });
    const errors = r.diagnostics.filter((d: Diagnostic) => d.severity === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.location).toMatchObject({ file: 'plumb.yaml', line: 5 });
    expect(errors[0]!.related?.map((r) => r.message)).toEqual(['declared in defaults; instance "prod" inherits it', 'instance "staging" inherits it too']);
  });

  it('keeps declaring the same resource twice at one level an error, in defaults as in an instance', () => {
    const again = `defaults:
  settings:
    signup_enabled: true
  groups:
    platform:
      access_tokens:
        ci: {scopes: [api], expires_at: 2030-01-01, sink: {stdout: true}}
`;
    const r = load({ 'a.yaml': DEFAULTS + INSTANCES, 'b.yaml': again });
    const dups = r.diagnostics.filter((d) => d.code === 'PLUMB_DUPLICATE_RESOURCE');
    expect(dups.map((d) => d.summary).sort()).toEqual([
      'access token "ci" of group "platform" in defaults is defined twice',
      'setting "signup_enabled" of the defaults block is defined twice',
    ]);
    expect(dups.every((d) => d.location?.file === 'b.yaml' && d.related?.[0]?.location?.file === 'a.yaml')).toBe(true);
  });

  it('gives a token shared through defaults a sink file per instance with {instance}, and names both instances when they would share one', () => {
    const shared = (file: string) => `version: 1
defaults:
  groups:
    platform:
      access_tokens:
        ci: {scopes: [read_api], expires_at: 2030-01-01, sink: {file: ${file}}}
instances:
  prod: {url: https://prod.example.com, token_env: PLUMB_TOKEN}
  staging: {url: https://staging.example.com, token_env: PLUMB_TOKEN}
`;
    const ok = load({ 'plumb.yaml': shared('"secrets/{instance}-ci.token"'), 'secrets/README': '' });
    expect(ok.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const sinks = ok.config!.instances.map((i) => groupsOf(i)[0]!.accessTokens[0]!.sinks[0]);
    expect(sinks.map((x) => (x?.kind === 'file' ? x.path.split('/').pop() : x))).toEqual(['prod-ci.token', 'staging-ci.token']);
    const clash = load({ 'plumb.yaml': shared('secrets/ci.token'), 'secrets/README': '' });
    const d = clash.diagnostics.find((x) => x.code === 'PLUMB_TOKEN_SINK_SHARED')!;
    expect(d.summary).toBe('Tokens "ci" of instance "prod" and "ci" of instance "staging" deliver their secrets into the same file');
    expect(d.suggestion).toContain('{instance}');
  });

  it("reports a group selector's fixed sink in defaults once, with one note per instance that inherits it", () => {
    const r = load({
      'plumb.yaml': `version: 1
defaults:
  groups:
    "teams/*":
      access_tokens:
        ci: {scopes: [read_api], expires_at: 2030-01-01, sink: {file: secrets/ci.token}}
instances:
  prod: {url: https://prod.example.com, token_env: PLUMB_TOKEN}
  staging: {url: https://staging.example.com, token_env: PLUMB_TOKEN}
`,
      'secrets/README': '',
    });
    const shared = r.diagnostics.filter((x) => x.code === 'PLUMB_TOKEN_SINK_SHARED');
    expect(shared).toHaveLength(1);
    expect(shared[0]!.location).toMatchObject({ file: 'plumb.yaml', line: 6 });
    expect(shared[0]!.related?.map((x) => x.message)).toEqual(['declared in defaults; instance "prod" inherits it', 'instance "staging" inherits it too']);
  });

  it('refuses connection fields in defaults, naming the key', () => {
    const r = load({ 'plumb.yaml': DEFAULTS.replace('defaults:\n', 'defaults:\n  token_env: PLUMB_TOKEN\n') + INSTANCES });
    const d = r.diagnostics.find((x) => x.code === 'PLUMB_DEFAULTS_SHAPE')!;
    expect(d.summary).toBe('"token_env" cannot be shared in defaults');
    expect(d.location).toMatchObject({ line: 3 });
  });
});

const ADMIN = secret('admin-token-defaults-0123456789');
const CAPTCHA = secret('captcha-key-from-defaults-9876');
let emus: RunningEmulator[] = [];
afterEach(async () => {
  await Promise.all(emus.map((e) => e.close()));
  emus = [];
});

describe('defaults in a plan', () => {
  it('masks a secret declared in defaults for every instance, and notes where each value came from', async () => {
    const seed = { users: [{ username: 'root', admin: true, personal_access_tokens: [{ name: 'plumb', token: ADMIN, scopes: ['api'] }] }] };
    emus = [await startTestEmulator({ seed }), await startTestEmulator({ seed })];
    const wd = workdir({ PLUMB_TOKEN: ADMIN, CAPTCHA_KEY: CAPTCHA });
    wd.write(
      'plumb.yaml',
      `version: 1
defaults:
  settings:
    captcha_enabled: true
    captcha_site_key: site-key
    captcha_private_key: \${env:CAPTCHA_KEY}
    default_projects_limit: 7
instances:
  prod:
    url: ${emus[0]!.url}
    token_env: PLUMB_TOKEN
    settings:
      default_projects_limit: 3
  staging:
    url: ${emus[1]!.url}
    token_env: PLUMB_TOKEN
`,
    );
    const r = await wd.run(['plan', '--json', '--now', TODAY]);
    expect(r.code).toBe(0);
    const plan = JSON.parse(r.stdout) as { changes: { address: string; attributes: { name: string; after?: unknown; origin?: unknown }[] }[] };
    const attr = (address: string, name: string) => plan.changes.find((c) => c.address === address)!.attributes.find((a) => a.name === name)!;
    expect(attr('prod.application_settings', 'default_projects_limit')).toMatchObject({ after: 3, origin: { from: 'overridden', defaults: 'plumb.yaml:7:5', override: 'plumb.yaml:13:7' } });
    expect(attr('staging.application_settings', 'default_projects_limit')).toMatchObject({ after: 7, origin: { from: 'inherited', defaults: 'plumb.yaml:7:5' } });
    for (const instance of ['prod', 'staging']) {
      expect(attr(`${instance}.application_settings`, 'captcha_private_key')).toMatchObject({ after: '(sensitive value)', origin: { from: 'inherited' } });
    }
    const human = await wd.run(['plan', '--now', TODAY]);
    expect(human.stdout).toContain('# overrides defaults at plumb.yaml:7:5 (set at plumb.yaml:13:7)');
    expect(human.stdout).toContain('# from defaults at plumb.yaml:6:5');
    // workdir's run fails the test if CAPTCHA appeared in any output or file.
  });

  it("names the default's line in a plan diagnostic about an instance's value that overrides it", async () => {
    const seed = { users: [{ username: 'root', admin: true, personal_access_tokens: [{ name: 'plumb', token: ADMIN, scopes: ['api'] }] }] };
    emus = [await startTestEmulator({ seed, tier: 'free' })];
    const wd = workdir({ PLUMB_TOKEN: ADMIN });
    wd.write(
      'plumb.yaml',
      `version: 1
defaults:
  settings:
    maintenance_mode: false
instances:
  prod:
    url: ${emus[0]!.url}
    token_env: PLUMB_TOKEN
    settings:
      maintenance_mode: true
`,
    );
    const r = await wd.run(['plan', '--json', '--now', TODAY]);
    const plan = JSON.parse(r.stdout) as { diagnostics: { code: string; line?: number; related?: { message: string; line?: number }[] }[] };
    const d = plan.diagnostics.find((x) => x.code === 'PLUMB_SETTING_NOT_RETURNED')!;
    expect(d.line).toBe(10);
    expect(d.related).toEqual([{ message: 'this overrides the value in defaults declared here', file: 'plumb.yaml', line: 4, column: 5 }]);
    const human = await wd.run(['plan', '--now', TODAY]);
    expect(human.stdout).toContain('note: this overrides the value in defaults declared here (plumb.yaml:4:5)');
  });
});
