/**
 * Pages planned and applied against the emulator over HTTP (spec 2.5, 4.3, 5): one GET per
 * project, PATCH with only the differing fields, unpublish as a destroy behind an opt-in, drift,
 * and the instance's refusals (404, 403, 400) as diagnostics on the YAML line.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestEmulator } from '../../helpers/emulator.js';
import type { EmulatorSeed, RunningEmulator } from '../../../src/emulator/index.js';
import { ADMIN, DEVELOPER, MAINTAINER, OWNER_READ, SEED } from '../../helpers/emulator.js';
import { secret, workdir } from '../../helpers/cli.js';
import type { Workdir } from '../../helpers/cli.js';
import { recorder } from './recorder.js';
import type { Recorder } from './recorder.js';
import type { Plan, PlanDiagnostic, ResourceChange } from '../../../src/engine/plan.js';

for (const t of [ADMIN, DEVELOPER, MAINTAINER, OWNER_READ]) secret(t);

/** The test seed, plus a second project with Pages (platform/docs) whose primary domain is set. */
const PAGES_SEED: EmulatorSeed = {
  ...SEED,
  projects: [
    ...(SEED.projects ?? []),
    {
      path_with_namespace: 'platform/docs',
      id: 34,
      visibility: 'private',
      pages: { https_only: true, unique_domain_enabled: true, primary_domain: 'a.example.test', domains: ['a.example.test', 'b.example.test'], deployments: [{ created_at: '2025-07-01T10:00:00.000Z' }] },
    },
  ],
};

let emu: RunningEmulator;
let rec: Recorder;
let wd: Workdir;

async function start(seed: EmulatorSeed = PAGES_SEED, token = ADMIN): Promise<void> {
  emu = await startTestEmulator({ seed });
  rec = await recorder(emu.url);
  wd = workdir({ PLUMB_TOKEN: token });
}

afterEach(async () => {
  await rec?.close();
  await emu?.close();
});

/** Writes plumb.yaml with one Pages block per project (raw YAML lines under `pages:`). */
function config(projects: Readonly<Record<string, readonly string[]>>): string {
  const lines = ['version: 1', 'instances:', '  local:', `    url: ${rec.url}`, '    token_env: PLUMB_TOKEN', '    projects:'];
  for (const [ref, body] of Object.entries(projects)) {
    lines.push(`      ${ref}:`, '        pages:' + (body.length === 0 ? ' {}' : ''), ...body.map((l) => `          ${l}`));
  }
  const text = lines.join('\n') + '\n';
  wd.write('plumb.yaml', text);
  return text;
}

/** 1-based line of the first line of the configuration containing `needle` after `after`. */
function lineOf(text: string, needle: string, after = ''): number {
  const lines = text.split('\n');
  const from = after ? lines.findIndex((l) => l.includes(after)) : 0;
  return lines.findIndex((l, i) => i >= from && l.includes(needle)) + 1;
}

const pagesOf = (ref: string) => emu.state.projectByRef(ref)!.pages!;
const calls = (method?: string) => rec.requests.filter((r) => !method || r.method === method);

async function planJson(): Promise<{ code: number; plan: Plan }> {
  const r = await wd.run(['plan', '--json']);
  return { code: r.code, plan: JSON.parse(r.stdout) };
}

