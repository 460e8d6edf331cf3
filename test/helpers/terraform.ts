/**
 * What the suites that run the real `terraform` against plumb's provider share: a CLI configuration
 * that points `plumb.invalid/plumb/plumb` at this checkout's built provider, and a child-process runner that does
 * not block the event loop (the emulator those runs talk to answers from the test's own process).
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The timeout of a test that drives terraform (each suite's `describe.runIf(cli)(name, { timeout:
 * TERRAFORM_TEST_TIMEOUT_MS }, …)`): a test runs up to five terraform commands (init, plan, apply,
 * import, plan again), each starting plumb's provider, and each bounded by `runCombined`'s own kill
 * timer (60-90 s). The suite's default 30 s timed four of them out on a busy 2-core machine (issue
 * 29.18); on an idle one they take 5-15 s. Speed is measured in bench/, not by this timeout.
 */
export const TERRAFORM_TEST_TIMEOUT_MS = 300_000;

/** The first of `names` found as an executable on PATH. */
export function onPath(...names: string[]): string | undefined {
  for (const name of names) {
    for (const d of (process.env.PATH ?? '').split(path.delimiter)) {
      const f = path.join(d, name);
      try {
        accessSync(f, constants.X_OK);
        return f;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

/**
 * A suite that needs the CLI may skip on a user's machine without it, but under CI (`CI` set) it
 * must run: this registers a failing test in its place. Call it beside `describe.runIf(cli)`.
 */
export function failWithoutCliInCi(cli: string | undefined, suite: string, wanted: string): void {
  if (cli || !process.env.CI) return;
  describe(suite, () => {
    it(`finds ${wanted} on PATH (CI must run this suite)`, () => {
      expect.fail(`${wanted} is not on PATH; install it for the end-to-end suite`);
    });
  });
}

/** Writes `DIR/cli.tfrc` with a `dev_overrides` entry for the provider in `ROOT/bin`; returns its path. */
export function writeDevOverrides(dir: string, root: string): string {
  const rc = path.join(dir, 'cli.tfrc');
  writeFileSync(rc, `provider_installation {\n  dev_overrides {\n    "plumb.invalid/plumb/plumb" = ${JSON.stringify(path.join(root, 'bin'))}\n  }\n  direct {}\n}\n`);
  return rc;
}

/** Runs a command to its end, stdout and stderr as one text; killed after `timeoutMs`. */
export function runCombined(cmd: string, args: readonly string[], opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}
