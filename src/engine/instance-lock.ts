/**
 * The lock on the instance (`lock: {project, path, branch?, ttl_minutes?}`): a file in a repository
 * of the instance, so applies on different machines (two CI runners, a laptop during CI) never work
 * on one instance at once. Within the interface's spec:
 *
 * - **acquire** = `POST /projects/:id/repository/files/:path`: the service creates a file only when
 *   none exists (400 "A file with this name already exists" otherwise), so exactly one of two
 *   runs gets it. The content names the holder (host, pid, command, CI job URL) and an expiry.
 * - **release** = `DELETE` of that file with `last_commit_id` of our own commit: the service refuses
 *   the delete when the file changed since, so a run never deletes a lock someone else holds.
 * - **an expired lock** (its holder died without releasing it) is taken over: a `DELETE` guarded by
 *   the expired lock's own commit, then a create; of two runs taking it over, one gets the guarded
 *   delete or the create and the other sees the new holder.
 *
 * Expiry compares the holder's `expires_at` with this machine's clock: machines that lock one
 * instance need clocks within a minute or so of each other (NTP). The file is written by whoever
 * can write to the lock's project (a Developer there, not only plumb), so what it claims is bounded
 * by this configuration's `ttl_minutes` ({@link lockExpiry}): a lock "expiring in 2999" expires
 * `ttl_minutes` after its `acquired_at`, and one acquired in the future is not believed at all.
 * docs/state.md#locking.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { ApiClient } from '../api/client.js';
import { ApiAmbiguousError, ApiError, describeReason } from '../api/errors.js';
import { getProjectRef } from '../api/namespaces.js';
import { createFile, deleteFile, getFile } from '../api/repository-files.js';
import type { DesiredInstanceLock } from '../config/model.js';
import type { Session } from './engine.js';
import type { LockLocation, PlanLock } from './plan.js';
import type { InstanceContext } from './resource.js';
import { LockFailed, LockHeld, releaseOnExit } from './lock.js';
import type { AcquireOptions, LockHolder, StateLock } from './lock.js';

/** The lock file's content. */
export interface InstanceLockContent {
  readonly plumb_lock: 1;
  readonly holder: {
    /** Random, unique per acquisition. */
    readonly id: string;
    readonly host: string;
    readonly pid: number;
    readonly command: string;
    /** `CI_JOB_URL` of the job that holds it, when it runs in CI. */
    readonly ci_job_url?: string;
  };
  readonly acquired_at: string;
  readonly expires_at: string;
}

/** The lock file as read: its last commit, and its content when it is a lock plumb wrote. */
interface Current {
  readonly commit: string;
  readonly content?: InstanceLockContent;
}

/** Creates tried while no lock file exists, before the failure is reported. */
const NO_FILE_TRIES = 3;

/** Time between two looks while waiting for the holder (each look is one GET). */
const POLL_MS = 1000;

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function parseContent(text: string): InstanceLockContent | undefined {
  try {
    const c = JSON.parse(text) as Partial<InstanceLockContent>;
    const h = c.holder;
    if (
      c.plumb_lock === 1 &&
      typeof h === 'object' && h !== null &&
      typeof h.id === 'string' && typeof h.host === 'string' && typeof h.pid === 'number' && typeof h.command === 'string' &&
      typeof c.acquired_at === 'string' && typeof c.expires_at === 'string' && !Number.isNaN(Date.parse(c.expires_at))
    ) {
      return c as InstanceLockContent;
    }
  } catch {
    // not JSON
  }
  return undefined;
}

/**
 * How far in the future a lock's `acquired_at` may lie and still be believed: the clocks of two
 * machines that lock one instance differ by a little (docs/state.md#locking asks for NTP).
 */
export const LOCK_CLOCK_SKEW_MS = 5 * 60_000;

/**
 * When a lock expires, as this configuration judges it: its own `expires_at`, but never later than
 * `ttlMinutes` after its `acquired_at`. A lock claiming to have been taken more than the allowed
 * skew in the future (or at no readable time) has expired already: otherwise a lock written with
 * `acquired_at` in 2999 would stay young for ever. The lock file is not plumb's alone (anyone with
 * the Developer role in the lock's project can write it), so the configured `ttl_minutes` bounds
 * every lock, whatever it claims.
 */
