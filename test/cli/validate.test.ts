/**
 * `plumb validate` through the built CLI, as a user runs it: a child process of `node bin/plumb.js`
 * with a preload (fixtures/no-network.cjs) that refuses and records every network connection.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { scratchArea } from '../helpers/scratch.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const bin = path.join(root, 'bin/plumb.js');
const preload = path.join(here, 'fixtures/no-network.cjs');
const corpus = path.join(root, 'test/corpus');
const invalid = path.join(corpus, 'invalid');
const valid = path.join(corpus, 'valid');
const TODAY = '2026-06-01';

const { dir: scratch, project } = scratchArea('plumb-cli');
let counter = 0;

beforeAll(() => {
  // The CLI runs from dist/. Build once when it is missing (a placeholder dist/cli.js without the
  // compiled commands counts as missing).
  if (existsSync(path.join(root, 'dist/cli.js')) && existsSync(path.join(root, 'dist/commands/validate.js'))) return;
  const build = spawnSync('npm', ['run', 'build'], { cwd: root, encoding: 'utf8', shell: process.platform === 'win32' });
  if (!existsSync(path.join(root, 'dist/commands/validate.js'))) {
    throw new Error(`npm run build did not produce dist/ (exit ${build.status}):\n${build.stdout}\n${build.stderr}`);
  }
}, 300_000);

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Lines the no-network preload wrote: one "loaded <pid>", then one line per refused attempt. */
  readonly network: string[];
}

/** Runs `node bin/plumb.js ...args` in `cwd` with only the given environment (plus PATH). */
function plumb(args: readonly string[], cwd: string, env: Record<string, string> = {}): Run {
  const netLog = path.join(scratch, `net-${++counter}.log`);
  const r = spawnSync(process.execPath, [bin, ...args], {
    cwd,
    encoding: 'utf8',
    timeout: 60_000,
    env: {
      PATH: process.env.PATH ?? '',
      NO_COLOR: '1',
      NODE_OPTIONS: `--require "${preload}"`,
      PLUMB_TEST_NET_LOG: netLog,
      ...env,
    },
  });
  const network = existsSync(netLog) ? readFileSync(netLog, 'utf8').split('\n').filter(Boolean) : [];
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, network };
}

interface JsonDiagnostic {
  severity: string;
  code: string;
  summary: string;
  suggestion?: string;
  file?: string;
  line?: number;
  column?: number;
  snippet?: string;
}

interface JsonReport {
  valid: boolean;
  files: string[];
  diagnostics: JsonDiagnostic[];
}

const README_EXAMPLE = `version: 1
instances:
  prod:
    url: https://code.example.com
    token_env: PLUMB_TOKEN
    settings:
      signup_enabeld: false
      require_two_factor_authentication: true
      deletion_adjourned_period: 14
`;

