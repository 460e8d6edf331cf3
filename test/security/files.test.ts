/**
 * Hostile configurations that make plumb read local files (issue 18, items 3, 6, 7 and the second
 * corpus): configuration files through symbolic links, `${file:…}` and `source:` targets outside
 * the configuration root or special (FIFOs, devices, /proc), binary configuration files, and the
 * token sinks and repository paths that would write where they must not.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { scratchArea } from '../helpers/scratch.js';
import { instanceYaml, plumb } from './harness.js';

const { project } = scratchArea('plumb-security-files');
/** Apart from the projects' scratch area, so outside every configuration root; removed after the file (issue 29.18). */
const outsideRoot = scratchArea('plumb-outside').dir;

/** A file outside every configuration root, holding a fake token. */
function outsideFile(name: string, text: string): string {
  const dir = mkdtempSync(path.join(outsideRoot, 'f-'));
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

const SETTINGS_WITH_FILE = (ref: string) => instanceYaml(`    settings:\n      captcha_enabled: true\n      captcha_site_key: site-key-1234\n      captcha_private_key: \${file:${ref}}\n`);
const PROJECT_FILE = (filePath: string, spec: string) => instanceYaml(`    projects:\n      platform/app:\n        files:\n          ${filePath}: ${spec}\n`);

describe('a configuration file', () => {
  it('that is a symbolic link to a file outside the root is refused, and nothing of that file is printed', () => {
    const token = 'glpat-OUTSIDE-fake-0123456789';
    // Broken YAML on purpose: the old code frame printed the line holding the token.
    const target = outsideFile('environ.yaml', `PLUMB_TOKEN: "${token}\nmore: [\n`);
    const dir = project({ 'config/main.yaml': instanceYaml() });
    symlinkSync(target, path.join(dir, 'config/leak.yaml'));
    for (const args of [['validate', 'config'], ['validate', 'config', '--json']]) {
      const r = plumb(args, dir);
      expect(r.status).toBe(1);
      expect(r.stdout + r.stderr).toContain('PLUMB_LOCAL_FILE_REFUSED');
      expect(r.stdout + r.stderr).toContain('outside the configuration root');
      expect(r.stdout + r.stderr).not.toContain(token);
    }
  });

  it('that is a symbolic link to /proc/self/environ is refused without printing the environment', () => {
    const token = 'glpat-ENVIRON-fake-0123456789';
    const dir = project({ 'config/main.yaml': instanceYaml() });
    symlinkSync('/proc/self/environ', path.join(dir, 'config/env.yaml'));
    const r = plumb(['validate', 'config'], dir, { PLUMB_TOKEN: token, OTHER_SECRET: 'other-secret-value-42' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('PLUMB_LOCAL_FILE_REFUSED');
    expect(r.stderr).toContain('special file');
    expect(r.stdout + r.stderr).not.toContain(token);
    expect(r.stdout + r.stderr).not.toContain('other-secret-value-42');
  });

  it('that is binary shows none of its bytes: no code frame of it, no control character', () => {
    const dir = project({ 'README.md': 'binary configuration\n' });
    const bytes = Buffer.concat([Buffer.from('version: 1\ninstances: [\u001b]0;owned\u0007 binary-payload-xyz '), Buffer.from([0xc3, 0x28, 0xff, 0x00, 0x41]), Buffer.from('\n')]);
    writeFileSync(path.join(dir, 'plumb.yaml'), bytes);
    const r = plumb(['validate', 'plumb.yaml'], dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('PLUMB_CONFIG_ENCODING');
    expect(r.stderr).not.toContain('binary-payload-xyz');
    expect(r.stderr).not.toContain('\u001b]0');
    const json = plumb(['validate', 'plumb.yaml', '--json'], dir);
    expect(json.stdout).not.toContain('binary-payload-xyz');
    expect(JSON.stringify(JSON.parse(json.stdout))).not.toContain('snippet');
  });

  it('with a 1 MB key is refused at once, at the key', () => {
    const dir = project({ 'plumb.yaml': instanceYaml(`    settings:\n      ${'a'.repeat(1_000_000)}: 1\n`) });
    const r = plumb(['validate', 'plumb.yaml', '--json'], dir, {}, 15_000);
    expect(r.signal).toBeNull();
    const body = JSON.parse(r.stdout) as { diagnostics: { code: string; line: number; column: number }[] };
    expect(body.diagnostics.map((d) => [d.code, d.line, d.column])).toEqual([['PLUMB_KEY_TOO_LONG', 7, 7]]);
  });
});

describe('${file:…}', () => {
  it('of /dev/zero is refused quickly, as a special file', () => {
    const dir = project({ 'plumb.yaml': SETTINGS_WITH_FILE('/dev/zero') });
    const r = plumb(['validate', 'plumb.yaml'], dir, {}, 15_000);
    expect(r.signal).toBeNull();
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('PLUMB_LOCAL_FILE_REFUSED');
    expect(r.stderr).toContain('special file');
  });

  it('of a FIFO is refused without waiting for a writer', () => {
    const dir = project({ 'plumb.yaml': SETTINGS_WITH_FILE('secrets/key.fifo') });
    mkdirSync(path.join(dir, 'secrets'));
    expect(spawnSync('mkfifo', [path.join(dir, 'secrets/key.fifo')]).status).toBe(0);
    const r = plumb(['validate', 'plumb.yaml'], dir, {}, 15_000);
    expect(r.signal).toBeNull();
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('PLUMB_LOCAL_FILE_REFUSED');
    expect(r.stderr).toContain('FIFO');
  });

  it('outside the root is refused, unless its directory is listed in PLUMB_FILE_ROOTS; a large one is refused', () => {
    const secret = outsideFile('captcha.key', 'captcha-private-from-outside\n');
    const dir = project({ 'plumb.yaml': SETTINGS_WITH_FILE(secret), 'big.yaml': '' });
    const refused = plumb(['validate', 'plumb.yaml'], dir);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('PLUMB_LOCAL_FILE_REFUSED');
    expect(refused.stderr).toContain('PLUMB_FILE_ROOTS');
    const allowed = plumb(['validate', 'plumb.yaml'], dir, { PLUMB_FILE_ROOTS: path.dirname(secret) });
    expect(allowed.stderr).toBe('');
    expect(allowed.status).toBe(0);
    // Even so, no special file and nothing larger than 64 KiB.
    const big = project({ 'plumb.yaml': SETTINGS_WITH_FILE('big.key'), 'big.key': 'k'.repeat(65 * 1024) });
    const r = plumb(['validate', 'plumb.yaml'], big);
    expect(r.stderr).toContain('PLUMB_LOCAL_FILE_REFUSED');
    expect(r.stderr).toContain('more than the 64 KiB');
    const dev = project({ 'plumb.yaml': SETTINGS_WITH_FILE('/dev/zero') });
    expect(plumb(['validate', 'plumb.yaml'], dev, { PLUMB_FILE_ROOTS: '/dev' }).stderr).toContain('special file');
  });

  it('through a link inside the root that points into .git/ is refused', () => {
    const dir = project({ 'plumb.yaml': SETTINGS_WITH_FILE('key.txt'), '.git/config': '[remote "origin"]\n  url = https://gitlab-ci-token:job-token-secret@code.example.com/x.git\n' });
    symlinkSync(path.join(dir, '.git/config'), path.join(dir, 'key.txt'));
    const r = plumb(['validate', 'plumb.yaml'], dir);
    expect(r.stderr).toContain('PLUMB_LOCAL_FILE_REFUSED');
    expect(r.stderr).toContain('.git/');
  });
});

describe('the token variables', () => {
  it('are masked in every diagnostic, though the configuration never interpolates them', () => {
    const token = 'glpat-admin-value-0123456789';
    // A hostile configuration that quotes the token's value where an error shows it.
    const dir = project({ 'plumb.yaml': instanceYaml(`    settings:\n      ${token}: 1\n      after_sign_up_text: 12\n`, 'ADMIN_TOKEN') });
    const r = plumb(['validate', 'plumb.yaml'], dir, { ADMIN_TOKEN: token });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('PLUMB_UNKNOWN_SETTING');
    expect(r.stderr).not.toContain(token);
    const p = plumb(['validate', 'plumb.yaml'], dir, { PLUMB_TOKEN: token });
    expect(p.stderr).not.toContain(token);
  });
});

describe('a repository file source', () => {
  it('of /proc/self/environ is refused, as a special file', () => {
    const dir = project({ 'plumb.yaml': PROJECT_FILE('env.txt', '{source: /proc/self/environ}') });
    const r = plumb(['validate', 'plumb.yaml'], dir, { PLUMB_TOKEN: 'glpat-proc-environ-0123456789' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('PLUMB_LOCAL_FILE_REFUSED');
    expect(r.stderr).toContain('special file');
  });

  it('of /dev/zero is refused as a special file, not called a directory', () => {
    const dir = project({ 'plumb.yaml': PROJECT_FILE('zero.bin', '{source: /dev/zero, encoding: base64}') });
    const r = plumb(['validate', 'plumb.yaml'], dir, {}, 15_000);
    expect(r.signal).toBeNull();
    expect(r.stderr).toContain('special file');
    expect(r.stderr).not.toContain('directory');
    const text = project({ 'plumb.yaml': PROJECT_FILE('zero.txt', '{source: /dev/zero}') });
    expect(plumb(['validate', 'plumb.yaml'], text).stderr).toContain('special file');
  });

  it('outside the root (absolute, or through ..) is refused; inside it is read', () => {
    const outside = outsideFile('id_rsa', '-----BEGIN OPENSSH PRIVATE KEY-----\n');
    const dir = project({ 'config/plumb.yaml': PROJECT_FILE('a.txt', `{source: ${outside}}`) });
    const abs = plumb(['validate', 'config'], dir);
    expect(abs.status).toBe(1);
    expect(abs.stderr).toContain('PLUMB_LOCAL_FILE_REFUSED');
    const rel = project({ 'config/plumb.yaml': PROJECT_FILE('a.txt', `{source: ${path.relative(os.tmpdir(), outside).replace(/^/, '../../../')}}`) });
    expect(plumb(['validate', 'config'], rel).stderr).toContain('outside the configuration root');
    const ok = project({ 'config/plumb.yaml': PROJECT_FILE('a.txt', '{source: ../files/a.txt}'), 'files/a.txt': 'hello\n' });
    const r = plumb(['validate', 'config'], ok);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});

describe('a repository file path', () => {
  it('inside .git/ is refused, at its key', () => {
    const dir = project({ 'plumb.yaml': PROJECT_FILE('.git/hooks/post-checkout', '{content: "#!/bin/sh\\n"}') });
    const r = plumb(['validate', 'plumb.yaml', '--json'], dir);
    const body = JSON.parse(r.stdout) as { diagnostics: { code: string; summary: string; line: number }[] };
    expect(body.diagnostics.map((d) => [d.code, d.line])).toEqual([['PLUMB_FILE_PATH_TRAVERSAL', 9]]);
    expect(body.diagnostics[0]!.summary).toContain('.git/');
    const upper = project({ 'plumb.yaml': PROJECT_FILE('sub/.GIT/config', '{content: x}') });
    expect(plumb(['validate', 'plumb.yaml'], upper).stderr).toContain('PLUMB_FILE_PATH_TRAVERSAL');
  });

  it('holding a newline or ESC is refused, at its key, without printing the character', () => {
    for (const [key, raw] of [['"a\\nb.txt"', '\n'], ['"a\\eb.txt"', '\u001b'], ['"a\\x9bb.txt"', '\u009b']] as const) {
      const dir = project({ 'plumb.yaml': PROJECT_FILE(key, '{content: x}') });
      const r = plumb(['validate', 'plumb.yaml'], dir);
      expect(r.status, key).toBe(1);
      expect(r.stderr, key).toContain('PLUMB_FILE_PATH_TRAVERSAL');
      expect(r.stderr, key).toContain('control character');
      expect(r.stderr.includes(`a${raw}b`), key).toBe(false);
    }
  });
});

describe('a token sink file', () => {
  const TOKEN = (sink: string) =>
    instanceYaml(`    groups:\n      platform:\n        access_tokens:\n          ci:\n            scopes: [read_api]\n            expires_at: 2026-12-01\n            sink: {file: ${sink}}\n`);

  it('over a configuration file, a source file or a file inside .git/ is refused', () => {
    const cases: [string, Record<string, string>, string][] = [
      ['plumb.yaml', {}, 'the configuration file plumb.yaml'],
      ['other.yaml', { 'other.yaml': 'version: 1\n' }, 'the configuration file other.yaml'],
      ['.git/hooks/post-checkout', { '.git/HEAD': 'ref: refs/heads/main\n' }, 'inside .git/'],
      ['files/doc.md', { 'files/doc.md': 'hi\n' }, 'the source of repository file "doc.md"'],
    ];
    for (const [sink, extra, what] of cases) {
      let yaml = TOKEN(sink);
      if (sink === 'files/doc.md') yaml += `    projects:\n      platform/app:\n        files:\n          doc.md: {source: files/doc.md}\n`;
      const dir = project({ 'plumb.yaml': yaml, ...extra });
      const r = plumb(['validate', '.'], dir);
      expect(r.status, sink).toBe(1);
      expect(r.stderr, sink).toContain('PLUMB_TOKEN_SINK_FORBIDDEN');
      expect(r.stderr, sink).toContain(what);
      expect(r.stderr, sink).toMatch(/--> plumb\.yaml:\d+:\d+/);
    }
    const fine = project({ 'plumb.yaml': TOKEN('secrets/ci.token') });
    const ok = plumb(['validate', 'plumb.yaml'], fine);
    expect(ok.stderr).toBe('');
  });
});