export function lockExpiry(c: Pick<InstanceLockContent, 'acquired_at' | 'expires_at'>, ttlMinutes: number, now: number): number {
  const acquired = Date.parse(c.acquired_at);
  if (Number.isNaN(acquired) || acquired > now + LOCK_CLOCK_SKEW_MS) return Number.NEGATIVE_INFINITY;
  return Math.min(Date.parse(c.expires_at), acquired + ttlMinutes * 60_000);
}

/** A create that failed this way may still have created the file: look before anything else. */
function mayHaveActed(err: unknown): boolean {
  if (!(err instanceof ApiError)) return true;
  if (err.code === 'PLUMB_API_INVALID_RESPONSE' || err.code === 'PLUMB_API_AMBIGUOUS') return true;
  return err.status === undefined || err.status >= 500;
}

function exists(err: unknown): boolean {
  return err instanceof ApiError && err.status === 400 && /already exists/i.test(err.serverMessage ?? '');
}

/**
 * "plumb apply (pid 12 on host ci-7, CI job https://…), locked at … (3 min ago), expires at …".
 * `expiry`: when the lock expires as this configuration judges it ({@link lockExpiry}); the file's
 * own `expires_at` when absent.
 */
export function describeLockHolder(c: InstanceLockContent, now = Date.now(), expiry?: number): string {
  const h = c.holder;
  const ago = Math.max(0, Math.round((now - Date.parse(c.acquired_at)) / 60_000));
  const expires = expiry === undefined || expiry === Date.parse(c.expires_at) ? `expires at ${c.expires_at}` : Number.isFinite(expiry) ? `expires at ${new Date(expiry).toISOString()} (lock.ttl_minutes after it was taken; the file claims ${c.expires_at})` : `not believed (it claims to have been taken at ${c.acquired_at}, in the future)`;
  return `${h.command} (pid ${h.pid} on host ${h.host}${h.ci_job_url ? `, CI job ${h.ci_job_url}` : ''}), locked at ${c.acquired_at} (${Number.isFinite(ago) ? `${ago} min` : 'an unknown time'} ago), ${expires}`;
}

export interface InstanceLockOptions {
  /** For `CI_JOB_URL`. */
  readonly env?: NodeJS.ProcessEnv;
  /** What runs under the lock. @default 'plumb apply' */
  readonly command?: string;
  /** Test hook: the clock expiry is judged by. */
  readonly now?: () => number;
}

/** A lock file in a repository of the instance: `StateLock` across machines. */
export class InstanceFileLock implements StateLock {
  readonly what: string;
  /** The name of the instance it locks. */
  readonly instance: string;
  readonly #client: ApiClient;
  readonly #lock: DesiredInstanceLock;
  readonly #where: string;
  readonly #env: NodeJS.ProcessEnv;
  readonly #command: string;
  readonly #now: () => number;
  #log: (message: string) => void = () => {};
  #held: { readonly content: InstanceLockContent; readonly commit: string; readonly branch: string } | undefined;
  #cancelExitRelease: (() => void) | undefined;

  constructor(client: ApiClient, instanceName: string, lock: DesiredInstanceLock, opts: InstanceLockOptions = {}) {
    this.#client = client;
    this.#lock = lock;
    this.#where = `${lock.path} in project ${lock.project}${lock.branch ? ` (branch ${lock.branch})` : ''}`;
    this.what = `the instance "${instanceName}"`;
    this.instance = instanceName;
    this.#env = opts.env ?? process.env;
    this.#command = opts.command ?? 'plumb apply';
    this.#now = opts.now ?? Date.now;
  }

