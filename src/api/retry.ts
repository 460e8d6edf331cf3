/**
 * The retry policy, as pure functions so the table in docs/client.md can be read off the code.
 *
 * | What happened                                     | GET/HEAD/idempotent | any other method            |
 * |---------------------------------------------------|---------------------|-----------------------------|
 * | 429                                               | retry (Retry-After) | retry (Retry-After)         |
 * | 502 / 503 / 504                                   | retry (Retry-After, | ApiAmbiguousError, no retry |
 * |                                                   |   else backoff)     |                             |
 * | connect failed (refused, unreachable, connect     | retry (backoff)     | retry (backoff): nothing    |
 * |   timeout, DNS EAI_AGAIN)                         |                     |   reached the server        |
 * | connection lost after sending (reset, closed)     | retry (backoff)     | ApiAmbiguousError, no retry |
 * | headers/body timeout                              | retry (backoff)     | ApiAmbiguousError, no retry |
 * | anything else (other 4xx/5xx, TLS, ENOTFOUND)     | fail                | fail                        |
 *
 * A 429 is safe to repeat for every method: the server refused before acting. Rotating a token is
 * the case this protects: repeating a rotation that did happen is a reuse attempt, and the service
 * answers it by revoking every token of the family.
 */
import type { AmbiguityReason } from './errors.js';

export const RETRYABLE_GATEWAY_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

/** GET and HEAD are safe to repeat; anything else only when the caller marked it idempotent. */
export function isSafeToRepeat(method: string, idempotent: boolean | undefined): boolean {
  return method === 'GET' || method === 'HEAD' || idempotent === true;
}

/** Where a transport failure happened, which decides whether the server may have acted. */
export type FailureKind =
  /** The connection could not be established: the request never left. */
  | 'connect'
  /** The connection broke after the request may have been written. */
  | 'connection-lost'
  /** No (complete) response within the request timeout. */
  | 'timeout'
  /** Not transient (TLS verification, unknown host, …): retrying would not help. */
  | 'fatal';

export interface TransportFailure {
  readonly kind: FailureKind;
  readonly code: string | undefined;
  /** Whether the failure was a timeout of some kind (connect or request), for the error class. */
  readonly timedOut: boolean;
}

/** Code reported for the client's own per-attempt deadline. */
export const REQUEST_TIMEOUT = 'PLUMB_REQUEST_TIMEOUT';

const CONNECT_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);
const LOST_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
]);
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

export function classifyTransportError(err: unknown): TransportFailure {
  const e = err as { code?: unknown; syscall?: unknown; name?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : undefined;
  const syscall = typeof e?.syscall === 'string' ? e.syscall : undefined;
  // The per-attempt deadline (AbortSignal.timeout) rejects with a DOMException named TimeoutError.
  if (e?.name === 'TimeoutError') return { kind: 'timeout', code: REQUEST_TIMEOUT, timedOut: true };
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return { kind: 'connect', code, timedOut: true };
  if (code !== undefined && CONNECT_CODES.has(code)) return { kind: 'connect', code, timedOut: false };
  if (code === 'ETIMEDOUT' && syscall === 'connect') return { kind: 'connect', code, timedOut: true };
  if (code !== undefined && TIMEOUT_CODES.has(code)) return { kind: 'timeout', code, timedOut: true };
  if (code !== undefined && LOST_CODES.has(code)) return { kind: 'connection-lost', code, timedOut: false };
  return { kind: 'fatal', code, timedOut: false };
}

export interface BackoffOptions {
  /** First backoff ceiling in ms; doubles per attempt. */
  readonly baseDelayMs: number;
  /** Largest backoff ceiling in ms. */
  readonly maxDelayMs: number;
  /** Largest wait honoured from Retry-After, in ms. */
  readonly maxRetryAfterMs: number;
  /** Uniform in [0, 1). */
  readonly random: () => number;
}

/** Full jitter: uniform in [0, min(max, base · 2^(attempt-1))]. `attempt` is the one that failed (1-based). */
export function backoffDelay(attempt: number, opts: BackoffOptions): number {
  const ceiling = Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** (attempt - 1));
  return Math.floor(opts.random() * ceiling);
}

/**
 * Parses Retry-After: delay-seconds or an HTTP-date. Returns milliseconds (>= 0), or undefined when
 * absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

export type Outcome =
  | { readonly kind: 'status'; readonly status: number; readonly retryAfterMs: number | undefined }
  | { readonly kind: 'transport'; readonly failure: TransportFailure };

export type Decision =
  | { readonly action: 'retry'; readonly delayMs: number; readonly reason: string }
  /** Give up: map the outcome to its error (also when retries are spent). */
  | { readonly action: 'fail' }
  /** Unsafe request with an unknown outcome: never repeat, raise ApiAmbiguousError. */
  | { readonly action: 'ambiguous'; readonly reason: AmbiguityReason };

/** What to do after `attempt` (1-based) ended in `outcome` with a non-success result. */
export function decide(
  outcome: Outcome,
  ctx: { readonly safe: boolean; readonly attempt: number; readonly maxAttempts: number } & BackoffOptions,
): Decision {
  const canRetry = ctx.attempt < ctx.maxAttempts;
  if (outcome.kind === 'status') {
    const { status } = outcome;
    const gateway = RETRYABLE_GATEWAY_STATUSES.has(status);
    if (status !== 429 && !gateway) return { action: 'fail' };
    if (gateway && !ctx.safe) return { action: 'ambiguous', reason: 'gateway-status' };
    if (!canRetry) return { action: 'fail' };
    // A server that says when to come back (429, or 503 during maintenance) is believed, up to the cap.
    const delayMs =
      outcome.retryAfterMs === undefined
        ? backoffDelay(ctx.attempt, ctx)
        : Math.min(outcome.retryAfterMs, ctx.maxRetryAfterMs);
    return { action: 'retry', delayMs, reason: `status ${status}` };
  }
  const { failure } = outcome;
  const label = `${failure.timedOut ? 'timeout' : 'network'} ${failure.code ?? 'unknown'}`;
  switch (failure.kind) {
    case 'fatal':
      return { action: 'fail' };
    case 'connect':
      return canRetry ? { action: 'retry', delayMs: backoffDelay(ctx.attempt, ctx), reason: label } : { action: 'fail' };
    case 'connection-lost':
    case 'timeout':
      if (!ctx.safe) return { action: 'ambiguous', reason: failure.kind === 'timeout' ? 'timeout' : 'connection-lost' };
      return canRetry ? { action: 'retry', delayMs: backoffDelay(ctx.attempt, ctx), reason: label } : { action: 'fail' };
  }
}
