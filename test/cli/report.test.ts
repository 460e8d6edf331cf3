/**
 * `plumb report` (issue 33) against the emulator over loopback: every declared resource classified
 * (compliant, drifted, missing, unreadable, not checked), the summary per selector, the request
 * budget, the expiry horizon on report, plan and drift with its order and drift's exit code, the
 * JSON document against schemas/plumb-report.schema.json, no secret in any output, the instance's
 * hostile text escaped, and nothing written anywhere.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator } from '../helpers/emulator.js';
import type { TestEmulator } from '../helpers/emulator.js';
import { secret, workdir } from '../helpers/cli.js';
import type { Workdir } from '../helpers/cli.js';

const TODAY = '2026-03-01';
const ADMIN = secret('admin-token-for-report-tests-0123456789');
const CI_SECRET = secret('glpat-report-ci-token-000000000001');
const DEPLOY_SECRET = secret('glpat-report-deploy-token-0000000002');
const ODD_SECRET = secret('glpat-report-odd-token-00000000000003');
const LONG_SECRET = secret('glpat-report-long-token-0000000000004');
const SMTP = secret('smtp-password-for-report-tests-xyz');
/** A token name a group member chose: markup, a script, an escape sequence, a quick action. */
const HOSTILE = 'old<script>alert(1)</script>\u001b[31m|`@all\n/approve';

const day = (n: number) => new Date(Date.parse(TODAY + 'T00:00:00Z') + n * 86_400_000).toISOString().slice(0, 10);
const at = (n: number) => new Date(Date.parse(TODAY + 'T00:00:00Z') + n * 86_400_000).toISOString();

const SCHEMA = JSON.parse(readFileSync(path.join(__dirname, '../../schemas/plumb-report.schema.json'), 'utf8')) as object;

let emu: TestEmulator;
let wd: Workdir;

beforeAll(async () => {
  emu = await startTestEmulator({
    now: () => new Date(TODAY + 'T12:00:00Z'),
    seed: {
      users: [{ username: 'root', admin: true, personal_access_tokens: [{ name: 'plumb', token: ADMIN, scopes: ['api'] }] }],
      groups: [
        {
          full_path: 'platform',
          access_tokens: [
            { name: 'ci', token: CI_SECRET, scopes: ['read_api'], access_level: 30, expires_at: day(20) },
            { name: 'deploy', token: DEPLOY_SECRET, scopes: ['read_api'], access_level: 30, expires_at: day(5) },
            { name: HOSTILE, token: ODD_SECRET, scopes: ['read_api'], access_level: 30, expires_at: day(3) },
            { name: 'long-lived', token: LONG_SECRET, scopes: ['read_api'], access_level: 30, expires_at: day(200) },
          ],
        },
        { full_path: 'apps' },
      ],
      projects: [
        {
          path_with_namespace: 'apps/web',
          default_branch: 'main',
          files: { 'README.md': 'web\n' },
          pages: {
            https_only: true,
            domains: [
              { domain: 'www.web.test', certificate_expires_at: at(10) },
              { domain: 'new.web.test', certificate: false, verified: false, enabled_until: at(2) },
              { domain: 'old.web.test', certificate_expires_at: at(400) },
            ],
          },
        },
        { path_with_namespace: 'apps/api', default_branch: 'main', files: { 'README.md': 'api\n' }, pages: { https_only: false, domains: [{ domain: 'api.web.test', certificate_expires_at: at(25) }] } },
        { path_with_namespace: 'apps/docs', default_branch: 'main', files: { 'README.md': 'docs\n' }, pages_access_level: 'disabled' },
        { path_with_namespace: 'apps/tool', default_branch: 'main', files: { 'README.md': 'tool\n' }, pages: { https_only: true } },
      ],
    },
  });
  wd = workdir({ PLUMB_TOKEN: ADMIN, PLUMB_NOW: TODAY, SPAM_KEY: SMTP });
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
      '      spam_check_api_key: ${env:SPAM_KEY}',
      '    groups:',
      '      platform:',
      '        access_tokens:',
      `          ci: {scopes: [read_api], access_level: 30, expires_at: ${day(20)}, sink: {file: secrets/ci.token}}`,
      '          deploy: {scopes: [read_api], access_level: 30, rotation: {lifetime_days: 60, rotate_before_days: 7}, sink: {file: secrets/deploy.token}}',
      '    projects:',
      '      "apps/**":',
      '        pages: {pages_https_only: true}',
      '      apps/web:',
      '        files:',
      '          CONTRIBUTING.md: {content: "be kind\\n"}',
      '',
    ].join('\n'),
  );
});