  async acquire(opts: AcquireOptions): Promise<void> {
    this.#log = opts.log;
    const sleep = opts.sleep ?? defaultSleep;
    const deadline = this.#now() + opts.timeoutMs;
    const branch = await this.#branch();
    let warnedWaiting = false;
    // Every holder id this acquire wrote: a create whose answer was lost (a time-out) may land after
    // plumb looked, and the lock it made is ours, not another run's.
    const mine = new Set<string>();
    // Looks that found no lock file at all: the create failed before the instance acted (a 5xx, a
    // connection dropped), or a holder released it meanwhile. Nobody holds the lock then, so the
    // create is tried again, a few times whatever --lock-timeout says.
    let noFile = 0;
    let createFailure: unknown;
    for (;;) {
      const content = this.#content();
      mine.add(content.holder.id);
      createFailure = undefined;
      try {
        await createFile(this.#client, this.#lock.project, this.#lock.path, {
          branch,
          content: JSON.stringify(content, null, 2) + '\n',
          commit_message: 'plumb: lock apply',
        });
      } catch (err) {
        // Held (by someone, maybe us) or an unclear answer: the look below tells.
        if (!exists(err) && !mayHaveActed(err)) throw this.#failed('taken', err);
        if (!exists(err)) createFailure = err;
      }
      // Created or not, what the file says decides: a create is never trusted blindly.
      let current = await this.#readPatiently(branch, sleep);
      if (current?.content && mine.has(current.content.holder.id)) {
        this.#held = { content: current.content, commit: current.commit, branch };
        this.#cancelExitRelease = releaseOnExit({ async: () => this.release() });
        return;
      }
      if (current?.content && this.#expiry(current.content) <= this.#now()) {
        if (await this.#takeOver(current, current.content, branch)) continue;
        // Another run moved first: it is the holder now (or its lock is gone again).
        current = await this.#read(branch);
        if (!current) continue;
      }
      if (!current && ++noFile < NO_FILE_TRIES) {
        await sleep(100 * noFile);
        continue;
      }
      if (!current && createFailure !== undefined) throw this.#createsFailed(noFile, createFailure);
      if (this.#now() >= deadline) throw this.#heldBy(current, opts.timeoutMs);
      if (!warnedWaiting && current?.content) {
        warnedWaiting = true;
        opts.log(`waiting for the lock on ${this.what} (${this.#where}), held by ${this.#describe(current.content)}`);
      }
      // No file: released between our create and our look; try again soon.
      await sleep(Math.max(1, Math.min(current ? POLL_MS : 100, deadline - this.#now())));
    }
  }

  /**
   * Deletes the lock file, guarded by our own commit: a lock that is not ours any more is left alone.
   * The guarded delete is safe to repeat, so an unclear answer is checked and the delete sent again
   * (at most three times) while the file is still ours: a lock left behind blocks every apply until
   * it expires.
   */
  async release(): Promise<void> {
    const held = this.#held;
    if (!held) return;
    this.#held = undefined;
    this.#cancelExitRelease?.();
    this.#cancelExitRelease = undefined;
    let why = '';
    for (let attempt = 1; attempt <= 3; attempt++) {
      let refused = false;
      try {
        await deleteFile(this.#client, this.#lock.project, this.#lock.path, { branch: held.branch, commit_message: 'plumb: unlock', last_commit_id: held.commit });
        return;
      } catch (err) {
        why = err instanceof Error ? err.message : String(err);
        refused = !mayHaveActed(err);
      }
      let current: Current | undefined;
      try {
        current = await this.#readPatiently(held.branch, defaultSleep);
      } catch {
        break;
      }
      if (!current) return; // gone: our delete went through after all, or someone removed it
      if (current.content && current.content.holder.id !== held.content.holder.id) {
        this.#log(
          `warning: the lock on ${this.what} (${this.#where}) was taken over after it expired at ${held.content.expires_at}, by ${this.#describe(current.content)}; this apply ran longer than lock.ttl_minutes (${this.#lock.ttlMinutes}): raise it`,
        );
        return;
      }
      if (refused) break;
    }
    this.#log(
      `warning: the lock on ${this.what} (${this.#where}) could not be released (${why}); it expires at ${held.content.expires_at}, when the next apply takes it over, or delete the file by hand`,
    );
  }

  /** When a lock expires, bounded by this configuration's ttl_minutes ({@link lockExpiry}). */
  #expiry(c: InstanceLockContent): number {
    return lockExpiry(c, this.#lock.ttlMinutes, this.#now());
  }

  #describe(c: InstanceLockContent): string {
    return describeLockHolder(c, this.#now(), this.#expiry(c));
  }

  #content(): InstanceLockContent {
    const now = this.#now();
    const job = this.#env.CI_JOB_URL;
    return {
      plumb_lock: 1,
      holder: {
        id: randomBytes(8).toString('hex'),
        host: os.hostname(),
        pid: process.pid,
        command: this.#command,
        ...(job && /^https?:\/\/\S+$/.test(job) && { ci_job_url: job }),
      },
      acquired_at: new Date(now).toISOString(),
      expires_at: new Date(now + this.#lock.ttlMinutes * 60_000).toISOString(),
    };
  }

  async #branch(): Promise<string> {
    if (this.#lock.branch) return this.#lock.branch;
    let branch: string | undefined;
    try {
      branch = (await getProjectRef(this.#client, this.#lock.project)).default_branch;
    } catch (err) {
      throw this.#failed('taken', err);
    }
    if (branch === undefined) {
      throw new LockFailed(
        `The lock on ${this.what} cannot be taken: project ${this.#lock.project} has no default branch (its repository is empty)`,
        'name the branch with lock.branch, or push a first commit to the project',
      );
    }
    return branch;
  }

  /** The lock file now; undefined when there is none. */
  async #read(branch: string): Promise<Current | undefined> {
    try {
      const f = await getFile(this.#client, this.#lock.project, this.#lock.path, branch);
      const text = f.encoding === 'base64' ? Buffer.from(f.content, 'base64').toString('utf8') : f.content;
      const content = parseContent(text);
      return { commit: f.last_commit_id, ...(content && { content }) };
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return undefined;
      throw this.#failed('read', err);
    }
  }

  /**
   * `#read`, tried again after a failure: right after a create, a read that fails would leave a
   * lock we may hold on the instance until it expires, blocking every apply.
   */
  async #readPatiently(branch: string, sleep: (ms: number) => Promise<void>): Promise<Current | undefined> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#read(branch);
      } catch (err) {
        if (attempt >= 4 || (err instanceof LockFailed && /returned 40[13]/.test(err.summary))) throw err;
        await sleep(250 * attempt);
      }
    }
  }

  /** Deletes an expired lock, guarded by its commit: if it changed meanwhile (taken over by another run), nothing happens. */
  async #takeOver(current: Current, content: InstanceLockContent, branch: string): Promise<boolean> {
    try {
      await deleteFile(this.#client, this.#lock.project, this.#lock.path, { branch, commit_message: 'plumb: take over an expired lock', last_commit_id: current.commit });
      this.#log(`warning: took over the expired lock on ${this.what} (${this.#where}): ${this.#describe(content)}`);
      return true;
    } catch (err) {
      if (err instanceof ApiError && (err.status === 401 || err.status === 403 || (err.status === 400 && /not allowed/i.test(err.serverMessage ?? '')))) {
        throw this.#failed('taken over', err);
      }
      // Changed (another run took it over first), gone, or no clear answer: look again.
      return false;
    }
  }

  #heldBy(current: Current | undefined, timeoutMs: number): LockHeld {
    const waited = timeoutMs > 0 ? ` after waiting ${Math.round(timeoutMs / 1000)} s` : '';
    const c = current?.content;
    if (!c) {
      return new LockHeld(
        `${this.what} is locked${waited}: ${this.#where} exists but is not a lock plumb wrote (or changed as plumb looked)`,
        `if no plumb apply runs against this instance, delete ${this.#lock.path} in project ${this.#lock.project} and run again`,
      );
    }
    const holder: LockHolder = { id: c.holder.id, host: c.holder.host, pid: c.holder.pid, startedAt: c.acquired_at, command: c.holder.command };
    return new LockHeld(
      `${this.what} is locked${waited}: ${this.#describe(c)} holds ${this.#where}`,
      `wait for that run to finish, or pass --lock-timeout 10m to wait for it; if it no longer runs, the next apply after ${Number.isFinite(this.#expiry(c)) ? new Date(this.#expiry(c)).toISOString() : 'now'} takes the lock over (or delete ${this.#lock.path} in project ${this.#lock.project} by hand)`,
      holder,
    );
  }

  /**
   * Every create failed and a read after each found no lock file: the outcome is known (nothing
   * holds the lock), and the create was repeated; the failure says so, not the client's "outcome
   * unknown … not repeated" of one request.
   */
  #createsFailed(creates: number, err: unknown): LockFailed {
    const last =
      err instanceof ApiAmbiguousError
        ? `${err.method} ${err.path}: ${describeReason(err.reason, err.status)}`
        : err instanceof ApiError
          ? `${err.method} ${err.path}${err.status !== undefined ? ` answered ${err.status}` : ' failed'}`
          : err instanceof Error
            ? err.message
            : String(err);
    return new LockFailed(
      `The lock on ${this.what} (${this.#where}) could not be taken: ${creates} creates failed (the last: ${last}), and a read after each found no lock file, so nothing holds the lock`,
      'run apply again when the instance answers; nothing was applied',
    );
  }

