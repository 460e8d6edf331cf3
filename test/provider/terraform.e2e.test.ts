/**
 * End to end with the real Terraform (or OpenTofu) CLI: examples/terraform against the emulator,
 * plumb's provider found through `dev_overrides` in a temporary CLI configuration, so no registry
 * is contacted and `init` is not needed. Runs whenever `terraform` or `tofu` is on PATH; with CI set
 * it must run, and fails when neither is found.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator } from '../helpers/emulator.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { ensureBuilt, root } from './harness.js';
import { cdktfApp, copyFromRepo } from '../cdktf/helpers.js';
import { failWithoutCliInCi, onPath, runCombined, writeDevOverrides, TERRAFORM_TEST_TIMEOUT_MS } from '../helpers/terraform.js';
import { PLUMB_PROVIDER_SOURCE } from '../../src/catalogue/index.js';

const cli = onPath('terraform', 'tofu');

function filesUnder(d: string): string[] {
  return readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(d, e.name)) : e.isFile() ? [path.join(d, e.name)] : []));
}
/** The entries of a zip archive (a Terraform plan file), read from its central directory; stored or deflated. */
function zipEntries(zip: Buffer): { name: string; data: Buffer }[] {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error('not a zip archive');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const out: { name: string; data: Buffer }[] = [];
  for (let i = 0; i < count; i++) {
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const skip = nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    const local = zip.readUInt32LE(at + 42);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const raw = zip.subarray(start, start + size);
    out.push({ name, data: method === 8 ? inflateRawSync(raw) : raw });
    at += 46 + skip;
  }
  return out;
}

const ADMIN = 'e2e-admin-token-0123456789abcdef';
const SPAM_KEY = 'e2e-write-only-spam-check-key-4711';

failWithoutCliInCi(cli, 'Terraform end to end', 'terraform (>= 1.11) or tofu');

