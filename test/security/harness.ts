/**
 * Hostile configurations for `test/security/`: each project is a fresh scratch directory (not in a
 * Git work tree, so it is its own configuration root), run through the built CLI in a child
 * process with a time limit, so a configuration that used to hang or exhaust memory fails the test
 * instead of stalling the test run. Needs `npm run build`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { beforeAll } from 'vitest';

export const root = path.resolve(import.meta.dirname, '../..');
/** PLUMB_SECURITY_BIN runs these tests against another build (e.g. one from before a fix, to see them fail). */
const bin = process.env.PLUMB_SECURITY_BIN ?? path.join(root, 'bin/plumb.js');

/** The built module at `rel` under dist/ of the build the tests run (see PLUMB_SECURITY_BIN). */
export function distModule(rel: string): string {
  return path.join(path.dirname(path.dirname(bin)), 'dist', rel);
}

export const TODAY = '2026-06-01';

beforeAll(() => {
  if (existsSync(path.join(root, 'dist/commands/validate.js'))) return;
  spawnSync('npm', ['run', 'build'], { cwd: root, encoding: 'utf8' });
}, 300_000);

export interface Run {
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** `plumb ARGS` in `cwd`, with only `env` (and PATH) in its environment, stopped after `timeoutMs`. */
export function plumb(args: readonly string[], cwd: string, env: Record<string, string> = {}, timeoutMs = 20_000): Run {
  const started = performance.now();
  const r = spawnSync(process.execPath, [bin, ...args], {
    cwd,
    encoding: 'utf8',
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
    maxBuffer: 64 * 1024 * 1024,
    env: { PATH: process.env.PATH ?? '', PLUMB_NOW: TODAY, ...env },
  });
  return { status: r.status, signal: r.signal, stdout: r.stdout ?? '', stderr: r.stderr ?? '', ms: performance.now() - started };
}

/** A minimal instance document around `body` (YAML lines indented under the instance). */
export function instanceYaml(body = '', tokenEnv = 'PLUMB_TOKEN'): string {
  return `version: 1\ninstances:\n  prod:\n    url: https://code.example.com\n    token_env: ${tokenEnv}\n${body}`;
}