describe('plumb validate (built CLI)', () => {
  it('exits 0 on a valid configuration with warnings, showing the warnings and the success line', () => {
    const r = plumb(['validate', 'warnings-only.yaml', '--today', TODAY], valid, { PLUMB_TOKEN: 'x' });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('Configuration is valid: 1 file(s), 1 instance(s).\n');
    expect(r.stderr).toContain('warning[PLUMB_SETTING_DEPRECATED]: Setting "admin_notification_email" is deprecated');
    expect(r.stderr).toContain('  --> warnings-only.yaml:8:7');
    expect(r.stderr).toContain('warning[PLUMB_TOKEN_SCOPE_UNKNOWN]');
    expect(r.stderr.trimEnd().split('\n').at(-1)).toBe('0 error(s), 6 warning(s)');
    expect(r.stderr).not.toContain('error[');
  });

  it('exits 0 and prints nothing on stderr for the shipped examples', () => {
    const r = plumb(['validate', 'examples/plumb'], root, { PLUMB_TOKEN: 'x' });
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^Configuration is valid: \d+ file\(s\), 1 instance\(s\)\.\n$/);
    expect(r.status).toBe(0);
  });

  it('exits 1 on an invalid configuration and reports every error with file:line:col', () => {
    const r = plumb(['validate', 'multi-problems-everywhere', '--today', TODAY], invalid);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    for (const at of [
      'multi-problems-everywhere/instance.yaml:6:30',
      'multi-problems-everywhere/settings.yaml:4:23',
      'multi-problems-everywhere/tokens.yaml:9:25',
      'multi-problems-everywhere/files.yaml:6:11',
    ]) {
      expect(r.stderr).toContain(`  --> ${at}\n`);
    }
    expect(r.stderr.trimEnd().split('\n').at(-1)).toBe('11 error(s), 2 warning(s)');
  });

  it('exits 1 when the path does not exist', () => {
    const r = plumb(['validate', 'no/such/config'], scratch);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('error[PLUMB_CONFIG_NOT_FOUND]');
  });

  it('refuses a billion-laughs document fast and within 64 MB of heap', () => {
    const started = Date.now();
    const r = plumb(['validate', 'yaml-alias-bomb.yaml'], invalid, { NODE_OPTIONS: `--require "${preload}" --max-old-space-size=64` });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('error[PLUMB_YAML_ALIAS_LIMIT]');
    expect(r.stderr).toContain('yaml-alias-bomb.yaml:6:45');
  });

  it('catches plain HTTP to a remote host and credentials in the URL, as plan would', () => {
    const r = plumb(['validate', 'instance-url-insecure-or-with-credentials.yaml'], invalid);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('error[PLUMB_INSECURE_HTTP]');
    expect(r.stderr).toContain('error[PLUMB_URL_CREDENTIALS]');
    expect(r.stderr).not.toContain('hunter2');
    expect(r.network).toHaveLength(1);
  });

  it('prints parseable JSON with file, line, column and the source line of every diagnostic', () => {
    const r = plumb(['validate', 'multi-problems-everywhere', '--json', '--today', TODAY], invalid);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('');
    const report = JSON.parse(r.stdout) as JsonReport;
    expect(report.valid).toBe(false);
    expect(report.files).toEqual([
      'multi-problems-everywhere/files.yaml',
      'multi-problems-everywhere/instance.yaml',
      'multi-problems-everywhere/settings.yaml',
      'multi-problems-everywhere/tokens.yaml',
    ]);
    // Exactly the corpus expectation for this case, in the CLI's own output.
    const expected = (JSON.parse(readFileSync(path.join(invalid, 'multi-problems-everywhere.expect.json'), 'utf8')) as { diagnostics: JsonDiagnostic[] }).diagnostics;
    const key = (d: JsonDiagnostic) => `${d.file}:${String(d.line).padStart(4, '0')}:${String(d.column).padStart(4, '0')}:${d.code}:${d.severity}`;
    expect(report.diagnostics.map(key).sort()).toEqual(expected.map(key).sort());
    for (const d of report.diagnostics) {
      const lines = readFileSync(path.join(invalid, d.file!), 'utf8').split('\n');
      expect(d.snippet, `${d.code} at ${d.file}:${d.line}`).toBe(lines[d.line! - 1]);
      expect(d.summary).toMatch(/\S/);
    }
  });

  it('prints valid: true and an empty list as JSON for a valid configuration', () => {
    const r = plumb(['validate', '--json', 'readme-first-configuration.yaml'], valid, { PLUMB_TOKEN: 'x' });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ valid: true, files: ['readme-first-configuration.yaml'], diagnostics: [] });
  });

  describe('a typo and a missing dependent setting in one file', () => {
    const dir = project({ 'plumb.yaml': README_EXAMPLE });

    it('are both reported with line, column, code frame and a fix (human output, default file)', () => {
      const r = plumb(['validate'], dir);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(
        [
          'error[PLUMB_UNKNOWN_SETTING]: Unknown application setting "signup_enabeld"',
          '  --> plumb.yaml:7:7',
          '    |',
          '  7 |       signup_enabeld: false',
          '    |       ^^^^^^^^^^^^^^',
        ].join('\n'),
      );
      expect(r.stderr).toContain('  help: did you mean "signup_enabled"?');
      expect(r.stderr).toContain(
        [
          'error[PLUMB_DEPENDENCY_MISSING]: "two_factor_grace_period" is required when "require_two_factor_authentication" is true',
          '  --> plumb.yaml:8:7',
          '    |',
          '  8 |       require_two_factor_authentication: true',
        ].join('\n'),
      );
      expect(r.stderr).toMatch(/ {2}help: add "two_factor_grace_period" next to "require_two_factor_authentication"/);
      expect(r.stderr.trimEnd().split('\n').at(-1)).toBe('2 error(s), 0 warning(s)');
    });

    it('are both reported with line, column and a suggestion (JSON output)', () => {
      const r = plumb(['validate', 'plumb.yaml', '--json'], dir);
      expect(r.status).toBe(1);
      const report = JSON.parse(r.stdout) as JsonReport;
      expect(report.diagnostics.map((d) => [d.code, d.file, d.line, d.column])).toEqual([
        ['PLUMB_UNKNOWN_SETTING', 'plumb.yaml', 7, 7],
        ['PLUMB_DEPENDENCY_MISSING', 'plumb.yaml', 8, 7],
      ]);
      expect(report.diagnostics[0]!.suggestion).toBe('did you mean "signup_enabled"?');
      expect(report.diagnostics[1]!.suggestion).toContain('two_factor_grace_period');
    });
  });

  describe('secrets from the environment', () => {
    const config = `version: 1
instances:
  main:
    url: https://code.example.com
    token_env: PLUMB_TOKEN
    settings:
      captcha_enabled: true
      captcha_site_key: \${env:SITE_KEY}
      captcha_private_key: \${env:PRIVATE_KEY}
      default_project_visibility: \${env:VISIBILITY}
      max_login_attempts: \${env:ATTEMPTS}
      import_sources: \${env:SOURCES}
      search_engine_prefix: \${env:PREFIX}
      signup_enabeld: false
`;
    const dir = project({ 'plumb.yaml': config });

    /** Every output of a human and a JSON run, with `values` in the environment. */
    function outputs(values: Record<string, string>): { text: string; runs: Run[] } {
      const runs = [plumb(['validate', 'plumb.yaml'], dir, values), plumb(['validate', 'plumb.yaml', '--json'], dir, values)];
      for (const r of runs) expect(r.status).toBe(1);
      return { text: runs.map((r) => r.stdout + r.stderr).join('\n'), runs };
    }

    function expectNoTrace(text: string, secret: string): void {
      const escaped = JSON.stringify(secret).slice(1, -1);
      const escapedTwice = JSON.stringify(escaped).slice(1, -1);
      for (const form of new Set([secret, escaped, escapedTwice])) expect(text).not.toContain(form);
    }

    it('never appear in any output, even when the values themselves are in error', () => {
      const values = {
        PLUMB_TOKEN: 'glpat-admin-token-Vb71',
        SITE_KEY: 'site-key-Hj29',
        PRIVATE_KEY: 'private-key-Qm48',
        VISIBILITY: 'visibility-Zr63',
        ATTEMPTS: 'attempts-Wd15',
        SOURCES: 'sources-Ty82',
        PREFIX: 'PREFIX-Bn07',
      };
      const { text, runs } = outputs(values);
      for (const secret of Object.values(values)) expectNoTrace(text, secret);
      // Only the write-only captcha_private_key may read a variable (issue 28.1): every ordinary
      // setting refuses its reference at its line and reads nothing, so no value can be in error.
      const report = JSON.parse(runs[1]!.stdout) as JsonReport;
      expect(report.diagnostics.map((d) => [d.code, d.line])).toEqual([
        ['PLUMB_INTERPOLATION_NOT_ALLOWED', 8],
        ['PLUMB_INTERPOLATION_NOT_ALLOWED', 10],
        ['PLUMB_INTERPOLATION_NOT_ALLOWED', 11],
        ['PLUMB_INTERPOLATION_NOT_ALLOWED', 12],
        ['PLUMB_INTERPOLATION_NOT_ALLOWED', 13],
        ['PLUMB_UNKNOWN_SETTING', 14],
      ]);
    });

    it('never appear in any output, not even JSON-escaped, when they contain quotes and backslashes', () => {
      const values = {
        PLUMB_TOKEN: 'glpat-admin-token-Vb71',
        SITE_KEY: 'site"key\\Hj29',
        PRIVATE_KEY: 'private"key\\Qm48',
        VISIBILITY: 'visi"bility\\Zr63',
        ATTEMPTS: 'att"empts\\Wd15',
        SOURCES: 'sou"rces\\Ty82',
        PREFIX: 'PRE"FIX\\Bn07',
      };
      const { text } = outputs(values);
      for (const secret of Object.values(values)) {
        expectNoTrace(text, secret);
        // Nor the distinctive tail of the value, whatever escaping was applied to the rest.
        expect(text).not.toContain(secret.slice(-4));
      }
    });
  });

  describe('network isolation', () => {
    it('refuses and records a connection attempt of a process run with the preload (the guard works)', () => {
      const log = path.join(scratch, 'guard.log');
      const r = spawnSync(process.execPath, ['-e', "require('node:net').connect(9, '127.0.0.1')"], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '', NODE_OPTIONS: `--require "${preload}"`, PLUMB_TEST_NET_LOG: log },
      });
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain('network access is not allowed here');
      const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean);
      expect(lines[0]).toMatch(/^loaded \d+$/);
      expect(lines.slice(1).join('\n')).toContain('attempt net.connect');
    });

    it('makes no network connection while validating valid and invalid configurations', () => {
      const dir = project({
        'plumb.yaml': `version: 1
instances:
  prod:
    url: https://code.example.com:8443
    token_env: PLUMB_TOKEN
    settings:
      signup_enabled: false
      asset_proxy_enabled: true
      asset_proxy_url: https://proxy.example.com
  staging:
    url: https://10.0.0.7
    token_env: PLUMB_TOKEN
    groups:
      platform:
        access_tokens:
          deployer:
            scopes: [api]
            expires_at: 2027-01-01
            sink: {command: [curl, --data-binary, "@-", https://vault.example.com/store]}
`,
      });
      const runs = [
        plumb(['validate', '--today', TODAY], dir, { PLUMB_TOKEN: 'glpat-admin-token-Vb71' }),
        plumb(['validate', '--json', '--today', TODAY], dir, { PLUMB_TOKEN: 'glpat-admin-token-Vb71' }),
        plumb(['validate', 'multi-problems-everywhere', '--today', TODAY], invalid),
        plumb(['validate', 'split-configuration', '--json', '--today', TODAY], valid, { PLUMB_TOKEN: 'token-x', CAPTCHA_PRIVATE_KEY: 'key-k', CHAT_APP_SECRET: 'secret-a', CHAT_APP_SIGNING_SECRET: 'secret-b', CHAT_APP_VERIFICATION_TOKEN: 'token-c', STATIC_OBJECTS_TOKEN: 'token-d', HOME_PAGE_HOST: 'www.example.com' }),
      ];
      expect(runs.map((r) => r.status)).toEqual([0, 0, 1, 0]);
      for (const r of runs) {
        // Exactly one line: the preload announcing itself. No attempt was made (or swallowed).
        expect(r.network).toHaveLength(1);
        expect(r.network[0]).toMatch(/^loaded \d+$/);
      }
    });
  });
});
