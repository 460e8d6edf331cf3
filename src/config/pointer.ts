/** RFC 6901 JSON pointers: the one way plumb names a place in a configuration or a request. */

export function escapeSegment(s: string): string {
  // Most segments need no escape; skipping the two replaces matters at thousands of pointers a plan.
  if (!s.includes('~') && !s.includes('/')) return s;
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function unescapeSegment(s: string): string {
  return s.replace(/~1/g, '/').replace(/~0/g, '~');
}

export function joinPointer(base: string, ...segments: (string | number)[]): string {
  let out = base;
  for (const s of segments) out += '/' + escapeSegment(String(s));
  return out;
}

export function splitPointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer.slice(1).split('/').map(unescapeSegment);
}

/**
 * A place in the configuration a resource kind owns, for messages and merging. Each kind lists its
 * own (src/resources/<kind>/config.ts); the registry assembles them (`ConfigKinds.pointers`).
 */
export interface KindPointer {
  /** Segments from the root; `*` matches any one segment (an instance name, a group path…). */
  readonly pattern: readonly string[];
  /**
   * A resource is defined in one place only: two files defining it is an error naming both,
   * where anything else merges key by key across files.
   */
  readonly resource: boolean;
  /** The place's name for people, from the pointer's segments, e.g. `setting "x" of instance "y"`. */
  describe(segments: readonly string[]): string;
  /**
   * Where beneath this place `${env:…}`/`${file:…}` may be written: sub-patterns relative to it (`[]`
   * is the place itself and everything beneath; `*` matches one segment). Only where a secret value
   * belongs (a setting, a file's content). Absent: nowhere. Every other place of the configuration
   * (the connection, anything that becomes part of a request's path or query) refuses
   * interpolation (PLUMB_INTERPOLATION_NOT_ALLOWED), so a merge request cannot route a CI variable
   * or a local file to a host or into a URL.
   */
  readonly interpolation?: readonly (readonly string[])[];
}

/** Whether `segments` start with `pattern`. */
export function matchesPattern(pattern: readonly string[], segments: readonly string[]): boolean {
  return segments.length >= pattern.length && pattern.every((p, i) => p === '*' || p === segments[i]);
}
