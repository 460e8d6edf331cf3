/**
 * The provider's gRPC stack must not slow the commands people run by hand: `plumb validate` (the
 * cold-start bench row) never loads @grpc/grpc-js, @grpc/proto-loader, protobufjs or
 * @msgpack/msgpack; `plumb provider` does. Checked in a child process of the built CLI with a
 * preload that lists the modules loaded at exit.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { removeWhenDone } from '../helpers/scratch.js';
import { ensureBuilt, root } from './harness.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-lazy-'));
removeWhenDone(dir);
const preload = path.join(dir, 'loaded.cjs');
const PATTERN = /[\\/]node_modules[\\/](@grpc|@msgpack|protobufjs)[\\/]/;

beforeAll(() => {
  ensureBuilt();
  writeFileSync(
    preload,
    `process.on('exit', () => { require('node:fs').writeFileSync(process.env.LOADED_OUT, [...Object.keys(require.cache), ...process.moduleLoadList].join('\\n')); });\n`,
  );
}, 300_000);

function loaded(args: string[], pattern = PATTERN, script: string[] = [path.join(root, 'bin/plumb.js')]): string[] {
  const out = path.join(dir, `out-${Math.random().toString(36).slice(2)}.txt`);
  spawnSync(process.execPath, ['--require', preload, ...script, ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 20_000,
    env: { PATH: process.env.PATH ?? '', LOADED_OUT: out },
  });
  return readFileSync(out, 'utf8').split('\n').filter((m) => pattern.test(m));
}

describe('lazy loading of the provider stack', () => {
  it('plumb validate of YAML loads none of gRPC, protobuf or msgpack', () => {
    expect(loaded(['validate', 'examples/plumb'])).toEqual([]);
  });

  it('plumb provider does load them (so the check above can fail)', () => {
    // Run by hand (no magic cookie) it explains itself and exits, after loading its stack.
    const mods = loaded(['provider']);
    expect(mods.some((m) => m.includes('@grpc'))).toBe(true);
    expect(mods.some((m) => m.includes('@msgpack'))).toBe(true);
  });
});

describe('the start-up of plumb validate', () => {
  // node:crypto (36 of node's own modules) is for the Code Quality report's fingerprints only
  // (bench/run.js, cold start).
  const HEAVY = /^NativeModule crypto$/;
  // node's streams and sockets: what creating process.stdout loads for a pipe (src/commands/output.ts
  // writes to a pipe, a socket or a file without them), and what node:net loads.
  const STREAMS = /^NativeModule (net|stream|internal\/streams\/writable)$/;

  it('does not load node:crypto', () => {
    expect(loaded(['validate', 'examples/plumb'], HEAVY)).toEqual([]);
  });

  it("does not load node's streams or sockets to write its result into a pipe", () => {
    expect(loaded(['validate', 'examples/plumb'], STREAMS)).toEqual([]);
  });

  it('runs the validate bundle, which holds neither the HTTP client nor the other commands (the full bundle does)', () => {
    const validate = readFileSync(path.join(root, 'dist/plumb-validate.cjs'), 'latin1');
    const full = readFileSync(path.join(root, 'dist/plumb.cjs'), 'latin1');
    // Markers of undici (its HTTP parser), the emulator, the engine's selectors and the drift view.
    for (const marker of ['llhttp', '500 Internal Server Error', 'fix the errors of the blocked matches above and plan again', 'The drift check failed']) {
      expect(full, marker).toContain(marker);
      expect(validate, marker).not.toContain(marker);
    }
  });

  it("does not start node's ES module loader (the launcher is CommonJS, bin/package.json)", () => {
    // The loader's jobs, and the promise-based file system and readline it reads files with: none
    // beyond what node itself starts with (nothing on Node 20; newer Node starts some for every script).
    const esm = /^NativeModule internal\/(modules\/esm\/module_job|fs\/promises|readline\/interface)$/;
    const bare = new Set(loaded([], esm, ['-e', '0']));
    expect(loaded(['validate', 'examples/plumb'], esm).filter((m) => !bare.has(m))).toEqual([]);
  });

  it('loads node:crypto for the Code Quality report (so the check above can fail)', () => {
    expect(loaded(['validate', 'examples/plumb', '--format', 'codequality'], HEAVY)).toContain('NativeModule crypto');
  });
});
