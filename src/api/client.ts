/**
 * plumb's HTTP client for the service's REST interface (`{baseUrl}/api/v4`).
 *
 * - One undici `Pool` per client (keep-alive, one origin), at most `concurrency` requests in flight
 *   (a semaphore in front of the pool; a request waiting out a backoff does not hold a slot).
 * - Retries follow the table in `retry.ts` (also in docs/client.md): safe requests are retried on
 *   429, 502/503/504, lost connections and timeouts; unsafe ones only on 429 and on connect
 *   failures (nothing was sent), and an unknown outcome raises `ApiAmbiguousError` instead.
 * - The token lives in a private field and is only ever written into the outgoing header. It is
 *   redacted from anything the server sends back that we surface (error messages, headers).
 *
 * Nothing happens at import time beyond creating three diagnostics channels; the pool is created
 * by the constructor.
 */
import { inspect } from 'node:util';
import { isLoopbackHost } from '../util/url.js';
import { setTimeout as sleepTimer } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import type { Dispatcher } from 'undici';
import {
  ApiAmbiguousError,
  ApiBadRequestError,
  ApiBudgetExhaustedError,
  ApiConflictError,
  ApiForbiddenError,
  ApiHttpError,
  ApiInsecureUrlError,
  ApiInvalidResponseError,
  ApiMethodNotAllowedError,
  ApiNetworkError,
  ApiNotFoundError,
  ApiRateLimitedError,
  ApiServerError,
  ApiTimeoutError,
  ApiUnauthorizedError,
  parseErrorBody,
} from './errors.js';
import type { ApiError, ApiErrorInit } from './errors.js';
import { buildQuery } from './path.js';
import type { ApiPath, QueryParams } from './path.js';
import { classifyTransportError, decide, isSafeToRepeat, parseRetryAfter } from './retry.js';
import type { Outcome, TransportFailure } from './retry.js';
import { Semaphore } from './semaphore.js';
import { debug, requestChannel, responseChannel, retryChannel } from './events.js';
import type { ApiRequestEvent, ApiResponseEvent, ApiRetryEvent } from './events.js';

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ApiClientOptions {
  /** Instance URL, e.g. `https://code.example.com` (a relative root like `/gitlab` is kept; `/api/v4` is appended unless present). */
  readonly baseUrl: string;
  /** Sent as `PRIVATE-TOKEN`. Never logged, never in errors, never shown by `util.inspect`. */
  readonly token: string;
  /** Most requests in flight at once. @default 8 */
  readonly concurrency?: number;
  /** TCP + TLS connect timeout in ms. @default 10_000 */
  readonly connectTimeoutMs?: number;
  /** Deadline of one attempt, from sending to the last byte of the response, in ms. @default 30_000 */
  readonly requestTimeoutMs?: number;
  /** How long an idle keep-alive connection is kept, in ms. @default 4_000 */
  readonly keepAliveTimeoutMs?: number;
  /** PEM bundle of CAs to trust instead of Node's defaults (for a private CA). */
  readonly caBundle?: string;
  /**
   * Allow plain HTTP to a host that is not loopback. The token then crosses the network in clear
   * text; a warning goes to `onWarning`. Loopback (127.0.0.0/8, ::1, localhost) never needs it.
   * @default false
   */
  readonly allowInsecureHttp?: boolean;
  /** Receives warnings (insecure HTTP). @default process.emitWarning */
  readonly onWarning?: (message: string) => void;
  /** Attempts per request including the first. @default 4 */
  readonly maxAttempts?: number;
  /** Backoff ceiling of the first retry in ms; doubles per attempt (full jitter). @default 250 */
  readonly baseDelayMs?: number;
  /** Largest backoff ceiling in ms. @default 10_000 */
  readonly maxDelayMs?: number;
  /** Longest Retry-After honoured, in ms; longer hints are clamped to this. @default 60_000 */
  readonly maxRetryAfterMs?: number;
  /** Jitter source, uniform in [0, 1). Injectable for tests. @default Math.random */
  readonly random?: () => number;
  /** Waits between attempts. Injectable for tests. @default timers/promises setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Page size requested for lists. @default 100 (the service's maximum) */
  readonly perPage?: number;
  /** Safety stop for pagination that never ends. @default 10_000 */
  readonly maxPages?: number;
  /** @default 'plumb' */
  readonly userAgent?: string;
  /**
   * A budget of requests shared by every client of a run (`plumb report --max-requests`): each
   * attempt takes one before it is sent, retries included; once it is spent, requests fail at once
   * with `ApiBudgetExhaustedError` without reaching the instance. Absent: no budget.
   */
  readonly budget?: RequestBudget;
}

