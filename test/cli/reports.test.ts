/**
 * The native reports the service's CI reads: `validate --format codequality` (Code Quality JSON)
 * and `drift --junit FILE` (JUnit XML), parsed and checked field by field.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestEmulator } from '../helpers/emulator.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { secret, workdir } from '../helpers/cli.js';
import type { Workdir } from '../helpers/cli.js';

const ADMIN_TOKEN = secret('admin-token-reports-0123456789');

describe('validate --format codequality', () => {
  it('writes one Code Quality issue per diagnostic, located relative to the working directory', async () => {
    const wd = workdir({ PLUMB_TOKEN: ADMIN_TOKEN });
    wd.write(
      'config/plumb.yaml',
      `version: 1
instances:
  local:
    url: https://gitlab.example.test
    token_env: PLUMB_TOKEN
    settings:
      signup_enabled: false
      signup_enabld: true
`,
    );
    const r = await wd.run(['validate', 'config/', '--format', 'codequality']);
    expect(r.code, r.stderr).toBe(1);
    const issues = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(issues.length).toBeGreaterThan(0);
    const unknown = issues.find((i) => i.check_name === 'PLUMB_UNKNOWN_SETTING') as {
      description: string;
      fingerprint: string;
      severity: string;
      location: { path: string; lines: { begin: number } };
    };
    expect(unknown).toBeDefined();
    expect(unknown.description).toContain('signup_enabld');
    expect(unknown.severity).toBe('critical');
    expect(unknown.location).toEqual({ path: 'config/plumb.yaml', lines: { begin: 8 } });
    expect(unknown.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    for (const i of issues) expect(Object.keys(i).sort()).toEqual(['check_name', 'description', 'fingerprint', 'location', 'severity']);
    expect(new Set(issues.map((i) => i.fingerprint)).size).toBe(issues.length);

    // The fingerprint survives lines moving above the issue: the merge-request widget then reports
    // it as unchanged rather than fixed-and-new.
    wd.write('config/plumb.yaml', '# a comment\n# and another\n' + wd.read('config/plumb.yaml'));
    const again = JSON.parse((await wd.run(['validate', 'config/', '--format', 'codequality'])).stdout) as typeof issues;
    const moved = again.find((i) => i.check_name === 'PLUMB_UNKNOWN_SETTING') as typeof unknown;
    expect(moved.location.lines.begin).toBe(10);
    expect(moved.fingerprint).toBe(unknown.fingerprint);
  });

  it('maps a warning to minor and writes an empty array for a clean configuration', async () => {
    const wd = workdir({ PLUMB_TOKEN: ADMIN_TOKEN });
    wd.write('plumb.yaml', `version: 1\ninstances:\n  local:\n    url: https://gitlab.example.test\n    token_env: PLUMB_TOKEN\n    settings:\n      signup_enabled: false\n`);
    const clean = await wd.run(['validate', '--format', 'codequality']);
    expect(clean.code).toBe(0);
    expect(JSON.parse(clean.stdout)).toEqual([]);
    wd.write('plumb.yaml', 'version: 1\ninstances: {}\n');
    const empty = await wd.run(['validate', '--format', 'codequality']);
    expect(empty.code).toBe(0);
    expect(JSON.parse(empty.stdout)).toMatchObject([{ check_name: 'PLUMB_NOTHING_DECLARED', severity: 'minor', location: { path: 'plumb.yaml', lines: { begin: 1 } } }]);
  });

  it('refuses an unknown format and a format that contradicts --json', async () => {
    const wd = workdir();
    expect((await wd.run(['validate', '--format', 'codeqality'])).stderr).toContain('did you mean "codequality"');
    expect((await wd.run(['validate', '--format', 'codequality', '--json'])).code).toBe(1);
  });
});

/** The test cases of a JUnit document: name, classname and the failure's message, if any. */
function junitCases(xml: string): { name: string; classname: string; failure?: string; error?: string }[] {
  expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites')).toBe(true);
  const unescape = (s: string) => s.replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  return [...xml.matchAll(/<testcase name="([^"]*)" classname="([^"]*)"[^>]*?(?:\/>|>([\s\S]*?)<\/testcase>)/g)].map((m) => {
    const failure = /<failure message="([^"]*)"/.exec(m[3] ?? '')?.[1];
    const error = /<error message="([^"]*)"/.exec(m[3] ?? '')?.[1];
    return { name: unescape(m[1]!), classname: m[2]!, ...(failure !== undefined && { failure: unescape(failure) }), ...(error !== undefined && { error: unescape(error) }) };
  });
}

describe('drift --junit', () => {
  let emu: RunningEmulator;
  let wd: Workdir;
  beforeEach(async () => {
    emu = await startTestEmulator({
      seed: {
        users: [{ username: 'root', admin: true, personal_access_tokens: [{ name: 'plumb', token: ADMIN_TOKEN, scopes: ['api'] }] }],
        groups: [{ full_path: 'platform' }],
        projects: [{ path_with_namespace: 'platform/app', default_branch: 'main', files: { 'README.md': 'hello\n' } }],
      },
    });
    wd = workdir({ PLUMB_TOKEN: ADMIN_TOKEN });
    wd.write(
      'plumb.yaml',
      `version: 1
instances:
  local:
    url: ${emu.url}
    token_env: PLUMB_TOKEN
    settings:
      signup_enabled: false
    projects:
      platform/app:
        files:
          README.md:
            content: "hello\\n"
`,
    );
  });
  afterEach(async () => {
    await emu.close();
  });

  it('writes one passing test case per resource when in sync, and a failure with the drift when not', async () => {
    expect((await wd.run(['apply', '--auto-approve'])).code).toBe(0);
    const synced = await wd.run(['drift', '--junit', 'drift.xml']);
    expect(synced.code).toBe(0);
    expect(synced.stdout).toContain('In sync');
    const ok = junitCases(wd.read('drift.xml'));
    expect(ok.map((c) => c.name).sort()).toEqual(['local.application_settings', 'local.project["platform/app"].branch["main"].file["README.md"]']);
    expect(ok.find((c) => c.name === 'local.application_settings')!.classname).toBe('local/application_settings');
    expect(ok.every((c) => c.failure === undefined)).toBe(true);

    await fetch(`${emu.url}/api/v4/application/settings`, { method: 'PUT', headers: { 'PRIVATE-TOKEN': ADMIN_TOKEN, 'content-type': 'application/json' }, body: JSON.stringify({ signup_enabled: true }) });
    const drifted = await wd.run(['drift', '--junit', 'drift.xml']);
    expect(drifted.code).toBe(2);
    const cases = junitCases(wd.read('drift.xml'));
    const settings = cases.find((c) => c.name === 'local.application_settings')!;
    expect(settings.failure).toMatch(/^drift: /);
    expect(wd.read('drift.xml')).toContain('signup_enabled: true (instance) ≠ false (configuration)');
    expect(cases.find((c) => c.name.includes('README.md'))!.failure).toBeUndefined();
    expect(wd.read('drift.xml')).toMatch(/<testsuites name="plumb drift" tests="2" failures="1" errors="0"/);
  });
});
