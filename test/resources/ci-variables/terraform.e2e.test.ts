/**
 * CI/CD variables under the real Terraform (issue 31 item 6): `plumb_project_variable` with its
 * value from a sensitive variable (write-only: never in the plan file or the state) and a hidden
 * one, `plumb_group_variable` with a literal; applied, no change the second time, a new value seen
 * through `write_only_revision`, a hand edit seen on refresh. Runs whenever terraform or tofu is on
 * PATH; with CI set it must run.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, SEED, startTestEmulator } from '../../helpers/emulator.js';
import type { TestEmulator } from '../../helpers/emulator.js';
import { ensureBuilt, root } from '../../provider/harness.js';
import { failWithoutCliInCi, onPath, runCombined, writeDevOverrides, TERRAFORM_TEST_TIMEOUT_MS } from '../../helpers/terraform.js';
import { removeWhenDone } from '../../helpers/scratch.js';

const cli = onPath('terraform', 'tofu');
failWithoutCliInCi(cli, 'CI/CD variables under Terraform', 'terraform');

const DEPLOY = 'tf-deploy-secret-000001';
const DEPLOY_NEW = 'tf-deploy-secret-000002';

describe.runIf(cli)('CI/CD variables under Terraform', { timeout: TERRAFORM_TEST_TIMEOUT_MS }, () => {
  let emu: TestEmulator;
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    ensureBuilt();
    emu = await startTestEmulator({ seed: SEED });
    dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-tf-variables-'));
    removeWhenDone(dir);
    mkdirSync(path.join(dir, 'secrets'));
    writeFileSync(
      path.join(dir, 'main.tf'),
      `terraform {
  required_providers {
    plumb = { source = "plumb.invalid/plumb/plumb" }
  }
}
variable "url" { type = string }
variable "deploy_key" {
  type      = string
  sensitive = true
}
provider "plumb" { url = var.url }

resource "plumb_project_variable" "deploy" {
  project           = "platform/site"
  key               = "DEPLOY_KEY"
  environment_scope = "production"
  value             = var.deploy_key
  protected         = true
  masked            = true
}

resource "plumb_project_variable" "hidden" {
  project           = "platform/site"
  key               = "HIDDEN_KEY"
  environment_scope = "*"
  value             = var.deploy_key
  masked_and_hidden = true
}

resource "plumb_group_variable" "mirror" {
  group             = "platform"
  key               = "REGISTRY_MIRROR"
  environment_scope = "*"
  value             = "mirror.example.test"
  description       = "pulled by every project"
}
`,
    );
    env = {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      TF_CLI_CONFIG_FILE: writeDevOverrides(dir, root),
      TF_VAR_url: emu.url,
      TF_VAR_deploy_key: DEPLOY,
      PLUMB_TOKEN: ADMIN,
      TF_IN_AUTOMATION: '1',
      CHECKPOINT_DISABLE: '1',
    };
  }, 300_000);

  afterAll(async () => {
    await emu?.close();
  });

  const tf = (extra: Record<string, string>, ...args: string[]) => runCombined(cli!, args, { cwd: dir, env: { ...env, ...extra }, timeoutMs: 60_000 });
  const site = () => emu.state.projectByRef('platform/site')!.variables;

  it('applies them with the value kept out of plan and state, plans no change after, sees a new value and a hand edit', async () => {
    const apply = await tf({}, 'apply', '-input=false', '-no-color', '-auto-approve');
    expect(apply.code, apply.out).toBe(0);
    expect(apply.out).toContain('Apply complete! Resources: 3 added');
    expect(site().find((v) => v.key === 'DEPLOY_KEY')).toMatchObject({ value: DEPLOY, environmentScope: 'production', protected: true, masked: true, hidden: false });
    expect(site().find((v) => v.key === 'HIDDEN_KEY')).toMatchObject({ value: DEPLOY, environmentScope: '*', hidden: true, masked: true });
    expect(emu.state.groupByRef('platform')!.variables).toMatchObject([{ key: 'REGISTRY_MIRROR', value: 'mirror.example.test', description: 'pulled by every project' }]);
    const state = readFileSync(path.join(dir, 'terraform.tfstate'), 'utf8');
    expect(state).not.toContain(DEPLOY);
    expect(state).not.toContain('mirror.example.test');
    expect(apply.out).not.toContain(DEPLOY);

    const again = await tf({}, 'plan', '-input=false', '-no-color', '-detailed-exitcode');
    expect(again.code, again.out).toBe(0);

    // A new secret: seen through write_only_revision (the hidden one through the fingerprint in private state).
    const changed = await tf({ TF_VAR_deploy_key: DEPLOY_NEW }, 'plan', '-input=false', '-no-color', '-detailed-exitcode');
    expect(changed.code, changed.out).toBe(2);
    expect(changed.out).toContain('plumb_project_variable.deploy will be updated in-place');
    expect(changed.out).toContain('plumb_project_variable.hidden will be updated in-place');
    expect(changed.out).not.toContain('plumb_group_variable.mirror will be');
    expect(changed.out).not.toContain(DEPLOY_NEW);

    // A hand edit of a field: refresh sees it, apply sets it back.
    site().find((v) => v.key === 'DEPLOY_KEY')!.protected = false;
    const drifted = await tf({}, 'apply', '-input=false', '-no-color', '-auto-approve');
    expect(drifted.code, drifted.out).toBe(0);
    expect(drifted.out).toContain('1 changed');
    expect(site().find((v) => v.key === 'DEPLOY_KEY')!.protected).toBe(true);
  });
});
