/**
 * Typed errors of the HTTP client. Callers match on `code` (stable strings), never on message text.
 *
 * Invariants:
 * - No error carries the access token, a request header, a host name or a request body. `path` is the
 *   API path after `/api/v4`, without the query string.
 * - `serverMessage` is what the server said, parsed from the usual body shapes and truncated, with any
 *   occurrence of the token replaced (the client redacts before constructing the error).
 */

import { PlumbError } from '../diagnostics/error.js';

export type ApiErrorCode =
  | 'PLUMB_API_BAD_REQUEST'
  | 'PLUMB_API_UNAUTHORIZED'
  | 'PLUMB_API_FORBIDDEN'
  | 'PLUMB_API_NOT_FOUND'
  | 'PLUMB_API_METHOD_NOT_ALLOWED'
  | 'PLUMB_API_CONFLICT'
  | 'PLUMB_API_RATE_LIMITED'
  | 'PLUMB_API_HTTP'
  | 'PLUMB_API_SERVER'
  | 'PLUMB_API_AMBIGUOUS'
  | 'PLUMB_API_NETWORK'
  | 'PLUMB_API_TIMEOUT'
  | 'PLUMB_API_INVALID_RESPONSE'
  | 'PLUMB_API_INSECURE_URL'
  | 'PLUMB_API_BUDGET_EXHAUSTED';

export interface ApiErrorInit {
  /** HTTP method; empty for errors raised before any request (ApiInsecureUrlError). */
  readonly method: string;
  /** API path after `/api/v4`, without query; empty for errors raised before any request. */
  readonly path: string;
  readonly status?: number | undefined;
  readonly serverMessage?: string | undefined;
  /** Milliseconds the server asked us to wait (Retry-After), when it said. */
  readonly retryAfter?: number | undefined;
  /** How many attempts were made before giving up (1 when the request was not retried). */
  readonly attempts?: number | undefined;
  /** Overrides the generated message. */
  readonly message?: string | undefined;
  readonly cause?: unknown;
}

/**
 * Base class of every error the client throws: a {@link PlumbError} whose code is one of the
 * client's (registered in src/diagnostics/codes.ts, or the `super` call does not compile), whose
 * detail names the call and whose suggestion is the usual fix for the code.
 */
export class ApiError extends PlumbError {
  declare readonly code: ApiErrorCode;
  readonly status: number | undefined;
  readonly method: string;
  readonly path: string;
  readonly serverMessage: string | undefined;
  readonly retryAfter: number | undefined;
  readonly attempts: number;

  constructor(code: ApiErrorCode, init: ApiErrorInit) {
    super(code, init.message ?? defaultMessage(init), { detail: callDetail(init), suggestion: usualFix(code), cause: init.cause });
    this.status = init.status;
    this.method = init.method;
    this.path = init.path;
    this.serverMessage = init.serverMessage;
    this.retryAfter = init.retryAfter;
    this.attempts = init.attempts ?? 1;
  }

  /** A plain, log-safe view (no cause chain: causes come from lower layers we do not control). */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      status: this.status,
      method: this.method,
      path: this.path,
      serverMessage: this.serverMessage,
      retryAfter: this.retryAfter,
      attempts: this.attempts,
    };
  }
}

/** The call, for a diagnostic's detail: "GET /groups/7 answered 404." */
function callDetail(init: ApiErrorInit): string {
  return `${init.method} ${init.path}${init.status !== undefined ? ` answered ${init.status}` : ' failed'}.`;
}

/** The usual fix for a client error, when there is one (an error's `suggestion`). */
export function usualFix(code: string): string | undefined {
  switch (code) {
    case 'PLUMB_API_UNAUTHORIZED':
      return 'check that the token in the environment variable is valid, not expired and not revoked';
    case 'PLUMB_API_FORBIDDEN':
      return 'the token lacks the role or scope this call needs (settings need an administrator, and while admin_mode is on a token with the admin_mode scope; token creation needs Owner)';
    case 'PLUMB_API_NOT_FOUND':
      return 'check the group or project path, and that the token can see it';
    case 'PLUMB_API_NETWORK':
    case 'PLUMB_API_TIMEOUT':
      return 'check the instance URL and that it is reachable from here';
    case 'PLUMB_API_AMBIGUOUS':
      return 'the outcome of this write is unknown; run `plumb plan` to see the instance as it is now';
    default:
      return undefined;
  }
}

function defaultMessage(init: ApiErrorInit): string {
  const what = `${init.method} ${init.path}`;
  const status = init.status === undefined ? 'failed' : `returned ${init.status}`;
  return init.serverMessage ? `${what} ${status}: ${init.serverMessage}` : `${what} ${status}`;
}

