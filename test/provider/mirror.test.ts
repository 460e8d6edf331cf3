/**
 * The provider's address and `plumb provider mirror` / `plumb provider install`
 * (src/provider/mirror.ts): where Terraform may install plumb's provider from, and what the mirror
 * holds.
 */
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PLUMB_PROVIDER_SOURCE } from '../../src/catalogue/index.js';
import { PROVIDER_FILE, PROVIDER_HOST, cliConfigFor, packageHashV1, runMirrorCommand, terraformPlatform } from '../../src/provider/mirror.js';
import { VERSION } from '../../src/version.js';
import { workdir } from '../helpers/cli.js';
import { root } from './harness.js';

/** Text files of the repository that declare or configure the provider (docs, examples, templates, tests, bench). */
function declaringFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir)) {
      const full = path.join(dir, e);
      if (statSync(full).isDirectory()) walk(full);
      else if (/\.(md|tf|ts|js|yml|json)$/.test(e)) out.push(full);
    }
  };
  for (const d of ['docs', 'examples', 'templates', 'test', 'bench', 'src', 'schemas']) walk(path.join(root, d));
  // This file names the wrong spellings on purpose.
  return [...out, path.join(root, 'README.md')].filter((f) => f !== path.join(root, 'test/provider/mirror.test.ts'));
}

