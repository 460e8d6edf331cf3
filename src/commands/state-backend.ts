/**
 * Where plumb keeps its state (docs/ci.md#the-state-backend): a local file (the default), or the
 * service's Terraform-state API, the http backend Terraform and OpenTofu use
 * (`--state https://HOST/api/v4/projects/ID/terraform/state/NAME`, or `PLUMB_STATE`). With the
 * backend, plan and drift read the latest version without locking; apply takes the backend's lock
 * for the whole run, reads, applies, writes the state back as a new version, and unlocks. The
 * engine works on a private local copy through the same StateStore (src/engine/state.ts).
 *
 * The backend's address comes from the command line or the environment, never from the
 * configuration, and must be on a pinned instance (`PLUMB_URL`, `CI_SERVER_URL`,
 * `PLUMB_ALLOWED_URLS`, or loopback): the token goes nowhere else.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { VERSION } from '../version.js';
import { instanceDispatcher, instanceFetch } from '../api/client.js';
import { serviceRefusal, urlPolicy } from '../engine/connection.js';
import { LockHeld, releaseOnExit } from '../engine/lock.js';
import { fileErrorSentence } from '../util/file-error.js';
import { PlumbError } from '../diagnostics/error.js';
import type { AcquireOptions, StateLock } from '../engine/lock.js';

/** How often a held backend lock is asked for again while --lock-timeout runs. */
const LOCK_POLL_MS = 1_000;

/** The problem with a `--state` value or the backend, as a sentence, with its fix. */
export class StateBackendError extends PlumbError {
  declare readonly code: 'PLUMB_STATE_BACKEND' | 'PLUMB_STATE_LOCKED';
  declare readonly suggestion: string;
  constructor(code: 'PLUMB_STATE_BACKEND' | 'PLUMB_STATE_LOCKED', summary: string, suggestion: string) {
    super(code, summary, { suggestion });
  }
}

const STATE_PATH = /^(\/.*)?\/api\/v4\/projects\/[^/]+\/terraform\/state\/[^/]+$/;

export const isBackendAddress = (spec: string): boolean => /^https?:\/\//i.test(spec);

/**
 * The backend's URL, checked: http(s), the Terraform-state path, on an instance the token may be
 * sent to (the same pinning as every connection: src/engine/connection.ts).
 */
export function backendUrl(spec: string, env: NodeJS.ProcessEnv, allowUrls: readonly string[] = []): URL {
  let url: URL;
  try {
    url = new URL(spec);
  } catch {
    throw new StateBackendError('PLUMB_STATE_BACKEND', 'this is not a URL', 'write the Terraform-state address, e.g. https://gitlab.example.com/api/v4/projects/42/terraform/state/plumb');
  }
  if (url.username || url.password || url.search || url.hash || !STATE_PATH.test(url.pathname)) {
    throw new StateBackendError(
      'PLUMB_STATE_BACKEND',
      'this is not a Terraform-state address',
      'write INSTANCE/api/v4/projects/PROJECT/terraform/state/NAME, without credentials or query (in CI: ${CI_API_V4_URL}/projects/${CI_PROJECT_ID}/terraform/state/plumb)',
    );
  }
  const base = `${url.origin}${url.pathname.slice(0, url.pathname.indexOf('/api/v4/'))}`;
  const refused = serviceRefusal(base, 'state backend', urlPolicy(env, allowUrls));
  if (refused) {
    throw new StateBackendError('PLUMB_STATE_BACKEND', refused.insecure ? `The state backend ${base} is plain HTTP` : `The state backend ${base} is not a pinned instance: plumb sends no token there`, refused.suggestion);
  }
  return url;
}

/**
 * The credential for the backend: the CI job token (basic auth as `gitlab-ci-token`) when the job
 * has one, else `PLUMB_STATE_TOKEN`, else the token of the configuration's instance on the same
 * host (its `token_env`), sent as PRIVATE-TOKEN.
 */
export function backendAuth(env: NodeJS.ProcessEnv, instanceToken: string | undefined): { headers: Record<string, string>; secret: string } | undefined {
  if (env.CI_JOB_TOKEN) return { headers: { authorization: `Basic ${Buffer.from(`gitlab-ci-token:${env.CI_JOB_TOKEN}`).toString('base64')}` }, secret: env.CI_JOB_TOKEN };
  const token = env.PLUMB_STATE_TOKEN || instanceToken;
  return token ? { headers: { 'private-token': token }, secret: token } : undefined;
}

