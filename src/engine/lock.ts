/**
 * The lock that keeps two applies from working on the same state at once (two applies with a
 * rotation due would rotate the same token twice, and the instance revokes a token family on reuse).
 *
 * `StateLock` is the interface: a state backend brings its own lock (the file lock here; an HTTP
 * backend's lock, or a lock file in a repository of the instance, later) and apply only calls
 * `acquire` and `release`. `FileStateLock` is always on for apply: `<state file>.lock`, created
 * with O_CREAT|O_EXCL (atomic on local file systems), holding who holds it (docs/state.md#locking).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PlumbError } from '../diagnostics/error.js';

/** Who holds a lock: written into the lock when it is taken. */
export interface LockHolder {
  /** Random, unique per acquisition: release removes only its own lock. */
  readonly id: string;
  readonly host: string;
  readonly pid: number;
  /** ISO date-time the lock was taken. */
  readonly startedAt: string;
  /** What runs under it, e.g. `plumb apply`. */
  readonly command: string;
}

export interface AcquireOptions {
  /** Keep trying this long while another holder has the lock; 0: fail at once. */
  readonly timeoutMs: number;
  /** Warnings (a stale lock taken over). */
  readonly log: (message: string) => void;
  /** Test hook. */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** A lock apply holds from before its plan until its last write. */
export interface StateLock {
  /** What is locked, for messages ("the state file .plumb/state.json"). */
  readonly what: string;
  /** Takes the lock, waiting up to `timeoutMs`; throws `LockHeld` when another holder keeps it, `LockFailed` when it cannot be taken at all. */
  acquire(opts: AcquireOptions): Promise<void>;
  /** Gives the lock back; harmless when not held. */
  release(): Promise<void>;
}

/** The lock is held by someone else (after waiting `--lock-timeout`). The message names the holder. */
export class LockHeld extends PlumbError {
  declare readonly code: 'PLUMB_STATE_LOCKED';
  declare readonly suggestion: string;
  /** The instance whose `lock:` this is (a lock on the instance), so the message is located at that block. */
  instance?: string;
  constructor(
    summary: string,
    suggestion: string,
    readonly holder?: LockHolder,
  ) {
    super('PLUMB_STATE_LOCKED', summary, { suggestion });
  }
}

/** The lock could not be taken for another reason than a holder (the instance refused the lock file). */
export class LockFailed extends PlumbError {
  declare readonly code: 'PLUMB_LOCK_FAILED';
  declare readonly suggestion: string;
  /** The instance whose `lock:` could not be taken, so the message is located at that block. */
  instance?: string;
  constructor(summary: string, suggestion: string) {
    super('PLUMB_LOCK_FAILED', summary, { suggestion });
  }
}

/** "pid 123 on host ci-7, plumb apply, started 2026-03-01T12:00:00Z (4 min ago)". */
export function describeHolder(h: LockHolder, now = Date.now()): string {
  return `${h.command} (pid ${h.pid} on host ${h.host}), started ${h.startedAt} (${age(now - Date.parse(h.startedAt))} ago)`;
}

function age(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return 'an unknown time';
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172_800) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86_400)} days`;
}

/** Whether a process of this host is running (EPERM: it runs as another user). */
function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(file: string): LockHolder | undefined {
  try {
    const h = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockHolder>;
    if (typeof h.id === 'string' && typeof h.host === 'string' && typeof h.pid === 'number' && typeof h.startedAt === 'string' && typeof h.command === 'string') return h as LockHolder;
  } catch {
    // absent, being written, or not a lock
  }
  return undefined;
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Time between two attempts while waiting for a lock. */
const POLL_MS = 250;

/**
 * A lock file next to the state file. A lock of this host whose process is gone is stale and taken
 * over with a warning (a run killed with SIGKILL, a crashed machine); a lock of another host (a
 * state directory shared over NFS, a CI cache) is never taken over: plumb cannot know whether that
 * run is alive, so it names the holder and its age and says how to remove it.
 */
export class FileStateLock implements StateLock {
  readonly file: string;
  readonly what: string;
  readonly #command: string;
  #held: LockHolder | undefined;
  #cancelExitRelease: (() => void) | undefined;

  constructor(stateFile: string, command = 'plumb apply') {
    this.file = `${stateFile}.lock`;
    this.what = `the state file ${stateFile}`;
    this.#command = command;
  }

  async acquire(opts: AcquireOptions): Promise<void> {
    const sleep = opts.sleep ?? defaultSleep;
    const deadline = Date.now() + opts.timeoutMs;
    mkdirSync(path.dirname(this.file), { recursive: true });
    let warnedWaiting = false;
    for (;;) {
      const holder: LockHolder = { id: randomBytes(8).toString('hex'), host: os.hostname(), pid: process.pid, startedAt: new Date().toISOString(), command: this.#command };
      if (this.#tryCreate(holder)) {
        this.#held = holder;
        this.#cancelExitRelease = releaseOnExit({ sync: () => this.releaseSync() });
        return;
      }
      const current = readHolder(this.file);
      if (current && current.host === os.hostname() && !alive(current.pid)) {
        if (this.#takeOver(current)) opts.log(`warning: took over a stale lock ${this.file}: ${describeHolder(current)} is no longer running`);
        continue;
      }
      if (Date.now() >= deadline) throw this.#held_by(current, opts.timeoutMs);
      if (!warnedWaiting && current) {
        warnedWaiting = true;
        opts.log(`waiting for the lock on ${this.what}, held by ${describeHolder(current)}`);
      }
      await sleep(Math.max(1, Math.min(POLL_MS, deadline - Date.now())));
    }
  }

  async release(): Promise<void> {
    this.releaseSync();
  }

  /** Synchronous release (process exit, signals). Removes the lock only while it is still ours. */
  releaseSync(): void {
    const held = this.#held;
    if (!held) return;
    this.#held = undefined;
    this.#cancelExitRelease?.();
    this.#cancelExitRelease = undefined;
    if (readHolder(this.file)?.id === held.id) {
      try {
        unlinkSync(this.file);
      } catch {
        // already gone
      }
    }
  }

  #tryCreate(holder: LockHolder): boolean {
    let fd: number;
    try {
      fd = openSync(this.file, 'wx', 0o644);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    }
    try {
      writeSync(fd, JSON.stringify(holder, null, 2) + '\n');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    return true;
  }

  /**
   * Removes a stale lock without racing another run that takes it over at the same moment: the
   * lock is renamed aside (only one rename of it succeeds) and checked to be the stale one; a lock
   * taken meanwhile by someone else is put back (link fails rather than replace a newer one).
   */
  #takeOver(stale: LockHolder): boolean {
    const aside = `${this.file}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      renameSync(this.file, aside);
    } catch {
      return false; // gone already
    }
    const moved = readHolder(aside);
    if (moved?.id !== stale.id) {
      try {
        linkSync(aside, this.file);
      } catch {
        // a third run holds it now; the one moved aside was taken after ours looked stale
      }
    }
    try {
      unlinkSync(aside);
    } catch {
      // nothing to clean
    }
    return moved?.id === stale.id;
  }

  #held_by(current: LockHolder | undefined, timeoutMs: number): LockHeld {
    const waited = timeoutMs > 0 ? ` after waiting ${age(timeoutMs)}` : '';
    let since = '';
    try {
      since = ` (the lock file is ${age(Date.now() - statSync(this.file).mtimeMs)} old)`;
    } catch {
      // removed meanwhile
    }
    const summary = current
      ? `${this.what} is locked${waited}: ${describeHolder(current)} holds ${this.file}`
      : `${this.what} is locked${waited}: ${this.file} exists but does not say who holds it${since}`;
    const other = current && current.host !== os.hostname();
    const suggestion =
      `wait for that run to finish, or pass --lock-timeout 10m to wait for it; ` +
      `if no plumb runs there any more (${other ? `plumb cannot check a process of host ${current.host}` : 'killed, or its machine lost'}), delete ${this.file} and run again`;
    return new LockHeld(summary, suggestion, current);
  }
}

