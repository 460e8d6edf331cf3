/**
 * Running plumb as users get it (an installed package, the standalone executable): child processes
 * started from a scratch directory outside the checkout, the emulator among them.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { X509Certificate } from 'node:crypto';
import { expect } from 'vitest';
import type { ProviderProcess } from '../provider/harness.js';

export const ADMIN = 'local-admin-token-change-me'; // the made-up admin token of examples/emulator-seed.yaml

/** npm's environment minus what an enclosing `npm test` set for this package. */
export function npmEnv(): NodeJS.ProcessEnv {
  const keep = new Set(['npm_config_cache', 'npm_config_registry', 'npm_config_userconfig']);
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_') || keep.has(k.toLowerCase())));
}

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export function run(cmd: string, args: readonly string[], opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: performance.now() - t0 });
    });
  });
}

export interface EmulatorProcess {
  readonly url: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/** `plumb emulator` (its built-in example seed, any free port) as a child process; resolves with its URL. */
export async function startEmulatorProcess(command: readonly string[], opts: { cwd: string; env: NodeJS.ProcessEnv }): Promise<EmulatorProcess> {
  const [cmd, ...args] = command;
  const child = spawn(cmd!, [...args, 'emulator'], { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`the emulator printed no URL within 20 s; stderr:\n${err}`)), 20_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /listening on (http:\/\/\S+)/.exec(line);
      if (m) {
        clearTimeout(t);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`the emulator exited (${code}); stderr:\n${err}`)));
  });
  return {
    url,
    child,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * The examples (examples/plumb and what it refers to: files/, secrets/) copied from `examplesDir`
 * into `dir`, with the instance's URL pointed at `url`. Returns the configuration directory.
 */
export function examplesAt(examplesDir: string, dir: string, url: string): string {
  // A GitOps repository: its work tree is the configuration root, so `source: ../files/…` is inside.
  mkdirSync(path.join(dir, '.git'), { recursive: true });
  for (const sub of ['plumb', 'files']) cpSync(path.join(examplesDir, sub), path.join(dir, sub), { recursive: true });
  mkdirSync(path.join(dir, 'secrets'), { recursive: true });
  const instance = path.join(dir, 'plumb/instance.yaml');
  const text = readFileSync(instance, 'utf8');
  if (!text.includes('http://127.0.0.1:8929')) throw new Error('examples/plumb/instance.yaml no longer names http://127.0.0.1:8929');
  writeFileSync(instance, text.replace('http://127.0.0.1:8929', url));
  return path.join(dir, 'plumb');
}

/** An installed provider executable is serving: go-plugin's handshake, its TLS certificate, health and schema. */
export async function expectServingProvider(provider: ProviderProcess): Promise<void> {
  expect(provider.handshake).toMatch(/^1\|6\|tcp\|127\.0\.0\.1:\d+\|grpc\|[A-Za-z0-9+/]+$/);
  expect(provider.serverCert).toBeInstanceOf(X509Certificate);
  expect(await provider.health()).toEqual({ status: 'SERVING' });
  const schema = await provider.call<{ resource_schemas: Record<string, unknown>; diagnostics: unknown[] }>('GetProviderSchema');
  expect(schema.diagnostics).toEqual([]);
  expect(Object.keys(schema.resource_schemas)).toContain('plumb_group_access_token');
}
