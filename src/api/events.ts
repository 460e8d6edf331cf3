/**
 * Observability of the client: `node:diagnostics_channel` events and `NODE_DEBUG=plumb:api`.
 *
 * Messages carry method, API path (after `/api/v4`, no query), attempt, status and timings. They
 * never carry the token, any header, the host, a query string or a body, so a subscriber can log
 * them as they are.
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import { debuglog } from 'node:util';

export const API_REQUEST_CHANNEL = 'plumb:api:request';
export const API_RESPONSE_CHANNEL = 'plumb:api:response';
export const API_RETRY_CHANNEL = 'plumb:api:retry';

/** Published before each attempt is sent. */
export interface ApiRequestEvent {
  readonly method: string;
  readonly path: string;
  /** 1 for the first attempt. */
  readonly attempt: number;
}

/** Published when an attempt got a response (any status), after its body was read. */
export interface ApiResponseEvent {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly durationMs: number;
  readonly attempt: number;
}

/** Published when the client decided to try again, before it waits. */
export interface ApiRetryEvent {
  readonly method: string;
  readonly path: string;
  /** The attempt that failed. */
  readonly attempt: number;
  readonly delayMs: number;
  /** `status 503`, `status 429`, `network ECONNRESET`, `timeout UND_ERR_HEADERS_TIMEOUT`, … */
  readonly reason: string;
  readonly status?: number | undefined;
}

export const requestChannel = diagnosticsChannel.channel(API_REQUEST_CHANNEL);
export const responseChannel = diagnosticsChannel.channel(API_RESPONSE_CHANNEL);
export const retryChannel = diagnosticsChannel.channel(API_RETRY_CHANNEL);

/** `NODE_DEBUG=plumb:api` prints one line per attempt, response and retry (same fields as the events). */
export const debug = debuglog('plumb:api');