/**
 * How many requests a run may still send (`--max-requests`). Shared by the clients of every
 * instance: the bound is on the whole run, as a scheduled job's impact on production is.
 */
export class RequestBudget {
  #used = 0;
  #refused = 0;

  /** `max`: a whole number of requests, or Infinity to count them without a bound. */
  constructor(readonly max: number) {
    if (!(Number.isInteger(max) || max === Number.POSITIVE_INFINITY) || max < 0) throw new RangeError('a request budget is a whole number of requests');
  }

  /** Takes one request; false when the budget is spent (the request must not be sent). */
  take(): boolean {
    if (this.#used >= this.max) {
      this.#refused++;
      return false;
    }
    this.#used++;
    return true;
  }

  /** Requests sent. */
  get used(): number {
    return this.#used;
  }

  /** Whether a request was refused for want of budget. */
  get exhausted(): boolean {
    return this.#refused > 0;
  }
}

export interface ApiRequest {
  readonly method: HttpMethod;
  /** Built with `apiPath`, relative to `/api/v4`. */
  readonly path: ApiPath;
  readonly query?: QueryParams | undefined;
  /** Sent as JSON when present. */
  readonly body?: unknown;
  /** Marks a non-GET request as safe to repeat (the settings PUT, the Pages PATCH). */
  readonly idempotent?: boolean | undefined;
  /** Parse the body as JSON (empty body → `undefined`). `false` returns the bytes. @default true */
  readonly expectJson?: boolean | undefined;
}

export interface ApiResponse<T> {
  readonly status: number;
  /** Lower-case names; repeated headers joined with `, `; `private-token` redacted if ever present. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: T;
}

export type ListRequest = Omit<ApiRequest, 'method' | 'body' | 'idempotent' | 'expectJson'>;

export interface ApiPage<T> {
  readonly items: T[];
  /** 1-based index of this page in the walk (not the server's page number). */
  readonly index: number;
}

export interface ListResult<T> {
  readonly items: T[];
  /** How many pages were fetched. */
  readonly pages: number;
}

export interface ListOptions {
  /**
   * Fetch the first page, then every other page at once (still at most `concurrency` requests in
   * flight) when the first page says how many there are (`X-Total-Pages`). Without that header (the
   * service leaves it out above 10,000 results) the walk follows `rel="next"`/`X-Next-Page` one page
   * at a time, as without this option; so it does past the counted last page if that page still
   * points to a next one (the list grew meanwhile). Pages come back in order.
   * @default false
   */
  readonly concurrent?: boolean;
}

const REDACTED = '[REDACTED]';

interface ResolvedOptions {
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly maxRetryAfterMs: number;
  readonly random: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly perPage: number;
  readonly maxPages: number;
  readonly requestTimeoutMs: number;
  readonly userAgent: string;
}

type Attempt =
  | { readonly kind: 'response'; readonly status: number; readonly headers: Record<string, string>; readonly bytes: Buffer }
  | { readonly kind: 'transport'; readonly failure: TransportFailure; readonly error: unknown };

/** Raw result of `#send`: the success response before body decoding. */
interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly bytes: Buffer;
}