/** The CA bundle `trustedCaFile` chose for the backend's host, read; undefined for none. */
export function readCaBundle(file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new StateBackendError('PLUMB_STATE_BACKEND', `Cannot read the CA bundle ${file} for the state backend: ${fileErrorSentence(err)}`, 'fix the instance\'s ca_bundle (or, in CI, the runner\'s CI_SERVER_TLS_CA_FILE)');
  }
}

/** The Terraform-state API of one state. */
export class HttpStateBackend {
  /** The same connection pool, trusting the same CAs, as the API client for this host. */
  readonly #dispatcher: ReturnType<typeof instanceDispatcher>;

  /** `caBundle`: PEM of the CAs to trust (trustedCaFile's choice for the backend's instance). */
  constructor(
    readonly url: URL,
    private readonly headers: Record<string, string>,
    caBundle?: string,
  ) {
    this.#dispatcher = instanceDispatcher(url.origin, { connections: 2, ...(caBundle !== undefined && { caBundle }) });
  }

  /** Where, for messages (never a credential: the URL has none). */
  get address(): string {
    return `${this.url.origin}${this.url.pathname}`;
  }

  /**
   * One request. A request that got no answer (refused, reset, timed out) resolves with status 0
   * and `lost` saying why, as does a 5xx: both may have acted on the server, and each caller reads
   * back what happened before it reports anything (docs/ci.md#5-the-state-backend).
   */
  private async call(method: string, suffix: string, body?: string, query = ''): Promise<Answer> {
    let res: Awaited<ReturnType<typeof instanceFetch>>;
    try {
      res = await instanceFetch(`${this.address}${suffix}${query}`, {
        dispatcher: this.#dispatcher,
        method,
        headers: { ...this.headers, ...(body !== undefined && { 'content-type': 'application/json' }) },
        ...(body !== undefined && { body }),
        redirect: 'manual',
        signal: AbortSignal.timeout(60_000),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
      return { status: 0, text: '', lost: `cannot be reached (${cause})` };
    }
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      return { status: 0, text: '', lost: `the answer was cut off: ${(err as Error).name}` };
    }
    return { status: res.status, text };
  }

  /** Why a status was refused, in words. */
  static why(status: number): string {
    return status === 401
      ? 'the token was refused'
      : status === 403
        ? 'the token may not do this (reading needs Developer, writing and locking Maintainer and the api scope)'
        : status === 404
          ? 'no such project (or the token cannot see it)'
          : `HTTP ${status}`;
  }

  private fail(what: string, r: Answer, suggestion = 'check the --state address and the token the job gives plumb (CI_JOB_TOKEN or PLUMB_STATE_TOKEN)'): never {
    throw new StateBackendError('PLUMB_STATE_BACKEND', `${what} ${this.address} failed: ${r.lost ?? HttpStateBackend.why(r.status)}`, suggestion);
  }

  /** The latest version, or undefined when there is none yet. Reading changes nothing: tried again after an unclear answer. */
  async read(sleep: Sleep = defaultSleep): Promise<string | undefined> {
    let r: Answer = { status: 0, text: '' };
    for (let attempt = 1; attempt <= TRIES; attempt++) {
      if (attempt > 1) await sleep(RETRY_MS * (attempt - 1));
      r = await this.call('GET', '');
      if (r.status === 200) return r.text;
      // 404 is "no state yet" unless it is the project that was not found (or is not visible to the
      // token): then the state may well exist, and planning without it would show false changes.
      if (r.status === 204 || (r.status === 404 && !/Project Not Found/i.test(r.text))) return undefined;
      if (!unclear(r)) break;
    }
    return this.fail('Reading the state from', r, unclear(r) ? 'run the command again once the service answers; nothing was changed' : undefined);
  }

  /**
   * Stores `content` as a new version; `lockId` when this run holds the lock. After an unclear
   * answer (a 5xx, a lost connection) the write may have landed: the latest version is read back,
   * and the write is sent again only when it does not hold `content` (a second identical version is
   * harmless; a lost one is not).
   */
  async write(content: string, lockId?: string, sleep: Sleep = defaultSleep): Promise<void> {
    let r: Answer = { status: 0, text: '' };
    for (let attempt = 1; attempt <= TRIES; attempt++) {
      r = await this.call('POST', '', content, lockId ? `?ID=${encodeURIComponent(lockId)}` : '');
      if (r.status === 200 || r.status === 204) return;
      if (r.status === 409) throw new StateBackendError('PLUMB_STATE_LOCKED', `The state at ${this.address} was locked by someone else; the state was not saved`, 'the state file is kept locally (see above); run plumb plan again');
      if (!unclear(r)) break;
      await sleep(RETRY_MS * attempt);
      const back = await this.call('GET', '');
      if (back.status === 200 && back.text === content) return;
    }
    this.fail('Writing the state to', r, unclear(r) ? 'the service did not confirm the write and reading it back did not show it; store the kept state (below) as the next version once the service answers' : undefined);
  }

  async lock(info: Record<string, string>): Promise<Answer> {
    return this.call('POST', '/lock', JSON.stringify(info));
  }

  async unlock(id: string): Promise<Answer> {
    return this.call('DELETE', '/lock', JSON.stringify({ ID: id }));
  }
}

/** A backend's answer; `lost` when there was none (status 0). */
export interface Answer {
  readonly status: number;
  readonly text: string;
  readonly lost?: string;
}

type Sleep = (ms: number) => Promise<void>;
const defaultSleep: Sleep = (ms) => new Promise<void>((r) => setTimeout(r, ms));

/** Requests tried after an unclear answer, in all (the instance lock tries as often: src/engine/instance-lock.ts). */
const TRIES = 3;
/** Back-off step between tries. */
const RETRY_MS = 250;

/** An answer that does not say what happened: none at all, or a server error (it may have acted). */
const unclear = (r: Answer): boolean => r.status === 0 || r.status >= 500;

/** The holder a 409/423 names (Terraform's LockInfo), when its body says. */
function holderOf(text: string): { ID?: string; Who?: string; Created?: string; Operation?: string } {
  try {
    const h = JSON.parse(text) as unknown;
    if (typeof h === 'object' && h !== null) return h as { ID?: string };
  } catch {
    // the holder is unknown
  }
  return {};
}

/**
 * The backend's lock, held for a whole apply. Same shape as the local state file's lock
 * (`acquire`/`release`), so a command holds either the same way.
 *
 * An answer that is lost or a 5xx may come after the service acted, so, as the instance lock does
 * (src/engine/instance-lock.ts), the lock recognises its own ID: a lock request is sent again with
 * the same ID, and a 409 naming that ID means an earlier request took it (the service's 409 carries
 * the holder's lock info, the read-back). An unlock is sent again the same way: a 409 after an
 * unclear unlock means the lock is no longer this run's (the earlier unlock went through).
 */
export class HttpStateLock implements StateLock {
  readonly id = randomUUID();
  readonly what: string;
  #held = false;
  #cancelExitRelease?: () => void;
  #sleep: Sleep = defaultSleep;
  #log: (message: string) => void = () => {};

