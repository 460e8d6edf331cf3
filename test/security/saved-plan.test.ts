/**
 * A saved plan is hostile input (issue 18, item 4): `apply plan.json` executes only what the
 * configuration and the live state yield. An edited payload, a forged acceptance of a risk, a
 * deleted risk or destroy gate: apply refuses the whole plan, names the change, and the emulator's
 * state is unchanged.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestEmulator } from '../helpers/emulator.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { secret, workdir } from '../helpers/cli.js';
import type { Workdir } from '../helpers/cli.js';
import { changeOf, savePlan } from '../helpers/plans.js';
import type { PlanJson } from '../helpers/plans.js';

const TOKEN = secret('admin-token-saved-plan-0123456789');
const TODAY = '2026-03-01';

let emu: RunningEmulator;
/** The emulator's day (plumb's --now follows it through PLUMB_NOW). */
let emuDay = TODAY;
let wd: Workdir;

afterEach(async () => {
  await emu?.close();
});

async function start(): Promise<void> {
  emuDay = TODAY;
  emu = await startTestEmulator({
    now: () => new Date(`${emuDay}T12:00:00Z`),
    seed: {
      users: [{ username: 'root', admin: true, personal_access_tokens: [{ name: 'plumb', token: TOKEN, scopes: ['api'] }] }],
      groups: [{ full_path: 'platform' }],
      projects: [
        // Unprotected: an administrator's commit onto a protected branch is a risk these tests do not accept.
        { path_with_namespace: 'platform/app', default_branch: 'main', protected_branches: [], files: { 'README.md': 'hello\n' } },
        { path_with_namespace: 'platform/docs', pages: { https_only: false, deployments: [{ created_at: '2025-07-01T10:00:00.000Z' }] } },
      ],
    },
  });
  wd = workdir({ PLUMB_TOKEN: TOKEN, PLUMB_NOW: TODAY });
  wd.write('secrets/README', 'sinks land here\n');
  wd.allow('secrets/ci.token');
}

/** The reviewed configuration: a setting, a read_api/reporter token, a file, optional extras. */
function config(extra: { settings?: string[]; allowRisky?: string; pages?: string[] } = {}): void {
  wd.write(
    'plumb.yaml',
    [
      'version: 1',
      'instances:',
      '  local:',
      `    url: ${emu.url}`,
      '    token_env: PLUMB_TOKEN',
      '    settings_verify_seconds: 0',
      ...(extra.allowRisky ? [`    allow_risky: ${extra.allowRisky}`] : []),
      '    settings:',
      '      signup_enabled: false',
      ...(extra.settings ?? []).map((l) => `      ${l}`),
      '    groups:',
      '      platform:',
      '        access_tokens:',
      '          ci:',
      '            scopes: [read_api]',
      '            access_level: reporter',
      '            rotation: {lifetime_days: 30}',
      '            sink: {file: secrets/ci.token}',
      '    projects:',
      '      platform/app:',
      '        files:',
      '          NOTES.md:',
      '            content: "notes\\n"',
      ...(extra.pages ? ['      platform/docs:', '        pages:', ...extra.pages.map((l) => `          ${l}`)] : []),
    ].join('\n') + '\n',
  );
}

/** What a refused apply must leave alone: settings, tokens, files, Pages. */
function snapshot(): string {
  const s = emu.state;
  return JSON.stringify({
    settings: s.settings,
    tokens: s.tokens.map((t) => ({ id: t.id, name: t.name, scopes: t.scopes, revoked: t.revoked, expiresAt: t.expiresAt })),
    files: s.projects.map((p) => [p.pathWithNamespace, [...(p.repo.branchHead(p.defaultBranch)?.files.keys() ?? [])].sort()]),
    pages: s.projects.map((p) => p.pages && { https: p.pages.httpsOnly, deployments: p.pages.deployments.length }),
  });
}

type Json = PlanJson;

async function savedPlan(): Promise<Json> {
  return savePlan(wd);
}

async function applyEdited(plan: Json, ...flags: string[]) {
  wd.write('plan.json', JSON.stringify(plan));
  const before = snapshot();
  const r = await wd.run(['apply', 'plan.json', '--state', 'state.json', ...flags]);
  expect(snapshot()).toBe(before);
  expect(r.code).toBe(1);
  expect(r.stderr).not.toMatch(/\n\s+at .*\(.*:\d+:\d+\)/); // no stack trace
  return r;
}

