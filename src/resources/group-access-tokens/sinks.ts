/**
 * Secret delivery for issued group access tokens. The instance shows a token's secret exactly once
 * (in the create or rotate response), so plumb must know, before it asks for one, that it can put
 * the secret somewhere: `checkSink` runs at plan time, before any request (a ci_variable sink is
 * checked against the instance too: ./sink-ci-variable.ts `checkVariableSinks`); `deliverSecret`
 * runs right after the instance answered, and returns only once the secret is durably delivered,
 * with a receipt saying whether plumb could confirm it.
 *
 * The delivery interface (what the apply, with or without an overlap window, calls):
 *
 *     deliverSecret(sink, delivery, opts) → Promise<DeliveryReceipt>   // throws SinkError
 *
 * A receipt is `verified` when plumb read the secret back from where it went and compared it by
 * fingerprint (a file re-read, a visible CI/CD variable), `unverifiable` when it cannot (a hidden
 * variable, a command, standard output): "delivered, not verifiable". A ci_variable receipt carries
 * what the state records for drift (`record`): a salted fingerprint of the value and the metadata.
 *
 * Invariants:
 * - The secret never appears in argv, in an environment variable, in an error message or in a log
 *   line. A command's own output is never echoed (it might print what it read); only a redacted
 *   tail of its standard error is kept for the failure message.
 * - A file sink is replaced atomically: a temp file in the same directory (mode 0600) is written,
 *   fsynced and renamed over the target, then the directory is fsynced. A reader sees the old
 *   secret or the new one, never a partial file.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { TokenSink } from './model.js';
import { removeOrphanTemps, writeFileAtomic } from '../../util/write-file.js';
import { PlumbError } from '../../diagnostics/error.js';
import type { ApiClient } from '../../api/client.js';
import { describeVariable } from './variable-address.js';
import { deliverToVariable } from './sink-ci-variable.js';
import type { DeliveredVariable } from './sink-ci-variable.js';

/** Why a sink cannot be used, found before any request. */
export interface SinkProblem {
  readonly summary: string;
  readonly detail?: string;
  readonly suggestion: string;
  /** The key under `sink` the problem is about (`file`, `command`), to locate the diagnostic. */
  readonly key: 'file' | 'command' | 'stdout' | 'ci_variable';
}

/** What a sink receives besides the secret itself. */
export interface Delivery {
  readonly group: string;
  readonly name: string;
  readonly id: number;
  readonly expiresAt: string | null;
  readonly token: string;
}

export interface DeliverOptions {
  readonly env: NodeJS.ProcessEnv;
  /** Machine-readable standard output (stdout sinks). */
  readonly stdout: (s: string) => void;
  /** Kill a command sink after this long. @default 30_000 */
  readonly timeoutMs?: number;
  /** Environment variables a command sink must not inherit (plumb's own credential). */
  readonly hideEnv?: readonly string[];
  /**
   * The API client of an instance of this configuration for a ci_variable sink: `undefined` the
   * token's own instance, else the sink's `instance:` (that instance's URL pin and credential; never
   * another URL). Without it a ci_variable sink fails (SinkError).
   */
  readonly variables?: VariableAccess;
}

/** How a ci_variable delivery reaches an instance (./sink-ci-variable.ts). */
export interface VariableAccess {
  readonly clientFor: (instance: string | undefined) => ApiClient;
}

/** What one delivery achieved. Never holds the secret. */
export interface DeliveryReceipt {
  /** `verified`: read back and compared by fingerprint; `unverifiable`: delivered, not verifiable. */
  readonly status: 'verified' | 'unverifiable';
  /** Where the secret went, for the apply report (e.g. `secret written to secrets/ci.token (mode 0600)`). */
  readonly note: string;
  /** For the state (ci_variable sinks): what was written, to detect a variable deleted or edited by hand. */
  readonly record?: DeliveredVariable;
}

/** Delivery failed: the secret did not (verifiably) reach the sink. The message holds no secret. */
export class SinkError extends PlumbError {
  declare readonly code: 'PLUMB_SINK_FAILED';
  constructor(summary: string) {
    super('PLUMB_SINK_FAILED', summary);
  }
}

export const DEFAULT_SINK_TIMEOUT_MS = 30_000;

/** Human description of a sink, for plans and reports (never the secret). */
export function describeSink(sink: TokenSink): string {
  switch (sink.kind) {
    case 'ci_variable':
      return describeVariable(undefined, sink);
    case 'file':
      return `file ${sink.shown ?? sink.path}`;
    case 'command':
      return `command ${path.basename(sink.argv[0] ?? '')}`;
    case 'stdout':
      return 'standard output';
  }
}

/**
 * Remembers directory checks for one pass over many sinks (a plan with a thousand tokens delivering
 * into one directory checks it once).
 */
export type SinkCheckCache = Map<string, { readonly problem?: SinkProblem; readonly subdirectories?: ReadonlySet<string> }>;

