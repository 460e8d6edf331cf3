/**
 * Closing plumb's output early (issue 29, item 2): `plumb plan | head` must end quietly, as other
 * command-line tools do, not with an unhandled EPIPE stack trace; and a secret meant for standard
 * output must never count as delivered into a pipe nobody reads.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, harness } from '../resources/group-access-tokens/helpers.js';
import type { Harness } from '../resources/group-access-tokens/helpers.js';

const bin = path.resolve(__dirname, '../../bin/plumb.js');

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** Runs the built CLI with its standard output closed by the reader before plumb writes anything. */
async function runWithClosedStdout(args: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  expect(existsSync(path.resolve(__dirname, '../../dist/cli.js')), 'npm run build first').toBe(true);
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: h.wd.dir,
    env: { PATH: process.env.PATH ?? '', PLUMB_TOKEN: ADMIN_TOKEN, PLUMB_NOW: h.today, PLUMB_SINK_TIMEOUT_SECONDS: '5' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.destroy();
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
  return { code, stderr };
}

describe('a reader that goes away', () => {
  it('ends plumb plan quietly with its usual exit code', async () => {
    h = await harness();
    h.config({ platform: { tokens: { ci: {}, deploy: {} } } });
    const r = await runWithClosedStdout(['plan', '--detailed-exitcode']);
    expect(r.stderr).not.toContain('EPIPE');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.code, r.stderr).toBe(2);
  }, 60_000);

  it('never counts a secret written into the closed pipe as delivered: the new token is revoked again', async () => {
    h = await harness();
    h.config({ platform: { tokens: { ci: { sink: '{stdout: true}' } } } });
    const r = await runWithClosedStdout(['apply', '--auto-approve']);
    expect(r.stderr).not.toContain('EPIPE');
    expect(r.stderr).toContain('PLUMB_SINK_FAILED');
    expect(r.stderr).toMatch(/standard output (is )?closed/);
    expect(r.code).toBe(1);
    expect(h.active('platform', 'ci'), 'no active token whose secret went nowhere').toEqual([]);
  }, 60_000);
});
