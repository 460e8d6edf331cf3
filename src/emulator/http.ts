/**
 * HTTP plumbing shared by the handlers: Rack-style parameter parsing (query string, form and
 * multipart bodies with `key[]` arrays and `key[sub]` hashes, JSON), the error bodies of the real
 * API, and the response value the router writes (or, for a `drop after` fault, throws away).
 */
import type { IncomingMessage } from 'node:http';

export type Params = Record<string, unknown>;

export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  /** JSON value, raw bytes, or undefined for no body. */
  body?: unknown;
  raw?: Buffer;
}

/** An error response; thrown by handlers and turned into a response by the router. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body === 'string' ? body : JSON.stringify(body));
  }
}

// The error bodies of the real API.
export const notFound = (what?: string): ApiError =>
  new ApiError(404, { message: what ? `404 ${what} Not Found` : '404 Not Found' });
export const unauthorized = (): ApiError => new ApiError(401, { message: '401 Unauthorized' });
export const forbidden = (reason?: string): ApiError =>
  new ApiError(403, { message: reason ? `403 Forbidden - ${reason}` : '403 Forbidden' });
export const badRequest = (reason: string): ApiError => new ApiError(400, { message: `400 Bad request - ${reason}` });
/** `render_api_error!(message, 400)`: the message as is. */
export const apiError = (status: number, message: unknown): ApiError => new ApiError(status, { message });
/** Grape parameter errors: `{"error":"name is missing, scopes is missing"}`. */
export const paramErrors = (errors: readonly string[]): ApiError => new ApiError(400, { error: errors.join(', ') });
/** Model validation errors: `{"message":{"field":["message"]}}`. */
export const validationErrors = (errors: Record<string, string[]>): ApiError => new ApiError(400, { message: errors });
export const notAllowed = (): ApiError => new ApiError(405, { message: '405 Method Not Allowed' });
export const insufficientScope = (scopes: readonly string[]): ApiError =>
  new ApiError(
    403,
    {
      error: 'insufficient_scope',
      error_description: 'The request requires higher privileges than provided by the access token.',
      scope: scopes.join(' '),
    },
    {
      'www-authenticate': `Bearer realm="Service", error="insufficient_scope", error_description="The request requires higher privileges than provided by the access token.", scope="${scopes.join(' ')}"`,
    },
  );

export function json(status: number, body: unknown, headers: Record<string, string> = {}): ApiResponse {
  return { status, headers, body };
}

export function noContent(): ApiResponse {
  return { status: 204, headers: {} };
}

// ---------------------------------------------------------------------------------------------
// Rack-style nested parameters
// ---------------------------------------------------------------------------------------------

/** Splits `a[b][]` into ['a', 'b', '']. */
function keySegments(key: string): string[] {
  const m = /^([^[\]]+)((?:\[[^\]]*\])*)$/.exec(key);
  if (!m) return [key];
  const rest = m[2]!;
  const segments = [m[1]!];
  for (const part of rest.matchAll(/\[([^\]]*)\]/g)) segments.push(part[1]!);
  return segments;
}

function isPlainObject(v: unknown): v is Params {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Rack's normalize_params: `a[]` appends, `a[b]` nests, `a[][b]` builds an array of hashes. */
function assignNested(container: Params, segs: readonly string[], value: string): void {
  const [head, ...rest] = segs as [string, ...string[]];
  if (rest.length === 0) {
    container[head] = value;
    return;
  }
  if (rest[0] === '') {
    let arr = container[head];
    if (!Array.isArray(arr)) {
      arr = [];
      container[head] = arr;
    }
    const list = arr as unknown[];
    const after = rest.slice(1);
    if (after.length === 0) {
      list.push(value);
      return;
    }
    let last = list[list.length - 1];
    if (!isPlainObject(last) || after[0]! in last) {
      last = {};
      list.push(last);
    }
    assignNested(last as Params, after, value);
    return;
  }
  let child = container[head];
  if (!isPlainObject(child)) {
    child = {};
    container[head] = child;
  }
  assignNested(child as Params, rest, value);
}

export function parseNested(pairs: Iterable<[string, string]>): Params {
  const out: Params = {};
  for (const [k, v] of pairs) assignNested(out, keySegments(k), v);
  return out;
}

export function parseQueryString(qs: string): Params {
  return parseNested(new URLSearchParams(qs).entries());
}

function parseMultipart(body: Buffer, boundary: string): Params {
  const pairs: [string, string][] = [];
  const text = body.toString('latin1');
  for (const part of text.split(`--${boundary}`)) {
    const sep = part.indexOf('\r\n\r\n');
    if (sep < 0) continue;
    const head = part.slice(0, sep);
    const name = /name="([^"]*)"/i.exec(head)?.[1];
    if (name === undefined) continue;
    let value = part.slice(sep + 4);
    if (value.endsWith('\r\n')) value = value.slice(0, -2);
    pairs.push([name, Buffer.from(value, 'latin1').toString('utf8')]);
  }
  return parseNested(pairs);
}

export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new ApiError(413, { message: '413 Request Entity Too Large' });
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Parses a request body by content type; undefined for an empty body. */
export function parseBody(body: Buffer, contentType: string | undefined): Params | undefined {
  if (body.length === 0) return undefined;
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'multipart/form-data') {
    const boundary = /boundary="?([^";]+)"?/i.exec(contentType ?? '')?.[1];
    if (!boundary) throw paramErrors(['multipart boundary is missing']);
    return parseMultipart(body, boundary);
  }
  if (type === 'application/x-www-form-urlencoded') return parseQueryString(body.toString('utf8'));
  // JSON is the default, as for the real API's clients that omit the header.
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    if (type === '' || type === 'text/plain') return parseQueryString(body.toString('utf8'));
    throw new ApiError(400, { error: 'message body does not match declared format' });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ApiError(400, { error: 'message body does not match declared format' });
  }
  return value as Params;
}
