/**
 * The group listings under the real Terraform (issue 23): a configuration that declares one
 * `plumb_repository_file` per project with `for_each = data.plumb_projects.NAME.paths` applies,
 * then plans no change; a group that does not exist is an error at the data source's `group`; and
 * the CDKTF app of test/cdktf/fleet-app.ts, synthesized and applied by terraform, does the same.
 * Runs whenever `terraform` or `tofu` is on PATH; with CI set it must run, and fails when neither is.
 */
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator } from '../helpers/emulator.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { ensureBuilt, root } from './harness.js';
import { cdktfApp } from '../cdktf/helpers.js';
import { FLEET_APP } from '../cdktf/fleet-app.js';
import { failWithoutCliInCi, onPath, runCombined, writeDevOverrides, TERRAFORM_TEST_TIMEOUT_MS } from '../helpers/terraform.js';

const cli = onPath('terraform', 'tofu');
const ADMIN = 'e2e-datasource-admin-token-0123456';

failWithoutCliInCi(cli, 'Terraform data sources end to end', 'terraform (>= 1.11) or tofu');

const MAIN_TF = `terraform {
  required_providers {
    plumb = { source = "plumb.invalid/plumb/plumb" }
  }
}
variable "url" { type = string }
# The seeded projects protect main (as new projects do by default); an administrator commits straight onto it.
provider "plumb" {
  url         = var.url
  allow_risky = ["admin-push-protected-branch"]
}

data "plumb_projects" "platform" {
  group   = "platform"
  exclude = ["platform/legacy/**"]
}

resource "plumb_repository_file" "codeowners" {
  for_each  = data.plumb_projects.platform.paths
  project   = each.value
  file_path = "CODEOWNERS"
  content   = "* @platform-owners\\n"
}

data "plumb_groups" "below" {
  group = "platform"
}

output "groups" { value = data.plumb_groups.below.paths }
output "ids" { value = data.plumb_projects.platform.ids }
`;

