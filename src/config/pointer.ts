/** RFC 6901 JSON pointers: the one way plumb names a place in a configuration or a request. */

export function escapeSegment(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function unescapeSegment(s: string): string {
  return s.replace(/~1/g, '/').replace(/~0/g, '~');
}

export function joinPointer(base: string, ...segments: (string | number)[]): string {
  return base + segments.map((s) => '/' + escapeSegment(String(s))).join('');
}

export function splitPointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer.slice(1).split('/').map(unescapeSegment);
}
