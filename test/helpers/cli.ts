/**
 * Runs plumb's CLI in-process against a working directory, capturing what it prints, and checks
 * every output (stdout, stderr, and any file it wrote under the directory) for the secret values
 * the tests use: no secret may ever appear in output, a plan, a log or an error.
 */
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { removeWhenDone } from './scratch.js';
import { main } from '../../src/cli.js';

/** Every secret value a test hands to plumb is registered here. */
const KNOWN_SECRETS = new Set<string>();

export function secret(value: string): string {
  KNOWN_SECRETS.add(value);
  return value;
}

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface Workdir {
  readonly dir: string;
  write(rel: string, content: string): string;
  read(rel: string): string;
  /** Marks a file plumb writes on purpose with a secret in it (a token sink). */
  allow(rel: string): string;
  run(args: readonly string[], env?: Record<string, string>, opts?: { isTTY?: boolean }): Promise<CliResult>;
}

function leaked(text: string): string | undefined {
  for (const s of KNOWN_SECRETS) if (text.includes(s)) return s;
  return undefined;
}

function scanFiles(dir: string, skip: ReadonlySet<string>): void {
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    if (skip.has(full)) continue;
    const st = statSync(full);
    if (st.isDirectory()) scanFiles(full, skip);
    else if (st.size < 5_000_000) {
      const found = leaked(readFileSync(full, 'utf8'));
      if (found) throw new Error(`secret leaked into ${path.relative(dir, full)}`);
    }
  }
}

export function workdir(baseEnv: Record<string, string> = {}): Workdir {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-test-'));
  removeWhenDone(dir);
  /** Files the test itself wrote (configuration, sinks): allowed to hold secrets. */
  const own = new Set<string>();
  return {
    dir,
    write(rel, content) {
      const full = path.join(dir, rel);
      mkdirSync(path.dirname(full), { recursive: true });
      writeFileSync(full, content);
      own.add(full);
      return full;
    },
    allow(rel) {
      const full = path.join(dir, rel);
      own.add(full);
      return full;
    },
    read(rel) {
      return readFileSync(path.join(dir, rel), 'utf8');
    },
    async run(args, env = {}, opts = {}) {
      let stdout = '';
      let stderr = '';
      const code = await main(args, {
        stdout: (s) => (stdout += s),
        stderr: (s) => (stderr += s),
        isTTY: opts.isTTY ?? false,
        env: { PATH: process.env.PATH ?? '', ...baseEnv, ...env },
        cwd: dir,
      });
      const found = leaked(stdout) ?? leaked(stderr);
      if (found) throw new Error(`secret leaked into the output of plumb ${args.join(' ')}`);
      scanFiles(dir, own);
      return { code, stdout, stderr };
    },
  };
}
