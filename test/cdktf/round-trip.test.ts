import { describe, expect, it } from 'vitest';
import { filesOf } from '../../src/resources/repository-files/model.js';
import { groupsOf } from '../../src/resources/group-access-tokens/model.js';
import { settingsOf } from '../../src/resources/settings/model.js';
import { loadCdktfConfig, loadConfig } from '../helpers/kinds.js';
import { appSource, cdktfApp } from './helpers.js';

const TODAY = '2026-06-01';
const ENV = { PATH: process.env.PATH ?? '', CAPTCHA_KEY: 'captcha-key-from-the-environment' };

/** Every kind, with the fields each one has, in YAML … */
const YAML = `version: 1
instances:
  prod:
    url: https://code.example.com
    token_env: PLUMB_TOKEN
    ca_bundle: certs/ca.pem
    allow_risky: [two-factor-without-grace]
    settings_verify_seconds: 30
    settings:
      signup_enabled: false
      captcha_enabled: true
      captcha_site_key: site-key
      captcha_private_key: \${env:CAPTCHA_KEY}
      diagram_render_formats: {bpmn: true, excalidraw: false}
      asset_proxy_allowlist: [a.example.com, b.example.com]
      restricted_visibility_levels: [public]
      sign_in_restrictions: {allow_password_authentication_for_web: true}
      default_branch_protection_defaults: {allow_force_push: false, allowed_to_push: [{access_level: 40}], allowed_to_merge: [{access_level: 40}]}
      deletion_adjourned_period: 14
    groups:
      platform:
        access_tokens:
          deployer:
            scopes: [api, read_repository]
            access_level: 30
            expires_at: 2027-01-31
            sink: {command: [cat]}
          reader:
            description: Reads
            scopes: [read_api]
            rotation: {lifetime_days: 30}
            sink: {stdout: true}
    projects:
      platform/handbook:
        files:
          bin/run.sh:
            content: IyEvYmluL3NoCg==
            encoding: base64
            execute_filemode: true
            branches: [main, stable]
            author_name: Plumb
            author_email: plumb@example.com
            commit_message: add run.sh
          old.txt:
            state: absent
            commit_message: add run.sh
        pages:
          pages_unique_domain_enabled: false
          pages_https_only: true
`;

/** … and as a CDKTF app (one reference between plumb resources included). */
const APP = appSource(
  'prod',
  `new provider.PlumbProvider(stack, 'plumb', {
  url: 'https://code.example.com',
  tokenEnv: 'PLUMB_TOKEN',
  caBundle: 'certs/ca.pem',
  allowRisky: ['two-factor-without-grace'],
  settingsVerifySeconds: 30,
});
new applicationSettings.ApplicationSettings(stack, 'settings', {
  signupEnabled: false,
  captchaEnabled: true,
  captchaSiteKey: 'site-key',
  captchaPrivateKey: '\${env:CAPTCHA_KEY}',
  diagramRenderFormats: { bpmn: true, excalidraw: false },
  assetProxyAllowlist: ['a.example.com', 'b.example.com'],
  restrictedVisibilityLevels: ['public'],
  signInRestrictions: { allow_password_authentication_for_web: true },
  defaultBranchProtectionDefaults: { allow_force_push: false, allowed_to_push: [{ access_level: 40 }], allowed_to_merge: [{ access_level: 40 }] },
  deletionAdjournedPeriod: 14,
});
new groupAccessToken.GroupAccessToken(stack, 'deployer', {
  group: 'platform',
  name: 'deployer',
  scopes: ['api', 'read_repository'],
  accessLevel: '30',
  expiresAt: '2027-01-31',
  sink: { command: ['cat'] },
});
new groupAccessToken.GroupAccessToken(stack, 'reader', {
  group: 'platform',
  name: 'reader',
  description: 'Reads',
  scopes: ['read_api'],
  rotation: { lifetimeDays: 30 },
  sink: { stdout: true },
});
const runSh = new repositoryFile.RepositoryFile(stack, 'run-sh', {
  project: 'platform/handbook',
  filePath: 'bin/run.sh',
  content: 'IyEvYmluL3NoCg==',
  encoding: 'base64',
  executeFilemode: true,
  branches: ['main', 'stable'],
  authorName: 'Plumb',
  authorEmail: 'plumb@example.com',
  commitMessage: 'add run.sh',
});
new repositoryFile.RepositoryFile(stack, 'old-txt', {
  project: 'platform/handbook',
  filePath: 'old.txt',
  state: 'absent',
  commitMessage: runSh.commitMessage,
});
new projectPages.ProjectPages(stack, 'pages', {
  project: 'platform/handbook',
  pagesUniqueDomainEnabled: false,
  pagesHttpsOnly: true,
});
`,
);

/**
 * The desired state in declaration-independent order: cdk.tf.json lists resources and attributes
 * by name, the YAML as written. Maps become objects; resources are ordered by their pointer.
 */
function canonical(v: unknown): unknown {
  if (v instanceof Map) return canonical(Object.fromEntries(v));
  if (Buffer.isBuffer(v)) return v.toString('base64');
  if (Array.isArray(v)) {
    const items = v.map(canonical);
    return items.every((x) => typeof x === 'object' && x !== null && 'pointer' in x) ? items.sort((a, b) => String((a as { pointer: string }).pointer).localeCompare(String((b as { pointer: string }).pointer))) : items;
  }
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)).map(([k, x]) => [k, canonical(x)]));
  return v;
}

describe('YAML and CDKTF', () => {
  it('give the same desired state for every kind: settings, group access tokens, repository files, Pages and the instance', async () => {
    const dir = cdktfApp({ 'main.ts': APP, 'plumb.yaml': YAML, 'certs/ca.pem': '-----BEGIN CERTIFICATE-----\n' });
    const yaml = loadConfig(['plumb.yaml'], { cwd: dir, env: ENV, today: TODAY });
    const cdktf = await loadCdktfConfig('.', { cwd: dir, env: ENV, today: TODAY });
    expect(yaml.diagnostics).toEqual([]);
    expect(cdktf.diagnostics).toEqual([]);
    const instance = cdktf.config!.instances[0]!;
    expect(groupsOf(instance).flatMap((g) => g.accessTokens.map((t) => t.name)).sort()).toEqual(['deployer', 'reader']);
    expect(filesOf(instance)[0]!.files.map((f) => f.path).sort()).toEqual(['bin/run.sh', 'old.txt']);
    expect(settingsOf(instance).get('captcha_private_key')?.secret).toBe(true);
    expect(canonical(cdktf.config)).toEqual(canonical(yaml.config));
    // The interpolated secret never reaches the documents plumb shows for the app.
    expect([...cdktf.sources.texts.values()].join('\n')).not.toContain(ENV.CAPTCHA_KEY);
  });
});