/** Whether a sink can receive a secret now. Cheap, local, no request. */
export function checkSink(sink: TokenSink | undefined, env: NodeJS.ProcessEnv, cache?: SinkCheckCache): SinkProblem | undefined {
  if (!sink) {
    return { key: 'file', summary: 'no sink is declared', suggestion: 'add `sink: {file: secrets/NAME.token}`' };
  }
  switch (sink.kind) {
    case 'stdout':
    case 'ci_variable': // checked against the instance: checkVariableSinks
      return undefined;
    case 'file': {
      const dir = path.dirname(sink.path);
      let checked = cache?.get(dir);
      if (!checked) {
        const problem = checkSinkDirectory(dir);
        checked = problem ? { problem } : { subdirectories: subdirectories(dir) };
        cache?.set(dir, checked);
      }
      if (checked.problem) return checked.problem;
      if (checked.subdirectories?.has(path.basename(sink.path))) {
        return { key: 'file', summary: `${sink.shown ?? sink.path} is a directory`, suggestion: 'name a file, e.g. secrets/NAME.token' };
      }
      return undefined;
    }
    case 'command': {
      const program = sink.argv[0];
      if (!program) return { key: 'command', summary: 'the command is empty', suggestion: 'write the program and its arguments, e.g. [vault, kv, put, …]' };
      if (resolveProgram(program, env) === undefined) {
        return program.includes('/')
          ? { key: 'command', summary: `the sink's program ${program} does not exist or is not executable`, suggestion: 'fix the path (relative paths start from the YAML file) or make it executable' }
          : { key: 'command', summary: `the sink's program "${program}" is not on PATH`, suggestion: 'install it, extend PATH, or give its path' };
      }
      return undefined;
    }
  }
}

function subdirectories(dir: string): Set<string> {
  try {
    return new Set(readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name));
  } catch {
    return new Set();
  }
}

function checkSinkDirectory(dir: string): SinkProblem | undefined {
  let st;
  try {
    st = statSync(dir);
  } catch {
    return {
      key: 'file',
      summary: `the sink's directory ${dir} does not exist`,
      detail: 'plumb writes the secret into a temp file next to the target and renames it; it does not create directories.',
      suggestion: `create it first (mkdir -p ${dir}; chmod 700 ${dir})`,
    };
  }
  if (!st.isDirectory()) return { key: 'file', summary: `${dir} is not a directory`, suggestion: 'point the sink at a file inside a directory' };
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch {
    return { key: 'file', summary: `the sink's directory ${dir} is not writable`, suggestion: 'fix its permissions, or choose another directory' };
  }
  return undefined;
}

/** Absolute path of an executable: a path as given, or the first match on PATH. */
export function resolveProgram(program: string, env: NodeJS.ProcessEnv): string | undefined {
  const executable = (p: string): boolean => {
    try {
      if (!statSync(p).isFile()) return false;
      accessSync(p, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (program.includes('/')) return executable(program) ? path.resolve(program) : undefined;
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, program);
    if (executable(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Delivers one secret and says what it achieved. Throws SinkError when the secret did not arrive
 * (or a read-back shows something else than what was written).
 */
export async function deliverSecret(sink: TokenSink, d: Delivery, opts: DeliverOptions): Promise<DeliveryReceipt> {
  switch (sink.kind) {
    case 'file':
      await writeSecretFile(sink.path, d.token);
      return { status: 'verified', note: `secret written to ${sink.shown ?? sink.path} (mode 0600)` };
    case 'stdout':
      opts.stdout(JSON.stringify({ group: d.group, name: d.name, id: d.id, expires_at: d.expiresAt, token: d.token }) + '\n');
      return { status: 'unverifiable', note: 'secret printed on standard output (delivered, not verifiable)' };
    case 'command':
      await runCommandSink(sink, d, opts);
      return { status: 'unverifiable', note: `secret handed to ${path.basename(sink.argv[0]!)} on standard input (delivered, not verifiable)` };
    case 'ci_variable':
      if (!opts.variables) throw new SinkError(`${describeSink(sink)}: no API client to deliver with`);
      return deliverToVariable(sink, d.token, opts.variables.clientFor(sink.instance));
  }
}

/**
 * Atomic, durable replace with mode 0600, through the shared writer (src/util/write-file.ts): never
 * through a planted symlink. Asynchronous, so the writes and fsyncs of one delivery never hold up
 * the requests of other changes.
 */
export async function writeSecretFile(file: string, secret: string): Promise<void> {
  try {
    await writeFileAtomic(file, secret, { mode: 0o600 });
  } catch (err) {
    throw new SinkError(`could not write ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  // A plumb killed while it wrote this sink left the secret it was writing in a temp file beside it.
  await removeOrphanTemps(file);
}

function runCommandSink(sink: Extract<TokenSink, { kind: 'command' }>, d: Delivery, opts: DeliverOptions): Promise<void> {
  const program = resolveProgram(sink.argv[0]!, opts.env);
  if (!program) return Promise.reject(new SinkError(`the sink's program ${sink.argv[0]} is not available`));
  const env: NodeJS.ProcessEnv = { ...opts.env };
  for (const name of opts.hideEnv ?? []) delete env[name];
  Object.assign(env, {
    PLUMB_TOKEN_NAME: d.name,
    PLUMB_TOKEN_GROUP: d.group,
    PLUMB_TOKEN_ID: String(d.id),
    PLUMB_TOKEN_EXPIRES_AT: d.expiresAt ?? '',
  });
  const timeoutMs = opts.timeoutMs ?? DEFAULT_SINK_TIMEOUT_MS;
  const name = path.basename(program);
  return new Promise<void>((resolve, reject) => {
    const child = spawn(program, sink.argv.slice(1), { cwd: sink.cwd, env, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-2000);
    });
    // A program that exits without reading its input makes the write fail with EPIPE: its exit
    // status decides, not the pipe.
    child.stdin.on('error', () => {});
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new SinkError(`could not run ${name}: ${(err as NodeJS.ErrnoException).code ?? err.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const said = stderr.split(d.token).join('(sensitive value)').trim().split('\n').slice(-3).join(' / ').slice(-300);
      if (timedOut) reject(new SinkError(`${name} did not finish within ${Math.round(timeoutMs / 1000)} s and was killed`));
      else if (code !== 0) reject(new SinkError(`${name} exited with ${code ?? signal}${said ? `: ${said}` : ''}`));
      else resolve();
    });
    child.stdin.end(d.token);
  });
}
