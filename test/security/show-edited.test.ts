/**
 * `plumb show` and `plumb comment` render a saved plan offline, from each change's attributes (issue
 * 18 item 4): an attacker who edits the payload (what apply sends) and leaves the attributes (what
 * a reviewer reads) must not get a plan that reads as the reviewed one. Each kind says what its
 * payload means (`describePayload`); show and comment refuse a change whose attributes disagree.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestEmulator } from '../helpers/emulator.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { secret, workdir } from '../helpers/cli.js';
import type { Workdir } from '../helpers/cli.js';
import { changeOf, savePlan } from '../helpers/plans.js';
import type { PlanJson } from '../helpers/plans.js';

const TOKEN = secret('admin-token-show-edited-0123456789');
const TODAY = '2026-03-01';

let emu: RunningEmulator | undefined;
let wd: Workdir;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

type Json = PlanJson;

async function savedPlan(settings: string[] = [], seedTokens: Json[] = [], tokenExtra: string[] = []): Promise<Json> {
  emu = await startTestEmulator({
    now: () => new Date(`${TODAY}T12:00:00Z`),
    seed: {
      users: [{ username: 'root', admin: true, personal_access_tokens: [{ name: 'plumb', token: TOKEN, scopes: ['api'] }] }],
      groups: [{ full_path: 'platform', access_tokens: seedTokens as never }],
      projects: [{ path_with_namespace: 'platform/app', default_branch: 'main', files: { 'README.md': 'hello\n' } }],
    },
  });
  wd = workdir({ PLUMB_TOKEN: TOKEN, PLUMB_NOW: TODAY });
  wd.write('secrets/README', 'sinks land here\n');
  wd.write(
    'plumb.yaml',
    [
      'version: 1',
      'instances:',
      '  local:',
      `    url: ${emu.url}`,
      '    token_env: PLUMB_TOKEN',
      '    settings:',
      '      signup_enabled: false',
      ...settings.map((l) => `      ${l}`),
      '    groups:',
      '      platform:',
      '        access_tokens:',
      '          ci:',
      '            scopes: [read_api]',
      '            access_level: reporter',
      '            rotation: {lifetime_days: 30}',
      '            sink: {file: secrets/ci.token}',
      ...tokenExtra.map((l) => `            ${l}`),
      '    projects:',
      '      platform/app:',
      '        files:',
      '          NOTES.md:',
      '            content: "notes\\n"',
    ].join('\n') + '\n',
  );
  return savePlan(wd);
}

/** show (human and markdown) and comment of the edited plan: each refused, naming the change. */
async function refused(plan: Json, address: string, why: RegExp): Promise<void> {
  wd.write('edited.json', JSON.stringify(plan));
  for (const args of [['show', 'edited.json'], ['show', 'edited.json', '--markdown'], ['comment', 'edited.json']]) {
    const r = await wd.run(args);
    expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('PLUMB_PLAN_EDITED');
    expect(r.stderr).toContain(address);
    expect(r.stderr).toMatch(why);
  }
}

describe('plumb show of a saved plan whose payload was edited', () => {
  it('shows an unedited plan, every kind of change in it', async () => {
    const plan = await savedPlan();
    expect(plan.changes.map((c: Json) => c.action)).toEqual(expect.arrayContaining(['update', 'create']));
    const r = await wd.run(['show', 'plan.json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect((await wd.run(['show', 'plan.json', '--markdown'])).code).toBe(0);
  });

  it('refuses a settings payload that turns sign-up on where the attributes say off', async () => {
    const plan = await savedPlan();
    changeOf(plan, /application_settings$/).payload.set.signup_enabled = true;
    await refused(plan, 'local.application_settings', /signup_enabled = false, its payload sends true/);
  });

  it('refuses a settings payload that sends a setting no attribute shows', async () => {
    const plan = await savedPlan();
    changeOf(plan, /application_settings$/).payload.set.default_project_visibility = 'public';
    await refused(plan, 'local.application_settings', /does not show default_project_visibility/);
  });

  it('refuses a token payload raised to api / Owner while the attributes say read_api / Reporter', async () => {
    const plan = await savedPlan();
    const token = changeOf(plan, /access_token\["ci"\]$/).payload;
    token.create.scopes = ['api'];
    token.create.access_level = 50;
    await refused(plan, 'access_token["ci"]', /scopes = \["read_api"\], its payload sends \["api"\]/);
  });

  it('refuses a file payload that writes .gitlab-ci.yml at the address of NOTES.md', async () => {
    const plan = await savedPlan();
    changeOf(plan, /NOTES\.md/).payload.path = '.gitlab-ci.yml';
    await refused(plan, 'NOTES.md', /its payload acts on .*\.gitlab-ci\.yml/);
  });

  it('refuses a token payload that creates a token of another name than the one shown', async () => {
    const plan = await savedPlan();
    const token = changeOf(plan, /access_token\["ci"\]$/).payload;
    token.name = 'deploy-admin';
    token.create.name = 'deploy-admin';
    await refused(plan, 'access_token["ci"]', /its payload acts on .*access_token\["deploy-admin"\]/);
  });
});

describe('what a payload sends, shown', () => {
  it("shows a rule's partner settings sent along with the flag that needs them, unchanged", async () => {
    // Plan once to learn the instance's values, then declare the partners as they are.
    const first = await savedPlan();
    expect(first.changes.length).toBeGreaterThan(0);
    const live = emu!.state.settings as unknown as Record<string, unknown>;
    const period = live.throttle_authenticated_api_period_in_seconds;
    const requests = live.throttle_authenticated_api_requests_per_period;
    await emu!.close();
    const plan = await savedPlan(['throttle_authenticated_api_enabled: true', `throttle_authenticated_api_period_in_seconds: ${period}`, `throttle_authenticated_api_requests_per_period: ${requests}`]);
    const settings = changeOf(plan, /application_settings$/);
    expect(settings.payload.set.throttle_authenticated_api_period_in_seconds).toBe(period);
    expect(settings.attributes).toEqual(
      expect.arrayContaining([
        { name: 'throttle_authenticated_api_period_in_seconds', before: period, after: period },
        { name: 'throttle_authenticated_api_requests_per_period', before: requests, after: requests },
      ]),
    );
    const r = await wd.run(['show', 'plan.json']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`throttle_authenticated_api_period_in_seconds = ${period}`);
  });

  it('shows the unchanged scopes and access level of a token it replaces', async () => {
    const plan = await savedPlan([], [{ name: 'ci', token: 'seeded-ci-token-0000001', scopes: ['read_api'], access_level: 20, expires_at: '2026-03-20', description: 'old' }], ['description: new']);
    const token = changeOf(plan, /access_token\["ci"\]$/);
    expect(token.action).toBe('replace');
    expect(token.attributes).toEqual(
      expect.arrayContaining([
        { name: 'description', before: 'old', after: 'new' },
        { name: 'scopes', before: ['read_api'], after: ['read_api'] },
        { name: 'access_level', before: 20, after: 20 },
      ]),
    );
    const r = await wd.run(['show', 'plan.json']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\s+access_level = 20$/m);
  });
});
