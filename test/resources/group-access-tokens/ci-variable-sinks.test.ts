/**
 * ci_variable sinks (issue 31 items 2, 3, 5 sink half, 7): a token's secret delivered into CI/CD
 * variables of projects and groups, read back, planned, checked before any write, and compared
 * again by later plans (drift). Against the emulator over loopback.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { addDays, BASE_DAY, harness, ISSUED, seedToken } from './helpers.js';
import type { Harness } from './helpers.js';
import { secret } from '../../helpers/cli.js';
import { startTestEmulator } from '../../helpers/emulator.js';

const PROJECT = 'platform/app';
const TWO_SINKS = `[{ci_variable: {project: ${PROJECT}, key: DEPLOY_TOKEN}}, {ci_variable: {group: platform, key: GROUP_DEPLOY_TOKEN}}]`;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function start(opts: Parameters<typeof harness>[0] = {}): Promise<Harness> {
  h = await harness({ projects: [{ path_with_namespace: PROJECT }], ...opts });
  return h;
}

function variable(hh: Harness, owner: 'project' | 'group', ref: string, key: string) {
  const record = owner === 'project' ? hh.emu.state.projectByRef(ref) : hh.emu.state.groupByRef(ref);
  return record?.variables.find((v) => v.key === key);
}

/** The token whose secret a variable holds (by the emulator's own records). */
function tokenIn(hh: Harness, owner: 'project' | 'group', ref: string, key: string) {
  const v = variable(hh, owner, ref, key);
  return v ? hh.emu.state.tokenByValue(v.value) : undefined;
}

/** Every output and the state file: no issued secret anywhere (the harness scans the working directory). */
function expectNoSecretIn(hh: Harness, ...texts: string[]): void {
  for (const t of texts) expect(t.match(ISSUED)).toBeNull();
  const state = readFileSync(path.join(hh.wd.dir, '.plumb', 'state.json'), 'utf8');
  expect(state.match(ISSUED)).toBeNull();
}

