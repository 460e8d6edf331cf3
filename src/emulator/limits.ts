/**
 * The instance settings that switch behaviour on, enforced on the emulator clock: maintenance mode
 * (non-administrators get read-only access), the authenticated and unauthenticated API throttles
 * (429 with `Retry-After`, the `RateLimit-*` headers and the configured plain-text body) and
 * `raw_blob_request_limit` (requests per minute per raw path). All are off, or far above what
 * plumb's own suites send, in the default record.
 */
import type { Caller } from './auth.js';
import { ApiError, type ApiResponse } from './http.js';
import { effectiveSetting } from './settings.js';
import type { EmulatorState } from './state.js';

/** The real service's answer to a write on a read-only instance (its JSON form, for API requests). */
export const READ_ONLY_MESSAGE = 'You cannot perform write operations on a read-only instance';
/** Sent when `rate_limiting_response_text` is blank. */
export const DEFAULT_RATE_LIMITING_RESPONSE_TEXT = 'Retry later';
/** The application rate limiter's API error (also the large-blob limit's). */
export const RATE_LIMITED_MESSAGE = 'This endpoint has been requested too many times. Try again later.';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * In maintenance mode a write by anyone but an administrator is refused before it is handled:
 * 403 `{"message":"You cannot perform write operations on a read-only instance"}`, as the real
 * service's read-only middleware answers API requests. Reads are untouched.
 */
export function checkMaintenanceMode(state: EmulatorState, method: string, caller: Caller | null): void {
  if (!WRITES.has(method) || effectiveSetting(state, 'maintenance_mode') !== true) return;
  if (caller?.admin) return;
  throw new ApiError(403, { message: READ_ONLY_MESSAGE });
}

function positive(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : undefined;
}

/** Counts one request in the fixed window of `periodSeconds` (aligned to the epoch, as Rack::Attack). */
function count(state: EmulatorState, key: string, periodSeconds: number): { observed: number; nowSeconds: number; resetSeconds: number } {
  const nowSeconds = Math.floor(state.now().getTime() / 1000);
  const windowStart = nowSeconds - (nowSeconds % periodSeconds);
  const stateKey = `${key}:${periodSeconds}`;
  let window = state.rateLimits.get(stateKey);
  if (!window || window.start !== windowStart) {
    window = { start: windowStart, count: 0 };
    state.rateLimits.set(stateKey, window);
  }
  window.count++;
  return { observed: window.count, nowSeconds, resetSeconds: windowStart + periodSeconds };
}

/**
 * The API throttles, before the request is handled (a throttled request does nothing): per user
 * for requests with a valid token (`throttle_authenticated_api_*`), per client IP for the others
 * (`throttle_unauthenticated_api_*`). Administrators are throttled too, as in the real service.
 * `user` names the user the request's token would authenticate as (null: none). Returns the 429
 * response, or undefined to go on.
 */
export function checkThrottles(state: EmulatorState, user: () => number | null, ip: string): ApiResponse | undefined {
  // Both off (the default): nothing to count, and no token to look up.
  if (effectiveSetting(state, 'throttle_authenticated_api_enabled') !== true && effectiveSetting(state, 'throttle_unauthenticated_api_enabled') !== true) {
    return undefined;
  }
  const userId = user();
  const stem = userId === null ? 'unauthenticated_api' : 'authenticated_api';
  if (effectiveSetting(state, `throttle_${stem}_enabled`) !== true) return undefined;
  const limit = positive(effectiveSetting(state, `throttle_${stem}_requests_per_period`));
  const period = positive(effectiveSetting(state, `throttle_${stem}_period_in_seconds`));
  if (limit === undefined || period === undefined) return undefined;
  const name = `throttle_${stem}`;
  const { observed, nowSeconds, resetSeconds } = count(state, `${name}:${userId ?? ip}`, period);
  if (observed <= limit) return undefined;
  const retryAfter = resetSeconds - nowSeconds;
  const text = effectiveSetting(state, 'rate_limiting_response_text');
  const body = `${typeof text === 'string' && text.trim() !== '' ? text : DEFAULT_RATE_LIMITING_RESPONSE_TEXT}\n`;
  return {
    status: 429,
    headers: {
      'content-type': 'text/plain',
      'retry-after': String(retryAfter),
      'ratelimit-name': name,
      'ratelimit-limit': String(Math.ceil((limit * 60) / period)),
      'ratelimit-observed': String(observed),
      'ratelimit-remaining': '0',
      'ratelimit-reset': String(resetSeconds),
      'ratelimit-resettime': new Date(resetSeconds * 1000).toUTCString(),
    },
    raw: Buffer.from(body),
  };
}

/**
 * `raw_blob_request_limit`: GET requests of one raw path (project and file path, whatever the ref
 * or caller) per minute; 0 disables. The 429 is the application rate limiter's API error with
 * `Retry-After` (seconds left in the minute).
 */
export function checkRawBlobLimit(state: EmulatorState, projectId: number, path: string): void {
  const limit = effectiveSetting(state, 'raw_blob_request_limit');
  if (typeof limit !== 'number' || limit <= 0) return;
  const { observed, nowSeconds, resetSeconds } = count(state, `raw_blob:${projectId}:${path}`, 60);
  if (observed <= limit) return;
  throw new ApiError(429, { message: { error: RATE_LIMITED_MESSAGE } }, { 'retry-after': String(resetSeconds - nowSeconds) });
}