afterAll(async () => {
  await emu.close();
});

interface Doc {
  formatVersion: string;
  complete: boolean;
  budget: { maxRequests?: number; used: number; exhausted: boolean };
  summary: Record<string, number>;
  selectors: { selector: string; matched: number; objects: Record<string, number>; resources: Record<string, number> }[];
  resources: { address: string; status: string; kind: string; selector?: string; fields: { name: string; comparison: string; live?: unknown; declared?: unknown }[]; problem?: { code: string } }[];
  expiring?: { within: string; entries: { what: string; name: string; state: string; address: string; daysLeft: number; declared?: boolean; rotatesOn?: string }[] };
}

function byAddress(doc: Doc): Map<string, Doc['resources'][number]> {
  return new Map(doc.resources.map((r) => [r.address, r]));
}

function writesSent(): string[] {
  return emu.requests.filter((r) => r.method !== 'GET' && r.method !== 'HEAD').map((r) => `${r.method} ${r.path}`);
}

describe('plumb report', () => {
  it('classifies every declared resource as compliant, drifted, missing or unreadable, with the differing fields', async () => {
    const r = await wd.run(['report', '--json']);
    const doc = JSON.parse(r.stdout) as Doc;
    const res = byAddress(doc);
    expect(res.get('local.application_settings')).toMatchObject({
      status: 'drifted',
      kind: 'application_settings',
      fields: [
        { name: 'signup_enabled', live: true, declared: false, comparison: 'differs' },
        { name: 'spam_check_api_key', declared: '(sensitive value)', sensitive: true, writeOnly: true, comparison: 'not-comparable' },
      ],
    });
    expect(res.get('local.group["platform"].access_token["ci"]')).toMatchObject({ status: 'compliant', fields: [] });
    // Rotated on schedule by the next apply: compliant.
    expect(res.get('local.group["platform"].access_token["deploy"]')).toMatchObject({ status: 'compliant', action: 'rotate' });
    expect(res.get('local.project["apps/web"].pages')).toMatchObject({ status: 'compliant', selector: 'apps/**' });
    expect(res.get('local.project["apps/tool"].pages')).toMatchObject({ status: 'compliant', selector: 'apps/**' });
    expect(res.get('local.project["apps/api"].pages')).toMatchObject({ status: 'drifted', selector: 'apps/**', fields: [{ name: 'pages_https_only', live: false, declared: true, comparison: 'differs' }] });
    expect(res.get('local.project["apps/docs"].pages')).toMatchObject({ status: 'unreadable', kind: 'pages', selector: 'apps/**', problem: { code: 'PLUMB_PAGES_UNAVAILABLE' } });
    expect(res.get('local.project["apps/web"].branch["main"].file["CONTRIBUTING.md"]')).toMatchObject({ status: 'missing', kind: 'repository_file', action: 'create' });
    expect(doc.summary).toEqual({ total: 8, compliant: 4, drifted: 2, missing: 1, unreadable: 1, notChecked: 0 });
    expect(doc.complete).toBe(false);
    // Drifted first, compliant last.
    expect(doc.resources.map((x) => x.status)).toEqual(['drifted', 'drifted', 'missing', 'unreadable', 'compliant', 'compliant', 'compliant', 'compliant']);
    expect(r.code).toBe(2);
  });

  it('summarises each selector by project: as bad as its worst resource', async () => {
    const r = await wd.run(['report', '--json']);
    const doc = JSON.parse(r.stdout) as Doc;
    expect(doc.selectors).toEqual([
      expect.objectContaining({
        selector: 'apps/**',
        matched: 4,
        // apps/web's entry merges with the selector's: the plan files its missing file under the selector.
        objects: { total: 4, compliant: 1, drifted: 1, missing: 1, unreadable: 1, notChecked: 0 },
        resources: { total: 5, compliant: 2, drifted: 1, missing: 1, unreadable: 1, notChecked: 0 },
      }),
    ]);
    const human = await wd.run(['report']);
    expect(human.stdout).toContain('local: apps/**: 4 projects, 1 compliant, 1 drifted, 1 missing, 1 unreadable');
    expect(human.stdout).toContain('8 resource(s): 4 compliant, 2 drifted, 1 missing, 1 unreadable — incomplete');
  });

  it('writes a JSON document that validates against schemas/plumb-report.schema.json, with and without the horizon', async () => {
    // Strict, but for `required` inside if/then (the properties are declared beside them).
    const ajv = new Ajv.default({ allErrors: true, strict: true, strictRequired: false });
    ajv.addFormat('date-time', (s: string) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)));
    const validate = ajv.compile(SCHEMA);
    for (const extra of [[], ['--expiring-within', '30d'], ['--max-requests', '3']]) {
      await wd.run(['report', '--out', 'report.json', ...extra]);
      const doc = JSON.parse(wd.read('report.json')) as Doc;
      expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
      expect(doc.formatVersion).toBe('1.0');
    }
  });

  it('compares a write-only secret only through fingerprints and says when it cannot: never its value', async () => {
    const r = await wd.run(['report', '--json']);
    const doc = JSON.parse(r.stdout) as Doc;
    const settings = byAddress(doc).get('local.application_settings')!;
    // No apply has recorded a fingerprint: plumb cannot tell whether the instance holds it.
    expect(settings.fields).toContainEqual(expect.objectContaining({ name: 'spam_check_api_key', comparison: 'not-comparable' }));
    expect(r.stdout).not.toContain(SMTP);
    const human = await wd.run(['report', '--markdown', 'report.md']);
    expect(human.stdout).toContain('spam_check_api_key: not comparable');
    expect(wd.read('report.md')).toContain('spam\\_check\\_api\\_key: not comparable');
  });

  it('never writes: no request but reads, no state file, no lock file', async () => {
    const before = writesSent().length;
    await wd.run(['report', '--out', 'report.json', '--markdown', 'report.md', '--expiring-within', '30d']);
    expect(writesSent().slice(before)).toEqual([]);
    expect(() => statSync(path.join(wd.dir, '.plumb'))).toThrow();
  });
});