describe('ci_variable sinks', () => {
  it('delivers a new token into a project variable and a group variable, reads both back, and plans nothing afterwards', async () => {
    const hh = await start();
    hh.config({ platform: { tokens: { deployer: { scopes: ['read_api'], sinks: TWO_SINKS } } } });
    const plan = await hh.run(['plan', '--detailed-exitcode']);
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stdout).toContain(`+ deliver to ci_variable ${PROJECT} DEPLOY_TOKEN (protected, masked)`);
    expect(plan.stdout).toContain('+ deliver to ci_variable group platform GROUP_DEPLOY_TOKEN (protected, masked)');

    const apply = await hh.run(['apply', '--auto-approve']);
    expect(apply.code, apply.stderr + apply.stdout).toBe(0);
    const [active] = hh.active('platform', 'deployer');
    expect(tokenIn(hh, 'project', PROJECT, 'DEPLOY_TOKEN')?.id).toBe(active!.id);
    expect(tokenIn(hh, 'group', 'platform', 'GROUP_DEPLOY_TOKEN')?.id).toBe(active!.id);
    const v = variable(hh, 'project', PROJECT, 'DEPLOY_TOKEN')!;
    expect(v).toMatchObject({ protected: true, masked: true, raw: true, hidden: false, environmentScope: '*', variableType: 'env_var' });
    expect(apply.stdout + apply.stderr).toContain(`secret delivered to ci_variable ${PROJECT} DEPLOY_TOKEN, read back and confirmed`);
    // Read back: one GET per variable after the write.
    expect(hh.count('GET', /\/projects\/platform%2Fapp\/variables\/DEPLOY_TOKEN$/)).toBeGreaterThanOrEqual(1);

    const again = await hh.run(['plan', '--detailed-exitcode']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    const json = await hh.run(['plan', '--json']);
    const drift = await hh.run(['drift', '--json']);
    expectNoSecretIn(hh, plan.stdout, plan.stderr, apply.stdout, apply.stderr, again.stdout, again.stderr, json.stdout, json.stderr, drift.stdout, drift.stderr);
  });

  it('applies a saved plan that delivers to a variable (its deliveries are part of what apply checks)', async () => {
    const hh = await start();
    hh.config({ platform: { tokens: { deployer: { sinks: TWO_SINKS } } } });
    expect((await hh.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    const saved = JSON.parse(hh.wd.read('plan.json')) as { changes: { deliveries?: { action: string; to: string }[] }[] };
    expect(saved.changes[0]!.deliveries).toHaveLength(2);
    const apply = await hh.run(['apply', 'plan.json', '--auto-approve']);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    expect(tokenIn(hh, 'group', 'platform', 'GROUP_DEPLOY_TOKEN')?.name).toBe('deployer');
  });

  it('updates an existing variable of that key and scope in place (PUT), and leaves the same key of another scope alone', async () => {
    const hh = await start({
      projects: [
        {
          path_with_namespace: PROJECT,
          variables: [
            { key: 'DEPLOY_TOKEN', value: 'old-value-123', environment_scope: '*' },
            { key: 'DEPLOY_TOKEN', value: 'production-value', environment_scope: 'production' },
          ],
        },
      ],
    });
    hh.config({ platform: { tokens: { deployer: { sink: `{ci_variable: {project: ${PROJECT}, key: DEPLOY_TOKEN}}` } } } });
    const apply = await hh.run(['apply', '--auto-approve']);
    expect(apply.code, apply.stderr + apply.stdout).toBe(0);
    const vars = hh.emu.state.projectByRef(PROJECT)!.variables.filter((v) => v.key === 'DEPLOY_TOKEN');
    expect(vars).toHaveLength(2);
    expect(vars.find((v) => v.environmentScope === 'production')!.value).toBe('production-value');
    expect(hh.emu.state.tokenByValue(vars.find((v) => v.environmentScope === '*')!.value)?.name).toBe('deployer');
    expect(hh.count('PUT', /\/variables\/DEPLOY_TOKEN$/)).toBe(1);
    expect(hh.count('POST', /\/variables$/)).toBe(0);
  });
});

describe('ci_variable sinks: drift', () => {
  it('reports a variable edited by hand with its address (drift exits 2), and the next apply issues a fresh secret and delivers it again', async () => {
    const hh = await start();
    hh.config({ platform: { tokens: { deployer: { sinks: TWO_SINKS } } } });
    expect((await hh.run(['apply', '--auto-approve'])).code).toBe(0);
    const first = hh.active('platform', 'deployer')[0]!;
    variable(hh, 'project', PROJECT, 'DEPLOY_TOKEN')!.value = 'edited-by-hand-123';

    const drift = await hh.run(['drift']);
    expect(drift.code, drift.stdout + drift.stderr).toBe(2);
    expect(drift.stdout).toContain(`ci_variable ${PROJECT} DEPLOY_TOKEN (sink of token "deployer") holds another value than plumb delivered`);
    expect(drift.stdout).toContain('local.group["platform"].access_token["deployer"]');
    expect(drift.stdout).not.toContain('edited-by-hand-123');

    const plan = await hh.run(['plan']);
    expect(plan.stdout).toMatch(/will be rotated \(.*a sink drifted/);
    const apply = await hh.run(['apply', '--auto-approve']);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    const now = hh.active('platform', 'deployer');
    expect(now).toHaveLength(1);
    expect(now[0]!.id).not.toBe(first.id);
    expect(tokenIn(hh, 'project', PROJECT, 'DEPLOY_TOKEN')?.id).toBe(now[0]!.id);
    expect(tokenIn(hh, 'group', 'platform', 'GROUP_DEPLOY_TOKEN')?.id).toBe(now[0]!.id);
    expect((await hh.run(['plan', '--detailed-exitcode'])).code).toBe(0);
  });

  it('reports a deleted variable, and a variable whose flags were changed by hand', async () => {
    const hh = await start();
    hh.config({ platform: { tokens: { deployer: { sinks: TWO_SINKS } } } });
    expect((await hh.run(['apply', '--auto-approve'])).code).toBe(0);
    const project = hh.emu.state.projectByRef(PROJECT)!;
    project.variables.splice(project.variables.findIndex((v) => v.key === 'DEPLOY_TOKEN'), 1);
    variable(hh, 'group', 'platform', 'GROUP_DEPLOY_TOKEN')!.protected = false;
    const drift = await hh.run(['drift']);
    expect(drift.code).toBe(2);
    expect(drift.stdout).toContain(`ci_variable ${PROJECT} DEPLOY_TOKEN (sink of token "deployer") was deleted outside plumb`);
    expect(drift.stdout).toContain('ci_variable group platform GROUP_DEPLOY_TOKEN (sink of token "deployer") was edited outside plumb (protected)');
    // One list per project or group, not one GET per variable.
    const before = hh.emu.requests.length;
    await hh.run(['plan']);
    const reads = hh.emu.requests.slice(before).filter((r) => r.method === 'GET' && /\/variables/.test(r.path));
    expect(reads.map((r) => r.path).sort()).toEqual(['/groups/platform/variables', '/projects/platform%2Fapp/variables']);
  });
});

describe('ci_variable sinks: planned like resources', () => {
  it('plans a rotation when a sink is added, although the rotation date has not come, and shows the delivery', async () => {
    const hh = await start();
    hh.config({ platform: { tokens: { deployer: {} } } });
    expect((await hh.run(['apply', '--auto-approve'])).code).toBe(0);
    expect((await hh.run(['plan', '--detailed-exitcode'])).code).toBe(0);
    hh.config({ platform: { tokens: { deployer: { sinks: `[{file: secrets/deployer.token}, {ci_variable: {project: ${PROJECT}, key: DEPLOY_TOKEN}}]` } } } });
    const plan = await hh.run(['plan', '--detailed-exitcode']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(2);
    expect(plan.stdout).toMatch(/will be rotated \(a sink was added/);
    expect(plan.stdout).toContain('+ deliver to file secrets/deployer.token');
    expect(plan.stdout).toContain(`+ deliver to ci_variable ${PROJECT} DEPLOY_TOKEN (protected, masked)`);
    const json = await hh.run(['plan', '--json']);
    const change = (JSON.parse(json.stdout) as { changes: { address: string; reasons: string[]; deliveries?: unknown[] }[] }).changes.find((c) => c.address.endsWith('access_token["deployer"]'))!;
    expect(change.reasons).toEqual(['sink-added']);
    expect(change.deliveries).toContainEqual({ action: 'deliver', to: `ci_variable ${PROJECT} DEPLOY_TOKEN (protected, masked)` });
    await hh.run(['plan', '--markdown', 'plan.md']);
    expect(hh.wd.read('plan.md')).toContain(`+ deliver to ci_variable ${PROJECT} DEPLOY_TOKEN (protected, masked)`);
    expect((await hh.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(tokenIn(hh, 'project', PROJECT, 'DEPLOY_TOKEN')?.name).toBe('deployer');
    expect(hh.tokenInSink('deployer')?.id).toBe(tokenIn(hh, 'project', PROJECT, 'DEPLOY_TOKEN')?.id);

    // Removed again: a visible change (a rotation, so the secret left there stops working).
    hh.config({ platform: { tokens: { deployer: {} } } });
    const removed = await hh.run(['plan', '--detailed-exitcode']);
    expect(removed.code).toBe(2);
    expect(removed.stdout).toMatch(/will be rotated \(a sink was removed/);
    expect(removed.stdout).toContain(`- stop delivering to ci_variable ${PROJECT} DEPLOY_TOKEN`);
  });

  it('fails at the sink\'s line, before any write, when the project does not exist or plumb may not write the group\'s variables', async () => {
    const hh = await start({
      users: [{ username: 'max', personal_access_tokens: [{ name: 'm', token: secret('maintainer-token-for-sinks-0001'), scopes: ['api'] }] }],
      groups: [{ full_path: 'platform', members: [{ username: 'max', access_level: 40 }] }],
    });
    hh.config({ platform: { tokens: { deployer: { sinks: `[{ci_variable: {project: platform/nope, key: DEPLOY_TOKEN}}]` } } } });
    const plan = await hh.run(['plan']);
    expect(plan.code, plan.stdout).toBe(1);
    const said = plan.stdout + plan.stderr;
    expect(said).toMatch(/error\[PLUMB_SINK_VARIABLE_UNUSABLE\]: Token "deployer" cannot receive its secret in ci_variable platform\/nope DEPLOY_TOKEN: project "platform\/nope" does not exist/);
    expect(said).toMatch(/plumb\.yaml:\d+:\d+/);
    const apply = await hh.run(['apply', '--auto-approve']);
    expect(apply.code).toBe(1);
    expect(hh.count('POST', /access_tokens/)).toBe(0);

    // A Maintainer of the group may not manage its variables (Owner may).
    hh.config({ platform: { tokens: { deployer: { sinks: `[{ci_variable: {group: platform, key: DEPLOY_TOKEN}}]` } } } });
    const denied = await hh.run(['apply', '--auto-approve'], { PLUMB_TOKEN: secret('maintainer-token-for-sinks-0001') });
    expect(denied.code).toBe(1);
    expect(denied.stdout + denied.stderr).toContain('may not manage the CI/CD variables of group "platform"');
    expect(denied.stdout + denied.stderr).toContain('give it the Owner role in the group');
    expect(hh.count('POST', /access_tokens/)).toBe(0);
  });

  it('refuses `sink:` and `sinks:` together, a sink naming both a project and a group, and an unknown instance, offline at validate', async () => {
    const hh = await start();
    hh.config({ platform: { tokens: { deployer: { sinks: `[{ci_variable: {project: ${PROJECT}, group: platform, key: K}}, {ci_variable: {project: ${PROJECT}, key: K2, instance: elsewhere}}]` } } } });
    hh.wd.write('plumb.yaml', hh.wd.read('plumb.yaml').replace('            sinks:', '            sink: {stdout: true}\n            sinks:'));
    const v = await hh.run(['validate']);
    expect(v.code).toBe(1);
    expect(v.stderr).toMatch(/error\[PLUMB_TOKEN_SINKS_BOTH\]: Token "deployer" has both `sink:` and `sinks:`\n\s+--> plumb\.yaml:\d+:\d+/);
    hh.config({ platform: { tokens: { deployer: { sinks: `[{ci_variable: {project: ${PROJECT}, group: platform, key: K}}, {ci_variable: {project: ${PROJECT}, key: K2, instance: elsewhere}}]` } } } });
    const w = await hh.run(['validate']);
    expect(w.stderr).toContain('error[PLUMB_SINK_VARIABLE_OWNER]');
    expect(w.stderr).toContain('error[PLUMB_SINK_INSTANCE_UNKNOWN]');
    expect(hh.emu.requests).toHaveLength(0);
  });

  it('flags an unmasked variable holding an api token as a risk that apply refuses unless allow_risky lists it', async () => {
    const hh = await start();
    hh.config({ platform: { tokens: { deployer: { scopes: ['api'], sink: `{ci_variable: {project: ${PROJECT}, key: DEPLOY_TOKEN, masked: false}}` } } } });
    const plan = await hh.run(['plan']);
    expect(plan.stdout + plan.stderr).toContain('unmasked-token-variable');
    expect(plan.stdout).toContain(`+ deliver to ci_variable ${PROJECT} DEPLOY_TOKEN (protected, NOT masked)`);
    const refused = await hh.run(['apply', '--auto-approve']);
    expect(refused.code).toBe(1);
    expect(hh.count('POST', /access_tokens/)).toBe(0);
    hh.wd.write('plumb.yaml', hh.wd.read('plumb.yaml').replace('    token_env: PLUMB_TOKEN', '    token_env: PLUMB_TOKEN\n    allow_risky: [unmasked-token-variable]'));
    const ok = await hh.run(['apply', '--auto-approve']);
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(variable(hh, 'project', PROJECT, 'DEPLOY_TOKEN')?.masked).toBe(false);
  });
});

describe('ci_variable sinks: a refused write', () => {
  it('reports a rotation whose secret reached one sink and not the other, naming the sink, exits 1, and the next apply rotates again', async () => {
    const hh = await start({ groups: [{ full_path: 'platform', access_tokens: [seedToken('deployer', 'seeded-deployer-0000001', { expires_at: addDays(BASE_DAY, 3) })] }] });
    hh.config({ platform: { tokens: { deployer: { sinks: TWO_SINKS } } } });
    hh.addFault({ method: 'POST', path: '/groups/platform/variables', action: { kind: 'status', status: 403, body: { message: '403 Forbidden' } } });
    hh.addFault({ method: 'PUT', path: '/groups/platform/variables/*', action: { kind: 'status', status: 403, body: { message: '403 Forbidden' } } });
    const apply = await hh.run(['apply', '--auto-approve']);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toMatch(/error\[PLUMB_SINK_FAILED\]: Delivering the secret of "deployer" \(id \d+\) to ci_variable group platform GROUP_DEPLOY_TOKEN failed: .*403/);
    expect(apply.stderr).toMatch(/error\[PLUMB_SINK_PARTIAL\]: The new secret of "deployer" \(id \d+\) reached ci_variable platform\/app DEPLOY_TOKEN but not ci_variable group platform GROUP_DEPLOY_TOKEN/);
    expect(apply.stderr).toMatch(/plumb\.yaml:\d+:\d+/);
    // The rotation happened and the old token is revoked: the state notes it, and the next plan rotates again.
    hh.emu.clearFaults();
    const plan = await hh.run(['plan']);
    expect(plan.stdout).toMatch(/will be rotated \(its secret was never received/);
    expect((await hh.run(['apply', '--auto-approve'])).code).toBe(0);
    const [active] = hh.active('platform', 'deployer');
    expect(tokenIn(hh, 'project', PROJECT, 'DEPLOY_TOKEN')?.id).toBe(active!.id);
    expect(tokenIn(hh, 'group', 'platform', 'GROUP_DEPLOY_TOKEN')?.id).toBe(active!.id);
  });
});

describe('ci_variable sinks on another instance', () => {
  const BACKUP_TOKEN = secret('backup-admin-token-for-sinks-0001');

  it('delivers with that instance\'s own credential and URL pin, and refuses at plan when that instance is not open in the run', async () => {
    const hh = await start();
    const backup = await startTestEmulator({
      seed: {
        users: [{ username: 'root', admin: true, personal_access_tokens: [{ name: 'plumb', token: BACKUP_TOKEN, scopes: ['api'] }] }],
        groups: [{ full_path: 'mirrors' }],
        projects: [{ path_with_namespace: 'mirrors/app' }],
      },
    });
    try {
      const yaml = [
        'version: 1',
        'instances:',
        '  local:',
        `    url: ${hh.emu.url}`,
        '    token_env: PLUMB_TOKEN',
        '    groups:',
        '      platform:',
        '        access_tokens:',
        '          mirror:',
        '            scopes: [read_repository]',
        '            rotation: {lifetime_days: 30}',
        '            sink: {ci_variable: {project: mirrors/app, key: SOURCE_TOKEN, instance: backup}}',
        '  backup:',
        `    url: ${backup.url}`,
        '    token_env: BACKUP_TOKEN',
        '',
      ].join('\n');
      hh.wd.write('plumb.yaml', yaml);
      const env = { BACKUP_TOKEN };

      // Only the token's instance open: the sink's instance is not, so nothing is issued.
      const narrowed = await hh.run(['apply', '--auto-approve', '--instance', 'local'], env);
      expect(narrowed.code).toBe(1);
      expect(narrowed.stdout + narrowed.stderr).toContain('instance "backup" is not open in this run');
      expect(hh.count('POST', /access_tokens/)).toBe(0);
      expect(backup.requests).toHaveLength(0);

      // The backup instance not allowed by the URL pin: refused as well, and it receives nothing.
      const pinned = await hh.run(['apply', '--auto-approve'], { ...env, PLUMB_ALLOWED_URLS: hh.emu.url, PLUMB_LOOPBACK_IS_TRUSTED: '0' });
      expect(pinned.code).toBe(1);
      expect(pinned.stdout + pinned.stderr).toContain('PLUMB_URL_NOT_ALLOWED');
      expect(hh.count('POST', /access_tokens/)).toBe(0);
      expect(backup.requests).toHaveLength(0);

      const apply = await hh.run(['apply', '--auto-approve'], env);
      expect(apply.code, apply.stdout + apply.stderr).toBe(0);
      const [active] = hh.active('platform', 'mirror');
      const v = backup.state.projectByRef('mirrors/app')!.variables.find((x) => x.key === 'SOURCE_TOKEN')!;
      expect(hh.emu.state.tokenByValue(v.value)?.id).toBe(active!.id);
      // Every variable request went to the backup instance (with its credential: the local one is unknown there).
      expect(hh.emu.requests.filter((r) => /variables/.test(r.path))).toHaveLength(0);
      expect(backup.requests.filter((r) => /variables/.test(r.path)).map((r) => r.status)).not.toContain(401);
      expect(backup.requests.some((r) => r.method === 'POST' && r.path === '/projects/mirrors%2Fapp/variables' && r.status === 201)).toBe(true);
      expect((await hh.run(['plan', '--detailed-exitcode'], env)).code).toBe(0);
    } finally {
      await backup.close();
    }
  });
});

describe('ci_variable sinks: hidden variables and selectors', () => {
  it('delivers into a hidden variable, says it cannot be read back, and still notices its flags edited by hand', async () => {
    const hh = await start();
    hh.config({ platform: { tokens: { deployer: { sink: `{ci_variable: {project: ${PROJECT}, key: DEPLOY_TOKEN, hidden: true}}` } } } });
    const apply = await hh.run(['apply', '--auto-approve']);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    expect(apply.stdout + apply.stderr).toContain(`secret delivered to ci_variable ${PROJECT} DEPLOY_TOKEN (hidden: delivered, not verifiable)`);
    const v = variable(hh, 'project', PROJECT, 'DEPLOY_TOKEN')!;
    expect(v).toMatchObject({ hidden: true, masked: true, protected: true });
    expect(hh.emu.state.tokenByValue(v.value)?.name).toBe('deployer');
    expect((await hh.run(['plan', '--detailed-exitcode'])).code).toBe(0);
    v.protected = false;
    const drift = await hh.run(['drift']);
    expect(drift.code).toBe(2);
    expect(drift.stdout).toContain(`ci_variable ${PROJECT} DEPLOY_TOKEN (sink of token "deployer") was edited outside plumb (protected)`);
  });

  it('replaces {group} in a sink of a group selector: each matched group\'s token goes into that group\'s own variable', async () => {
    const hh = await start({ groups: [{ full_path: 'platform' }, { full_path: 'teams' }, { full_path: 'teams/a' }, { full_path: 'teams/b' }] });
    hh.config({ 'teams/*': { tokens: { ci: { sink: '{ci_variable: {group: "{group}", key: CI_TOKEN}}' } } } });
    const apply = await hh.run(['apply', '--auto-approve']);
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    for (const g of ['teams/a', 'teams/b']) {
      const [active] = hh.active(g, 'ci');
      expect(tokenIn(hh, 'group', g, 'CI_TOKEN')?.id, g).toBe(active!.id);
    }
    expect((await hh.run(['plan', '--detailed-exitcode'])).code).toBe(0);
  });
});