describe.runIf(cli)(`Terraform end to end (${cli ? path.basename(cli) : 'not installed'})`, { timeout: TERRAFORM_TEST_TIMEOUT_MS }, () => {
  let emu: RunningEmulator;
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    ensureBuilt();
    emu = await startTestEmulator({
      seed: {
        users: [{ username: 'root', admin: true, personal_access_tokens: [{ name: 'plumb', token: ADMIN, scopes: ['api'], expires_at: null }] }],
        groups: [
          { full_path: 'platform', id: 10, name: 'Platform', visibility: 'private', members: [{ username: 'root', access_level: 50 }] },
          { full_path: 'platform/infra', id: 11, name: 'Infra', visibility: 'private', members: [{ username: 'root', access_level: 50 }] },
        ],
        projects: [
          // Unprotected: an administrator's commit onto a protected branch is a risk (docs/terraform.md#file-delivery).
          { path_with_namespace: 'platform/infra/instance-config', id: 20, visibility: 'private', default_branch: 'main', protected_branches: [], files: { 'README.md': '# Instance configuration\n' } },
          {
            path_with_namespace: 'platform/handbook',
            id: 21,
            visibility: 'public',
            default_branch: 'main',
            files: { 'index.md': '# Handbook\n' },
            pages: {
              unique_domain_enabled: false,
              https_only: true,
              primary_domain: 'handbook.example.test',
              domains: ['handbook.example.test', { domain: 'docs.example.test', certificate: false }],
              deployments: [{ created_at: '2025-05-20T12:00:00.000Z', root_directory: 'public' }],
            },
          },
        ],
      },
    });
    dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-tf-e2e-'));
    copyFileSync(path.join(root, 'examples/terraform/main.tf'), path.join(dir, 'main.tf'));
    // Plus a write-only setting, from a sensitive variable.
    const main = readFileSync(path.join(dir, 'main.tf'), 'utf8').replace(
      'deletion_adjourned_period         = 14',
      'deletion_adjourned_period         = 14\n  spam_check_api_key                = var.spam_check_api_key',
    );
    writeFileSync(path.join(dir, 'main.tf'), `${main}\nvariable "spam_check_api_key" {\n  type      = string\n  sensitive = true\n}\n`);
    mkdirSync(path.join(dir, 'secrets'));
    const rc = writeDevOverrides(dir, root);
    env = {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      TF_CLI_CONFIG_FILE: rc,
      TF_VAR_url: emu.url,
      PLUMB_TOKEN: ADMIN,
      TF_VAR_spam_check_api_key: SPAM_KEY,
      TF_IN_AUTOMATION: '1',
      CHECKPOINT_DISABLE: '1',
    };
  }, 300_000);

  afterAll(async () => {
    await emu?.close();
  });

  /** Runs the CLI without blocking: the emulator answers from this process. */
  function tf(...args: string[]): Promise<{ code: number | null; out: string }> {
    return tfIn(dir, ...args);
  }

  function tfIn(cwd: string, ...args: string[]): Promise<{ code: number | null; out: string }> {
    return runCombined(cli!, args, { cwd, env: env, timeoutMs: 60_000 });
  }

  const api = (p: string, init: RequestInit = {}) => fetch(`${emu.url}/api/v4${p}`, { ...init, headers: { 'PRIVATE-TOKEN': ADMIN, 'Content-Type': 'application/json', ...init.headers } });
  const CODEOWNERS = '/projects/20/repository/files/CODEOWNERS';
  const codeowners = async () => {
    const r = await api(`${CODEOWNERS}/raw?ref=main`);
    return r.status === 200 ? await r.text() : undefined;
  };
  const pages = async () => (await (await api('/projects/21/pages')).json()) as { force_https: boolean; primary_domain: string | null };
  const settings = async () => (await (await fetch(`${emu.url}/api/v4/application/settings`, { headers: { 'PRIVATE-TOKEN': ADMIN } })).json()) as Record<string, unknown>;
  const tokens = async () => (await (await fetch(`${emu.url}/api/v4/groups/platform/access_tokens`, { headers: { 'PRIVATE-TOKEN': ADMIN } })).json()) as { id: number; name: string; active: boolean; revoked: boolean }[];

  it('plans without init, applies (a write-only setting kept out of state), and plans no changes the second time (exit 0 with -detailed-exitcode)', async () => {
    const plan = await tf('plan', '-input=false', '-no-color', '-detailed-exitcode');
    expect(plan.out).toContain('Plan: 5 to add, 0 to change, 0 to destroy');
    expect(plan.code).toBe(2);
    const apply = await tf('apply', '-input=false', '-no-color', '-auto-approve');
    expect(apply.out).toContain('Apply complete! Resources: 5 added');
    expect(apply.code).toBe(0);
    expect(await settings()).toMatchObject({ signup_enabled: false, require_two_factor_authentication: true, two_factor_grace_period: 48 });
    expect(await codeowners()).toBe('* @platform/infra\n');
    expect(await pages()).toMatchObject({ force_https: false, primary_domain: 'docs.example.test' });
    const secret = readFileSync(path.join(dir, 'secrets/terraform-ci.token'), 'utf8').trim();
    expect(secret.length).toBeGreaterThan(8);
    // The second sink: a CI/CD variable of the project, protected and masked, holding the same secret.
    expect(emu.state.projectByRef('platform/infra/instance-config')!.variables.find((v) => v.key === 'TERRAFORM_CI_TOKEN')).toMatchObject({ value: secret, protected: true, masked: true });
    const state = readFileSync(path.join(dir, 'terraform.tfstate'), 'utf8');
    expect(state).not.toContain(secret);
    expect(state).not.toContain(SPAM_KEY);
    expect(apply.out).not.toContain(secret);
    expect(apply.out).not.toContain(SPAM_KEY);
    expect(apply.out).toContain('plumb will send write-only settings: spam_check_api_key');
    // The reasons in words, not plumb's internal ids.
    expect(apply.out).toContain('a write-only value is not known to have been applied');
    expect(apply.out).not.toMatch(/field-changed|write-only-unknown/);
    const again = await tf('plan', '-input=false', '-no-color', '-detailed-exitcode');
    expect(again.out).toContain('No changes.');
    expect(again.code).toBe(0);
    // No file outside the sink holds a secret: not the state, its backup, plumb's state file.
    const leaks = filesUnder(dir).filter((f) => !f.startsWith(path.join(dir, 'secrets')) && [secret, SPAM_KEY].some((x) => readFileSync(f, 'utf8').includes(x)));
    expect(leaks).toEqual([]);
  });

  it('plans a rotation when the token\'s CI/CD variable sink was edited by hand, and the apply delivers a fresh secret to both sinks', async () => {
    const variable = () => emu.state.projectByRef('platform/infra/instance-config')!.variables.find((v) => v.key === 'TERRAFORM_CI_TOKEN')!;
    const before = variable().value;
    variable().value = 'edited-by-hand-0001';
    const plan = await tf('plan', '-input=false', '-no-color', '-detailed-exitcode');
    expect(plan.code, plan.out).toBe(2);
    expect(plan.out).toMatch(/plumb will rotate the token "terraform-ci" of platform \(sink-drifted\)/);
    expect(plan.out).toContain('Plan: 0 to add, 1 to change, 0 to destroy');
    expect((await tf('apply', '-input=false', '-no-color', '-auto-approve')).code).toBe(0);
    const secret = readFileSync(path.join(dir, 'secrets/terraform-ci.token'), 'utf8').trim();
    expect(secret).not.toBe(before);
    expect(variable().value).toBe(secret);
    expect((await tf('plan', '-input=false', '-no-color', '-detailed-exitcode')).code).toBe(0);
  });

  it('detects out-of-band changes of a setting, a file and Pages on refresh and converges again', async () => {
    await fetch(`${emu.url}/api/v4/application/settings?two_factor_grace_period=12`, { method: 'PUT', headers: { 'PRIVATE-TOKEN': ADMIN } });
    expect((await api(CODEOWNERS, { method: 'PUT', body: JSON.stringify({ branch: 'main', content: '* @someone-else\n', commit_message: 'push' }) })).status).toBe(200);
    expect((await api('/projects/21/pages', { method: 'PATCH', body: JSON.stringify({ pages_primary_domain: 'handbook.example.test' }) })).status).toBe(200);
    expect((await api('/projects/20/protected_branches/release%2F*', { method: 'PATCH', body: JSON.stringify({ allow_force_push: true }) })).status).toBe(200);
    const plan = await tf('plan', '-input=false', '-no-color', '-detailed-exitcode');
    expect(plan.code).toBe(2);
    expect(plan.out).toMatch(/two_factor_grace_period\s+= 12 -> 48/);
    expect(plan.out).toMatch(/content_sha256\s+= \{\s+~ "main" = "sha256:[0-9a-f]{12}" -> "sha256:[0-9a-f]{12}"/);
    expect(plan.out).toMatch(/pages_primary_domain\s+= "handbook.example.test" -> "docs.example.test"/);
    expect(plan.out).toMatch(/allow_force_push\s+= true -> false/);
    expect(plan.out).toContain('Plan: 0 to add, 4 to change, 0 to destroy');
    expect((await tf('apply', '-input=false', '-no-color', '-auto-approve')).code).toBe(0);
    expect((await settings()).two_factor_grace_period).toBe(48);
    expect(await codeowners()).toBe('* @platform/infra\n');
    expect((await pages()).primary_domain).toBe('docs.example.test');
    expect(((await (await api('/projects/20/protected_branches/release%2F*')).json()) as { allow_force_push: boolean }).allow_force_push).toBe(false);
    expect((await tf('plan', '-input=false', '-no-color', '-detailed-exitcode')).code).toBe(0);
  });

  it('imports a file by PROJECT:BRANCH:PATH and Pages by project, converges, and destroys the file with one commit', async () => {
    expect((await tf('state', 'rm', 'plumb_repository_file.codeowners', 'plumb_project_pages.handbook')).code).toBe(0);
    const file = await tf('import', '-input=false', '-no-color', 'plumb_repository_file.codeowners', 'platform/infra/instance-config:main:CODEOWNERS');
    expect(file.out).toContain('Import successful');
    const page = await tf('import', '-input=false', '-no-color', 'plumb_project_pages.handbook', 'platform/handbook');
    expect(page.out).toContain('Import successful');
    expect((await tf('apply', '-input=false', '-no-color', '-auto-approve')).code).toBe(0);
    expect((await tf('plan', '-input=false', '-no-color', '-detailed-exitcode')).code).toBe(0);
    const destroy = await tf('destroy', '-input=false', '-no-color', '-auto-approve', '-target', 'plumb_repository_file.codeowners', '-target', 'plumb_project_pages.handbook');
    expect(destroy.out).toContain('Destroy complete! Resources: 2 destroyed');
    expect(destroy.out).toContain('will be left as they are');
    expect(await codeowners()).toBeUndefined();
    // Destroying the Pages resource stops managing them: still published, settings as applied.
    expect(await pages()).toMatchObject({ primary_domain: 'docs.example.test' });
  });

  it('refuses at plan two resources that set one setting, own one token, one file or one project\'s Pages, naming the attribute of each second one', async () => {
    const twice = path.join(dir, 'two-owners');
    mkdirSync(twice, { recursive: true });
    const head = readFileSync(path.join(dir, 'main.tf'), 'utf8').split('# Only the settings written here')[0]!;
    const file = (n: string) => `resource "plumb_repository_file" "${n}" {\n  project   = "platform/infra/instance-config"\n  file_path = "OWNED_TWICE.md"\n  content   = "${n}\\n"\n}\n`;
    const site = (n: string) => `resource "plumb_project_pages" "${n}" {\n  project          = "platform/handbook"\n  pages_https_only = ${n === 'one'}\n}\n`;
    const token = (n: string) => `resource "plumb_group_access_token" "${n}" {\n  group = "platform"\n  name = "owned-twice"\n  description = "${n}"\n  scopes = ["read_api"]\n  rotation { lifetime_days = 30 }\n  sink { file = "${n}.token" }\n}\n`;
    writeFileSync(
      path.join(twice, 'main.tf'),
      `${head}\nresource "plumb_application_settings" "a" {\n  deletion_adjourned_period = 5\n}\nresource "plumb_application_settings" "b" {\n  deletion_adjourned_period = 7\n}\n${token('one')}${token('two')}${file('one')}${file('two')}${site('one')}${site('two')}`,
    );
    const planned = await tfIn(twice, 'plan', '-input=false', '-no-color', '-detailed-exitcode');
    expect(planned.code).toBe(1);
    expect(planned.out).toContain('Two resources own deletion_adjourned_period');
    expect(planned.out).toContain('Two resources own group = "platform", name = "owned-twice"');
    expect(planned.out).toMatch(/with plumb_application_settings\.(a|b)/);
    expect(planned.out).toMatch(/with plumb_group_access_token\.(one|two)/);
    expect(planned.out).toContain('Two resources own project = "platform/infra/instance-config", file_path = "OWNED_TWICE.md"');
    expect(planned.out).toMatch(/with plumb_repository_file\.(one|two)/);
    expect(planned.out).toContain('Two resources own project = "platform/handbook"');
    expect(planned.out).toMatch(/with plumb_project_pages\.(one|two)/);
  });

  it('refuses at plan a risky change and an unpublish the configuration does not accept, at the attribute, with help in Terraform\'s words (issue 21 defect 6)', async () => {
    const risky = path.join(dir, 'risky');
    mkdirSync(risky, { recursive: true });
    const head = readFileSync(path.join(dir, 'main.tf'), 'utf8').split('# Only the settings written here')[0]!;
    writeFileSync(
      path.join(risky, 'main.tf'),
      `${head}\nresource "plumb_application_settings" "risky" {\n  admin_mode = true\n}\nresource "plumb_project_pages" "offline" {\n  project   = "platform/handbook"\n  published = false\n}\n`,
    );
    const planned = await tfIn(risky, 'plan', '-input=false', '-no-color', '-detailed-exitcode');
    expect(planned.code).toBe(1);
    // Terraform shows each error at the attribute: the line that asks for the change.
    expect(planned.out).toMatch(/Error: Risky change not accepted: turning on admin_mode[\s\S]*?admin_mode = true[\s\S]*?allow_risky = \["admin-mode-without-scope"\]/);
    expect(planned.out).toMatch(/Error: Destroy not accepted: unpublishing the Pages of project "platform\/handbook"[\s\S]*?published = false[\s\S]*?allow_unpublish = true/);
    expect(planned.out).not.toMatch(/--allow-risky|--allow-destroy|of instance "terraform"|pages block/);
    expect((await (await api('/projects/21/pages')).json() as { deployments: unknown[] }).deployments.length).toBeGreaterThan(0);
  });

  it('refuses a file\'s delivery { merge_request } at plan, at the block, with why and what to use instead (issue 32 item 7)', async () => {
    const mr = path.join(dir, 'merge-request');
    mkdirSync(mr, { recursive: true });
    const head = readFileSync(path.join(dir, 'main.tf'), 'utf8').split('# Only the settings written here')[0]!;
    writeFileSync(
      path.join(mr, 'main.tf'),
      `${head}\nresource "plumb_repository_file" "reviewed" {\n  project   = "platform/infra/instance-config"\n  file_path = "REVIEWED.md"\n  content   = "reviewed\\n"\n  delivery {\n    merge_request {\n      labels = ["plumb"]\n    }\n  }\n}\n`,
    );
    const planned = await tfIn(mr, 'plan', '-input=false', '-no-color', '-detailed-exitcode');
    expect(planned.code).toBe(1);
    expect(planned.out).toMatch(/Error: delivery \{ merge_request \} is not supported under terraform[\s\S]*?merge_request \{[\s\S]*?one resource at a time[\s\S]*?plumb plan\/apply/);
  });

  it('says at plan time what a destroy of the settings and of Pages leaves as it is (issue 21 defect 10)', async () => {
    const leaving = path.join(dir, 'leaving');
    mkdirSync(leaving, { recursive: true });
    const head = readFileSync(path.join(dir, 'main.tf'), 'utf8').split('# Only the settings written here')[0]!;
    writeFileSync(path.join(leaving, 'main.tf'), `${head}\nresource "plumb_application_settings" "kept" {\n}\nresource "plumb_project_pages" "kept" {\n  project = "platform/handbook"\n}\n`);
    expect((await tfIn(leaving, 'import', '-input=false', '-no-color', 'plumb_application_settings.kept', 'application_settings')).code).toBe(0);
    expect((await tfIn(leaving, 'import', '-input=false', '-no-color', 'plumb_project_pages.kept', 'platform/handbook')).code).toBe(0);
    const planned = await tfIn(leaving, 'plan', '-destroy', '-input=false', '-no-color');
    expect(planned.code).toBe(0);
    expect(planned.out).toContain('Warning: The application settings will be left as they are');
    expect(planned.out).toContain('Warning: The Pages of platform/handbook will be left as they are');
  });

  it('generates configuration on import with the token\'s expiry and a default-branch file without branches (issue 21 defect 9)', async () => {
    const gen = path.join(dir, 'generate');
    mkdirSync(gen, { recursive: true });
    const head = readFileSync(path.join(dir, 'main.tf'), 'utf8').split('# Only the settings written here')[0]!;
    writeFileSync(
      path.join(gen, 'main.tf'),
      `${head}\nimport {\n  to = plumb_group_access_token.ci\n  id = "platform:terraform-ci"\n}\nimport {\n  to = plumb_repository_file.readme\n  id = "platform/infra/instance-config:main:README.md"\n}\n`,
    );
    const planned = await tfIn(gen, 'plan', '-input=false', '-no-color', '-generate-config-out=generated.tf');
    const generated = readFileSync(path.join(gen, 'generated.tf'), 'utf8');
    const token = generated.slice(generated.indexOf('resource "plumb_group_access_token"'));
    expect(token, planned.out).toMatch(/expires_at\s+=\s+"\d{4}-\d{2}-\d{2}"/);
    const file = generated.slice(generated.indexOf('resource "plumb_repository_file"')).split('resource "plumb_group_access_token"')[0]!;
    expect(file).toContain('file_path');
    expect(file).not.toMatch(/branches\s+=\s+\[/);
  });

  it('generates a token\'s configuration with the sink its import block\'s id carries, which the next plan accepts with no change (exit 0)', async () => {
    const gen = path.join(dir, 'generate-sink');
    mkdirSync(path.join(gen, 'secrets'), { recursive: true });
    const head = readFileSync(path.join(dir, 'main.tf'), 'utf8').split('# Only the settings written here')[0]!;
    const expires = new Date(Date.now() + 150 * 86_400_000).toISOString().slice(0, 10);
    expect((await api('/groups/platform/access_tokens', { method: 'POST', body: JSON.stringify({ name: 'generated-bot', scopes: ['read_api'], access_level: 30, expires_at: expires }) })).status).toBe(201);
    writeFileSync(path.join(gen, 'main.tf'), `${head}\nimport {\n  to = plumb_group_access_token.bot\n  id = "platform:generated-bot;sink_file=secrets/generated-bot.token"\n}\n`);
    const planned = await tfIn(gen, 'plan', '-input=false', '-no-color', '-generate-config-out=generated.tf');
    const generated = readFileSync(path.join(gen, 'generated.tf'), 'utf8');
    expect(generated, planned.out).toMatch(/sink \{\s+command\s+= null\s+file\s+= "secrets\/generated-bot.token"\s+\}/);
    const applied = await tfIn(gen, 'apply', '-input=false', '-no-color', '-auto-approve');
    expect(applied.out, applied.out).toContain('Apply complete! Resources: 1 imported, 0 added, 0 changed, 0 destroyed');
    const again = await tfIn(gen, 'plan', '-input=false', '-no-color', '-detailed-exitcode');
    expect(again.code, again.out).toBe(0);
  });

  it('plans no change (exit 0) right after terraform import of all four types, the token\'s sink carried in its import id, with a configuration that says what the instance holds (issue 21 defect 9)', async () => {
    const imp = path.join(dir, 'import-clean');
    mkdirSync(path.join(imp, 'secrets'), { recursive: true });
    const head = readFileSync(path.join(dir, 'main.tf'), 'utf8').split('# Only the settings written here')[0]!;
    const live = await settings();
    const expires = new Date(Date.now() + 120 * 86_400_000).toISOString().slice(0, 10);
    const created = await api('/groups/platform/access_tokens', { method: 'POST', body: JSON.stringify({ name: 'imported-bot', scopes: ['read_api', 'read_repository'], access_level: 40, expires_at: expires }) });
    expect(created.status).toBe(201);
    const site = (await (await api('/projects/21/pages')).json()) as { force_https: boolean; primary_domain: string | null; is_unique_domain_enabled: boolean };
    writeFileSync(
      path.join(imp, 'main.tf'),
      `${head}
resource "plumb_application_settings" "this" {
  signup_enabled            = ${String(live.signup_enabled)}
  deletion_adjourned_period = ${String(live.deletion_adjourned_period)}
  default_projects_limit    = ${String(live.default_projects_limit)}
}
resource "plumb_group_access_token" "bot" {
  group        = "platform"
  name         = "imported-bot"
  scopes       = ["read_api", "read_repository"]
  access_level = 40
  expires_at   = "${expires}"
  sink {
    file = "secrets/imported-bot.token"
  }
}
resource "plumb_repository_file" "readme" {
  project   = "platform/infra/instance-config"
  file_path = "README.md"
  content   = "# Instance configuration\\n"
}
resource "plumb_project_pages" "handbook" {
  project                     = "platform/handbook"
  pages_primary_domain        = ${JSON.stringify(site.primary_domain ?? '')}
  pages_https_only            = ${String(site.force_https)}
  pages_unique_domain_enabled = ${String(site.is_unique_domain_enabled)}
  published                   = true
}
`,
    );
    for (const [address, id] of [
      ['plumb_application_settings.this', 'application_settings'],
      ['plumb_group_access_token.bot', 'platform:imported-bot;sink_file=secrets/imported-bot.token'],
      ['plumb_repository_file.readme', 'platform/infra/instance-config:main:README.md'],
      ['plumb_project_pages.handbook', 'platform/handbook'],
    ] as const) {
      const r = await tfIn(imp, 'import', '-input=false', '-no-color', address, id);
      expect(r.out, r.out).toContain('Import successful');
    }
    const writes = () => emu.requests.filter((r) => r.method !== 'GET' && r.method !== 'HEAD').length;
    const before = writes();
    // The instance cannot tell a token's sink; the import id carried it, so nothing is a change.
    const planned = await tfIn(imp, 'plan', '-input=false', '-no-color', '-detailed-exitcode');
    expect(planned.out).toContain('No changes.');
    expect(planned.code, planned.out).toBe(0);
    expect(planned.out).not.toMatch(/Warning: (?!Provider development overrides)/);
    expect(writes()).toBe(before);
    expect(existsSync(path.join(imp, 'secrets/imported-bot.token'))).toBe(false);
  });

  it('imports a token by GROUP:NAME alone with a warning, and then plans only its sink, an update that sends nothing', async () => {
    const imp = path.join(dir, 'import-no-sink');
    mkdirSync(path.join(imp, 'secrets'), { recursive: true });
    const head = readFileSync(path.join(dir, 'main.tf'), 'utf8').split('# Only the settings written here')[0]!;
    const expires = new Date(Date.now() + 120 * 86_400_000).toISOString().slice(0, 10);
    expect((await api('/groups/platform/access_tokens', { method: 'POST', body: JSON.stringify({ name: 'sinkless-bot', scopes: ['read_api'], access_level: 30, expires_at: expires }) })).status).toBe(201);
    writeFileSync(
      path.join(imp, 'main.tf'),
      `${head}\nresource "plumb_group_access_token" "bot" {\n  group        = "platform"\n  name         = "sinkless-bot"\n  scopes       = ["read_api"]\n  access_level = "developer"\n  expires_at   = "${expires}"\n  sink {\n    file = "secrets/sinkless-bot.token"\n  }\n}\n`,
    );
    const imported = await tfIn(imp, 'import', '-input=false', '-no-color', 'plumb_group_access_token.bot', 'platform:sinkless-bot');
    expect(imported.out).toContain('Import successful');
    expect(imported.out).toContain('Imported without a sink');
    const writes = () => emu.requests.filter((r) => r.method !== 'GET' && r.method !== 'HEAD').length;
    const before = writes();
    const planned = await tfIn(imp, 'plan', '-input=false', '-no-color', '-detailed-exitcode');
    expect(planned.out).toContain('Plan: 0 to add, 1 to change, 0 to destroy');
    expect(planned.out).toMatch(/\+ sink \{\s+\+ file = "secrets\/sinkless-bot.token"/);
    expect((await tfIn(imp, 'apply', '-input=false', '-no-color', '-auto-approve')).code).toBe(0);
    expect(writes()).toBe(before);
    expect((await tfIn(imp, 'plan', '-input=false', '-no-color', '-detailed-exitcode')).code).toBe(0);
  });

  it('refuses at plan a token resource whose group and name exist on the instance, naming terraform import, and creates nothing', async () => {
    const adopt = path.join(dir, 'adopt');
    mkdirSync(path.join(adopt, 'secrets'), { recursive: true });
    const head = readFileSync(path.join(dir, 'main.tf'), 'utf8').split('# Only the settings written here')[0]!;
    const expires = new Date(Date.now() + 90 * 86_400_000).toISOString().slice(0, 10);
    expect((await api('/groups/platform/access_tokens', { method: 'POST', body: JSON.stringify({ name: 'made-outside', scopes: ['read_api'], access_level: 30, expires_at: expires }) })).status).toBe(201);
    writeFileSync(
      path.join(adopt, 'main.tf'),
      `${head}\nresource "plumb_group_access_token" "outside" {\n  group      = "platform"\n  name       = "made-outside"\n  scopes     = ["read_api"]\n  expires_at = "${expires}"\n  sink {\n    file = "secrets/outside.token"\n  }\n}\n`,
    );
    const writes = () => emu.requests.filter((r) => r.method !== 'GET' && r.method !== 'HEAD').length;
    const before = writes();
    const planned = await tfIn(adopt, 'plan', '-input=false', '-no-color', '-detailed-exitcode');
    expect(planned.code, planned.out).toBe(1);
    expect(planned.out).toMatch(/Error: The group access token "made-outside" of platform already exists; import it with\s+`terraform import <address> platform:made-outside`/);
    expect(planned.out).toContain('with plumb_group_access_token.outside');
    // Applied regardless: refused too, nothing sent, no sink written, nothing in state.
    const applied = await tfIn(adopt, 'apply', '-input=false', '-no-color', '-auto-approve');
    expect(applied.code).toBe(1);
    expect(applied.out).toContain('already exists');
    expect(writes()).toBe(before);
    expect(existsSync(path.join(adopt, 'secrets/outside.token'))).toBe(false);
    expect((await tokens()).filter((t) => t.name === 'made-outside' && t.active)).toHaveLength(1);
  });

  it('imports a token by GROUP:NAME and destroys it by revoking it', async () => {
    expect((await tf('state', 'rm', 'plumb_group_access_token.ci')).code).toBe(0);
    const imported = await tf('import', '-input=false', '-no-color', 'plumb_group_access_token.ci', 'platform:terraform-ci');
    expect(imported.out).toContain('Import successful');
    const converge = await tf('apply', '-input=false', '-no-color', '-auto-approve');
    expect(converge.code).toBe(0);
    expect((await tf('plan', '-input=false', '-no-color', '-detailed-exitcode')).code).toBe(0);
    const id = (await tokens()).find((t) => t.name === 'terraform-ci' && t.active)!.id;
    const destroy = await tf('destroy', '-input=false', '-no-color', '-auto-approve', '-target', 'plumb_group_access_token.ci');
    expect(destroy.out).toContain('Destroy complete! Resources: 1 destroyed');
    expect((await tokens()).find((t) => t.id === id)?.revoked).toBe(true);
    // What plumb remembers is in Terraform's state (issue 21 defect 8): no state file beside it.
    expect(existsSync(path.join(dir, '.plumb'))).toBe(false);
  });
});

/**
 * A CI runner's working directory is new every time; only Terraform's backend persists. What plumb
 * remembers between runs (a write-only setting's fingerprint, a token's slot) must be in that
 * backend, or the new directory plans to send the secret again (issue 21 defect 8).
 */
describe.runIf(cli)('a fresh working directory with the same backend', { timeout: TERRAFORM_TEST_TIMEOUT_MS }, () => {
  const KEY = 'e2e-fresh-dir-spam-check-key-5150';
  let emu: RunningEmulator;
  let base: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    ensureBuilt();
    emu = await startTestEmulator({
      seed: {
        users: [{ username: 'root', admin: true, personal_access_tokens: [{ name: 'plumb', token: ADMIN, scopes: ['api'], expires_at: null }] }],
        groups: [{ full_path: 'platform', id: 10, name: 'Platform', visibility: 'private', members: [{ username: 'root', access_level: 50 }] }],
      },
    });
    base = mkdtempSync(path.join(os.tmpdir(), 'plumb-tf-backend-'));
    const rc = writeDevOverrides(base, root);
    // `init` (needed for the backend) installs the provider from a local plugin directory.
    const version = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
    const platform = `${os.platform()}_${os.arch() === 'x64' ? 'amd64' : os.arch()}`;
    const at = path.join(base, 'plugins/plumb.invalid/plumb/plumb', version, platform);
    mkdirSync(at, { recursive: true });
    symlinkSync(path.join(root, 'bin/terraform-provider-plumb'), path.join(at, 'terraform-provider-plumb'));
    env = { PATH: process.env.PATH ?? '', HOME: base, TF_CLI_CONFIG_FILE: rc, TF_VAR_url: emu.url, TF_VAR_spam_key: KEY, PLUMB_TOKEN: ADMIN, TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1' };
  }, 300_000);

  afterAll(async () => {
    await emu?.close();
  });

  /** A working directory of its own, with the one configuration and the backend outside it. */
  function workingDirectory(name: string, provider = 'provider "plumb" { url = var.url }'): string {
    const d = path.join(base, name);
    mkdirSync(path.join(d, 'secrets'), { recursive: true });
    writeFileSync(
      path.join(d, 'main.tf'),
      `terraform {
  required_providers {
    plumb = { source = "plumb.invalid/plumb/plumb" }
  }
  backend "local" {
    path = ${JSON.stringify(path.join(base, 'backend/terraform.tfstate'))}
  }
}
variable "url" { type = string }
variable "spam_key" {
  type      = string
  ephemeral = true
}
${provider}
resource "plumb_application_settings" "this" {
  spam_check_endpoint_enabled = false
  spam_check_api_key          = var.spam_key
}
resource "plumb_group_access_token" "ci" {
  group  = "platform"
  name   = "fresh-dir-ci"
  scopes = ["read_api"]
  rotation {
    lifetime_days = 60
  }
  sink {
    file = "secrets/fresh-dir-ci.token"
  }
}
`,
    );
    return d;
  }

  function run(cwd: string, ...args: string[]): Promise<{ code: number | null; out: string }> {
    return runWith(env, cwd, ...args);
  }

  function runWith(environment: Record<string, string>, cwd: string, ...args: string[]): Promise<{ code: number | null; out: string }> {
    return runCombined(cli!, args, { cwd, env: environment, timeoutMs: 90_000 });
  }

  it('plans no change (exit 0) for a write-only setting and a token after an apply in another directory, and keeps no state file beside the backend', async () => {
    const first = workingDirectory('first');
    const init = await run(first, 'init', '-input=false', '-no-color', `-plugin-dir=${path.join(base, 'plugins')}`);
    expect(init.code, init.out).toBe(0);
    const apply = await run(first, 'apply', '-input=false', '-no-color', '-auto-approve');
    expect(apply.code, apply.out).toBe(0);
    expect(apply.out).toContain('Apply complete! Resources: 2 added');
    const secret = readFileSync(path.join(first, 'secrets/fresh-dir-ci.token'), 'utf8').trim();

    const second = workingDirectory('second');
    expect((await run(second, 'init', '-input=false', '-no-color', `-plugin-dir=${path.join(base, 'plugins')}`)).code).toBe(0);
    const plan = await run(second, 'plan', '-input=false', '-no-color', '-detailed-exitcode');
    expect(plan.out).toContain('No changes.');
    expect(plan.code, plan.out).toBe(0);
    // A changed secret is still noticed from the new directory.
    const changed = await run(second, 'plan', '-input=false', '-no-color', '-detailed-exitcode', '-var', `spam_key=${KEY}-rotated`);
    expect(changed.code, changed.out).toBe(2);
    expect(changed.out).toContain('write_only_revision');

    expect(existsSync(path.join(first, '.plumb'))).toBe(false);
    expect(existsSync(path.join(second, '.plumb'))).toBe(false);
    const leaks = filesUnder(base).filter((f) => !f.includes(`${path.sep}secrets${path.sep}`) && !f.includes(`${path.sep}.terraform${path.sep}`) && [KEY, secret].some((x) => readFileSync(f).includes(Buffer.from(x))));
    expect(leaks).toEqual([]);
  });

  it('takes the instance token from the provider block\'s token attribute fed by an ephemeral variable, with no token_env variable, and keeps it out of the plan file', async () => {
    const d = workingDirectory('token-attribute', 'variable "plumb_token" {\n  type      = string\n  ephemeral = true\n}\nprovider "plumb" {\n  url   = var.url\n  token = var.plumb_token\n}');
    const { PLUMB_TOKEN: _unset, ...rest } = env;
    const withoutEnv = { ...rest, TF_VAR_plumb_token: ADMIN };
    expect((await runWith(withoutEnv, d, 'init', '-input=false', '-no-color', `-plugin-dir=${path.join(base, 'plugins')}`)).code).toBe(0);
    const plan = await runWith(withoutEnv, d, 'plan', '-input=false', '-no-color', '-detailed-exitcode', '-out=tfplan');
    expect(plan.code, plan.out).toBe(0);
    expect(plan.out).not.toContain(ADMIN);
    const shown = await runWith(withoutEnv, d, 'show', '-json', 'tfplan');
    expect(shown.code, shown.out).toBe(0);
    expect(shown.out).not.toContain(ADMIN);
    const leaks = filesUnder(d).filter((f) => !f.includes(`${path.sep}.terraform${path.sep}`) && readFileSync(f).includes(Buffer.from(ADMIN)));
    expect(leaks).toEqual([]);
  });
});

/**
 * The supported installation: `plumb provider mirror DIR` and a CLI configuration naming it, so a
 * plain `terraform init` (needed for modules and backends) and `terraform providers lock` work.
 * Then a module wrapping each resource type, fed by variables: `terraform validate` (every variable
 * unknown), and a secret setting from an ephemeral variable kept out of the plan file, `show -json`
 * and the state.
 */
describe.runIf(cli)('installed through a filesystem mirror, used from a module fed by variables', { timeout: TERRAFORM_TEST_TIMEOUT_MS }, () => {
  const SECRET = 'e2e-ephemeral-captcha-key-8086';
  let emu: RunningEmulator;
  let work: string;
  let mirror: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    ensureBuilt();
    emu = await startTestEmulator({
      seed: {
        users: [{ username: 'root', admin: true, personal_access_tokens: [{ name: 'plumb', token: ADMIN, scopes: ['api'], expires_at: null }] }],
        groups: [{ full_path: 'platform', id: 10, name: 'Platform', visibility: 'private', members: [{ username: 'root', access_level: 50 }] }],
        projects: [
          { path_with_namespace: 'platform/config', id: 30, visibility: 'private', default_branch: 'main', protected_branches: [], files: { 'README.md': '# config\n' } },
          { path_with_namespace: 'platform/site', id: 31, visibility: 'public', default_branch: 'main', pages: { unique_domain_enabled: false, https_only: false, primary_domain: null, domains: [], deployments: [] } },
        ],
      },
    });
    const base = mkdtempSync(path.join(os.tmpdir(), 'plumb-tf-mirror-'));
    mirror = path.join(base, 'mirror');
    work = path.join(base, 'work');
    mkdirSync(path.join(work, 'modules/instance'), { recursive: true });
    mkdirSync(path.join(work, 'secrets'));
    writeFileSync(
      path.join(work, 'modules/instance/main.tf'),
      `terraform {
  required_providers {
    plumb = { source = "plumb.invalid/plumb/plumb" }
  }
}
variable "grace_hours" { type = number }
variable "captcha_key" {
  type      = string
  ephemeral = true
}
variable "scopes" { type = list(string) }
variable "expires_at" { type = string }
variable "sink_file" { type = string }
variable "owners" { type = string }
variable "https_only" { type = bool }

resource "plumb_application_settings" "this" {
  require_two_factor_authentication = true
  two_factor_grace_period           = var.grace_hours
  captcha_enabled                   = true
  captcha_site_key                  = "site-key"
  captcha_private_key               = var.captcha_key
}
resource "plumb_group_access_token" "ci" {
  group      = "platform"
  name       = "module-ci"
  scopes     = var.scopes
  expires_at = var.expires_at
  sink {
    file = var.sink_file
  }
}
resource "plumb_repository_file" "owners" {
  project   = "platform/config"
  file_path = "CODEOWNERS"
  content   = var.owners
}
resource "plumb_project_pages" "site" {
  project          = "platform/site"
  pages_https_only = var.https_only
}
`,
    );
    writeFileSync(
      path.join(work, 'main.tf'),
      `terraform {
  required_providers {
    plumb = { source = "plumb.invalid/plumb/plumb" }
  }
}
variable "url" { type = string }
variable "captcha_key" {
  type      = string
  ephemeral = true
}
provider "plumb" { url = var.url }
module "instance" {
  source      = "./modules/instance"
  grace_hours = 36
  captcha_key = var.captcha_key
  scopes      = ["read_api"]
  expires_at  = "${new Date(Date.now() + 200 * 86_400_000).toISOString().slice(0, 10)}"
  sink_file   = "secrets/module-ci.token"
  owners      = "* @platform\\n"
  https_only  = false
}
`,
    );
    env = { PATH: process.env.PATH ?? '', HOME: base, TF_VAR_url: emu.url, TF_VAR_captcha_key: SECRET, PLUMB_TOKEN: ADMIN, TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1' };
  }, 300_000);

  afterAll(async () => {
    await emu?.close();
  });

  function run(cmd: string, args: string[], extra: Record<string, string> = {}): Promise<{ code: number | null; out: string }> {
    return runCombined(cmd, args, { cwd: work, env: { ...env, ...extra }, timeoutMs: 90_000 });
  }

  it('fails closed without the mirror: init finds no registry at the provider\'s host and installs nothing (issue 28 item 3)', async () => {
    const init = await run(cli!, ['init', '-input=false', '-no-color']);
    expect(init.code, init.out).toBe(1);
    // Terraform wraps its messages: compare with the line breaks as spaces.
    const said = init.out.replace(/\s+/g, ' ');
    expect(said).toContain(`Could not retrieve the list of available versions for provider ${PLUMB_PROVIDER_SOURCE}`);
    expect(said).toContain('could not connect to plumb.invalid');
    expect(existsSync(path.join(work, '.terraform/providers'))).toBe(false);
    rmSync(path.join(work, '.terraform'), { recursive: true, force: true });
  });

  it('mirrors the provider, then plain terraform init and terraform providers lock work with the CLI configuration it prints', async () => {
    const m = await run(process.execPath, [path.join(root, 'bin/plumb.js'), 'provider', 'mirror', mirror]);
    expect(m.code, m.out).toBe(0);
    const rc = /provider_installation \{[\s\S]*?\n\}\n/.exec(m.out)?.[0];
    expect(rc, m.out).toBeDefined();
    writeFileSync(path.join(work, '..', 'cli.tfrc'), rc!);
    env.TF_CLI_CONFIG_FILE = path.join(work, '..', 'cli.tfrc');
    const init = await run(cli!, ['init', '-input=false', '-no-color']);
    expect(init.code, init.out).toBe(0);
    const lock = readFileSync(path.join(work, '.terraform.lock.hcl'), 'utf8');
    expect(lock).toMatch(/provider "plumb\.invalid\/plumb\/plumb" \{\s+version = "\d+\.\d+\.\d+"\s+hashes = \[\s+"h1:/);
    const platform = `${os.platform()}_${os.arch() === 'x64' ? 'amd64' : os.arch()}`;
    const locked = await run(cli!, ['providers', 'lock', `-fs-mirror=${mirror}`, `-platform=${platform}`, '-no-color']);
    expect(locked.code, locked.out).toBe(0);
    expect(readFileSync(path.join(work, '.terraform.lock.hcl'), 'utf8')).toBe(lock);
    // The h1: hash the mirror command printed is the one Terraform records (issue 28 item 15).
    const printed = /\n {4}(h1:[A-Za-z0-9+/=]+)\n/.exec(m.out)?.[1];
    expect(printed, m.out).toBeDefined();
    expect(lock).toContain(`"${printed!}"`);
  }, 180_000);

  it('validates the module with every variable unknown, and keeps an ephemeral secret out of the plan file, show -json and the state', async () => {
    const validate = await run(cli!, ['validate', '-no-color']);
    expect(validate.code, validate.out).toBe(0);
    const plan = await run(cli!, ['plan', '-input=false', '-no-color', '-out=tfplan']);
    expect(plan.code, plan.out).toBe(0);
    expect(plan.out).toContain('Plan: 4 to add');
    const shown = await run(cli!, ['show', '-json', 'tfplan']);
    expect(shown.code, shown.out).toBe(0);
    expect(shown.out).not.toContain(SECRET);
    // A plan file is a zip archive (compressed): look inside every entry, not at its bytes.
    const entries = zipEntries(readFileSync(path.join(work, 'tfplan')));
    expect(entries.map((e) => e.name)).toContain('tfplan');
    expect(entries.some((e) => e.data.includes(Buffer.from('plumb_application_settings')))).toBe(true);
    expect(entries.filter((e) => e.data.includes(Buffer.from(SECRET))).map((e) => e.name)).toEqual([]);
    const apply = await run(cli!, ['apply', '-input=false', '-no-color', '-auto-approve']);
    expect(apply.code, apply.out).toBe(0);
    const live = (await (await fetch(`${emu.url}/api/v4/application/settings`, { headers: { 'PRIVATE-TOKEN': ADMIN } })).json()) as Record<string, unknown>;
    expect(live).toMatchObject({ two_factor_grace_period: 36, captcha_enabled: true });
    const leaks = filesUnder(work).filter((f) => !f.includes(`${path.sep}.terraform${path.sep}`) && readFileSync(f).includes(Buffer.from(SECRET)));
    expect(leaks).toEqual([]);
    expect(apply.out).not.toContain(SECRET);
    const again = await run(cli!, ['plan', '-input=false', '-no-color', '-detailed-exitcode']);
    expect(again.code, again.out).toBe(0);
  }, 180_000);
});

/**
 * The three front-ends on one instance: the CDKTF example synthesized (as `cdktf synth` does) and
 * applied by Terraform in the stack's directory through plumb's provider; then Terraform plans no
 * change, and `plumb plan` of the YAML example (the same instance written in YAML) plans none either.
 */
describe.runIf(cli)('the CDKTF example synthesized and applied by terraform', { timeout: TERRAFORM_TEST_TIMEOUT_MS }, () => {
  const SEED_ADMIN = 'local-admin-token-change-me'; // examples/emulator-seed.yaml's made-up token
  let emu: RunningEmulator;
  let app: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    ensureBuilt();
    emu = await startTestEmulator({ seed: path.join(root, 'examples/emulator-seed.yaml') });
    app = cdktfApp({});
    copyFromRepo(app, ['cdktf.json', 'examples/cdktf/main.ts', 'examples/files', 'examples/plumb']);
    mkdirSync(path.join(app, 'examples/secrets'), { recursive: true });
    // A repository, as a real app is: Terraform runs in cdktf.out/stacks/…, and the sources the
    // synthesized stack names (above it) are inside the Git work tree, the configuration root.
    mkdirSync(path.join(app, '.git'));
    for (const rel of ['examples/cdktf/main.ts', 'examples/plumb/instance.yaml']) {
      const file = path.join(app, rel);
      writeFileSync(file, readFileSync(file, 'utf8').replace('http://127.0.0.1:8929', emu.url));
    }
    const rc = writeDevOverrides(app, root);
    env = {
      PATH: [path.join(app, 'node_modules/.bin'), process.env.PATH ?? ''].join(path.delimiter),
      HOME: app,
      TF_CLI_CONFIG_FILE: rc,
      PLUMB_TOKEN: SEED_ADMIN,
      TF_IN_AUTOMATION: '1',
      CHECKPOINT_DISABLE: '1',
    };
  }, 300_000);

  afterAll(async () => {
    await emu?.close();
  });

  function run(cmd: string, args: string[], cwd: string, extra: Record<string, string> = {}): Promise<{ code: number | null; out: string }> {
    return runCombined(cmd, args, { cwd, env: { ...env, ...extra }, timeoutMs: 60_000 });
  }

  it('converges, plans no change in Terraform, and plumb plan of the YAML example plans only the delivery its own state has no record of', async () => {
    const manifest = JSON.parse(readFileSync(path.join(app, 'cdktf.json'), 'utf8')) as { app: string };
    const out = path.join(app, 'cdktf.out');
    const synth = await run('sh', ['-c', manifest.app], app, { CDKTF_OUTDIR: out, CDKTF_CONTEXT_JSON: '{}' });
    expect(synth.code, synth.out).toBe(0);
    const stack = path.join(out, 'stacks/local');
    expect(existsSync(path.join(stack, 'cdk.tf.json'))).toBe(true);
    // cdktf gives every stack a `local` backend, and Terraform wants `init` for any explicit
    // backend; init installs providers, so it gets plumb's from a local plugin directory (no
    // registry). The runs after it use dev_overrides like the suite above.
    const version = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
    const platform = `${os.platform()}_${os.arch() === 'x64' ? 'amd64' : os.arch()}`;
    const plugins = path.join(app, 'plugins');
    const at = path.join(plugins, 'plumb.invalid/plumb/plumb', version, platform);
    mkdirSync(at, { recursive: true });
    symlinkSync(path.join(root, 'bin/terraform-provider-plumb'), path.join(at, 'terraform-provider-plumb'));
    const init = await run(cli!, [`-chdir=${stack}`, 'init', '-input=false', '-no-color', `-plugin-dir=${plugins}`], app);
    expect(init.code, init.out).toBe(0);
    const apply = await run(cli!, [`-chdir=${stack}`, 'apply', '-input=false', '-no-color', '-auto-approve'], app);
    expect(apply.code, apply.out).toBe(0);
    expect(apply.out).toContain('Apply complete! Resources: 13 added');
    const again = await run(cli!, [`-chdir=${stack}`, 'plan', '-input=false', '-no-color', '-detailed-exitcode'], app);
    expect(again.code, again.out).toBe(0);
    // No second state beside the stack's (issue 21 defect 8): plumb's memory is in Terraform's state.
    expect(filesUnder(out).filter((f) => f.includes(`${path.sep}.plumb${path.sep}`))).toEqual([]);
    // plumb's own state (not Terraform's) holds no record of the token's delivery into its CI/CD
    // variable, and plumb keeps no secret to compare or copy: the one change is a rotation that
    // delivers a fresh secret there (docs/tokens.md, "Added, moved, removed").
    const onlySinkAdded = (r: { code: number | null; out: string }) => {
      expect(r.code, r.out).toBe(2);
      expect(r.out).toContain('Plan: 0 to add, 0 to change, 0 to destroy, 1 to rotate.');
      expect(r.out).toContain('access_token["ci-deployer"] will be rotated (a sink was added');
    };
    onlySinkAdded(await run(process.execPath, [path.join(root, 'bin/plumb.js'), 'plan', 'examples/plumb', '--detailed-exitcode'], app));
    // And the same app read by plumb itself (CDKTF on plumb, no Terraform).
    onlySinkAdded(await run(process.execPath, [path.join(root, 'bin/plumb.js'), 'plan', '--cdktf', '.', '--detailed-exitcode'], app));
  });
});