export interface DispatcherOptions {
  /** PEM bundle of CAs to trust instead of Node's defaults (for a private CA). */
  readonly caBundle?: string;
  /** Connections kept to the origin. @default 8 */
  readonly connections?: number;
  /** TCP + TLS connect timeout in ms. @default 10_000 */
  readonly connectTimeoutMs?: number;
  /** How long an idle keep-alive connection is kept, in ms. @default 4_000 */
  readonly keepAliveTimeoutMs?: number;
}

/**
 * The connection pool to one instance's origin, trusting `caBundle` when given: what every request
 * plumb sends to an instance goes through (the API client, the Terraform-state backend, the
 * merge-request comment), so they all trust the same CAs. Use it with this module's `fetch` (the
 * same undici as the pool).
 */
export function instanceDispatcher(origin: string, options: DispatcherOptions = {}): Pool {
  return new Pool(origin, {
    connections: options.connections ?? 8,
    connect: {
      timeout: options.connectTimeoutMs ?? 10_000,
      ...(options.caBundle === undefined ? {} : { ca: options.caBundle }),
    },
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 4_000,
  });
}

/** undici's fetch, which takes `instanceDispatcher`'s pool as its `dispatcher`. */
export { fetch as instanceFetch } from 'undici';

export class ApiClient {
  #token: string;
  /** Credentials this client used before a `replaceToken`; still redacted from anything surfaced. */
  readonly #retired: string[] = [];
  readonly #origin: string;
  /** Path prefix on the origin, ending in `/api/v4`. */
  readonly #basePath: string;
  readonly #pool: Pool;
  readonly #semaphore: Semaphore;
  readonly #opts: ResolvedOptions;
  readonly #concurrency: number;
  readonly #budget: RequestBudget | undefined;
  #closed = false;

