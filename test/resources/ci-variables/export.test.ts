/**
 * CI/CD variables' part of `plumb export` (issue 31 item 6): declared by key with their fields, a
 * key in several scopes under `scopes:`, every value a `${env:…}` placeholder (never the value).
 * With the placeholders' variables set to the values, the export plans as no change.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN, SEED, startTestEmulator } from '../../helpers/emulator.js';
import type { TestEmulator } from '../../helpers/emulator.js';
import { secret, workdir } from '../../helpers/cli.js';
import type { EmulatorSeed } from '../../../src/emulator/index.js';
import type { Plan } from '../../../src/engine/plan.js';

secret(ADMIN);
const DEPLOY = secret('exported-never-0001');
const PROD = secret('exported-never-prod-1');
const STAGING = secret('exported-never-stag-1');
const HIDDEN = secret('exported-never-hidden');

let emu: TestEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const SEEDED: EmulatorSeed = {
  ...SEED,
  projects: SEED.projects!.map((p) =>
    p.path_with_namespace === 'platform/site'
      ? {
          ...p,
          variables: [
            { key: 'DEPLOY_KEY', value: DEPLOY, protected: true, masked: true, description: 'deploys' },
            { key: 'API_URL', value: PROD, environment_scope: 'production' },
            { key: 'API_URL', value: STAGING, environment_scope: 'staging', raw: true },
          ],
        }
      : p,
  ),
  groups: SEED.groups!.map((g) => (g.full_path === 'platform' ? { ...g, variables: [{ key: 'SECRET_FILE', value: HIDDEN, variable_type: 'file' as const, hidden: true }] } : g)),
};

describe('plumb export of CI/CD variables', () => {
  it('writes every field but the value, which is a ${env:…} placeholder; with those set, the export plans as no change', async () => {
    emu = await startTestEmulator({ seed: SEEDED });
    const wd = workdir({ PLUMB_TOKEN: ADMIN });
    const r = await wd.run(['export', '--instance-url', emu.url, '--out', 'out', '--instance', 'local', '--variables-project', 'platform/site', '--variables-group', 'platform']);
    expect(r.code, r.stderr).toBe(0);
    const yaml = wd.read('out/plumb.yaml');
    expect(yaml).toContain('value: ${env:PLATFORM_SITE__DEPLOY_KEY}');
    expect(yaml).toContain('value: ${env:PLATFORM_SITE__API_URL__PRODUCTION}');
    expect(yaml).toContain('value: ${env:PLATFORM__SECRET_FILE}');
    expect(yaml).toMatch(/scopes:\n\s+production:/);
    expect(yaml).toContain('masked_and_hidden: true');
    expect(yaml).toContain('value not exported');
    for (const v of [DEPLOY, PROD, STAGING, HIDDEN]) expect(yaml).not.toContain(v);

    const env = { PLATFORM_SITE__DEPLOY_KEY: DEPLOY, PLATFORM_SITE__API_URL__PRODUCTION: PROD, PLATFORM_SITE__API_URL__STAGING: STAGING, PLATFORM__SECRET_FILE: HIDDEN };
    const p = await wd.run(['plan', 'out', '--json'], env);
    expect(p.code, p.stderr).toBe(0);
    const plan = JSON.parse(p.stdout) as Plan;
    // The hidden variable cannot be compared without a fingerprint: only its value is sent again.
    expect(plan.changes.filter((c) => c.kind === 'cicd_variable').map((c) => [c.address, c.reasons])).toEqual([['local.group["platform"].variable["SECRET_FILE"]', ['variable-value-not-comparable']]]);
  });
});