  constructor(
    private readonly backend: HttpStateBackend,
    private readonly operation: string,
  ) {
    this.what = `the state at ${backend.address}`;
  }

  /** Takes the backend's lock, polling while another run holds it up to `timeoutMs` (`--lock-timeout`). */
  async acquire(opts: AcquireOptions): Promise<void> {
    const sleep = (this.#sleep = opts.sleep ?? defaultSleep);
    this.#log = opts.log;
    const deadline = Date.now() + opts.timeoutMs;
    let unclearTries = 0;
    let lastUnclear: Answer | undefined;
    for (;;) {
      const r = await this.backend.lock({ ID: this.id, Operation: this.operation, Info: '', Who: `plumb@${os.hostname()}`, Version: VERSION, Created: new Date().toISOString(), Path: '' });
      const holder = r.status === 409 || r.status === 423 ? holderOf(r.text) : {};
      if (r.status === 200 || holder.ID === this.id) {
        if (holder.ID === this.id) opts.log(`note: an earlier request for the lock on ${this.what} was answered ${lastUnclear?.lost ?? `HTTP ${lastUnclear?.status ?? '?'}`}, but the service holds it for this apply (lock ID ${this.id})`);
        this.#held = true;
        // Given back on SIGINT/SIGTERM too, like every lock apply holds (src/engine/lock.ts).
        this.#cancelExitRelease = releaseOnExit({ async: () => this.release() });
        return;
      }
      if (unclear(r)) {
        lastUnclear = r;
        if (++unclearTries < TRIES) {
          await sleep(RETRY_MS * unclearTries);
          continue;
        }
        // The lock may be ours all the same: give it back, so that no later apply is refused by it.
        await this.#unlock();
        throw new StateBackendError(
          'PLUMB_STATE_BACKEND',
          `Locking the state at ${this.backend.address} failed ${TRIES} times (last: ${r.lost ?? `HTTP ${r.status}`}); nothing was applied`,
          `run apply again once the service answers; if a later apply finds the state locked by lock ID ${this.id}, that lock is this run's: unlock it with DELETE ${this.backend.address}/lock and {"ID":"${this.id}"}`,
        );
      }
      if (r.status !== 409 && r.status !== 423) {
        throw new StateBackendError(
          'PLUMB_STATE_BACKEND',
          `Locking the state at ${this.backend.address} failed: ${HttpStateBackend.why(r.status)}; nothing was applied`,
          r.status === 404 ? 'check the project in the --state address' : 'apply needs Maintainer and the api scope on the state\'s project (CI_JOB_TOKEN of a protected pipeline, or PLUMB_STATE_TOKEN)',
        );
      }
      if (Date.now() < deadline) {
        await sleep(Math.min(LOCK_POLL_MS, Math.max(0, deadline - Date.now())));
        continue;
      }
      throw new LockHeld(
        `The state at ${this.backend.address} is locked${holder.Who ? ` by ${holder.Who}` : ''}${holder.Created ? ` since ${holder.Created}` : ''}${holder.Operation ? ` (${holder.Operation})` : ''}${holder.ID ? ` with lock ID ${holder.ID}` : ''}: another apply is running`,
        `wait for it to finish (one apply at a time; --lock-timeout 5m waits); if it died, unlock it: curl --request DELETE --header "PRIVATE-TOKEN: …" --data '{"ID":"${holder.ID ?? 'LOCK_ID'}"}' ${this.backend.address}/lock`,
      );
    }
  }

  async release(): Promise<void> {
    if (!this.#held) return;
    this.#held = false;
    this.#cancelExitRelease?.();
    const { r, tries } = await this.#unlock();
    if (r.status === 200 || r.status === 204) return;
    if (r.status === 409) {
      // After an unclear try: the earlier unlock went through. At once: someone unlocked it by hand
      // (and another run may hold it now); either way it is not this run's to give back.
      if (tries === 1) this.#log(`warning: the lock on ${this.what} was no longer held by this apply (lock ID ${this.id}) when it ended: someone unlocked it by hand`);
      return;
    }
    throw new StateBackendError(
      'PLUMB_STATE_BACKEND',
      `Unlocking the state at ${this.backend.address} failed (${r.lost ?? HttpStateBackend.why(r.status)}${unclear(r) ? `, ${tries} tries` : ''}): the lock (ID ${this.id}) may still be held, and every later apply is refused until it is given back`,
      `the apply itself ran (see above); unlock the state by hand: DELETE ${this.backend.address}/lock with {"ID":"${this.id}"}`,
    );
  }

  /**
   * Sends the unlock, again after an unclear answer. Only this run's ID is ever sent, so a repeat
   * never removes another run's lock; a 409 after an unclear try means the lock is not held by this
   * ID any more (the earlier unlock went through). The last answer, and how many were sent.
   */
  async #unlock(): Promise<{ r: Answer; tries: number }> {
    let r: Answer = { status: 0, text: '' };
    let tries = 0;
    while (tries < TRIES) {
      if (tries > 0) await this.#sleep(RETRY_MS * tries);
      tries++;
      r = await this.backend.unlock(this.id);
      if (!unclear(r)) break;
    }
    return { r, tries };
  }
}

/** A private local copy of the backend's state for the engine's StateStore; `done` removes it. */
export class LocalCopy {
  readonly dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-state-'));
  readonly file = path.join(this.dir, 'state.json');
  #original: string | undefined;

  fill(content: string | undefined): void {
    this.#original = content;
    if (content !== undefined) writeFileSync(this.file, content, { mode: 0o600 });
  }

  /** The copy's content when the engine changed it, else undefined. */
  changed(): string | undefined {
    let now: string;
    try {
      now = readFileSync(this.file, 'utf8');
    } catch {
      return undefined;
    }
    return now === this.#original ? undefined : now;
  }

  done(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