  constructor(options: ApiClientOptions) {
    if (typeof options.token !== 'string' || options.token === '' || /[\r\n\0]/.test(options.token)) {
      throw new TypeError('token must be a non-empty string without control characters');
    }
    this.#token = options.token;

    let url: URL;
    try {
      url = new URL(options.baseUrl);
    } catch {
      throw new TypeError('baseUrl is not a valid absolute URL');
    }
    if (url.username !== '' || url.password !== '') throw new TypeError('baseUrl must not contain credentials');
    if (url.search !== '' || url.hash !== '') throw new TypeError('baseUrl must not contain a query or fragment');
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new ApiInsecureUrlError(`baseUrl must use https (got ${url.protocol.replace(/:$/, '')})`);
    }
    if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
      if (!options.allowInsecureHttp) {
        throw new ApiInsecureUrlError(
          `refusing plain HTTP to ${url.hostname}: the access token would cross the network unencrypted. ` +
            'Use https, or set allowInsecureHttp if you accept the risk.',
        );
      }
      const warn = options.onWarning ?? ((m: string) => process.emitWarning(m, { code: 'PLUMB_API_INSECURE_HTTP' }));
      warn(`plain HTTP to ${url.hostname} is allowed by allowInsecureHttp: the access token is sent unencrypted`);
    }
    this.#origin = url.origin;
    const root = url.pathname.replace(/\/+$/, '');
    this.#basePath = root.endsWith('/api/v4') ? root : `${root}/api/v4`;

    const concurrency = options.concurrency ?? 8;
    this.#semaphore = new Semaphore(concurrency);
    this.#concurrency = concurrency;
    this.#budget = options.budget;
    const maxAttempts = options.maxAttempts ?? 4;
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new RangeError('maxAttempts must be an integer >= 1');
    const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.#opts = {
      maxAttempts,
      baseDelayMs: options.baseDelayMs ?? 250,
      maxDelayMs: options.maxDelayMs ?? 10_000,
      maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
      random: options.random ?? Math.random,
      sleep: options.sleep ?? ((ms: number) => sleepTimer(ms)),
      perPage: options.perPage ?? 100,
      maxPages: options.maxPages ?? 10_000,
      requestTimeoutMs,
      userAgent: options.userAgent ?? 'plumb',
    };

    this.#pool = instanceDispatcher(this.#origin, {
      connections: concurrency,
      ...(options.connectTimeoutMs !== undefined && { connectTimeoutMs: options.connectTimeoutMs }),
      ...(options.keepAliveTimeoutMs !== undefined && { keepAliveTimeoutMs: options.keepAliveTimeoutMs }),
      ...(options.caBundle !== undefined && { caBundle: options.caBundle }),
    });
  }

  /**
   * Swaps the credential for every later request. Used after plumb rotated its own token (`self`):
   * the old value is revoked by then, and presenting a revoked token to a rotate endpoint would be
   * a reuse attempt. Requests already sent keep the credential they were sent with.
   */
  replaceToken(token: string): void {
    if (typeof token !== 'string' || token === '' || /[\r\n\0]/.test(token)) {
      throw new TypeError('token must be a non-empty string without control characters');
    }
    if (token === this.#token) return;
    this.#retired.push(this.#token);
    this.#token = token;
  }

  /** The API root this client talks to, e.g. `https://code.example.com/api/v4`. */
  get apiUrl(): string {
    return this.#origin + this.#basePath;
  }

  /**
   * Sends one request, retrying per the policy, and returns the decoded success response.
   * Throws an `ApiError` subclass for every failure.
   */
  request(req: ApiRequest & { readonly expectJson: false }): Promise<ApiResponse<Uint8Array>>;
  request<T = unknown>(req: ApiRequest): Promise<ApiResponse<T>>;
  async request<T>(req: ApiRequest): Promise<ApiResponse<T>> {
    const query = buildQuery(req.query);
    const target = query === '' ? req.path : `${req.path}?${query}`;
    const raw = await this.#send(req.method, req.path, target, req.body, isSafeToRepeat(req.method, req.idempotent));
    const body = req.expectJson === false ? raw.bytes : this.#decodeJson(req.method, req.path, raw);
    return { status: raw.status, headers: raw.headers, body: body as T };
  }

  /**
   * Walks every page of a list: asks for `per_page` (default 100), then follows `Link: rel="next"`,
   * or else `X-Next-Page`, until neither is present. Links to another origin are refused (the token
   * would follow them).
   */
  async *pages<T>(req: ListRequest): AsyncGenerator<ApiPage<T>, void, undefined> {
    yield* this.#walk<T>(req.path, this.#firstTarget(req), 1, new Set());
  }

  /**
   * Follows the pages one at a time from `target` (page `index` of the walk), or from the response
   * already fetched for it.
   */
  async *#walk<T>(path: string, target: string, index: number, seen: Set<string>, fetched?: RawResponse): AsyncGenerator<ApiPage<T>, void, undefined> {
    for (; ; index++) {
      if (index > this.#opts.maxPages) {
        throw listError(path, `stopped after ${this.#opts.maxPages} pages (maxPages)`);
      }
      seen.add(target);
      const raw = fetched ?? (await this.#send('GET', path, target, undefined, true));
      fetched = undefined;
      yield { items: this.#listItems<T>(path, raw), index };
      const next = this.#nextTarget(path, target, raw.headers);
      if (next === undefined) return;
      if (seen.has(next)) {
        throw listError(path, 'pagination points back to a page already fetched');
      }
      target = next;
    }
  }

  #firstTarget(req: ListRequest): string {
    return `${req.path}?${buildQuery({ per_page: this.#opts.perPage, ...req.query })}`;
  }

  #listItems<T>(path: string, raw: RawResponse): T[] {
    const body = this.#decodeJson('GET', path, raw);
    if (!Array.isArray(body)) {
      throw listError(path, `returned ${raw.status} with a body that is not a list`, raw.status);
    }
    return body as T[];
  }

  /** Every item of a list, one page at a time (see {@link pages}). */
  async *paginate<T>(req: ListRequest): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages<T>(req)) yield* page.items;
  }

  /** Every item of a list, and how many pages that took (see {@link ListOptions} for `concurrent`). */
  async listAll<T>(req: ListRequest, options: ListOptions = {}): Promise<ListResult<T>> {
    const items: T[] = [];
    let pages = 0;
    const collect = async (walk: AsyncGenerator<ApiPage<T>, void, undefined>): Promise<void> => {
      for await (const page of walk) {
        items.push(...page.items);
        pages = page.index;
      }
    };
    if (options.concurrent !== true) {
      await collect(this.pages<T>(req));
      return { items, pages };
    }
    const first = this.#firstTarget(req);
    const raw = await this.#send('GET', req.path, first, undefined, true);
    const total = totalPages(raw.headers);
    if (total === undefined || total <= 1) {
      // Not counted (over 10,000 results) or one page: follow the links from the page we have.
      await collect(this.#walk<T>(req.path, first, 1, new Set(), raw));
      return { items, pages };
    }
    if (total > this.#opts.maxPages) {
      throw listError(req.path, `has ${total} pages, more than maxPages (${this.#opts.maxPages})`);
    }
    const targets = Array.from({ length: total - 1 }, (_, i) => withPage(first, i + 2));
    // Every page is requested now; the semaphore keeps at most `concurrency` in flight.
    const rest = await Promise.all(targets.map((t) => this.#send('GET', req.path, t, undefined, true)));
    items.push(...this.#listItems<T>(req.path, raw));
    rest.forEach((r) => items.push(...this.#listItems<T>(req.path, r)));
    pages = total;
    const lastTarget = targets[targets.length - 1]!;
    const next = this.#nextTarget(req.path, lastTarget, rest[rest.length - 1]!.headers);
    if (next !== undefined) {
      // The list grew while it was read: what lies past the counted end, one page at a time.
      await collect(this.#walk<T>(req.path, next, total + 1, new Set([first, ...targets])));
    }
    return { items, pages };
  }

  /** Closes idle connections and waits for requests in flight. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.close();
  }

  [inspect.custom](): string {
    return `ApiClient { apiUrl: '${this.apiUrl}', concurrency: ${this.#concurrency} }`;
  }

  toJSON(): Record<string, unknown> {
    return { apiUrl: this.apiUrl, concurrency: this.#concurrency };
  }

  // -------------------------------------------------------------------------------------------

  /** `target` is relative to the API root and already encoded (path + query). */
  async #send(method: HttpMethod, path: string, target: string, body: unknown, safe: boolean): Promise<RawResponse> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body), 'utf8');
    for (let attempt = 1; ; attempt++) {
      const release = await this.#semaphore.acquire();
      if (this.#budget && !this.#budget.take()) {
        release();
        throw new ApiBudgetExhaustedError(method, path, this.#budget.max);
      }
      let result: Attempt;
      try {
        result = await this.#attempt(method, path, target, payload, attempt);
      } finally {
        release();
      }
      if (result.kind === 'response' && result.status < 300) return result;

      const outcome: Outcome =
        result.kind === 'response'
          ? { kind: 'status', status: result.status, retryAfterMs: parseRetryAfter(result.headers['retry-after']) }
          : { kind: 'transport', failure: result.failure };
      const decision = decide(outcome, { ...this.#opts, safe, attempt });
      if (decision.action === 'retry') {
        const event: ApiRetryEvent = {
          method,
          path,
          attempt,
          delayMs: decision.delayMs,
          reason: decision.reason,
          status: result.kind === 'response' ? result.status : undefined,
        };
        if (retryChannel.hasSubscribers) retryChannel.publish(event);
        debug('retry %s %s after attempt %d (%s) in %dms', method, path, attempt, decision.reason, decision.delayMs);
        await this.#opts.sleep(decision.delayMs);
        continue;
      }
      throw this.#toError(method, path, attempt, result, outcome, decision.action === 'ambiguous' ? decision.reason : undefined);
    }
  }

  async #attempt(
    method: HttpMethod,
    path: string,
    target: string,
    payload: Buffer | undefined,
    attempt: number,
  ): Promise<Attempt> {
    const event: ApiRequestEvent = { method, path, attempt };
    if (requestChannel.hasSubscribers) requestChannel.publish(event);
    debug('%s %s attempt %d', method, path, attempt);
    const headers: Record<string, string> = {
      'private-token': this.#token,
      accept: 'application/json',
      'user-agent': this.#opts.userAgent,
    };
    if (payload !== undefined) headers['content-type'] = 'application/json';
    const started = performance.now();
    try {
      const res: Dispatcher.ResponseData = await this.#pool.request({
        path: this.#basePath + target,
        method,
        headers,
        body: payload ?? null,
        // undici closes the connection after every HEAD unless told otherwise (nodejs/undici#258,
        // for servers that send a body with one); the service does not, and a plan makes one HEAD
        // per file: thousands of TCP (and TLS) handshakes in a fleet. Kept alive when the answer says
        // `Connection: keep-alive`, as any other request.
        ...(method === 'HEAD' && { reset: false }),
        // One deadline for the whole attempt, body included (undici's own headers/body timeouts
        // are per phase and run on a coarse timer).
        signal: AbortSignal.timeout(this.#opts.requestTimeoutMs),
      });
      const bytes = Buffer.from(await res.body.arrayBuffer());
      const durationMs = Math.round((performance.now() - started) * 10) / 10;
      const done: ApiResponseEvent = { method, path, status: res.statusCode, durationMs, attempt };
      if (responseChannel.hasSubscribers) responseChannel.publish(done);
      debug('%s %s -> %d in %dms (attempt %d)', method, path, res.statusCode, durationMs, attempt);
      return { kind: 'response', status: res.statusCode, headers: this.#headers(res.headers), bytes };
    } catch (error) {
      const failure = classifyTransportError(error);
      debug('%s %s failed: %s (attempt %d)', method, path, failure.code ?? 'unknown error', attempt);
      return { kind: 'transport', failure, error };
    }
  }

  #headers(raw: Dispatcher.ResponseData['headers']): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(raw)) {
      if (value === undefined) continue;
      const key = name.toLowerCase();
      const joined = Array.isArray(value) ? value.join(', ') : value;
      out[key] = key === 'private-token' ? REDACTED : this.#redact(joined);
    }
    return out;
  }

  #redact(text: string): string {
    let out = text.includes(this.#token) ? text.split(this.#token).join(REDACTED) : text;
    for (const old of this.#retired) if (out.includes(old)) out = out.split(old).join(REDACTED);
    return out;
  }

  #decodeJson(method: HttpMethod, path: string, raw: RawResponse): unknown {
    const text = raw.bytes.toString('utf8');
    if (text.trim() === '') return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch (cause) {
      throw new ApiInvalidResponseError({
        method,
        path,
        status: raw.status,
        message: `${method} ${path} returned ${raw.status} with a body that is not JSON`,
        cause,
      });
    }
  }

  /** Resolves the next page from `Link` (preferred) or `X-Next-Page`; undefined at the end. */
  #nextTarget(path: string, current: string, headers: Record<string, string>): string | undefined {
    const link = headers['link'];
    const href = link === undefined ? undefined : findNextLink(link);
    if (href !== undefined) {
      const base = new URL(this.#origin + this.#basePath + current);
      const next = new URL(href, base);
      if (next.origin !== this.#origin || !next.pathname.startsWith(`${this.#basePath}/`)) {
        throw listError(path, `refusing to follow a pagination link outside ${this.apiUrl}`);
      }
      return next.pathname.slice(this.#basePath.length) + next.search;
    }
    const nextPage = headers['x-next-page']?.trim();
    if (nextPage !== undefined && /^\d+$/.test(nextPage)) return withPage(current, Number(nextPage));
    return undefined;
  }

  #toError(
    method: HttpMethod,
    path: string,
    attempts: number,
    result: Attempt,
    outcome: Outcome,
    ambiguous: ApiAmbiguousError['reason'] | undefined,
  ): ApiError {
    if (result.kind === 'transport') {
      const { failure } = result;
      const init: ApiErrorInit = { method, path, attempts, cause: result.error };
      if (ambiguous !== undefined) return new ApiAmbiguousError({ ...init, reason: ambiguous });
      const what = describeFailure(failure);
      const after = attempts > 1 ? ` after ${attempts} attempts` : '';
      if (failure.timedOut) return new ApiTimeoutError({ ...init, message: `${method} ${path} timed out (${what})${after}` });
      return new ApiNetworkError({
        ...init,
        networkCode: failure.code,
        message: `${method} ${path} failed: ${what}${after}`,
      });
    }
    const parsed = parseErrorBody(result.bytes.toString('utf8'), result.headers['content-type']);
    const serverMessage = parsed.serverMessage === undefined ? undefined : this.#redact(parsed.serverMessage);
    const retryAfter = outcome.kind === 'status' ? outcome.retryAfterMs : undefined;
    const init: ApiErrorInit = { method, path, status: result.status, serverMessage, retryAfter, attempts };
    if (ambiguous !== undefined) return new ApiAmbiguousError({ ...init, reason: ambiguous });
    return errorForStatus(init, parsed.fieldErrors);
  }
}

/** `current` (a path with its query) asking for page `page`, every other parameter kept. */
function withPage(current: string, page: number): string {
  const q = current.indexOf('?');
  const params = new URLSearchParams(q < 0 ? '' : current.slice(q + 1));
  params.set('page', String(page));
  return `${q < 0 ? current : current.slice(0, q)}?${params.toString()}`;
}

/** `X-Total-Pages` as a number; undefined when absent or not a count (the service omits it above 10,000 results). */
function totalPages(headers: Readonly<Record<string, string>>): number | undefined {
  const raw = headers['x-total-pages']?.trim();
  return raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : undefined;
}

function listError(path: string, problem: string, status?: number): ApiInvalidResponseError {
  return new ApiInvalidResponseError({ method: 'GET', path, status, message: `GET ${path}: ${problem}` });
}

function errorForStatus(init: ApiErrorInit & { readonly status?: number | undefined }, fieldErrors: Record<string, string[]> | undefined): ApiError {
  const status = init.status ?? 0;
  switch (status) {
    case 400:
    case 422:
      return new ApiBadRequestError({ ...init, fieldErrors });
    case 401:
      return new ApiUnauthorizedError(init);
    case 403:
      return new ApiForbiddenError(init);
    case 404:
      return new ApiNotFoundError(init);
    case 405:
      return new ApiMethodNotAllowedError(init);
    case 409:
      return new ApiConflictError(init);
    case 429:
      return new ApiRateLimitedError(init);
    default:
      return status >= 500 ? new ApiServerError(init) : new ApiHttpError(init);
  }
}

const TLS_HINT = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/;

function describeFailure(failure: TransportFailure): string {
  const code = failure.code ?? 'unknown error';
  if (TLS_HINT.test(code)) return `${code} (TLS verification failed; for a private CA, set ca_bundle on the instance to its PEM file)`;
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return `${code} (could not connect within connectTimeoutMs)`;
  if (failure.kind === 'timeout') return `${code} (no complete response within requestTimeoutMs)`;
  return code;
}

/** The URL of the `rel="next"` entry of a Link header (RFC 8288), if any. */
export function findNextLink(header: string): string | undefined {
  const entry = /<([^>]*)>((?:\s*;\s*[^;,]*)*)/g;
  for (const match of header.matchAll(entry)) {
    const params = match[2] ?? '';
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(params);
    const rels = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
    if (rels.includes('next')) return match[1];
  }
  return undefined;
}

export { isLoopbackHost };
