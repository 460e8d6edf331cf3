/** plumb's HTTP client for the service's REST interface. Re-exports only. */
export { ApiClient, findNextLink, isLoopbackHost } from './client.js';
export type { ApiClientOptions, ApiPage, ApiRequest, ApiResponse, HttpMethod, ListOptions, ListRequest, ListResult } from './client.js';
export * from './errors.js';
export { apiPath, buildQuery, encodePathSegment } from './path.js';
export type { ApiPath, PathParam, QueryParams, QueryScalar, QueryValue } from './path.js';
export { API_REQUEST_CHANNEL, API_RESPONSE_CHANNEL, API_RETRY_CHANNEL } from './events.js';
export type { ApiRequestEvent, ApiResponseEvent, ApiRetryEvent } from './events.js';
export { RETRYABLE_GATEWAY_STATUSES, backoffDelay, isSafeToRepeat, parseRetryAfter } from './retry.js';
export * from './settings.js';
export * from './group-access-tokens.js';
export * from './repository-files.js';
export * from './pages.js';
export * from './namespaces.js';
export * from './credential.js';
export * from './discovery.js';
