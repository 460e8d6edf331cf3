import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOMEPAGE, VERSION } from '../../src/version.js';
import { main } from '../../src/cli.js';

const root = path.resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string; homepage?: string };

describe('plumb --version', () => {
  it('names where the documentation is in --help, the homepage of package.json', async () => {
    expect(pkg.homepage).toBe(HOMEPAGE);
    let help = '';
    expect(await main(['--help'], { stdout: (s) => (help += s), stderr: () => {}, isTTY: false, env: {}, cwd: root })).toBe(0);
    expect(help).toContain(`Documentation: ${HOMEPAGE}`);
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