/**
 * What a held lock gives back when the process ends without releasing it: `sync` runs on `exit`
 * (nothing asynchronous can run then), `async` on SIGINT/SIGTERM; a lock on the instance has no
 * `sync` and relies on its expiry when the process exits abruptly.
 */
export interface ExitRelease {
  readonly sync?: () => void;
  readonly async?: () => Promise<void>;
}

/** Locks held now, in the order they were taken. */
const heldLocks: ExitRelease[] = [];
let exitHandler: (() => void) | undefined;
let signalHandler: ((signal: NodeJS.Signals) => void) | undefined;
/** Commands that answer SIGINT/SIGTERM themselves (src/commands/interrupt.ts): the locks' handler stands aside. */
let signalOwners = 0;

/** Longest a signal waits for the locks' asynchronous releases before ending the process. */
const SIGNAL_RELEASE_MS = 10_000;

/**
 * Gives back every lock still held, the last taken first, waiting at most `boundMs` for the
 * asynchronous releases (a lock on the instance is a request).
 */
export async function releaseHeldLocks(boundMs = SIGNAL_RELEASE_MS): Promise<void> {
  const timer = new Promise<void>((r) => setTimeout(r, boundMs).unref());
  const all = (async () => {
    for (const r of [...heldLocks].reverse()) {
      try {
        if (r.async) await r.async();
        else r.sync?.();
      } catch {
        // give back what can be given back
      }
    }
  })();
  await Promise.race([all, timer]);
}

/**
 * A command that answers SIGINT/SIGTERM itself (apply finishes its writes in flight and reports;
 * src/commands/interrupt.ts) takes the signals from the locks' handler until the returned function
 * is called. It then releases its locks itself, as on any other ending.
 */
export function ownSignals(): () => void {
  signalOwners++;
  let given = false;
  return () => {
    if (!given) signalOwners--;
    given = true;
  };
}

/**
 * Releases a held lock when the process exits or is interrupted (SIGINT, SIGTERM), whatever holds
 * it: every lock registers here, and one pair of handlers gives them all back, the last taken
 * first, then ends the process as the signal would have. A second signal ends it at once. While a
 * command owns the signals (`ownSignals`), the signal handler leaves them to it. Returns the
 * function that unregisters the lock (called by its own release).
 */
export function releaseOnExit(release: ExitRelease): () => void {
  heldLocks.push(release);
  if (!exitHandler) {
    exitHandler = () => {
      for (const r of [...heldLocks].reverse()) r.sync?.();
    };
    signalHandler = (signal) => {
      if (signalOwners > 0) return;
      removeHandlers(); // a second signal ends the process at once
      void releaseHeldLocks().then(() => process.kill(process.pid, signal));
    };
    process.on('exit', exitHandler);
    process.on('SIGINT', signalHandler);
    process.on('SIGTERM', signalHandler);
  }
  return () => {
    const i = heldLocks.indexOf(release);
    if (i >= 0) heldLocks.splice(i, 1);
    if (heldLocks.length === 0) removeHandlers();
  };
}

function removeHandlers(): void {
  if (exitHandler) process.removeListener('exit', exitHandler);
  if (signalHandler) {
    process.removeListener('SIGINT', signalHandler);
    process.removeListener('SIGTERM', signalHandler);
  }
  exitHandler = signalHandler = undefined;
}