/** 400 (and 422): the server rejected the parameters. */
export class ApiBadRequestError extends ApiError {
  declare readonly code: 'PLUMB_API_BAD_REQUEST';
  /** Field-keyed messages when the body was `{"message": {field: [msgs]}}`; empty otherwise. */
  readonly fieldErrors: Readonly<Record<string, readonly string[]>>;
  constructor(init: ApiErrorInit & { readonly fieldErrors?: Record<string, string[]> }) {
    super('PLUMB_API_BAD_REQUEST', init);
    this.fieldErrors = init.fieldErrors ?? {};
  }
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), fieldErrors: this.fieldErrors };
  }
}

export class ApiUnauthorizedError extends ApiError {
  declare readonly code: 'PLUMB_API_UNAUTHORIZED';
  constructor(init: ApiErrorInit) {
    super('PLUMB_API_UNAUTHORIZED', init);
  }
}

export class ApiForbiddenError extends ApiError {
  declare readonly code: 'PLUMB_API_FORBIDDEN';
  constructor(init: ApiErrorInit) {
    super('PLUMB_API_FORBIDDEN', init);
  }
}

export class ApiNotFoundError extends ApiError {
  declare readonly code: 'PLUMB_API_NOT_FOUND';
  constructor(init: ApiErrorInit) {
    super('PLUMB_API_NOT_FOUND', init);
  }
}

export class ApiMethodNotAllowedError extends ApiError {
  declare readonly code: 'PLUMB_API_METHOD_NOT_ALLOWED';
  constructor(init: ApiErrorInit) {
    super('PLUMB_API_METHOD_NOT_ALLOWED', init);
  }
}

export class ApiConflictError extends ApiError {
  declare readonly code: 'PLUMB_API_CONFLICT';
  constructor(init: ApiErrorInit) {
    super('PLUMB_API_CONFLICT', init);
  }
}

/** 429 after the retries allowed were spent. `retryAfter` holds the server's last hint. */
export class ApiRateLimitedError extends ApiError {
  declare readonly code: 'PLUMB_API_RATE_LIMITED';
  constructor(init: ApiErrorInit) {
    super('PLUMB_API_RATE_LIMITED', init);
  }
}

/** Any other non-success status below 500 (3xx included: the client does not follow redirects). */
export class ApiHttpError extends ApiError {
  declare readonly code: 'PLUMB_API_HTTP';
  constructor(init: ApiErrorInit) {
    super('PLUMB_API_HTTP', init);
  }
}

/** 5xx: for safe requests after the retries allowed were spent; for unsafe ones a 500/501/5xx other than 502-504. */
export class ApiServerError extends ApiError {
  declare readonly code: 'PLUMB_API_SERVER';
  constructor(init: ApiErrorInit) {
    super('PLUMB_API_SERVER', init);
  }
}

export type AmbiguityReason = 'connection-lost' | 'timeout' | 'gateway-status';

/**
 * A request that is not safe to repeat failed in a way that leaves its outcome unknown: the connection
 * dropped or timed out after the request was sent, or a gateway answered 502/503/504. The server may
 * or may not have acted. The client did NOT repeat it; look the resource up before doing anything
 * else (for a token rotation, repeating would be a reuse attempt that revokes the whole family).
 */
export class ApiAmbiguousError extends ApiError {
  declare readonly code: 'PLUMB_API_AMBIGUOUS';
  readonly reason: AmbiguityReason;
  constructor(init: ApiErrorInit & { readonly reason: AmbiguityReason }) {
    super('PLUMB_API_AMBIGUOUS', {
      ...init,
      message:
        init.message ??
        `${init.method} ${init.path}: outcome unknown (${describeReason(init.reason, init.status)}); ` +
          'the server may or may not have acted, and the request was not repeated. ' +
          'Look the resource up before trying again.',
    });
    this.reason = init.reason;
  }
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), reason: this.reason };
  }
}

/** What happened to a request whose outcome is unknown, in words ("the connection was lost …"). */
export function describeReason(reason: AmbiguityReason, status: number | undefined): string {
  switch (reason) {
    case 'connection-lost':
      return 'the connection was lost after the request was sent';
    case 'timeout':
      return 'no complete response before the request timeout';
    case 'gateway-status':
      return `gateway answered ${status ?? 'with an error'}`;
  }
}

/** The connection failed (refused, reset, TLS failure, DNS) for a request that was safe to retry, or before sending. */
export class ApiNetworkError extends ApiError {
  declare readonly code: 'PLUMB_API_NETWORK';
  /** The lower-level error code (ECONNREFUSED, UND_ERR_SOCKET, CERT_HAS_EXPIRED, …) when there was one. */
  readonly networkCode: string | undefined;
  constructor(init: ApiErrorInit & { readonly networkCode?: string | undefined }) {
    super('PLUMB_API_NETWORK', init);
    this.networkCode = init.networkCode;
  }
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), networkCode: this.networkCode };
  }
}

