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
import type { AcquireOptions, StateLock } from '../engine/lock.js';

/** How often a held backend lock is asked for again while --lock-timeout runs. */
const LOCK_POLL_MS = 1_000;

/** The problem with a `--state` value or the backend, as a sentence, with its fix. */
export class StateBackendError extends Error {
  constructor(
    readonly code: 'PLUMB_STATE_BACKEND' | 'PLUMB_STATE_LOCKED',
    summary: string,
    readonly suggestion: string,
  ) {
    super(summary);
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
    throw new StateBackendError('PLUMB_STATE_BACKEND', `--state ${spec} is not a URL`, 'write the Terraform-state address, e.g. https://gitlab.example.com/api/v4/projects/42/terraform/state/plumb');
  }
  if (url.username || url.password || url.search || url.hash || !STATE_PATH.test(url.pathname)) {
    throw new StateBackendError(
      'PLUMB_STATE_BACKEND',
      `--state ${url.origin}${url.pathname} is not a Terraform-state address`,
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

  private async call(method: string, suffix: string, body?: string, query = ''): Promise<{ status: number; text: string }> {
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
      throw new StateBackendError('PLUMB_STATE_BACKEND', `The state backend ${this.address} cannot be reached (${cause})`, 'check the --state address and the network; nothing was changed');
    }
    return { status: res.status, text: await res.text() };
  }

  private fail(what: string, status: number): never {
    const why = status === 401 ? 'the token was refused' : status === 403 ? 'the token may not do this (reading needs Developer, writing Maintainer and the api scope)' : status === 404 ? 'no such project (or the token cannot see it)' : `HTTP ${status}`;
    throw new StateBackendError('PLUMB_STATE_BACKEND', `${what} ${this.address} failed: ${why}`, 'check the --state address and the token the job gives plumb (CI_JOB_TOKEN or PLUMB_STATE_TOKEN)');
  }

  /** The latest version, or undefined when there is none yet. */
  async read(): Promise<string | undefined> {
    const r = await this.call('GET', '');
    if (r.status === 200) return r.text;
    // 404 is "no state yet" unless it is the project that was not found (or is not visible to the
    // token): then the state may well exist, and planning without it would show false changes.
    if (r.status === 204 || (r.status === 404 && !/Project Not Found/i.test(r.text))) return undefined;
    return this.fail('Reading the state from', r.status);
  }

  /** Stores `content` as a new version; `lockId` when this run holds the lock. */
  async write(content: string, lockId?: string): Promise<void> {
    const r = await this.call('POST', '', content, lockId ? `?ID=${encodeURIComponent(lockId)}` : '');
    if (r.status === 200 || r.status === 204) return;
    if (r.status === 409) throw new StateBackendError('PLUMB_STATE_LOCKED', `The state at ${this.address} was locked by someone else; the state was not saved`, 'the state file is kept locally (see above); run plumb plan again');
    this.fail('Writing the state to', r.status);
  }

  async lock(info: Record<string, string>): Promise<{ status: number; text: string }> {
    return this.call('POST', '/lock', JSON.stringify(info));
  }

  async unlock(id: string): Promise<number> {
    return (await this.call('DELETE', '/lock', JSON.stringify({ ID: id }))).status;
  }
}

/**
 * The backend's lock, held for a whole apply. Same shape as the local state file's lock
 * (`acquire`/`release`), so a command holds either the same way.
 */
export class HttpStateLock implements StateLock {
  readonly id = randomUUID();
  readonly what: string;
  #held = false;
  #cancelExitRelease?: () => void;

  constructor(
    private readonly backend: HttpStateBackend,
    private readonly operation: string,
  ) {
    this.what = `the state at ${backend.address}`;
  }

  /** Takes the backend's lock, polling while another run holds it up to `timeoutMs` (`--lock-timeout`). */
  async acquire(opts: AcquireOptions): Promise<void> {
    const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    const deadline = Date.now() + opts.timeoutMs;
    for (;;) {
      const r = await this.backend.lock({ ID: this.id, Operation: this.operation, Info: '', Who: `plumb@${os.hostname()}`, Version: VERSION, Created: new Date().toISOString(), Path: '' });
      if (r.status === 200) {
        this.#held = true;
        // Given back on SIGINT/SIGTERM too, like every lock apply holds (src/engine/lock.ts).
        this.#cancelExitRelease = releaseOnExit({ async: () => this.release() });
        return;
      }
      if (r.status !== 409 && r.status !== 423) {
        throw new StateBackendError('PLUMB_STATE_BACKEND', `Locking the state at ${this.backend.address} failed: HTTP ${r.status}`, 'apply needs Maintainer and the api scope on the state\'s project (CI_JOB_TOKEN of a protected pipeline, or PLUMB_STATE_TOKEN)');
      }
      if (Date.now() < deadline) {
        await sleep(Math.min(LOCK_POLL_MS, Math.max(0, deadline - Date.now())));
        continue;
      }
      let holder: { ID?: string; Who?: string; Created?: string; Operation?: string } = {};
      try {
        holder = JSON.parse(r.text) as typeof holder;
      } catch {
        // the holder is unknown
      }
      throw new LockHeld(
        `The state at ${this.backend.address} is locked${holder.Who ? ` by ${holder.Who}` : ''}${holder.Created ? ` since ${holder.Created}` : ''}${holder.Operation ? ` (${holder.Operation})` : ''}: another apply is running`,
        `wait for it to finish (one apply at a time; --lock-timeout 5m waits); if it died, unlock it: curl --request DELETE --header "PRIVATE-TOKEN: …" --data '{"ID":"${holder.ID ?? 'LOCK_ID'}"}' ${this.backend.address}/lock`,
      );
    }
  }

  async release(): Promise<void> {
    if (!this.#held) return;
    this.#held = false;
    this.#cancelExitRelease?.();
    const status = await this.backend.unlock(this.id);
    if (status !== 200 && status !== 204) {
      throw new StateBackendError('PLUMB_STATE_BACKEND', `Unlocking the state at ${this.backend.address} failed: HTTP ${status}`, `unlock it by hand: DELETE ${this.backend.address}/lock with {"ID":"${this.id}"}`);
    }
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
