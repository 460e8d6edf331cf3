/**
 * The standalone executable (`npm run build:sea`, scripts/sea.js), built fresh into a scratch
 * directory and run from another one with no Node.js to be found: the only `node` on its PATH is a
 * trap that records being started. It must answer --version, validate and plan the examples
 * against the emulator it starts itself, and be the Terraform provider under that name.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSea } from '../../scripts/sea.js';
import { root, startProvider } from '../provider/harness.js';
import { PLUMB_PROVIDER_SOURCE } from '../../src/catalogue/index.js';
import { packageHashV1, terraformPlatform } from '../../src/provider/mirror.js';
import { ADMIN, examplesAt, expectServingProvider, run, startEmulatorProcess } from './helpers.js';

const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };

describe('the standalone executable', () => {
  let tmp: string;
  let exe: string;
  let work: string;
  let trapBin: string;
  let scratch: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'plumb-sea-test-')));
    exe = await buildSea({ outDir: path.join(tmp, 'build') });
    work = path.join(tmp, 'work');
    trapBin = path.join(tmp, 'trap-bin');
    scratch = path.join(tmp, 'tmp');
    for (const d of [work, trapBin, scratch]) mkdirSync(d);
    for (const name of ['node', 'nodejs', 'npm', 'npx']) {
      writeFileSync(path.join(trapBin, name), `#!/bin/sh\necho "$0 $*" >> ${JSON.stringify(path.join(tmp, 'node-was-started'))}\nexit 97\n`);
      chmodSync(path.join(trapBin, name), 0o755);
    }
    // Only the trap directory on PATH; the executable's own temporary files go to `scratch`.
    env = { PATH: trapBin, HOME: work, TMPDIR: scratch };
  }, 120_000);

  afterAll(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('is built as one executable file', () => {
    expect(path.dirname(exe)).toBe(path.join(tmp, 'build'));
    expect(path.basename(exe)).toBe(`plumb-${process.platform}-${process.arch}`);
  });

  it('answers --version cold', async () => {
    const r = await run(exe, ['--version'], { cwd: work, env });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`plumb ${version}\n`);
    expect(r.code).toBe(0);
  });

  it('validates and plans the examples against the emulator it starts itself, and leaves no file behind', async () => {
    const emu = await startEmulatorProcess([exe], { cwd: work, env });
    try {
      const config = examplesAt(path.join(root, 'examples'), work, emu.url);
      const v = await run(exe, ['validate', config], { cwd: work, env });
      expect(v.stdout + v.stderr).toContain('Configuration is valid: 7 file(s), 1 instance(s).');
      expect(v.code).toBe(0);
      const p = await run(exe, ['plan', config, '--detailed-exitcode'], { cwd: work, env: { ...env, PLUMB_TOKEN: ADMIN } });
      expect(p.stderr).toBe('');
      expect(p.stdout).toMatch(/Plan: [1-9]\d* to add, [1-9]\d* to change, 0 to destroy\./);
      expect(p.stdout).not.toContain(ADMIN);
      expect(p.code).toBe(2);
      // The emulator's seed is the embedded example, written to a private directory while it runs.
      expect(readdirSync(scratch).filter((d) => d.startsWith('plumb-files-'))).toHaveLength(1);
    } finally {
      await emu.stop();
    }
    expect(readdirSync(scratch)).toEqual([]);
  }, 60_000);

  it('locates a mistake at file:line:col and lists the keys allowed there, from its embedded schema', async () => {
    const file = path.join(work, 'typo.yaml');
    writeFileSync(file, 'version: 1\ninstances:\n  prod:\n    url: https://code.example.com\n    token_evn: PLUMB_TOKEN\n');
    const r = await run(exe, ['validate', file], { cwd: work, env });
    expect(r.stderr).toContain('error[PLUMB_UNKNOWN_KEY]: Unknown key "token_evn"');
    expect(r.stderr).toContain('typo.yaml:5:5');
    // The keys allowed here come from schemas/plumb-config.schema.json, embedded.
    expect(r.stderr).toContain('Allowed here: url, token_env,');
    expect(r.stderr).toContain('did you mean "token_env"?');
    expect(r.code).toBe(1);
  });

  it('is the Terraform provider when started as terraform-provider-plumb: handshake, health, schema, shutdown', async () => {
    const bin = path.join(tmp, 'mirror');
    mkdirSync(bin);
    const named = path.join(bin, `terraform-provider-plumb_v${version}`);
    symlinkSync(exe, named);
    const provider = await startProvider({ command: [named], cwd: work, env });
    try {
      await expectServingProvider(provider);
      await provider.controller('Shutdown');
      expect(await provider.exited).toBe(0);
    } finally {
      provider.kill();
    }
    expect(readdirSync(scratch)).toEqual([]);
  }, 30_000);

  it('is the provider through `plumb provider` as well', async () => {
    const provider = await startProvider({ command: [exe, 'provider'], cwd: work, env });
    try {
      expect(provider.handshake).toMatch(/^1\|6\|tcp\|127\.0\.0\.1:\d+\|grpc\|/);
      expect(await provider.health()).toEqual({ status: 'SERVING' });
    } finally {
      provider.kill();
    }
  }, 30_000);

  it('mirrors itself as the provider: the mirror holds its own bytes, with the h1: hash it prints', async () => {
    const r = await run(exe, ['provider', 'mirror', 'mirror-of-self'], { cwd: work, env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const pkgDir = path.join(work, 'mirror-of-self', PLUMB_PROVIDER_SOURCE, version, terraformPlatform());
    expect(readdirSync(pkgDir)).toEqual([`terraform-provider-plumb_v${version}`]);
    expect(readFileSync(path.join(pkgDir, `terraform-provider-plumb_v${version}`)).equals(readFileSync(exe))).toBe(true);
    expect(r.stdout).toContain(packageHashV1(pkgDir));
  }, 60_000);

  it('never started node, npm or npx', () => {
    // Run last: the trap writes this file whenever anything above started one of them.
    expect(existsSync(path.join(tmp, 'node-was-started'))).toBe(false);
    expect(readdirSync(trapBin).sort()).toEqual(['node', 'nodejs', 'npm', 'npx']);
  });
});
