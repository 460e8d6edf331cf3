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
  /** Takes the lock, waiting up to `timeoutMs`; throws `LockHeld` when another holder keeps it. */
  acquire(opts: AcquireOptions): Promise<void>;
  /** Gives the lock back; harmless when not held. */
  release(): Promise<void>;
}

/** The lock is held by someone else (after waiting `--lock-timeout`). The message names the holder. */
export class LockHeld extends Error {
  readonly code = 'PLUMB_STATE_LOCKED';
  constructor(
    readonly summary: string,
    readonly suggestion: string,
    readonly holder?: LockHolder,
  ) {
    super(summary);
    this.name = 'LockHeld';
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
  #onExit: (() => void) | undefined;
  #onSignal: ((signal: NodeJS.Signals) => void) | undefined;

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
        this.#releaseOnExit();
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
    if (this.#onExit) process.removeListener('exit', this.#onExit);
    if (this.#onSignal) {
      process.removeListener('SIGINT', this.#onSignal);
      process.removeListener('SIGTERM', this.#onSignal);
    }
    this.#onExit = this.#onSignal = undefined;
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

  /** Releases on exit and on SIGINT/SIGTERM (then ends as the signal would have). */
  #releaseOnExit(): void {
    this.#onExit = () => this.releaseSync();
    this.#onSignal = (signal) => {
      this.releaseSync();
      process.kill(process.pid, signal);
    };
    process.once('exit', this.#onExit);
    process.once('SIGINT', this.#onSignal);
    process.once('SIGTERM', this.#onSignal);
  }
}