/** Connect or request timeout on a request that was safe to retry, after the retries allowed were spent. */
export class ApiTimeoutError extends ApiError {
  declare readonly code: 'PLUMB_API_TIMEOUT';
  constructor(init: ApiErrorInit) {
    super('PLUMB_API_TIMEOUT', init);
  }
}

/** A success status whose body is not what the endpoint returns (not JSON, not an array for a list, …). */
export class ApiInvalidResponseError extends ApiError {
  declare readonly code: 'PLUMB_API_INVALID_RESPONSE';
  constructor(init: ApiErrorInit) {
    super('PLUMB_API_INVALID_RESPONSE', init);
  }

  /** A success response that lacks what it must carry (`what`: "a settings object", …). */
  static lacking(method: string, path: string, status: number, what: string): ApiInvalidResponseError {
    return new ApiInvalidResponseError({ method, path, status, message: `${method} ${path} returned ${status} without ${what}` });
  }
}

/** The base URL is plain HTTP to a non-loopback host and `allowInsecureHttp` was not set. */
export class ApiInsecureUrlError extends ApiError {
  declare readonly code: 'PLUMB_API_INSECURE_URL';
  constructor(message: string) {
    super('PLUMB_API_INSECURE_URL', { method: '', path: '', message });
  }
}

/**
 * The run's request budget (`plumb report --max-requests`, `RequestBudget`) is spent: the request
 * was not sent. Never retried; what could not be read is reported as not checked.
 */
export class ApiBudgetExhaustedError extends ApiError {
  declare readonly code: 'PLUMB_API_BUDGET_EXHAUSTED';
  constructor(method: string, path: string, max: number) {
    super('PLUMB_API_BUDGET_EXHAUSTED', { method, path, message: `${method} ${path} was not sent: the budget of ${max} request(s) (--max-requests) is spent` });
  }
}

// ---------------------------------------------------------------------------------------------
// Error bodies

const MAX_SERVER_MESSAGE = 500;

export interface ParsedErrorBody {
  readonly serverMessage: string | undefined;
  readonly fieldErrors: Record<string, string[]> | undefined;
}

/**
 * Understands the body shapes the service uses for errors:
 * `{"message": "…"}`, `{"message": {"field": ["…"]}}`, `{"message": ["…"]}`, `{"error": "…"}`,
 * `{"error": "…", "error_description": "…"}` (OAuth-style), and plain text or HTML (whitespace collapsed).
 * Everything is truncated to a readable length.
 */
export function parseErrorBody(text: string, contentType: string | undefined): ParsedErrorBody {
  const trimmed = text.trim();
  if (trimmed === '') return { serverMessage: undefined, fieldErrors: undefined };
  const looksJson = (contentType ?? '').includes('json') || trimmed.startsWith('{') || trimmed.startsWith('[');
  if (looksJson) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      parsed = undefined;
    }
    if (parsed !== undefined) {
      const fromJson = fromJsonBody(parsed);
      if (fromJson) return fromJson;
    }
  }
  return { serverMessage: truncate(collapse(trimmed)), fieldErrors: undefined };
}

function fromJsonBody(body: unknown): ParsedErrorBody | undefined {
  if (!isRecord(body)) return typeof body === 'string' ? { serverMessage: truncate(body), fieldErrors: undefined } : undefined;
  const message = body['message'];
  if (typeof message === 'string') return { serverMessage: truncate(message), fieldErrors: undefined };
  if (Array.isArray(message)) {
    return { serverMessage: truncate(message.map(stringify).join('; ')), fieldErrors: undefined };
  }
  if (isRecord(message)) {
    const fieldErrors: Record<string, string[]> = {};
    for (const [field, value] of Object.entries(message)) {
      fieldErrors[field] = Array.isArray(value) ? value.map(stringify) : [stringify(value)];
    }
    const summary = Object.entries(fieldErrors)
      .map(([field, msgs]) => `${field} ${msgs.join(', ')}`)
      .join('; ');
    return { serverMessage: truncate(summary), fieldErrors };
  }
  const error = body['error'];
  const description = body['error_description'];
  if (error !== undefined) {
    const head = stringify(error);
    const text = typeof description === 'string' && description !== '' ? `${head}: ${description}` : head;
    return { serverMessage: truncate(text), fieldErrors: undefined };
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringify(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ');
}

function truncate(text: string): string {
  return text.length > MAX_SERVER_MESSAGE ? `${text.slice(0, MAX_SERVER_MESSAGE - 1)}…` : text;
}
