/**
 * CI/CD variables as a kind of their own (issue 31 item 6), against the emulator over loopback:
 * declared under a project and a group, applied, drift after a hand edit (named), applied again,
 * plan empty; prune; validation errors located; a hidden variable compared through the state's
 * fingerprint. No value, secret or literal, ever appears in an output, a plan file or the state.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN, SEED, startTestEmulator } from '../../helpers/emulator.js';
import type { TestEmulator } from '../../helpers/emulator.js';
import { secret, workdir } from '../../helpers/cli.js';
import type { Workdir } from '../../helpers/cli.js';
import type { EmulatorSeed } from '../../../src/emulator/index.js';
import type { Plan } from '../../../src/engine/plan.js';

secret(ADMIN);
const DEPLOY = secret('deploy-secret-value-0001');
const DEPLOY_NEW = secret('deploy-secret-value-0002');
const HAND = secret('edited-by-hand-value-01');
const PROD_URL = secret('https://prod.api.example.test');
const STAGING_URL = secret('https://staging.api.example.test');
const GROUP_LITERAL = secret('group-literal-value-77');

let emu: TestEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

async function start(seed: EmulatorSeed = SEED): Promise<Workdir> {
  emu = await startTestEmulator({ seed });
  return workdir({ PLUMB_TOKEN: ADMIN, DEPLOY_SECRET: DEPLOY });
}

const head = (url: string) => `version: 1\ninstances:\n  local:\n    url: ${url}\n    token_env: PLUMB_TOKEN\n`;

function config(url: string): string {
  return (
    head(url) +
    `    projects:
      platform/site:
        variables:
          DEPLOY_KEY:
            value: \${env:DEPLOY_SECRET}
            protected: true
            masked: true
          API_URL:
            scopes:
              production: {value: "${PROD_URL}", description: the production API}
              staging: {value: "${STAGING_URL}"}
    groups:
      platform:
        variables:
          GROUP_VAR: {value: ${GROUP_LITERAL}, variable_type: file, raw: true}
`
  );
}

const projectVar = (key: string, scope = '*') => emu!.state.projectByRef('platform/site')!.variables.find((v) => v.key === key && v.environmentScope === scope);

async function planJson(wd: Workdir): Promise<Plan> {
  const r = await wd.run(['plan', '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Plan;
}

describe('CI/CD variables (variables: of a project or a group)', () => {
  it('round trip: declare, apply, drift after a hand edit (named), apply, plan empty; no value in any output or the state', async () => {
    const wd = await start();
    wd.write('plumb.yaml', config(emu!.url));

    const first = await planJson(wd);
    const created = first.changes.filter((c) => c.kind === 'cicd_variable');
    expect(created.map((c) => [c.address, c.action])).toEqual([
      ['local.group["platform"].variable["GROUP_VAR"]', 'create'],
      ['local.project["platform/site"].variable["API_URL"].scope["production"]', 'create'],
      ['local.project["platform/site"].variable["API_URL"].scope["staging"]', 'create'],
      ['local.project["platform/site"].variable["DEPLOY_KEY"]', 'create'],
    ]);
    const human = await wd.run(['plan']);
    expect(human.stdout).toContain('value = "(secret from ${env:DEPLOY_SECRET})"');

    const applied = await wd.run(['apply', '--auto-approve']);
    expect(applied.code, applied.stderr + applied.stdout).toBe(0);
    expect(projectVar('DEPLOY_KEY')).toMatchObject({ value: DEPLOY, protected: true, masked: true, raw: false, variableType: 'env_var' });
    expect(projectVar('API_URL', 'production')).toMatchObject({ value: PROD_URL, description: 'the production API' });
    expect(projectVar('API_URL', 'staging')).toMatchObject({ value: STAGING_URL });
    expect(emu!.state.groupByRef('platform')!.variables).toMatchObject([{ key: 'GROUP_VAR', value: GROUP_LITERAL, variableType: 'file', raw: true }]);

    expect((await planJson(wd)).changes.filter((c) => c.action !== 'no-op')).toEqual([]);

    // Hand edits: a value and a flag.
    projectVar('DEPLOY_KEY')!.value = HAND;
    projectVar('API_URL', 'production')!.protected = true;
    const drift = await wd.run(['drift']);
    expect(drift.code, drift.stderr).toBe(2);
    expect(drift.stdout).toContain('project platform/site variable DEPLOY_KEY was edited on the instance (value)');
    expect(drift.stdout).toContain('project platform/site variable API_URL (scope production) was edited on the instance (protected)');

    const again = await wd.run(['apply', '--auto-approve']);
    expect(again.code, again.stderr + again.stdout).toBe(0);
    expect(projectVar('DEPLOY_KEY')!.value).toBe(DEPLOY);
    expect(projectVar('API_URL', 'production')!.protected).toBe(false);
    expect((await planJson(wd)).changes.filter((c) => c.action !== 'no-op')).toEqual([]);
    expect((await wd.run(['drift'])).code).toBe(0);

    // A new secret in the environment is a value change, never shown.
    const changed = await wd.run(['plan', '--json'], { DEPLOY_SECRET: DEPLOY_NEW });
    const plan = JSON.parse(changed.stdout) as Plan;
    expect(plan.changes.map((c) => [c.address, c.action, c.reasons])).toEqual([['local.project["platform/site"].variable["DEPLOY_KEY"]', 'update', ['variable-value-changed']]]);

    // The state holds fingerprints only (the workdir's scan checks every file plumb wrote, the state included).
    const state = readFileSync(path.join(wd.dir, '.plumb', 'state.json'), 'utf8');
    expect(state).toContain('ci_variables');
    for (const v of [DEPLOY, PROD_URL, STAGING_URL, GROUP_LITERAL]) expect(state).not.toContain(v);
  });

  it('prune_variables deletes the undeclared variables of a project, and only there', async () => {
    const seed: EmulatorSeed = {
      ...SEED,
      projects: SEED.projects!.map((p) => (p.path_with_namespace === 'platform/empty' ? { ...p, variables: [{ key: 'KEEP', value: 'kept' }, { key: 'OLD', value: 'old' }, { key: 'OLD', value: 'old-prod', environment_scope: 'production' }] } : p.path_with_namespace === 'platform/nopages' ? { ...p, variables: [{ key: 'OTHER', value: 'x' }] } : p)),
    };
    const wd = await start(seed);
    wd.write('plumb.yaml', head(emu!.url) + `    projects:\n      platform/empty:\n        prune_variables: true\n        variables:\n          KEEP: {value: kept}\n      platform/nopages:\n        variables:\n          NEW: {value: new}\n`);
    const plan = await planJson(wd);
    expect(plan.changes.map((c) => [c.address, c.action])).toEqual([
      ['local.project["platform/empty"].variable["OLD"]', 'delete'],
      ['local.project["platform/empty"].variable["OLD"].scope["production"]', 'delete'],
      ['local.project["platform/nopages"].variable["NEW"]', 'create'],
    ]);
    const r = await wd.run(['apply', '--auto-approve']);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(emu!.state.projectByRef('platform/empty')!.variables.map((v) => v.key)).toEqual(['KEEP']);
    expect(emu!.state.projectByRef('platform/nopages')!.variables.map((v) => v.key)).toEqual(['OTHER', 'NEW']);
  });

  it('prune_variables leaves alone a variable a token\'s ci_variable sink writes', async () => {
    const seed: EmulatorSeed = { ...SEED, projects: SEED.projects!.map((p) => (p.path_with_namespace === 'platform/empty' ? { ...p, variables: [{ key: 'DEPLOY_TOKEN', value: 'written-by-the-sink-1', masked: true, protected: true, raw: true }, { key: 'OLD', value: 'old' }] } : p)) };
    const wd = await start(seed);
    wd.write(
      'plumb.yaml',
      head(emu!.url) +
        `    projects:
      platform/empty:
        prune_variables: true
        variables:
          KEEP: {value: kept}
    groups:
      platform:
        access_tokens:
          deployer:
            scopes: [read_api]
            rotation: {lifetime_days: 30}
            sink: {ci_variable: {project: platform/empty, key: DEPLOY_TOKEN}}
`,
    );
    const plan = await planJson(wd);
    expect(plan.changes.filter((c) => c.kind === 'cicd_variable').map((c) => [c.address, c.action])).toEqual([
      ['local.project["platform/empty"].variable["KEEP"]', 'create'],
      ['local.project["platform/empty"].variable["OLD"]', 'delete'],
    ]);
  });

  it('validation errors are located: a key, a scope, a masked literal value (at validate); a masked secret value (at plan)', async () => {
    const wd = await start();
    wd.write(
      'plumb.yaml',
      head(emu!.url) +
        `    projects:
      platform/site:
        variables:
          BAD-KEY: {value: abc}
          SHORT: {value: abc, masked: true}
          SCOPED: {value: abcdefghij, environment_scope: "prod!"}
`,
    );
    const v = await wd.run(['validate']);
    expect(v.code).toBe(1);
    const out = v.stderr + v.stdout;
    expect(out).toMatch(/PLUMB_CI_VARIABLE_KEY_INVALID.*\n.*plumb\.yaml:9:11/);
    expect(out).toMatch(/PLUMB_CI_VARIABLE_UNMASKABLE.*\n.*plumb\.yaml:10:26/);
    expect(out).toMatch(/PLUMB_CI_VARIABLE_SCOPE_INVALID.*\n.*plumb\.yaml:11:58/);

    // A secret value is checked at plan, located at its value, and never quoted.
    const weak = secret('has spaces in it');
    wd.write('plumb.yaml', head(emu!.url) + `    projects:\n      platform/site:\n        variables:\n          TOKEN: {value: "\${env:WEAK}", masked: true}\n`);
    expect((await wd.run(['validate'], { WEAK: weak })).code).toBe(0);
    const p = await wd.run(['plan'], { WEAK: weak });
    expect(p.code).toBe(1);
    expect(p.stdout + p.stderr).toContain('PLUMB_CI_VARIABLE_UNMASKABLE');
    expect(p.stdout + p.stderr).toContain('plumb.yaml:9:19');
    expect(emu!.requests.some((r) => r.method !== 'GET')).toBe(false);

    // Only the value may be interpolated, and never from a credential.
    wd.write('plumb.yaml', head(emu!.url) + `    projects:\n      platform/site:\n        variables:\n          A: {value: "\${env:PLUMB_TOKEN}"}\n          B: {value: x, description: "\${env:WEAK}"}\n`);
    const refused = await wd.run(['validate'], { WEAK: weak });
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toMatch(/PLUMB_INTERPOLATION_CREDENTIAL[^\n]*\n\s+--> plumb\.yaml:9:/);
    expect(refused.stdout + refused.stderr).toMatch(/PLUMB_INTERPOLATION_NOT_ALLOWED[^\n]*\n\s+--> plumb\.yaml:10:/);
  });

  it('a masked_and_hidden variable: created hidden, compared through the fingerprint in the state, its value sent again when none is recorded', async () => {
    const wd = await start();
    wd.write('plumb.yaml', head(emu!.url) + `    groups:\n      platform:\n        variables:\n          HIDDEN: {value: "\${env:DEPLOY_SECRET}", masked_and_hidden: true, protected: true}\n`);
    const r = await wd.run(['apply', '--auto-approve']);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(emu!.state.groupByRef('platform')!.variables).toMatchObject([{ key: 'HIDDEN', value: DEPLOY, hidden: true, masked: true, protected: true }]);
    // The service never returns the value: the state's fingerprint says it holds the declared one.
    expect((await planJson(wd)).changes).toEqual([]);
    // A new value is seen through the fingerprint.
    const next = JSON.parse((await wd.run(['plan', '--json'], { DEPLOY_SECRET: DEPLOY_NEW })).stdout) as Plan;
    expect(next.changes.map((c) => [c.action, c.reasons])).toEqual([['update', ['variable-value-changed']]]);
    // Without the state, plumb cannot compare it: it sends the value again, and says so.
    const state = path.join(wd.dir, '.plumb', 'state.json');
    const other = await wd.run(['plan', '--json', '--state', path.join(wd.dir, 'elsewhere.json')]);
    const blind = JSON.parse(other.stdout) as Plan;
    expect(blind.changes.map((c) => [c.action, c.reasons, c.attributes.find((a) => a.name === 'value')?.notComparable])).toEqual([['update', ['variable-value-not-comparable'], true]]);
    expect(readFileSync(state, 'utf8')).not.toContain(DEPLOY);
    // Unhiding is a replace (the service sets masked_and_hidden at creation only).
    wd.write('plumb.yaml', head(emu!.url) + `    groups:\n      platform:\n        variables:\n          HIDDEN: {value: "\${env:DEPLOY_SECRET}", masked: true, protected: true}\n`);
    const replaced = await wd.run(['apply', '--auto-approve']);
    expect(replaced.code, replaced.stderr + replaced.stdout).toBe(0);
    expect(emu!.state.groupByRef('platform')!.variables).toMatchObject([{ key: 'HIDDEN', value: DEPLOY, hidden: false, masked: true }]);
  });

  it('under defaults: and in a selector\'s body, as under a project; placeholders replaced per match', async () => {
    const wd = await start();
    wd.write(
      'plumb.yaml',
      `version: 1
defaults:
  groups:
    platform:
      variables:
        SHARED: {value: from-defaults-1}
instances:
  local:
    url: ${emu!.url}
    token_env: PLUMB_TOKEN
    projects:
      "platform/*":
        variables:
          PROJECT_PATH: {value: "{project}", description: set by a selector}
`,
    );
    const r = await wd.run(['apply', '--auto-approve']);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(emu!.state.groupByRef('platform')!.variables).toMatchObject([{ key: 'SHARED', value: 'from-defaults-1' }]);
    for (const p of ['platform/site', 'platform/nopages', 'platform/empty']) expect(emu!.state.projectByRef(p)!.variables).toMatchObject([{ key: 'PROJECT_PATH', value: p }]);
    expect(emu!.state.projectByRef('platform/infra/config')!.variables).toEqual([]);
    expect((await planJson(wd)).changes).toEqual([]);
  });

  it('a variable declared both under variables: and as a token\'s ci_variable sink is an error at validate, located at both', async () => {
    const wd = workdir({ PLUMB_TOKEN: ADMIN });
    wd.write(
      'plumb.yaml',
      `version: 1
instances:
  local:
    url: https://code.example.test
    token_env: PLUMB_TOKEN
    projects:
      platform/site:
        variables:
          DEPLOY_TOKEN: {value: literal-value-123}
    groups:
      platform:
        access_tokens:
          deployer:
            scopes: [read_api]
            rotation: {lifetime_days: 30}
            sink:
              ci_variable: {project: Platform/Site, key: DEPLOY_TOKEN}
`,
    );
    const r = await wd.run(['validate', '--json']);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as { diagnostics: { code: string; summary: string; line?: number; related?: { message: string; line?: number }[] }[] };
    const twice = doc.diagnostics.filter((d) => d.code === 'PLUMB_CLAIMED_TWICE');
    expect(twice).toHaveLength(1);
    expect(twice[0]!.summary).toContain('project platform/site variable DEPLOY_TOKEN is declared twice');
    expect([twice[0]!.line, twice[0]!.related?.[0]?.line]).toEqual([9, 17]);
    // Another scope is another variable.
    wd.write('plumb.yaml', wd.read('plumb.yaml').replace('key: DEPLOY_TOKEN}', 'key: DEPLOY_TOKEN, environment_scope: production}'));
    const other = await wd.run(['validate', '--json']);
    expect((JSON.parse(other.stdout) as { diagnostics: { code: string }[] }).diagnostics.map((d) => d.code)).not.toContain('PLUMB_CLAIMED_TWICE');
  });
});