describe('planning Pages', () => {
  it('reads each declared project with exactly one GET and no other request', async () => {
    await start();
    config({ 'platform/site': ['pages_https_only: false'], 'platform/docs': ['pages_https_only: true', 'pages_primary_domain: a.example.test'] });
    const { code, plan } = await planJson();
    expect(code).toBe(0);
    expect(calls().map((r) => `${r.method} ${r.path}`).sort()).toEqual(['GET /projects/platform%2Fdocs/pages', 'GET /projects/platform%2Fsite/pages']);
    expect(plan.changes.map((c) => [c.address, c.action])).toEqual([
      ['local.project["platform/site"].pages', 'no-op'],
      ['local.project["platform/docs"].pages', 'no-op'],
    ]);
  });

  it('no longer warns that Pages are validated only', async () => {
    await start();
    config({ 'platform/site': ['pages_https_only: false'] });
    const r = await wd.run(['plan']);
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).not.toContain('PLUMB_KIND_NOT_MANAGED');
    expect(r.stdout).toContain('No changes.');
  });

  it('sends the token in PRIVATE-TOKEN on every Pages request', async () => {
    await start();
    config({ 'platform/site': ['pages_unique_domain_enabled: true'] });
    expect((await wd.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(calls().length).toBeGreaterThan(1);
    for (const r of calls()) expect(r.headers['private-token']).toBe(ADMIN);
  });

  it('makes no request for an empty Pages block', async () => {
    await start();
    config({ 'platform/site': [] });
    expect((await wd.run(['plan'])).code).toBe(0);
    expect(calls()).toEqual([]);
  });
});

describe('applying Pages settings', () => {
  it('PATCHes only the fields that differ, as JSON, in one request, and then plans no change', async () => {
    await start();
    const text = config({ 'platform/site': ['pages_https_only: false', 'pages_unique_domain_enabled: true', 'pages_primary_domain: DOCS.example.test'] });
    const { plan } = await planJson();
    const change = plan.changes[0];
    expect(change).toMatchObject({ action: 'update', payload: { type: 'update', set: { pages_unique_domain_enabled: true, pages_primary_domain: 'DOCS.example.test' } } });
    expect(change.attributes).toEqual([
      { name: 'pages_unique_domain_enabled', before: false, after: true },
      { name: 'pages_primary_domain', before: null, after: 'DOCS.example.test' },
    ]);
    expect(text).toContain('pages_https_only: false');
    rec.requests.length = 0;
    const r = await wd.run(['apply', '--auto-approve']);
    expect(r.code).toBe(0);
    const patches = calls('PATCH');
    expect(patches).toHaveLength(1);
    expect(patches[0]!.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(patches[0]!.body)).toEqual({ pages_unique_domain_enabled: true, pages_primary_domain: 'DOCS.example.test' });
    expect(pagesOf('platform/site')).toMatchObject({ uniqueDomainEnabled: true, primaryDomain: 'docs.example.test', httpsOnly: false });
    // The instance keeps the name as assigned; the comparison ignores case, so no perpetual diff.
    rec.requests.length = 0;
    const again = await wd.run(['plan', '--detailed-exitcode']);
    expect(again.code).toBe(0);
    expect(calls().map((c) => c.method)).toEqual(['GET']);
  });

  it('clears the primary domain with an empty string and with null', async () => {
    for (const empty of ['""', 'null', '~']) {
      await start();
      config({ 'platform/docs': [`pages_primary_domain: ${empty}`] });
      const r = await wd.run(['apply', '--auto-approve']);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(calls('PATCH')[0]!.body)).toEqual({ pages_primary_domain: '' });
      expect(pagesOf('platform/docs').primaryDomain).toBeNull();
      expect((await wd.run(['plan', '--detailed-exitcode'])).code).toBe(0);
      await rec.close();
      await emu.close();
    }
  });

  it('turns HTTPS and the unique domain off where they are on', async () => {
    await start();
    config({ 'platform/docs': ['pages_https_only: false', 'pages_unique_domain_enabled: false'] });
    expect((await wd.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(JSON.parse(calls('PATCH')[0]!.body)).toEqual({ pages_https_only: false, pages_unique_domain_enabled: false });
    expect(pagesOf('platform/docs')).toMatchObject({ httpsOnly: false, uniqueDomainEnabled: false });
  });
});

describe('drift on Pages', () => {
  it('reports a Pages setting changed outside plumb (exit 2), and apply restores it', async () => {
    await start();
    config({ 'platform/docs': ['pages_primary_domain: a.example.test', 'pages_https_only: true'] });
    expect((await wd.run(['drift'])).code).toBe(0);
    pagesOf('platform/docs').primaryDomain = 'b.example.test';
    const drift = await wd.run(['drift']);
    expect(drift.code).toBe(2);
    expect(drift.stdout).toContain('local.project["platform/docs"].pages');
    expect(drift.stdout).toContain('"b.example.test" (instance) ≠ "a.example.test" (configuration)');
    expect((await wd.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(pagesOf('platform/docs').primaryDomain).toBe('a.example.test');
    expect((await wd.run(['drift'])).code).toBe(0);
  });

  it('reports Pages declared published but unpublished outside plumb (exit 2, a warning: plumb cannot publish)', async () => {
    await start();
    config({ 'platform/site': ['published: true'] });
    expect((await wd.run(['drift'])).code).toBe(0);
    pagesOf('platform/site').deployments = [];
    const r = await wd.run(['drift', '--json']);
    expect(r.code).toBe(2);
    const report = JSON.parse(r.stdout);
    expect(report.diagnostics.map((d: PlanDiagnostic) => d.code)).toEqual(['PLUMB_PAGES_NOT_PUBLISHED']);
  });

  it('refuses a saved plan when the Pages changed on the instance since', async () => {
    await start();
    config({ 'platform/site': ['pages_unique_domain_enabled: true'] });
    expect((await wd.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    pagesOf('platform/site').httpsOnly = true; // not declared: does not make the plan stale
    pagesOf('platform/site').uniqueDomainEnabled = true;
    const r = await wd.run(['apply', 'plan.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_PLAN_STALE');
    expect(calls('PATCH')).toEqual([]);
  });

  it('refuses a saved plan whose Pages payload was edited', async () => {
    await start();
    config({ 'platform/site': ['pages_unique_domain_enabled: true'] });
    expect((await wd.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    const plan = JSON.parse(wd.read('plan.json'));
    plan.changes[0].payload.set = { visibility: 'public' };
    wd.write('plan.json', JSON.stringify(plan));
    const r = await wd.run(['apply', 'plan.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('payload.set.visibility is not a Pages field');
    expect(calls('PATCH')).toEqual([]);
  });
});

describe('unpublishing Pages (a destroy)', () => {
  it('shows the unpublish loudly in the plan: a destroy with the deployments it takes offline', async () => {
    await start();
    config({ 'platform/site': ['published: false'] });
    const human = await wd.run(['plan']);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('local.project["platform/site"].pages.deployments will be destroyed');
    expect(human.stdout).toContain('DESTROYS (1)');
    expect(human.stdout).toContain('https://platform.pages.example.test/site/staging');
    expect(human.stdout).toContain('--allow-destroy');
    const { plan } = await planJson();
    expect(plan.risks).toEqual([expect.objectContaining({ id: 'pages-unpublish', gate: 'destroy', acknowledged: false, address: 'local.project["platform/site"].pages.deployments' })]);
    expect(plan.summary.delete).toBe(1);
  });

  it('refuses to unpublish without the opt-in, before any write, and --allow-risky does not accept it', async () => {
    await start();
    config({ 'platform/site': ['published: false', 'pages_unique_domain_enabled: true'] });
    for (const extra of [[], ['--allow-risky']]) {
      const r = await wd.run(['apply', '--auto-approve', ...extra]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('PLUMB_DESTROY_NOT_ACCEPTED');
      expect(r.stderr).toContain('--allow-destroy');
    }
    expect(calls('DELETE')).toEqual([]);
    expect(calls('PATCH')).toEqual([]);
    expect(pagesOf('platform/site').deployments).toHaveLength(2);
  });

  it('unpublishes with --allow-destroy, after the settings update, and then plans nothing', async () => {
    await start();
    config({ 'platform/site': ['published: false', 'pages_unique_domain_enabled: true'] });
    const r = await wd.run(['apply', '--auto-approve', '--allow-destroy']);
    expect(r.code, r.stderr).toBe(0);
    expect(calls().filter((c) => c.method !== 'GET').map((c) => `${c.method} ${c.status}`)).toEqual(['PATCH 200', 'DELETE 204']);
    expect(pagesOf('platform/site').deployments).toEqual([]);
    expect(pagesOf('platform/site').uniqueDomainEnabled).toBe(true);
    expect((await wd.run(['plan', '--detailed-exitcode'])).code).toBe(0);
  });

  it('unpublishes a saved plan with --allow-destroy', async () => {
    await start();
    config({ 'platform/site': ['published: false'] });
    expect((await wd.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    expect((await wd.run(['apply', 'plan.json'])).code).toBe(1);
    expect(calls('DELETE')).toEqual([]);
    expect((await wd.run(['apply', 'plan.json', '--allow-destroy'])).code).toBe(0);
    expect(calls('DELETE').map((c) => c.status)).toEqual([204]);
  });

  it('unpublishes without the flag when the project opts in with allow_unpublish: true', async () => {
    await start();
    config({ 'platform/site': ['published: false', 'allow_unpublish: true'] });
    const { plan } = await planJson();
    expect(plan.risks[0]).toMatchObject({ id: 'pages-unpublish', acknowledged: true });
    const r = await wd.run(['apply', '--auto-approve']);
    expect(r.code, r.stderr).toBe(0);
    expect(pagesOf('platform/site').deployments).toEqual([]);
  });

  it('does not repeat a DELETE whose answer was lost: it reads back and reports what the instance serves', async () => {
    await start();
    config({ 'platform/site': ['published: false', 'allow_unpublish: true'] });
    emu.addFault({ method: 'DELETE', path: '/projects/*/pages', nth: 1, action: { kind: 'drop', when: 'after' } });
    const r = await wd.run(['apply', '--auto-approve']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('reading back shows nothing deployed');
    expect(calls('DELETE')).toHaveLength(0); // the dropped request never reached the recorder's answer
    expect(emu.requests.filter((q) => q.method === 'DELETE')).toHaveLength(1);
    expect(pagesOf('platform/site').deployments).toEqual([]);
  });

  it('reports a DELETE lost before the instance acted as a failure, without repeating it', async () => {
    await start();
    config({ 'platform/site': ['published: false', 'allow_unpublish: true'] });
    emu.addFault({ method: 'DELETE', path: '/projects/*/pages', nth: 1, action: { kind: 'drop', when: 'before' } });
    const r = await wd.run(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_API_AMBIGUOUS');
    expect(emu.requests.filter((q) => q.method === 'DELETE')).toHaveLength(1);
    expect(pagesOf('platform/site').deployments).toHaveLength(2);
  });

  it('lists a destroy in the merge-request comment apart from the lock-out risks', async () => {
    await start();
    config({ 'platform/site': ['published: false'] });
    expect((await wd.run(['plan', '--markdown', 'plan.md'])).code).toBe(0);
    const md = wd.read('plan.md');
    expect(md).toContain('**🛑 Destroys**');
    expect(md).toContain('`pages-unpublish`');
    expect(md).not.toContain('**Risky changes**');
  });

  it('refuses a saved plan whose risk names an unknown gate', async () => {
    await start();
    config({ 'platform/site': ['published: false'] });
    expect((await wd.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    const plan = JSON.parse(wd.read('plan.json'));
    plan.risks[0].gate = 'whatever';
    wd.write('plan.json', JSON.stringify(plan));
    const r = await wd.run(['apply', 'plan.json', '--allow-risky', '--allow-destroy']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('unknown gate');
    expect(emu.requests.filter((q) => q.method === 'DELETE')).toHaveLength(0);
  });

  it('plans nothing for published: false where nothing is deployed or Pages never existed', async () => {
    await start();
    pagesOf('platform/site').deployments = [];
    config({ 'platform/site': ['published: false'], 'platform/nopages': ['published: false'] });
    const { code, plan } = await planJson();
    expect(code).toBe(0);
    expect(plan.changes.filter((c: ResourceChange) => c.action !== 'no-op')).toEqual([]);
    expect(plan.diagnostics).toEqual([]);
  });
});

describe('Pages in the configuration', () => {
  it('refuses an interpolated primary domain at its line: only secret values are interpolated, and the variable is never read', async () => {
    await start();
    const text = config({ 'platform/site': ['pages_primary_domain: ${env:PAGES_DOMAIN}'] });
    const r = await wd.run(['validate', '--json'], { PAGES_DOMAIN: 'docs.example.test' });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).diagnostics).toEqual([expect.objectContaining({ code: 'PLUMB_INTERPOLATION_NOT_ALLOWED', line: lineOf(text, 'pages_primary_domain') })]);
    expect((await wd.run(['plan'], { PAGES_DOMAIN: 'docs.example.test' })).code).toBe(1);
    expect(calls()).toEqual([]);
  });

  it('refuses a primary domain that is not a host name, offline', async () => {
    await start();
    const text = config({ 'platform/site': ['pages_primary_domain: https://docs.example.test/'] });
    const r = await wd.run(['validate', '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).diagnostics).toEqual([expect.objectContaining({ code: 'PLUMB_STRING_FORMAT', line: lineOf(text, 'pages_primary_domain') })]);
  });

  it('warns and leaves pages_primary_domain alone on an instance that does not return it (before 17.8)', async () => {
    await start();
    const text = config({ 'platform/site': ['pages_primary_domain: docs.example.test', 'pages_unique_domain_enabled: true'] });
    const old = { url: 'https://platform.pages.example.test/site', is_unique_domain_enabled: false, force_https: false, deployments: [] };
    emu.addFault({ method: 'GET', path: '/projects/*/pages', action: { kind: 'status', status: 200, body: old } });
    const { code, plan } = await planJson();
    expect(code).toBe(0);
    expect(plan.diagnostics).toEqual([expect.objectContaining({ code: 'PLUMB_PAGES_FIELD_NOT_RETURNED', severity: 'warning', line: lineOf(text, 'pages_primary_domain') })]);
    expect(plan.changes[0]!.payload).toEqual({ type: 'update', project: 'platform/site', set: { pages_unique_domain_enabled: true } });
  });
});

describe("the instance's refusals, on the YAML line", () => {
  it('404 because Pages is disabled on the instance: an error at the pages key, no write', async () => {
    await start({ ...PAGES_SEED, instance: { pages_enabled: false } });
    const text = config({ 'platform/site': ['pages_https_only: false'] });
    const { code, plan } = await planJson();
    expect(code).toBe(1);
    expect(plan.diagnostics).toEqual([
      expect.objectContaining({ code: 'PLUMB_PAGES_UNAVAILABLE', severity: 'error', file: 'plumb.yaml', line: lineOf(text, ' pages:'), address: 'local.project["platform/site"].pages' }),
    ]);
    expect(plan.diagnostics[0].summary).toContain('Pages is disabled on the instance');
    const r = await wd.run(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(calls('PATCH')).toEqual([]);
  });

  it('404 because the project\'s Pages feature is off: the same error, at that project\'s pages key, saying so', async () => {
    const seed = { ...PAGES_SEED, projects: PAGES_SEED.projects!.map((p) => (p.id === 32 ? { ...p, pages_access_level: 'disabled' as const } : p)) };
    await start(seed);
    const text = config({ 'platform/site': ['pages_https_only: false'], 'platform/nopages': ['pages_https_only: false'] });
    const { code, plan } = await planJson();
    expect(code).toBe(1);
    expect(plan.diagnostics).toEqual([expect.objectContaining({ code: 'PLUMB_PAGES_UNAVAILABLE', line: lineOf(text, ' pages:', 'platform/nopages:') })]);
    expect(plan.diagnostics[0].summary).toContain('disabled on the instance, or for this project');
    expect(plan.diagnostics[0].summary).not.toMatch(/deploy/);
    expect(plan.applicable).toBe(false);
  });

  it('a project that never deployed a site is planned and applied like any other', async () => {
    await start();
    config({ 'platform/nopages': ['pages_https_only: true'] });
    const { code, plan } = await planJson();
    expect(code).toBe(0);
    expect(plan.diagnostics).toEqual([]);
    expect(plan.changes.map((c: ResourceChange) => [c.address, c.action])).toEqual([['local.project["platform/nopages"].pages', 'update']]);
    const r = await wd.run(['apply', '--auto-approve']);
    expect(r.code, r.stderr).toBe(0);
    expect(emu.state.projectByRef('platform/nopages')!.pages.httpsOnly).toBe(true);
    const again = await planJson();
    expect(again.plan.changes.filter((c: ResourceChange) => c.action !== 'no-op')).toEqual([]);
  });

  it('404 for a project that does not exist: named as such, at the project key', async () => {
    await start();
    const text = config({ 'platform/ghost': ['pages_https_only: false'] });
    const { plan } = await planJson();
    expect(plan.diagnostics).toEqual([expect.objectContaining({ code: 'PLUMB_PAGES_PROJECT_NOT_FOUND', line: lineOf(text, 'platform/ghost:') })]);
  });

  it('403 for a role below Maintainer: an error at the pages key; a Maintainer may', async () => {
    await start(PAGES_SEED, DEVELOPER);
    const text = config({ 'platform/site': ['pages_unique_domain_enabled: true'] });
    const { code, plan } = await planJson();
    expect(code).toBe(1);
    expect(plan.diagnostics).toEqual([expect.objectContaining({ code: 'PLUMB_PAGES_FORBIDDEN', line: lineOf(text, ' pages:') })]);
    expect(plan.diagnostics[0].summary).toContain('Maintainer');
    const asMaintainer = await wd.run(['apply', '--auto-approve'], { PLUMB_TOKEN: MAINTAINER });
    expect(asMaintainer.code, asMaintainer.stderr).toBe(0);
    expect(pagesOf('platform/site').uniqueDomainEnabled).toBe(true);
  });

  it('403 to the write of a token that may only read (read_api): an error at the pages key, instead of the write', async () => {
    await start(PAGES_SEED, OWNER_READ);
    const text = config({ 'platform/site': ['pages_unique_domain_enabled: true'] });
    expect((await planJson()).code).toBe(0);
    const r = await wd.run(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_PAGES_FORBIDDEN');
    expect(r.stderr).toContain(`(plumb.yaml:${lineOf(text, ' pages:')}:`);
    expect(calls('PATCH').map((c) => c.status)).toEqual([403]);
    expect(pagesOf('platform/site').uniqueDomainEnabled).toBe(false);
  });

  it('400 for a primary domain not assigned to the project: an error at pages_primary_domain, nothing changed', async () => {
    await start();
    const text = config({ 'platform/site': ['pages_unique_domain_enabled: true', 'pages_primary_domain: elsewhere.example.test'] });
    expect((await planJson()).code).toBe(0);
    const r = await wd.run(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_PAGES_DOMAIN_NOT_ASSIGNED');
    expect(r.stderr).toContain(`(plumb.yaml:${lineOf(text, 'pages_primary_domain')}:`);
    expect(r.stderr).toContain('"elsewhere.example.test" is not one of the Pages domains of project "platform/site"');
    expect(calls('PATCH').map((c) => c.status)).toEqual([400]);
    expect(pagesOf('platform/site')).toMatchObject({ uniqueDomainEnabled: false, primaryDomain: null });
  });

  it('400 for HTTPS forced while a domain has no certificate: an error at pages_https_only', async () => {
    await start();
    const text = config({ 'platform/site': ['pages_https_only: true'] });
    const r = await wd.run(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_PAGES_REJECTED');
    expect(r.stderr).toContain(`(plumb.yaml:${lineOf(text, 'pages_https_only')}:`);
    expect(pagesOf('platform/site').httpsOnly).toBe(false);
  });
});

describe('Pages with --target', () => {
  it('reads and applies only the Pages of the targeted project, unsaved apply included', async () => {
    await start();
    config({ 'platform/site': ['pages_unique_domain_enabled: true'], 'platform/docs': ['pages_unique_domain_enabled: false'] });
    rec.requests.length = 0;
    const r = await wd.run(['apply', '--auto-approve', '--target', 'local.project["platform/docs"]']);
    expect(r.code).toBe(0);
    expect(new Set(rec.requests.map((q) => q.path))).toEqual(new Set(['/projects/platform%2Fdocs/pages']));
    expect(rec.requests.map((q) => q.method)).toContain('PATCH');
    const after = JSON.parse((await wd.run(['plan', '--json'])).stdout) as Plan;
    expect(after.changes.filter((c) => c.action !== 'no-op').map((c) => c.address)).toEqual(['local.project["platform/site"].pages']);
  });
});

describe('Pages with --target', () => {
  it('reads only the targeted Pages block', async () => {
    await start();
    config({ 'platform/site': ['pages_https_only: true'], 'platform/docs': ['pages_https_only: false'] });
    rec.requests.length = 0;
    const r = await wd.run(['plan', '--json', '--target', 'local.project["platform/docs"].pages']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(rec.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['GET /projects/platform%2Fdocs/pages']);
  });

  it('does not read the files of the project whose Pages block is targeted', async () => {
    await start();
    const text = config({ 'platform/docs': ['pages_https_only: false'] }).replace('        pages:', '        files:\n          README.md: {content: "docs\\n"}\n        pages:');
    wd.write('plumb.yaml', text);
    rec.requests.length = 0;
    const r = await wd.run(['plan', '--json', '--target', 'local.project["platform/docs"].pages']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(rec.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['GET /projects/platform%2Fdocs/pages']);
  });
});

describe('one project under two names', () => {
  it('refuses Pages declared under the id and the path (PLUMB_DUPLICATE_RESOURCE), and patches nothing', async () => {
    await start();
    config({ 'platform/site': ['pages_https_only: true'], '31': ['pages_https_only: false'] });
    const r = await wd.run(['plan', '--json']);
    expect(r.code).toBe(1);
    const plan = JSON.parse(r.stdout) as Plan;
    expect(plan.diagnostics.filter((d) => d.code === 'PLUMB_DUPLICATE_RESOURCE')).toHaveLength(1);
    rec.requests.length = 0;
    const a = await wd.run(['apply', '--auto-approve']);
    expect(a.code).toBe(1);
    expect(calls('PATCH')).toEqual([]);
  });
});

describe('a Pages write answered with an error after the instance carried it out', () => {
  it('reads the Pages again after a 500 to the PATCH and reports the update as applied', async () => {
    await start();
    config({ 'platform/site': ['pages_unique_domain_enabled: true'] });
    emu.addFault({ method: 'PATCH', path: '/projects/*/pages', action: { kind: 'status', status: 500, after: true } });
    const r = await wd.run(['apply', '--auto-approve']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('answered 500, but reading the Pages again shows pages_unique_domain_enabled as declared');
    expect(emu.requests.filter((q) => q.method === 'PATCH')).toHaveLength(1);
    expect(pagesOf('platform/site').uniqueDomainEnabled).toBe(true);
  });

  it('reads the Pages again after a 500 to the unpublish and reports it as applied', async () => {
    await start();
    config({ 'platform/site': ['published: false', 'allow_unpublish: true'] });
    emu.addFault({ method: 'DELETE', path: '/projects/*/pages', action: { kind: 'status', status: 500, after: true } });
    const r = await wd.run(['apply', '--auto-approve']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('reading back shows nothing deployed');
    expect(emu.requests.filter((q) => q.method === 'DELETE')).toHaveLength(1);
  });

  it('names the missing api scope, not the role, when a read_api token patches Pages', async () => {
    await start(PAGES_SEED, OWNER_READ);
    config({ 'platform/site': ['pages_unique_domain_enabled: true'] });
    const r = await wd.run(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_PAGES_FORBIDDEN');
    expect(r.stderr).toContain('api scope');
    expect(r.stderr).not.toContain('Maintainer role');
  });
});