  #failed(what: 'taken' | 'read' | 'taken over', err: unknown): LockFailed {
    const why = err instanceof Error ? err.message : String(err);
    const status = err instanceof ApiError ? err.status : undefined;
    const suggestion =
      status === 404
        ? `check lock.project (${this.#lock.project})${this.#lock.branch ? ` and lock.branch (${this.#lock.branch})` : ''}: the project must exist and the token must see it`
        : status === 401 || status === 403 || (status === 400 && /not allowed/i.test(why))
          ? `the token needs the Developer role in project ${this.#lock.project} (Maintainer when the branch is protected)`
          : 'run apply again when the instance answers; nothing was applied';
    return new LockFailed(`The lock on ${this.what} (${this.#where}) could not be ${what}: ${why}`, suggestion);
  }
}

/**
 * Takes the lock of every instance of the session that declares one, in the order of their names
 * (two applies of several instances never wait for each other in a circle). All or none: when one
 * cannot be taken, those already taken are released and the error is thrown.
 */
export async function lockInstances(session: Session, opts: AcquireOptions & InstanceLockOptions): Promise<StateLock[]> {
  const locks = [...session.contexts.values()]
    .filter((ctx) => ctx.instance.lock !== undefined)
    .sort((a, b) => (a.instance.name < b.instance.name ? -1 : 1))
    .map((ctx) => new InstanceFileLock(ctx.client, ctx.instance.name, ctx.instance.lock!, opts));
  const held: StateLock[] = [];
  for (const lock of locks) {
    try {
      await lock.acquire(opts);
    } catch (err) {
      if (err instanceof LockHeld || err instanceof LockFailed) err.instance ??= lock.instance;
      await releaseAll(held);
      throw err;
    }
    held.push(lock);
    session.instanceLocks?.set(lock.instance, lock);
  }
  return held;
}

/** The state section where apply records the lock location it held (`{project, path, branch?}`; empty: none). */
const LOCK_SECTION = 'lock';

function locationOf(lock: DesiredInstanceLock | undefined): LockLocation | null {
  return lock ? { project: lock.project, path: lock.path, ...(lock.branch !== undefined && { branch: lock.branch }) } : null;
}

function recordedLocation(ctx: InstanceContext): LockLocation | null | undefined {
  const r = ctx.state.section<string>(ctx.instance.url, LOCK_SECTION);
  if (r === undefined) return undefined;
  if (typeof r.project !== 'string' || typeof r.path !== 'string') return null;
  return { project: r.project, path: r.path, ...(typeof r.branch === 'string' && { branch: r.branch }) };
}

const sameLocation = (a: LockLocation | null, b: LockLocation | null): boolean =>
  a === b || (a !== null && b !== null && a.project === b.project && a.path === b.path && a.branch === b.branch);

/**
 * The plan's `locks` (docs/plans.md#the-lock-location): where apply will hold each planned
 * instance's lock, and the location the last apply on this state held when it differs. apply writes
 * the lock file as plumb's administrator, into any project and branch `lock:` names, so a moved lock
 * is shown as a change of its own, never hidden behind "no changes".
 */
export function planLocks(contexts: ReadonlyMap<string, InstanceContext>): PlanLock[] {
  const out: PlanLock[] = [];
  for (const ctx of contexts.values()) {
    const location = locationOf(ctx.instance.lock);
    const before = recordedLocation(ctx);
    const moved = before !== undefined && !sameLocation(before, location);
    if (location === null && !moved) continue;
    const l = ctx.instance.lock ? ctx.locate(ctx.instance.lock.pointer) : undefined;
    out.push({ instance: ctx.instance.name, location, ...(l && { at: `${l.file}:${l.line}:${l.column}` }), ...(moved && { before }) });
  }
  return out;
}

/**
 * Apply records where it held each instance's lock (nothing, for one without `lock:`), for the next
 * plan's comparison: once its plan has passed every check, or when it has nothing to apply. Saved
 * with the state (`flush`).
 */
export function recordLockLocations(contexts: ReadonlyMap<string, InstanceContext>): void {
  for (const ctx of contexts.values()) {
    const location = locationOf(ctx.instance.lock);
    const before = recordedLocation(ctx);
    if (before !== undefined && sameLocation(before, location)) continue;
    if (before === undefined && location === null) continue;
    const section = ctx.state.writableSection<string>(ctx.instance.url, LOCK_SECTION);
    for (const k of Object.keys(section)) delete section[k];
    if (location) Object.assign(section, location);
    ctx.state.markDirty();
  }
}

/** Releases locks, the last taken first. */
export async function releaseAll(locks: readonly StateLock[]): Promise<void> {
  for (const lock of [...locks].reverse()) await lock.release();
}
