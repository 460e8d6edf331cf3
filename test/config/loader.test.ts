/**
 * The configuration loader end to end through `loadConfig`: merging files, interpolation and the
 * secret registry, paths relative to the YAML file that wrote them, and the two renderings of the
 * diagnostics (JSON for tools, human with a code frame).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { filesOf } from '../../src/resources/repository-files/model.js';
import { groupsOf } from '../../src/resources/group-access-tokens/model.js';
import { settingsOf } from '../../src/resources/settings/model.js';
import { loadConfig } from '../helpers/kinds.js';
import { MASK } from '../../src/config/secrets.js';
import { diagnosticsToJson, renderDiagnosticsHuman } from '../../src/diagnostics/index.js';
import type { Diagnostic } from '../../src/diagnostics/index.js';
import { scratchArea } from '../helpers/scratch.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const corpus = path.resolve(here, '../corpus');
const TODAY = '2026-06-01';
const { env: CORPUS_ENV } = JSON.parse(readFileSync(path.join(corpus, 'env.json'), 'utf8')) as { env: Record<string, string> };

const { project } = scratchArea('plumb-loader');

const HEAD = `version: 1
instances:
  main:
    url: https://code.example.com
    token_env: PLUMB_TOKEN
`;

function codes(diags: readonly Diagnostic[]): string[] {
  return diags.map((d) => d.code).sort();
}

function only(diags: readonly Diagnostic[], code: string): Diagnostic {
  const found = diags.filter((d) => d.code === code);
  expect(found, `exactly one ${code} in ${JSON.stringify(codes(diags))}`).toHaveLength(1);
  return found[0]!;
}

describe('merging a directory of files', () => {
  const dir = path.join(corpus, 'valid');
  const result = loadConfig(['split-configuration'], { cwd: dir, env: CORPUS_ENV, today: TODAY });
  const inst = result.config?.instances[0];

  it('merges settings split over two files into the one instance declared in a third', () => {
    expect(codes(result.diagnostics)).toEqual([]);
    expect(result.config?.instances.map((i) => i.name)).toEqual(['prod']);
    expect(inst?.url).toBe('https://code.example.com');
    expect(inst?.tokenEnv).toBe('PLUMB_TOKEN');
    expect(settingsOf(inst!).get('signup_enabled')?.value).toBe(false);
    expect(settingsOf(inst!).get('throttle_authenticated_api_requests_per_period')?.value).toBe(600);
  });

  it('remembers which file each merged value came from', () => {
    const where = (p: string) => result.sources.locations.get(p)?.key;
    expect(where('/instances/prod/settings/signup_enabled')).toMatchObject({ file: 'split-configuration/settings-auth.yaml', line: 5, column: 7 });
    expect(where('/instances/prod/settings/chat_app_enabled')).toMatchObject({ file: 'split-configuration/settings-limits.yaml', line: 7, column: 7 });
    expect(where('/instances/prod/url')).toMatchObject({ file: 'split-configuration/instance.yaml', line: 5, column: 5 });
    expect(where('/instances/prod/groups/platform~1infra/access_tokens/ci-deployer')).toMatchObject({
      file: 'split-configuration/teams/tokens.yaml',
      line: 13,
      column: 11,
    });
  });

  it('reads the files of a directory recursively and in name order', () => {
    expect(result.sources.files).toEqual([
      'split-configuration/instance.yaml',
      'split-configuration/settings-auth.yaml',
      'split-configuration/settings-limits.yaml',
      'split-configuration/teams/files.yaml',
      'split-configuration/teams/tokens.yaml',
    ]);
  });

  it('attaches tokens declared in one file to the instance declared in another', () => {
    const tokens = groupsOf(inst!).flatMap((g) => g.accessTokens.map((t) => `${g.ref}:${t.name}`));
    expect(tokens?.sort()).toEqual(['1234:reader', 'platform/infra:ci-deployer', 'platform/infra:plumb']);
    const deployer = groupsOf(inst!).find((g) => g.ref === 'platform/infra')?.accessTokens.find((t) => t.name === 'ci-deployer');
    expect(deployer).toMatchObject({ scopes: ['api'], accessLevel: 40, expiresAt: '2027-01-31', self: false });
    // A file sink is relative to the YAML file that declares it (teams/), not to the working directory.
    expect(deployer?.sinks[0]).toMatchObject({ kind: 'file', path: path.join(dir, 'split-configuration/secrets/ci-deployer.token') });
  });

  it('lets a partner setting in one file satisfy a flag in another', () => {
    const split = project({
      'a.yaml': HEAD + '    settings:\n      require_two_factor_authentication: true\n',
      'b.yaml': 'instances:\n  main:\n    settings:\n      two_factor_grace_period: 24\n',
    });
    const r = loadConfig(['.'], { cwd: split, env: CORPUS_ENV, today: TODAY });
    expect(codes(r.diagnostics)).toEqual([]);
    expect(settingsOf(r.config!.instances[0]!).get('two_factor_grace_period')?.value).toBe(24);
  });

  it('names both places when a resource is declared twice', () => {
    const r = loadConfig(['dup-token'], { cwd: path.join(corpus, 'invalid'), env: CORPUS_ENV, today: TODAY });
    const d = only(r.diagnostics, 'PLUMB_DUPLICATE_RESOURCE');
    expect(d.location).toMatchObject({ file: 'dup-token/team/tokens.yaml', line: 6, column: 11 });
    expect(d.related).toEqual([{ message: expect.any(String), location: expect.objectContaining({ file: 'dup-token/instance.yaml', line: 9, column: 11 }) }]);
  });

  it('skips hidden files and directories', () => {
    const d = project({ 'plumb.yaml': HEAD, '.draft.yaml': 'this: [is, not, loaded', '.git/config.yaml': 'nor: {this' });
    const r = loadConfig(['.'], { cwd: d, env: CORPUS_ENV, today: TODAY });
    expect(codes(r.diagnostics)).toEqual([]);
    expect(r.sources.files).toEqual(['plumb.yaml']);
  });

  it('finds plumb.yaml in the working directory when no path is given, and says so when there is none', () => {
    const withDefault = project({ 'plumb.yaml': HEAD });
    expect(loadConfig([], { cwd: withDefault, env: CORPUS_ENV, today: TODAY }).config?.instances).toHaveLength(1);
    const empty = project({ 'README.txt': 'nothing here' });
    const r = loadConfig([], { cwd: empty, env: CORPUS_ENV, today: TODAY });
    expect(codes(r.diagnostics)).toEqual(['PLUMB_CONFIG_NOT_FOUND']);
    expect(r.config).toBeUndefined();
  });
});

describe('interpolation', () => {
  it('replaces ${env:NAME} with the variable, marks the value secret and lets the registry redact it', () => {
    const d = project({
      'plumb.yaml': HEAD + `    settings:
      captcha_enabled: true
      captcha_site_key: 6LcSiteKey
      captcha_private_key: \${env:CAPTCHA_KEY}
      spam_check_api_key: https://\${env:HOME_HOST}/welcome
      after_sign_out_path: /goodbye
`,
    });
    const r = loadConfig(['plumb.yaml'], { cwd: d, env: { CAPTCHA_KEY: 'k3y-from-the-environment', HOME_HOST: 'www.example.com' }, today: TODAY });
    expect(codes(r.diagnostics)).toEqual([]);
    const settings = settingsOf(r.config!.instances[0]!);
    expect(settings.get('captcha_private_key')).toEqual({ value: 'k3y-from-the-environment', secret: true, pointer: '/instances/main/settings/captcha_private_key' });
    // Anywhere inside the value; the whole value is then the secret.
    expect(settings.get('spam_check_api_key')).toMatchObject({ value: 'https://www.example.com/welcome', secret: true });
    expect(settings.get('after_sign_out_path')).toMatchObject({ value: '/goodbye', secret: false });
    expect(r.sources.secrets.isSecretPointer('/instances/main/settings/captcha_private_key')).toBe(true);
    expect(r.sources.secrets.isSecretPointer('/instances/main/settings/after_sign_out_path')).toBe(false);
    expect(r.sources.secrets.redact('key=k3y-from-the-environment host=www.example.com')).toBe(`key=${MASK} host=${MASK}`);
  });

  it('writes a literal ${ for $${, without reading the environment and without making the value secret', () => {
    const d = project({
      'plumb.yaml': HEAD + `    settings:
      after_sign_up_text: "Prices are shown as $\${amount} and $\${env:NOT_READ}."
      spam_check_api_key: "$\${env:LITERAL} then \${env:REAL}"
`,
    });
    const r = loadConfig(['plumb.yaml'], { cwd: d, env: { REAL: 'value-of-real' }, today: TODAY });
    expect(codes(r.diagnostics)).toEqual([]);
    const settings = settingsOf(r.config!.instances[0]!);
    expect(settings.get('after_sign_up_text')).toMatchObject({ value: 'Prices are shown as ${amount} and ${env:NOT_READ}.', secret: false });
    expect(settings.get('spam_check_api_key')).toMatchObject({ value: '${env:LITERAL} then value-of-real', secret: true });
  });

  it('reads ${file:…} relative to the YAML file, not the working directory, and drops one trailing newline', () => {
    const d = project({
      'config/prod/plumb.yaml': HEAD + `    settings:
      spam_check_api_key: \${file:../certs/client.pem}
      external_auth_client_key: \${file:../certs/client.key}
`,
      'config/certs/client.pem': 'CERTIFICATE LINE 1\nCERTIFICATE LINE 2\n\n',
      'config/certs/client.key': 'the-client-key\n',
    });
    // Relative to the working directory, ../certs/ would not exist: only the YAML file's directory works.
    const r = loadConfig(['config/prod/plumb.yaml'], { cwd: d, env: {}, today: TODAY });
    expect(codes(r.diagnostics)).toEqual([]);
    const settings = settingsOf(r.config!.instances[0]!);
    expect(settings.get('spam_check_api_key')).toMatchObject({ value: 'CERTIFICATE LINE 1\nCERTIFICATE LINE 2\n', secret: true });
    expect(settings.get('external_auth_client_key')).toMatchObject({ value: 'the-client-key', secret: true });
    expect(r.sources.secrets.redact('got the-client-key')).toBe(`got ${MASK}`);
  });

  it('reports a missing ${file:…} with the directory it was looked up in', () => {
    const d = project({ 'config/plumb.yaml': HEAD + '    settings:\n      captcha_private_key: ${file:keys/captcha.txt}\n' });
    const r = loadConfig(['config'], { cwd: d, env: {}, today: TODAY });
    const diag = only(r.diagnostics, 'PLUMB_FILE_MISSING');
    expect(diag.location).toMatchObject({ file: 'config/plumb.yaml', line: 7, column: 28 });
    expect(diag.detail).toContain('config');
  });
});

describe('paths in the configuration', () => {
  it('reads source: relative to the YAML file and decodes base64 content and sources', () => {
    const d = project({
      'config/files.yaml': HEAD + `    projects:
      platform/handbook:
        files:
          docs/SECURITY.md:
            source: ../content/SECURITY.md
          logo.txt:
            encoding: base64
            source: ../content/logo.b64
          hello.txt:
            encoding: base64
            content: aGVsbG8K
`,
      'content/SECURITY.md': 'Report issues to security@example.com\n',
      'content/logo.b64': 'bG9nbw==\n',
    });
    // Relative to the working directory (d), ../content/ would be outside the project and not exist.
    const r = loadConfig(['config'], { cwd: d, env: {}, today: TODAY });
    expect(codes(r.diagnostics)).toEqual([]);
    const files = filesOf(r.config!.instances[0]!)[0]!.files;
    // A text source is read streaming at plan time: the configuration keeps its absolute path.
    expect(files[0]!.source).toBe(path.join(d, 'content/SECURITY.md'));
    expect(files.map((f) => [f.path, f.content?.toString('utf8') ?? readFileSync(f.source!, 'utf8')])).toEqual([
      ['docs/SECURITY.md', 'Report issues to security@example.com\n'],
      ['logo.txt', 'logo'],
      ['hello.txt', 'hello\n'],
    ]);
  });

  it('reads ca_bundle relative to the YAML file', () => {
    const d = project({ 'config/plumb.yaml': HEAD + '    ca_bundle: ../pki/ca.pem\n', 'pki/ca.pem': '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n' });
    const r = loadConfig(['config/plumb.yaml'], { cwd: d, env: {}, today: TODAY });
    expect(codes(r.diagnostics)).toEqual([]);
    expect(r.config?.instances[0]?.caBundle).toBe(path.join(d, 'pki/ca.pem'));
  });
});

describe('rendering diagnostics', () => {
  const cwd = path.join(corpus, 'invalid');
  const file = 'multi-typo-and-missing-dependency.yaml';
  const result = loadConfig([file], { cwd, env: CORPUS_ENV, today: TODAY });

  it('gives tools file, line, column, range, pointer, suggestion and the source line as JSON', () => {
    const json = diagnosticsToJson(result.diagnostics, result.sources.texts) as Record<string, unknown>[];
    expect(json).toHaveLength(2);
    expect(json[0]).toEqual({
      severity: 'error',
      code: 'PLUMB_UNKNOWN_SETTING',
      summary: 'Unknown application setting "signup_enabeld"',
      detail: expect.any(String),
      suggestion: 'did you mean "signup_enabled"?',
      pointer: '/instances/prod/settings/signup_enabeld',
      file,
      line: 7,
      column: 7,
      endLine: 7,
      endColumn: 21,
      snippet: '      signup_enabeld: false',
    });
    expect(json[1]).toMatchObject({
      severity: 'error',
      code: 'PLUMB_DEPENDENCY_MISSING',
      file,
      line: 8,
      column: 7,
      snippet: '      require_two_factor_authentication: true',
      suggestion: expect.stringContaining('two_factor_grace_period'),
    });
    // The output is plain data: it survives a JSON round trip unchanged.
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
  });

  it('gives related places in the JSON as well (both definitions of a duplicate)', () => {
    const r = loadConfig(['dup-setting'], { cwd, env: CORPUS_ENV, today: TODAY });
    const [d] = diagnosticsToJson(r.diagnostics, r.sources.texts) as Record<string, unknown>[];
    expect(d).toMatchObject({ code: 'PLUMB_DUPLICATE_RESOURCE', file: 'dup-setting/b.yaml', line: 4, column: 7, snippet: '      signup_enabled: false' });
    expect(d!.related).toEqual([expect.objectContaining({ message: 'first defined here', file: 'dup-setting/a.yaml', line: 7, column: 7 })]);
  });

  it('prints a code frame with a caret under exactly the offending key', () => {
    const text = renderDiagnosticsHuman(result.diagnostics, result.sources.texts, { color: false });
    expect(text).toContain(
      [
        'error[PLUMB_UNKNOWN_SETTING]: Unknown application setting "signup_enabeld"',
        `  --> ${file}:7:7`,
        '    |',
        '  7 |       signup_enabeld: false',
        '    |       ^^^^^^^^^^^^^^',
      ].join('\n'),
    );
    expect(text).toContain(
      [`  --> ${file}:8:7`, '    |', '  8 |       require_two_factor_authentication: true', '    |       ' + '^'.repeat('require_two_factor_authentication'.length)].join('\n'),
    );
    expect(text).toContain('  help: did you mean "signup_enabled"?');
    expect(text.trimEnd().split('\n').at(-1)).toBe('2 error(s), 0 warning(s)');
    expect(text).not.toContain('\u001b[');
  });

  it('puts the caret under a value, a list item and a value on a line with a two-digit number', () => {
    const d = project({
      'plumb.yaml': HEAD + `    settings:
      max_login_attempts: "10"
      import_sources: [git, github]
      signup_enabled: true
      admin_mode: true
      deletion_adjourned_period: 91
`,
    });
    const r = loadConfig(['plumb.yaml'], { cwd: d, env: {}, today: TODAY });
    const text = renderDiagnosticsHuman(r.diagnostics, r.sources.texts);
    // Column 27 (after 26 characters), four carets for "10" with its quotes.
    expect(text).toContain(['  7 |       max_login_attempts: "10"', '    | ' + ' '.repeat(26) + '^^^^'].join('\n'));
    // The second item of the flow list starts at column 29.
    expect(text).toContain(['  8 |       import_sources: [git, github]', '    | ' + ' '.repeat(28) + '^^^^^^'].join('\n'));
    // A two-digit line number widens the gutter on every line of the frame.
    expect(text).toContain(['     |', '  11 |       deletion_adjourned_period: 91', '     | ' + ' '.repeat(33) + '^^'].join('\n'));
    // Diagnostics come out in file order, whatever order the checks ran in.
    expect(text.indexOf('plumb.yaml:7:')).toBeLessThan(text.indexOf('plumb.yaml:8:'));
    expect(text.indexOf('plumb.yaml:8:')).toBeLessThan(text.indexOf('plumb.yaml:11:'));
  });

  it('colours the output only when asked to', () => {
    const coloured = renderDiagnosticsHuman(result.diagnostics, result.sources.texts, { color: true });
    expect(coloured).toContain('\u001b[31;1merror\u001b[0m');
    const plain = coloured.replace(/\u001b\[[0-9;]*m/g, '');
    expect(plain).toBe(renderDiagnosticsHuman(result.diagnostics, result.sources.texts, { color: false }));
  });
});

describe('suggestions', () => {
  it('offers a did-you-mean from the keys allowed at the level of an unknown key', () => {
    const d = project({
      'plumb.yaml': HEAD + `    settings_verify_second: 30
    groups:
      platform:
        access_token: {}
    projects:
      platform/handbook:
        file: {}
`,
    });
    const r = loadConfig(['plumb.yaml'], { cwd: d, env: {}, today: TODAY });
    const byKey = Object.fromEntries(r.diagnostics.map((x) => [x.pointer?.split('/').at(-1), x]));
    expect(codes(r.diagnostics)).toEqual(['PLUMB_UNKNOWN_KEY', 'PLUMB_UNKNOWN_KEY', 'PLUMB_UNKNOWN_KEY']);
    expect(byKey.settings_verify_second?.suggestion).toBe('did you mean "settings_verify_seconds"?');
    expect(byKey.settings_verify_second?.detail).toContain('token_env');
    expect(byKey.access_token?.suggestion).toBe('did you mean "access_tokens"?');
    expect(byKey.access_token?.detail).toContain('prune_access_tokens');
    expect(byKey.file?.suggestion).toBe('did you mean "files"?');
    expect(byKey.file?.detail).toContain('pages');
  });

  it('does not tell a string setting that needs a partner to be set to false', () => {
    const d = project({ 'plumb.yaml': HEAD + '    settings:\n      static_objects_external_storage_url: https://static.example.com\n' });
    const r = loadConfig(['plumb.yaml'], { cwd: d, env: {}, today: TODAY });
    const diag = only(r.diagnostics, 'PLUMB_DEPENDENCY_MISSING');
    expect(diag.suggestion).toContain('static_objects_external_storage_auth_token');
    expect(diag.suggestion).not.toMatch(/to false/);
  });

  it('does not answer a quoted number with a did-you-mean of the very same text', () => {
    const d = project({
      'plumb.yaml': HEAD + `    groups:
      platform:
        access_tokens:
          deployer:
            scopes: [api]
            access_level: "40"
            expires_at: 2027-01-01
            sink: {stdout: true}
`,
    });
    const r = loadConfig(['plumb.yaml'], { cwd: d, env: {}, today: TODAY });
    const diag = only(r.diagnostics, 'PLUMB_ENUM_VALUE');
    expect(diag.suggestion).not.toBe('did you mean "40"?');
    expect(diag.suggestion).toMatch(/40/);
  });
});

describe('bad input that used to get through (issue 8)', () => {
  const load = (files: Record<string, string>, env: Record<string, string> = {}) =>
    loadConfig(['.'], { cwd: project(files), env: { ...CORPUS_ENV, ...env }, today: TODAY });
  const settings = (lines: string) => HEAD + '    settings:\n' + lines;

  it('accepts signin_enabled: false, typed like its target, and sends a boolean', () => {
    const r = load({ 'plumb.yaml': settings('      signin_enabled: false\n') });
    expect(codes(r.diagnostics)).toEqual(['PLUMB_SETTING_DEPRECATED']);
    expect(settingsOf(r.config!.instances[0]!).get('signin_enabled')?.value).toBe(false);
  });

  it('refuses a deprecated setting beside its replacement even when the values agree, naming both places', () => {
    const r = load({ 'plumb.yaml': settings('      signin_enabled: true\n      password_authentication_enabled_for_web: true\n') });
    const d = only(r.diagnostics, 'PLUMB_ALIAS_CONFLICT');
    expect(d.location).toMatchObject({ line: 7, column: 7 });
    expect(d.related?.[0]?.location).toMatchObject({ line: 8, column: 7 });
    expect(d.summary).toContain('password_authentication_enabled_for_web');
    expect(r.config).toBeUndefined();
  });

  it('refuses an empty environment variable without showing any value, and accepts ${env:NAME:-}', () => {
    const bad = load({ 'plumb.yaml': settings('      spam_check_api_key: ${env:EMPTY_KEY}\n') }, { EMPTY_KEY: '' });
    const d = only(bad.diagnostics, 'PLUMB_ENV_EMPTY');
    expect(d.summary).toBe('Environment variable EMPTY_KEY is set but empty');
    expect(d.suggestion).toContain('${env:EMPTY_KEY:-}');
    expect(bad.config).toBeUndefined();
    const ok = load({ 'plumb.yaml': settings('      spam_check_api_key: "${env:EMPTY_PATH:-}"\n      captcha_private_key: "key-of-example-${env:UNSET_PATH:-}"\n') }, { EMPTY_PATH: '' });
    expect(codes(ok.diagnostics)).toEqual([]);
    expect(settingsOf(ok.config!.instances[0]!).get('spam_check_api_key')?.value).toBe('');
    expect(settingsOf(ok.config!.instances[0]!).get('captcha_private_key')?.value).toBe('key-of-example-');
  });

  it('refuses a default value other than the empty one in ${env:NAME:-…}', () => {
    const r = load({ 'plumb.yaml': settings('      spam_check_api_key: "${env:X:-/bye}"\n') });
    expect(only(r.diagnostics, 'PLUMB_INTERPOLATION_SYNTAX').location).toMatchObject({ line: 7, column: 27 });
  });

  it('drops a byte order mark at the start of a ${file:} secret, and refuses an empty secret file', () => {
    const r = load({
      'plumb.yaml': settings('      spam_check_api_key: ${file:secrets/key.txt}\n'),
      'secrets/key.txt': '\uFEFFspam-key-value\n',
    });
    expect(codes(r.diagnostics)).toEqual([]);
    expect(settingsOf(r.config!.instances[0]!).get('spam_check_api_key')?.value).toBe('spam-key-value');
    const empty = load({ 'plumb.yaml': settings('      spam_check_api_key: ${file:secrets/key.txt}\n'), 'secrets/key.txt': '\n' });
    expect(only(empty.diagnostics, 'PLUMB_FILE_EMPTY').location).toMatchObject({ line: 7, column: 27 });
  });

  it('says in a sentence why a ${file:} reference cannot be read (no ENOENT, no EISDIR)', () => {
    const r = load({ 'plumb.yaml': settings('      spam_check_api_key: ${file:secrets}\n      captcha_private_key: ${file:nope.txt}\n'), 'secrets/x': 'x' });
    const summaries = r.diagnostics.filter((d) => d.code === 'PLUMB_FILE_MISSING').map((d) => d.summary);
    expect(summaries).toEqual(['Cannot read "secrets" for ${file:secrets}: it is a directory, not a file', 'Cannot read "nope.txt" for ${file:nope.txt}: it does not exist']);
    expect(summaries.join()).not.toMatch(/E[A-Z]{3,}/);
  });

  it('refuses a billion-laughs document quickly, at the alias that crosses the bound', () => {
    const started = performance.now();
    const r = loadConfig(['yaml-alias-bomb.yaml'], { cwd: path.join(corpus, 'invalid'), env: CORPUS_ENV, today: TODAY });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(only(r.diagnostics, 'PLUMB_YAML_ALIAS_LIMIT').location).toMatchObject({ line: 6, column: 45 });
  });

  it('bounds the size of aliased text too: a long string aliased over and over', () => {
    const items = Array.from({ length: 101 }, () => '  - *big').join('\n');
    const r = load({ 'plumb.yaml': `version: 1\nbig: &big "${'x'.repeat(10_000)}"\nlist:\n${items}\n` });
    const d = only(r.diagnostics, 'PLUMB_YAML_ALIAS_LIMIT');
    expect(d.location).toMatchObject({ line: 104, column: 5 });
    expect(r.diagnostics).toHaveLength(1);
  });

  it('still expands a reasonable alias (a token definition reused)', () => {
    const tokens = '    groups:\n      g:\n        access_tokens:\n          a: &t {scopes: [api], rotation: {lifetime_days: 90}, sink: {stdout: true}}\n          b: *t\n';
    const r = load({ 'plumb.yaml': HEAD + tokens });
    expect(codes(r.diagnostics)).toEqual([]);
    expect(groupsOf(r.config!.instances[0]!)[0]?.accessTokens.map((t) => t.name)).toEqual(['a', 'b']);
  });

  it('names .inf, .nan and integers beyond 2^53 for what they are', () => {
    const r = load({ 'plumb.yaml': settings('      max_attachment_size: 9007199254740993\n      max_import_size: .nan\n') });
    expect(r.diagnostics.map((d) => d.summary)).toEqual(['This number is too large to be sent exactly', '.nan (not a number) is not a value the instance accepts']);
    expect(JSON.stringify(r.diagnostics)).not.toContain('null');
  });

  it('says a key contains an invisible character U+200B instead of offering a look-alike', () => {
    const r = load({ 'plumb.yaml': settings('      signup\u200Benabled: false\n') });
    const d = only(r.diagnostics, 'PLUMB_INVISIBLE_CHARACTER');
    expect(d.summary).toContain('contains an invisible character U+200B');
    expect(d.suggestion).not.toMatch(/did you mean/);
  });

  it('names non-breaking-space indentation as an invisible character', () => {
    const r = load({ 'plumb.yaml': settings('      \u00A0\u00A0signup_enabled: false\n') });
    expect(only(r.diagnostics, 'PLUMB_INVISIBLE_CHARACTER').summary).toContain('U+00A0');
  });

  it('reports an unclosed quote once, where it opens', () => {
    const r = load({ 'plumb.yaml': HEAD + '    settings:\n      after_sign_out_path: "/bye\n      signup_enabled: false\n' });
    const d = only(r.diagnostics, 'PLUMB_YAML_SYNTAX');
    expect(d.summary).toBe('This double quote is never closed');
    expect(d.location).toMatchObject({ line: 7, column: 28 });
  });

  it('says an unquoted key starting with * is a YAML alias and must be quoted, at the key, not at the next line', () => {
    const r = load({ 'plumb.yaml': HEAD + '    projects:\n      **:\n        pages: {pages_https_only: true}\n' });
    const d = only(r.diagnostics, 'PLUMB_YAML_SYNTAX');
    expect(d.summary).toContain('starts an alias in YAML');
    expect(d.suggestion).toBe('quote the key: "**":');
    expect(d.location).toMatchObject({ line: 7, column: 7 });
    // An alias key whose anchor is defined is YAML as meant: not this error.
    const ok = load({ 'plumb.yaml': 'version: 1\nx: &k a\ny:\n  *k : 1\n' });
    expect(ok.diagnostics.map((x) => x.summary).join('\n')).not.toContain('starts an alias');
  });

  it("translates the common YAML syntax errors into plumb's sentences, one per file", () => {
    const cases: [string, string][] = [
      ['version: 1\na: b: c\n', 'A mapping cannot start on the same line as its key ("a: b: c")'],
      ['version: 1\nx: *nope\n', 'The alias *nope refers to no anchor &nope defined before it'],
      ['version: 1\ninstances:\n\tmain: {}\n', 'A tab is used for indentation; YAML indents with spaces only'],
      ['version: 1\nx: [a, {b: c]\n', 'This mapping ({) is never closed'],
    ];
    for (const [text, summary] of cases) {
      const r = load({ 'plumb.yaml': text });
      expect(r.diagnostics.map((d) => d.summary)).toEqual([summary]);
    }
  });

  it('says where a misplaced key belongs instead of "remove it"', () => {
    const r = load({ 'plumb.yaml': HEAD + '    prune_access_tokens: true\n    signup_enabled: false\n' });
    const [prune, signup] = r.diagnostics.filter((d) => d.code === 'PLUMB_UNKNOWN_KEY');
    expect(prune?.suggestion).toBe('move it under a group (next to access_tokens)');
    expect(signup?.suggestion).toBe('move it under `settings:` of the instance: it is an application setting');
    const under = load({ 'plumb.yaml': settings('      prune_access_tokens: true\n') });
    expect(only(under.diagnostics, 'PLUMB_UNKNOWN_SETTING').suggestion).toBe('move it under a group (next to access_tokens)');
  });

  it("uses plumb's own words, not the schema library's, and pins the error on the exact key", () => {
    const r = load({
      'plumb.yaml': HEAD.replace('version: 1', 'version: 2') + '    groups:\n      g:\n        access_tokens:\n          t: {scopes: [], rotation: {lifetime_days: 0}, sink: {stdout: true}}\n',
    });
    const text = r.diagnostics.map((d) => [d.summary, d.detail, d.suggestion].join(' ')).join('\n');
    expect(text).not.toMatch(/must NOT|fewer than|must match|use one of 1|>=/);
    expect(r.diagnostics.find((d) => d.code === 'PLUMB_OUT_OF_RANGE')?.summary).toBe('"lifetime_days" of access token "t" of group "g" is out of range: 0');
    expect(r.diagnostics.find((d) => d.code === 'PLUMB_ENUM_VALUE')?.suggestion).toBe('write version: 1');
    expect(codes(r.diagnostics)).toEqual(['PLUMB_ARRAY_SIZE', 'PLUMB_ENUM_VALUE', 'PLUMB_OUT_OF_RANGE']);
  });

  it('warns that prune_access_tokens with no declared token revokes every active token', () => {
    const r = load({ 'plumb.yaml': HEAD + '    groups:\n      g:\n        prune_access_tokens: true\n' });
    const d = only(r.diagnostics, 'PLUMB_PRUNE_ALL_TOKENS');
    expect(d.severity).toBe('warning');
    expect(d.summary).toContain('revokes every active token');
    expect(r.config).toBeDefined();
  });

  it('masks a password written in an instance URL wherever the diagnostic is shown', () => {
    const r = load({ 'plumb.yaml': HEAD.replace('https://code.example.com', 'https://ops:s3cret-pass@code.example.com') });
    only(r.diagnostics, 'PLUMB_URL_CREDENTIALS');
    const shown = r.sources.secrets.redact(renderDiagnosticsHuman(r.diagnostics, r.sources.texts));
    expect(shown).not.toContain('s3cret-pass');
  });
});

describe('instance URLs', () => {
  it('are kept in one spelling: lower-case host, no default port, trailing slash or /api/v4', () => {
    const dir = project({ 'plumb.yaml': HEAD.replace('https://code.example.com', 'HTTPS://Code.Example.COM:443/gitlab//api/v4/') });
    const r = loadConfig(['.'], { cwd: dir, env: CORPUS_ENV, today: TODAY });
    expect(codes(r.diagnostics)).toEqual([]);
    expect(r.config?.instances[0]?.url).toBe('https://code.example.com/gitlab');
  });
});

describe('a token beyond the declared maximum lifetime', () => {
  it('is refused at the token and names the limit declared elsewhere as a related place', () => {
    const result = loadConfig(['invalid/token-beyond-max-lifetime.yaml'], { cwd: corpus, env: CORPUS_ENV, today: TODAY });
    const found = result.diagnostics.filter((d) => d.code === 'PLUMB_TOKEN_BEYOND_MAX_LIFETIME');
    expect(found).toHaveLength(2);
    for (const d of found) {
      expect(d.related).toEqual([{ message: expect.stringContaining('30 day'), location: expect.objectContaining({ file: 'invalid/token-beyond-max-lifetime.yaml', line: 7, column: 7 }) }]);
    }
    expect(found[0]!.summary).toContain('90 days');
    expect(found[1]!.suggestion).toContain('2026-07-01');
  });
});

describe('a destroy in allow_risky', () => {
  it('says that allow_risky does not accept it and names the way that does', () => {
    const dir = project({
      'plumb.yaml': `${HEAD}    allow_risky: [pages-unpublish]\n    projects:\n      platform/site:\n        pages: {published: false}\n`,
    });
    const r = loadConfig(['plumb.yaml'], { cwd: dir, env: CORPUS_ENV, today: TODAY });
    const d = only(r.diagnostics, 'PLUMB_UNKNOWN_RISK');
    expect(d.summary).toContain('is a destroy');
    expect(d.suggestion).toContain('--allow-destroy');
    expect(d.suggestion).toContain('allow_unpublish: true');
  });
});