describe('the provider address (issue 28 item 3)', () => {
  it('is on a host no one can publish under: a reserved .invalid name (RFC 6761), not a registry namespace', () => {
    const [host, namespace, type] = PLUMB_PROVIDER_SOURCE.split('/');
    expect(host).toMatch(/^[a-z0-9-]+\.invalid$/);
    expect(type).toBe('plumb');
    expect(namespace).toBe('plumb');
    expect(PROVIDER_HOST).toBe(host);
    expect(['registry.terraform.io', 'registry.opentofu.org']).not.toContain(host);
  });

  it('is the served schema\'s key, the CDKTF bindings\' source and the mirror\'s CLI configuration', () => {
    const schema = JSON.parse(readFileSync(path.join(root, 'schemas/terraform-provider.schema.json'), 'utf8')) as { provider_schemas: Record<string, unknown> };
    expect(Object.keys(schema.provider_schemas)).toEqual([PLUMB_PROVIDER_SOURCE]);
    expect(readFileSync(path.join(root, 'src/generated/cdktf/provider/index.ts'), 'utf8')).toContain(`terraformProviderSource: '${PLUMB_PROVIDER_SOURCE}'`);
    const rc = cliConfigFor('/m');
    expect(rc).toContain(`include = [${JSON.stringify(PLUMB_PROVIDER_SOURCE)}]`);
    expect(rc).toContain(`exclude = [${JSON.stringify(PLUMB_PROVIDER_SOURCE)}]`);
  });

  it('is written in full wherever the provider is declared: a short `plumb/plumb` means registry.terraform.io/plumb/plumb', () => {
    const wrong: string[] = [];
    for (const f of declaringFiles()) {
      const text = readFileSync(f, 'utf8');
      // `source = "…"` of a required_providers entry named plumb, dev_overrides keys, and addresses in prose.
      for (const m of text.matchAll(/plumb\s*=\s*\{\s*source\s*=\s*\\?"([^"\\]+)\\?"/g)) if (m[1] !== PLUMB_PROVIDER_SOURCE) wrong.push(`${path.relative(root, f)}: source = "${m[1]}"`);
      // Quoted (dev_overrides keys, include/exclude, lock files, schema keys) or a mirror's directory; prose may name the old address.
      for (const m of text.matchAll(/(?:\\?["']|plugins\/|mirror\/)((?:[a-z0-9.-]+\/)?plumb\/plumb)(?=\\?["'\/])/g)) if (m[1] !== PLUMB_PROVIDER_SOURCE) wrong.push(`${path.relative(root, f)}: ${m[1]}`);
    }
    expect(wrong).toEqual([]);
  });
});

describe('plumb provider mirror: what it refuses, located, with one documented exit code (issue 29 item 8)', () => {
  const w = workdir();
  afterAll(() => rmSync(w.dir, { recursive: true, force: true }));
  // A native executable of this machine (node itself) stands for the standalone executable: the checks read its header.
  const exe = process.execPath;

  it('refuses a directory argument that is an existing file, and a file in its path, without a stack trace', async () => {
    w.write('taken', 'not a directory\n');
    const r = await w.run(['provider', 'mirror', 'taken', '--executable', exe]);
    expect(r.stderr).toBe(`plumb: plumb provider mirror taken: taken is a file, not a directory\n  help: name a directory: it is created when missing, and plumb writes only below it\n`);
    expect(r.stdout).toBe('');
    expect(r.code).toBe(1);
    expect(readFileSync(path.join(w.dir, 'taken'), 'utf8')).toBe('not a directory\n');
    const below = await w.run(['provider', 'mirror', 'taken/mirror', '--executable', exe]);
    expect(below.stderr).toMatch(/^plumb: plumb provider mirror taken\/mirror: \S+\/taken \(in taken\/mirror\) is a file, not a directory\n {2}help: /);
    expect(below.code).toBe(1);
  });

  it('refuses an --executable that is missing, a directory, not executable, a script, or built for another platform', async () => {
    w.write('notes.txt', 'hello\n');
    w.write('script.sh', '#!/bin/sh\necho hi\n');
    chmodSync(path.join(w.dir, 'script.sh'), 0o755);
    mkdirSync(path.join(w.dir, 'a-dir'));
    // An ELF header for arm64 (e_machine 183), executable.
    const arm = Buffer.alloc(64);
    arm.write('\x7fELF', 0, 'latin1');
    arm[4] = 2;
    arm[5] = 1;
    arm.writeUInt16LE(183, 18);
    writeFileSync(path.join(w.dir, 'plumb-linux-arm64'), arm, { mode: 0o755 });
    const cases: [string[], RegExp][] = [
      [['--executable', 'dist/sea/missing'], /^plumb: --executable dist\/sea\/missing: no such file\n {2}help: give the standalone executable for /],
      [['--executable', 'a-dir'], /^plumb: --executable a-dir: it is a directory, not an executable file\n/],
      [['--executable', 'notes.txt'], /^plumb: --executable notes\.txt: it is not executable \(no execute permission\)\n/],
      [['--executable', 'script.sh', '--platform', 'linux_amd64'], /^plumb: --executable script\.sh: it is not an ELF executable, as linux_amd64 runs/],
      [['--executable', 'plumb-linux-arm64', '--platform', 'linux_amd64'], /^plumb: --executable plumb-linux-arm64: it is an executable for another architecture than amd64 \(ELF machine 183\)\n/],
      [['--executable', 'plumb-linux-arm64', '--platform', 'linux-arm64'], /^plumb: --platform linux-arm64: not a Terraform platform\n {2}help: write OS_ARCH as Terraform does/],
    ];
    for (const [args, expected] of cases) {
      const r = await w.run(['provider', 'mirror', 'out', ...args]);
      expect(r.stderr, args.join(' ')).toMatch(expected);
      expect(r.code, args.join(' ')).toBe(1);
    }
    expect(existsSync(path.join(w.dir, 'out'))).toBe(false);
    // The right architecture is accepted, for the platform it names.
    const ok = await w.run(['provider', 'mirror', 'out', '--executable', 'plumb-linux-arm64', '--platform', 'linux_arm64']);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(readFileSync(path.join(w.dir, 'out', PLUMB_PROVIDER_SOURCE, VERSION, 'linux_arm64', `terraform-provider-plumb_v${VERSION}`))).toEqual(arm);
  });

  it('documents its exit codes in its usage', async () => {
    const r = await w.run(['provider', '--help']);
    expect(r.stdout).toContain('Exit codes of mirror and install: 0 written; 1 not written');
    expect(readFileSync(path.join(root, 'README.md'), 'utf8')).toMatch(/\| `plumb provider mirror DIR[^|]*\| 0 written, 1 not written/);
  });
});

describe('the mirrored provider hashes the same on every machine (issue 28 item 15)', () => {
  const w = workdir();
  afterAll(() => rmSync(w.dir, { recursive: true, force: true }));

  it('holds no path of the installation or of node: two installations in different places give the same files and h1: hash', () => {
    const bundle = w.write('a/node_modules/plumb-gitops/dist/plumb-provider.cjs', '"use strict";/* the provider */\n');
    cpSync(path.join(w.dir, 'a'), path.join(w.dir, 'elsewhere/b'), { recursive: true });
    const mirror = (install: string, node: string, dir: string) => {
      const r = runMirrorCommand({ install: false, dir }, { env: {}, cwd: w.dir }, { version: VERSION, providerFile: path.join(w.dir, install, 'node_modules/plumb-gitops/dist/plumb-provider.cjs'), execPath: node });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      return path.join(w.dir, dir, PLUMB_PROVIDER_SOURCE, VERSION, terraformPlatform());
    };
    const one = mirror('a', '/usr/bin/node', 'm1');
    const two = mirror('elsewhere/b', '/opt/node-20/bin/node', 'm2');
    expect(readdirSync(one).sort()).toEqual([PROVIDER_FILE, `terraform-provider-plumb_v${VERSION}`]);
    for (const f of readdirSync(one)) expect(readFileSync(path.join(two, f)), f).toEqual(readFileSync(path.join(one, f)));
    expect(packageHashV1(two)).toBe(packageHashV1(one));
    // Mirroring again over a mirror of the other kind, or one an interrupted run left a temporary file in, gives the same package.
    writeFileSync(path.join(two, `.terraform-provider-plumb_v${VERSION}.0123456789ab.tmp`), 'half');
    mirror('elsewhere/b', '/usr/bin/node', 'm2');
    expect(packageHashV1(two)).toBe(packageHashV1(one));
    const launcher = readFileSync(path.join(one, `terraform-provider-plumb_v${VERSION}`), 'utf8');
    expect(launcher).not.toContain(w.dir);
    expect(launcher).not.toContain('/usr/bin/node');
    expect(readFileSync(path.join(one, PROVIDER_FILE))).toEqual(readFileSync(bundle));
    expect(statSync(path.join(one, `terraform-provider-plumb_v${VERSION}`)).mode & 0o111).not.toBe(0);
  });

  it('computes h1: as Terraform does (dirhash Hash1: sorted "sha256  name" lines)', () => {
    w.write('pkg/b', 'b\n');
    w.write('pkg/a', 'a\n');
    // sha256("a\n"), sha256("b\n"); the hash of the two lines, base64.
    expect(packageHashV1(path.join(w.dir, 'pkg'))).toBe('h1:oOw/UxvBP/2Po35sddlb//tpKHscE/O5rdJW0fT3eFA=');
  });
});