describe('the request budget', () => {
  it('reports what it covered and what it did not when --max-requests runs out, as data', async () => {
    const before = emu.requests.length;
    const r = await wd.run(['report', '--json', '--max-requests', '6']);
    const doc = JSON.parse(r.stdout) as Doc;
    expect(emu.requests.length - before).toBeLessThanOrEqual(6);
    expect(doc.budget).toEqual({ maxRequests: 6, used: 6, exhausted: true });
    expect(doc.complete).toBe(false);
    expect(doc.summary.notChecked).toBeGreaterThan(0);
    expect(doc.summary.total).toBe(Object.values(doc.summary).slice(1).reduce((a, b) => a + b, 0));
    for (const x of doc.resources.filter((x) => x.status === 'not-checked')) expect(x.problem?.code).toBe('PLUMB_API_BUDGET_EXHAUSTED');
    expect(r.code).toBe(2);
    const human = await wd.run(['report', '--max-requests', '6']);
    expect(human.stdout).toMatch(/Requests: 6 of 6; the budget ran out: \d+ resource\(s\) not checked/);
  });

  it('counts the requests of an unbounded report', async () => {
    const before = emu.requests.length;
    const doc = JSON.parse((await wd.run(['report', '--json'])).stdout) as Doc;
    expect(doc.budget).toEqual({ used: emu.requests.length - before, exhausted: false });
  });

  it('refuses a budget that is not a whole number of requests', async () => {
    const r = await wd.run(['report', '--max-requests', 'lots']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--max-requests must be a whole number from 1 up, not "lots"');
  });
});

describe('the expiry horizon', () => {
  it('lists tokens (declared or not), certificates and unverified domains within the window, soonest first', async () => {
    const doc = JSON.parse((await wd.run(['report', '--json', '--expiring-within', '30d'])).stdout) as Doc;
    expect(doc.expiring!.within).toBe('30d');
    expect(doc.expiring!.entries.map((e) => [e.what, e.name, e.state, e.daysLeft])).toEqual([
      ['pages_domain_verification', 'new.web.test', 'expiring', 2],
      ['access_token', HOSTILE, 'expiring', 3],
      ['access_token', 'deploy', 'rotating', 5],
      ['pages_certificate', 'www.web.test', 'expiring', 10],
      ['access_token', 'ci', 'expiring', 20],
      ['pages_certificate', 'api.web.test', 'expiring', 25],
    ]);
    const deploy = doc.expiring!.entries.find((e) => e.name === 'deploy')!;
    expect(deploy).toMatchObject({ declared: true, rotatesOn: TODAY, address: 'local.group["platform"].access_token["deploy"]' });
    expect(doc.expiring!.entries.find((e) => e.name === HOSTILE)).toMatchObject({ declared: false });
  });

  it('reads one listing of domains per Pages project, and nothing for the horizon without the flag', async () => {
    const domains = () => emu.requests.filter((r) => /\/pages\/domains$/.test(r.path)).length;
    const a = domains();
    await wd.run(['report', '--json']);
    expect(domains()).toBe(a);
    await wd.run(['report', '--json', '--expiring-within', '30d']);
    // apps/docs has Pages off: its settings read fails first, and its domains are not asked for.
    expect(domains() - a).toBe(3);
  });

  it('makes drift exit 2 when something expires within the window, even in sync, and 0 when nothing does', async () => {
    const inSync = workdir({ PLUMB_TOKEN: ADMIN, PLUMB_NOW: TODAY });
    inSync.write('secrets/README', 'sinks\n');
    inSync.write('plumb.yaml', ['version: 1', 'instances:', '  local:', `    url: ${emu.url}`, '    token_env: PLUMB_TOKEN', '    groups:', '      platform:', '        access_tokens:', `          ci: {scopes: [read_api], access_level: 30, expires_at: ${day(20)}, sink: {file: secrets/ci.token}}`, ''].join('\n'));
    expect((await inSync.run(['drift'])).code).toBe(0);
    const soon = await inSync.run(['drift', '--expiring-within', '14d']);
    expect(soon.code).toBe(2);
    expect(soon.stdout).toContain('In sync, but 2 thing(s) expire within 14d.');
    expect(soon.stdout).toContain('in platform: expires in 3 day(s)');
    // Nothing expires within a day.
    expect((await inSync.run(['drift', '--expiring-within', '1d'])).code).toBe(0);
    const json = JSON.parse((await inSync.run(['drift', '--json', '--expiring-within', '30d'])).stdout) as { expiring: Doc['expiring'] };
    expect(json.expiring!.entries.map((e) => e.name)).toEqual([HOSTILE, 'deploy', 'ci']);
  });

  it('shows a token plumb rotates before it expires as such, not as a warning', async () => {
    const only = workdir({ PLUMB_TOKEN: ADMIN, PLUMB_NOW: TODAY });
    only.write('secrets/README', 'sinks\n');
    only.write('plumb.yaml', ['version: 1', 'instances:', '  local:', `    url: ${emu.url}`, '    token_env: PLUMB_TOKEN', '    groups:', '      platform:', '        access_tokens:', '          deploy: {scopes: [read_api], access_level: 30, rotation: {lifetime_days: 60, rotate_before_days: 7}, sink: {file: secrets/deploy.token}}', ''].join('\n'));
    const r = await only.run(['plan', '--expiring-within', '6d']);
    expect(r.stdout).toContain('Expiring within 6d');
    expect(r.stdout).toMatch(/↻ 2026-03-06 {2}token deploy in platform: plumb rotates it on 2026-03-01/);
    expect(r.stdout).toContain('! 2026-03-04');
  });

  it('refuses a window that is not a number of days or weeks', async () => {
    for (const cmd of ['plan', 'drift', 'report']) {
      const r = await wd.run([cmd, '--expiring-within', '30']);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('--expiring-within must be a number of days or weeks such as 30d or 4w');
    }
  });
});

describe('hostile instance text', () => {
  it('is cleaned for the terminal and escaped in markdown', async () => {
    const r = await wd.run(['report', '--expiring-within', '30d', '--markdown', 'report.md']);
    expect(r.stdout).not.toContain('\u001b');
    expect(r.stdout).toContain('old<script>alert(1)</script>[31m');
    const md = wd.read('report.md');
    // Inside a code span markup is shown as text; everywhere else it is escaped.
    const outsideCode = md.replace(/(`+)[^`]*?\1/g, '');
    expect(md).toContain('``local.group["platform"].access_token["old<script>');
    expect(outsideCode).not.toContain('<script>');
    expect(md).toContain('old&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(md).not.toContain('\u001b');
    expect(md).not.toMatch(/^\/approve/m);
    expect(md).not.toContain('@all');
  });
});
