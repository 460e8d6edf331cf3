import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOMEPAGE, VERSION } from '../../src/version.js';
import { main } from '../../src/cli.js';

const root = path.resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  version: string;
  homepage?: string;
  license?: string;
  repository?: string | { url?: string };
  bugs?: string | { url?: string; email?: string };
};

describe('plumb --version', () => {
  it('names where the documentation is in --help, the homepage of package.json', async () => {
    expect(pkg.homepage).toBe(HOMEPAGE);
    let help = '';
    expect(await main(['--help'], { stdout: (s) => (help += s), stderr: () => {}, isTTY: false, env: {}, cwd: root })).toBe(0);
    expect(help).toContain(`Documentation: ${HOMEPAGE}`);
  });

  it('prints every address package.json gives and no other, so --help never invents a repository or bug tracker', async () => {
    let help = '';
    await main(['--help'], { stdout: (s) => (help += s), stderr: () => {}, isTTY: false, env: {}, cwd: root });
    const url = (v: string | { url?: string } | undefined) => (typeof v === 'string' ? v : v?.url);
    const known = [pkg.homepage, url(pkg.repository)?.replace(/^git\+/, '').replace(/\.git$/, ''), url(pkg.bugs)].filter((u): u is string => !!u);
    for (const u of known) expect(help).toContain(u);
    expect([...help.matchAll(/https?:\/\/\S+/g)].map((m) => m[0]).filter((u) => !known.includes(u))).toEqual([]);
    expect(help).toContain(`License: ${pkg.license}`);
  });

  it('ships the MIT licence package.json names, with its copyright line', () => {
    expect(pkg.license).toBe('MIT');
    const text = readFileSync(path.join(root, 'LICENSE'), 'utf8');
    expect(text.split('\n')[0]).toBe('MIT License');
    expect(text).toContain('Copyright (c) 2026 the plumb authors');
    expect(text).toContain('THE SOFTWARE IS PROVIDED "AS IS"');
  });

  it('keeps src/version.ts in step with package.json', () => {
    expect(VERSION).toBe(pkg.version);
  });

  it('prints the same version from the launcher and from the CLI module', async () => {
    const fromBin = execFileSync(process.execPath, [path.join(root, 'bin/plumb.js'), '--version'], { encoding: 'utf8' });
    let fromMain = '';
    const code = await main(['--version'], { stdout: (s) => (fromMain += s), stderr: () => {}, isTTY: false, env: {}, cwd: root });
    expect(code).toBe(0);
    expect(fromBin).toBe(`plumb ${pkg.version}\n`);
    expect(fromMain).toBe(fromBin);
  });

  it('runs the bundled CLI through the launcher with the same exit codes', () => {
    const run = (args: string[]) => {
      try {
        execFileSync(process.execPath, [path.join(root, 'bin/plumb.js'), ...args], { encoding: 'utf8', stdio: 'pipe' });
        return 0;
      } catch (err) {
        return (err as { status: number }).status;
      }
    };
    expect(run(['validate', path.join(root, 'examples/plumb')])).toBe(0);
    expect(run(['no-such-command'])).toBe(1);
  });
});