describe('apply of an edited saved plan', () => {
  it('refuses a payload that sets a setting the configuration does not declare, naming the change', async () => {
    await start();
    config();
    const plan = await savedPlan();
    changeOf(plan, /application_settings$/).payload.set.default_project_visibility = 'public';
    const r = await applyEdited(plan);
    expect(r.stderr).toContain('PLUMB_PLAN_EDITED');
    expect(r.stderr).toContain('local.application_settings');
  });

  it('refuses a payload that turns sign-up on where the reviewed plan turns it off', async () => {
    await start();
    config();
    const plan = await savedPlan();
    const settings = changeOf(plan, /application_settings$/);
    expect(settings.payload.set.signup_enabled).toBe(false);
    settings.payload.set.signup_enabled = true;
    const r = await applyEdited(plan);
    expect(r.stderr).toContain('PLUMB_PLAN_EDITED');
    expect(r.stderr).toMatch(/local\.application_settings.*payload/);
  });

  it('refuses a token payload whose scopes and access level were raised to api / Owner', async () => {
    await start();
    config();
    const plan = await savedPlan();
    const token = changeOf(plan, /access_token\["ci"\]$/);
    token.payload.create.scopes = ['api'];
    token.payload.create.access_level = 50;
    const r = await applyEdited(plan);
    expect(r.stderr).toContain('PLUMB_PLAN_EDITED');
    expect(r.stderr).toContain('access_token["ci"]');
    expect(existsSync(path.join(wd.dir, 'secrets/ci.token'))).toBe(false);
  });

  it('refuses a file payload whose path was changed to .gitlab-ci.yml', async () => {
    await start();
    config();
    const plan = await savedPlan();
    changeOf(plan, /NOTES\.md/).payload.path = '.gitlab-ci.yml';
    const r = await applyEdited(plan);
    expect(r.stderr).toContain('PLUMB_PLAN_EDITED');
    expect(r.stderr).toContain('NOTES.md');
  });

  it('refuses a change added to the plan and a change removed from it', async () => {
    await start();
    config();
    const plan = await savedPlan();
    const extra = JSON.parse(JSON.stringify(changeOf(plan, /NOTES\.md/))) as Json;
    extra.address = extra.address.replace('NOTES.md', 'EVIL.md');
    extra.payload.path = 'EVIL.md';
    plan.changes.push(extra);
    let r = await applyEdited(plan);
    expect(r.stderr).toMatch(/PLUMB_PLAN_(EDITED|UNKNOWN_TARGET)/);
    expect(r.stderr).toContain('EVIL.md');

    const fresh = await savedPlan();
    fresh.changes = (fresh.changes as Json[]).filter((c) => !/access_token/.test(c.address));
    r = await applyEdited(fresh);
    expect(r.stderr).toContain('PLUMB_PLAN_EDITED');
    expect(r.stderr).toContain('lacks local.group["platform"].access_token["ci"]');
  });

  it('refuses a risk marked acknowledged in the file, and a deleted risks list, without --allow-risky', async () => {
    await start();
    config({ settings: ['require_two_factor_authentication: true', 'two_factor_grace_period: 0'] });
    const plan = await savedPlan();
    expect((plan.risks as Json[]).map((x) => x.id)).toContain('two-factor-without-grace');
    for (const r of plan.risks as Json[]) r.acknowledged = true;
    let r = await applyEdited(plan);
    expect(r.stderr).toContain('PLUMB_PLAN_EDITED');
    expect(r.stderr).toContain('two-factor-without-grace');

    plan.risks = [];
    r = await applyEdited(plan);
    expect(r.stderr).toContain('PLUMB_PLAN_EDITED');
    expect(r.stderr).toContain('lacks risk "two-factor-without-grace"');
  });

  it('refuses a destroy whose gate or whole risk was deleted from the file', async () => {
    await start();
    config({ pages: ['published: false'] });
    const plan = await savedPlan();
    const destroy = (plan.risks as Json[]).find((x) => x.gate === 'destroy');
    expect(destroy).toBeDefined();
    delete destroy!.gate;
    destroy!.acknowledged = true;
    let r = await applyEdited(plan);
    expect(r.stderr).toContain('PLUMB_PLAN_EDITED');

    plan.risks = (plan.risks as Json[]).filter((x) => x !== destroy);
    r = await applyEdited(plan, '--allow-risky');
    expect(r.stderr).toContain('PLUMB_PLAN_EDITED');
  });

  it('still reports a live change since the plan as stale, not as edited', async () => {
    await start();
    config();
    const plan = await savedPlan();
    emu.state.settings.signup_enabled = false;
    const r = await wd.run(['apply', 'plan.json', '--state', 'state.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_PLAN_STALE');
    expect(r.stderr).not.toContain('PLUMB_PLAN_EDITED');
    expect(plan.changes.length).toBeGreaterThan(0);
  });

  it('applies an unedited saved plan days later with the expiry dates the plan showed', async () => {
    await start();
    config();
    const plan = await savedPlan();
    const expiry = changeOf(plan, /access_token\["ci"\]$/).payload.create.expires_at;
    emuDay = '2026-03-04';
    const r = await wd.run(['apply', 'plan.json', '--state', 'state.json'], { PLUMB_NOW: emuDay });
    expect(r.code, r.stderr).toBe(0);
    expect(emu.state.tokens.find((t) => t.name === 'ci' && !t.revoked)?.expiresAt).toBe(expiry);
    expect(emu.state.settings.signup_enabled).toBe(false);
  });

  it('refuses a plan whose date lies after the day of the apply', async () => {
    await start();
    config();
    const plan = await savedPlan();
    plan.today = '2026-04-01';
    const r = await applyEdited(plan);
    expect(r.stderr).toContain('PLUMB_PLAN_EDITED');
  });
});