describe.runIf(cli)(`Terraform data sources end to end (${cli ? path.basename(cli) : 'not installed'})`, { timeout: TERRAFORM_TEST_TIMEOUT_MS }, () => {
  let emu: RunningEmulator;
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    ensureBuilt();
    emu = await startTestEmulator({
      seed: {
        users: [{ username: 'root', admin: true, personal_access_tokens: [{ name: 'plumb', token: ADMIN, scopes: ['api'], expires_at: null }] }],
        groups: [
          { full_path: 'platform', id: 10, name: 'Platform' },
          { full_path: 'platform/infra', id: 11, name: 'Infra' },
          { full_path: 'platform/legacy', id: 12, name: 'Legacy' },
        ],
        projects: [
          { path_with_namespace: 'platform/api', id: 20, default_branch: 'main', files: { 'README.md': 'api\n' } },
          { path_with_namespace: 'platform/web', id: 21, default_branch: 'main', files: { 'README.md': 'web\n' } },
          { path_with_namespace: 'platform/infra/db', id: 22, default_branch: 'main', files: { 'README.md': 'db\n' } },
          { path_with_namespace: 'platform/old', id: 23, default_branch: 'main', archived: true, files: { 'README.md': 'old\n' } },
          { path_with_namespace: 'platform/legacy/billing', id: 24, default_branch: 'main', files: { 'README.md': 'billing\n' } },
        ],
      },
    });
    dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-tf-ds-'));
    writeFileSync(path.join(dir, 'main.tf'), MAIN_TF);
    const rc = writeDevOverrides(dir, root);
    env = { PATH: process.env.PATH ?? '', HOME: dir, TF_CLI_CONFIG_FILE: rc, TF_VAR_url: emu.url, PLUMB_TOKEN: ADMIN, TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1' };
  }, 300_000);

  afterAll(async () => {
    await emu?.close();
  });

  /** Runs a command without blocking: the emulator answers from this process. */
  function run(cmd: string, args: string[], cwd: string, extra: Record<string, string> = {}): Promise<{ code: number | null; out: string }> {
    return runCombined(cmd, args, { cwd, env: { ...env, ...extra }, timeoutMs: 90_000 });
  }
  const tf = (...args: string[]) => run(cli!, args, dir);

  const file = async (project: string, name: string): Promise<string | undefined> => {
    const r = await fetch(`${emu.url}/api/v4/projects/${encodeURIComponent(project)}/repository/files/${name}/raw?ref=main`, { headers: { 'PRIVATE-TOKEN': ADMIN } });
    return r.status === 200 ? await r.text() : undefined;
  };

  it('creates a file in every listed project with for_each over plumb_projects.paths, then plans no change (exit 0 with -detailed-exitcode)', async () => {
    const plan = await tf('plan', '-input=false', '-no-color', '-detailed-exitcode');
    expect(plan.code, plan.out).toBe(2);
    expect(plan.out).toContain('Plan: 3 to add, 0 to change, 0 to destroy');
    for (const p of ['platform/api', 'platform/infra/db', 'platform/web']) expect(plan.out).toContain(`plumb_repository_file.codeowners["${p}"] will be created`);
    const apply = await tf('apply', '-input=false', '-no-color', '-auto-approve');
    expect(apply.code, apply.out).toBe(0);
    expect(apply.out).toContain('Apply complete! Resources: 3 added, 0 changed, 0 destroyed');
    for (const p of ['platform/api', 'platform/web', 'platform/infra/db']) expect(await file(p, 'CODEOWNERS'), p).toBe('* @platform-owners\n');
    // Archived and excluded projects are not listed, so nothing is written there.
    expect(await file('platform/old', 'CODEOWNERS')).toBeUndefined();
    expect(await file('platform/legacy/billing', 'CODEOWNERS')).toBeUndefined();
    const outputs = JSON.parse((await tf('output', '-json')).out) as Record<string, { value: unknown }>;
    expect(outputs.groups!.value).toEqual(['platform/infra', 'platform/legacy']);
    expect(outputs.ids!.value).toEqual({ 'platform/api': 20, 'platform/infra/db': 22, 'platform/web': 21 });
    const again = await tf('plan', '-input=false', '-no-color', '-detailed-exitcode');
    expect(again.code, again.out).toBe(0);
  });

  it('fails the plan at the data source\'s group when the group does not exist', async () => {
    const bad = path.join(dir, 'bad');
    mkdirSync(bad);
    writeFileSync(
      path.join(bad, 'main.tf'),
      `terraform {\n  required_providers {\n    plumb = { source = "plumb.invalid/plumb/plumb" }\n  }\n}\nvariable "url" { type = string }\nprovider "plumb" { url = var.url }\n\ndata "plumb_projects" "missing" {\n  group = "platform/nope"\n}\n`,
    );
    const plan = await run(cli!, ['plan', '-input=false', '-no-color'], bad);
    expect(plan.code).toBe(1);
    expect(plan.out).toContain('Error: Group "platform/nope" not found');
    expect(plan.out).toContain('data "plumb_projects" "missing"');
    expect(plan.out).toMatch(/group = "platform\/nope"/);
    expect(plan.out).toContain('PLUMB_API_NOT_FOUND');
  });

  it('applies the CDKTF app that loops over the listing, synthesized as cdktf synth does, and then plans no change', async () => {
    const app = cdktfApp({ 'main.ts': FLEET_APP });
    const out = path.join(app, 'cdktf.out');
    const synth = await run(path.join(app, 'node_modules/.bin/tsx'), ['main.ts'], app, { CDKTF_OUTDIR: out, CDKTF_CONTEXT_JSON: '{}' });
    expect(synth.code, synth.out).toBe(0);
    const stack = path.join(out, 'stacks/fleet');
    // cdktf gives the stack a `local` backend, which needs init; init gets plumb from a local plugin directory.
    const version = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
    const platform = `${os.platform()}_${os.arch() === 'x64' ? 'amd64' : os.arch()}`;
    const plugins = path.join(app, 'plugins');
    const at = path.join(plugins, 'plumb.invalid/plumb/plumb', version, platform);
    mkdirSync(at, { recursive: true });
    symlinkSync(path.join(root, 'bin/terraform-provider-plumb'), path.join(at, 'terraform-provider-plumb'));
    const init = await run(cli!, [`-chdir=${stack}`, 'init', '-input=false', '-no-color', `-plugin-dir=${plugins}`], app, { TF_CLI_CONFIG_FILE: '' });
    expect(init.code, init.out).toBe(0);
    const apply = await run(cli!, [`-chdir=${stack}`, 'apply', '-input=false', '-no-color', '-auto-approve'], app);
    expect(apply.code, apply.out).toBe(0);
    expect(apply.out).toContain('Apply complete! Resources: 3 added');
    for (const p of ['platform/api', 'platform/web', 'platform/infra/db']) expect(await file(p, 'SECURITY.md'), p).toBe('Report vulnerabilities to security@example.test\n');
    expect(await file('platform/legacy/billing', 'SECURITY.md')).toBeUndefined();
    const again = await run(cli!, [`-chdir=${stack}`, 'plan', '-input=false', '-no-color', '-detailed-exitcode'], app);
    expect(again.code, again.out).toBe(0);
  });
});
