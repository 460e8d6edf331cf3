/**
 * The one place where request paths and query strings are built.
 *
 * Every interpolated value is one path segment and is encoded as such: numbers (ids) pass through,
 * strings (full paths like `platform/infra`, file paths, keywords like `self`) are percent-encoded
 * with `encodeURIComponent` plus the characters it leaves alone that could change how the path is
 * read: `.` (the spec: file paths have slashes AND dots encoded; an unencoded `..` would also be
 * collapsed by URL normalisation or read as a format suffix), and `!'()*`.
 *
 * The result is branded so `ApiClient.request` only accepts paths built here.
 */

declare const apiPathBrand: unique symbol;

/** A path relative to `{base}/api/v4`, starting with `/`, every segment encoded. */
export type ApiPath = string & { readonly [apiPathBrand]: true };

export type PathParam = string | number;

/** Encodes one path segment (see the module comment). */
export function encodePathSegment(value: PathParam): string {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new TypeError(`path parameter must be a non-negative integer, got ${value}`);
    }
    return String(value);
  }
  if (typeof value !== 'string') {
    throw new TypeError(`path parameter must be a string or a number, got ${typeof value}`);
  }
  if (value === '') throw new TypeError('path parameter must not be empty');
  return encodeURIComponent(value).replace(/[.!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * Tagged template building an {@link ApiPath}:
 * `apiPath\`/projects/${'platform/infra'}/repository/files/${'a/b.yml'}\``
 * → `/projects/platform%2Finfra/repository/files/a%2Fb%2Eyml`.
 * The literal parts are written by us and are kept as they are.
 */
export function apiPath(strings: TemplateStringsArray, ...values: PathParam[]): ApiPath {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += encodePathSegment(value) + (strings[i + 1] ?? '');
  });
  if (!out.startsWith('/')) throw new TypeError(`API path must start with "/": ${out}`);
  if (out.includes('?') || out.includes('#')) {
    throw new TypeError('API path literals must not contain "?" or "#"; pass the query separately');
  }
  return out as ApiPath;
}

// ---------------------------------------------------------------------------------------------
// Query strings

export type QueryScalar = string | number | boolean | Date | null | undefined;
export type QueryValue = QueryScalar | readonly QueryScalar[] | { readonly [key: string]: QueryValue };
export type QueryParams = { readonly [key: string]: QueryValue };

/**
 * Builds a query string (without the leading `?`) the way the service's parameter parser reads it:
 * arrays as `key[]=a&key[]=b`, nested objects as `key[sub]=v`, booleans as `true`/`false`, dates as
 * ISO 8601; `undefined` and `null` are left out. Keys and values are percent-encoded; the brackets
 * are kept literal (the service accepts both forms; literal ones stay readable in logs).
 */
export function buildQuery(params: QueryParams | undefined): string {
  if (!params) return '';
  const parts: string[] = [];
  for (const [key, value] of Object.entries(params)) addQueryValue(parts, encodeURIComponent(key), value);
  return parts.join('&');
}

function addQueryValue(parts: string[], key: string, value: QueryValue): void {
  if (value === undefined || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value as readonly QueryScalar[]) {
      if (item === undefined || item === null) continue;
      parts.push(`${key}[]=${encodeScalar(item)}`);
    }
    return;
  }
  if (typeof value === 'object' && !(value instanceof Date)) {
    for (const [sub, inner] of Object.entries(value)) addQueryValue(parts, `${key}[${encodeURIComponent(sub)}]`, inner);
    return;
  }
  parts.push(`${key}=${encodeScalar(value as Exclude<QueryScalar, null | undefined>)}`);
}

function encodeScalar(value: Exclude<QueryScalar, null | undefined>): string {
  if (value instanceof Date) return encodeURIComponent(value.toISOString());
  return encodeURIComponent(String(value));
}

/** A path segment as it was written before encoding (for messages); undecodable: as is. */
export function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
