/**
 * ajv's regular-expression engine for plumb's validators (ajv's `code.regExp` option): a pattern
 * that is an anchored alternation of plain names, `^(?:a|b|c)$`, is matched by looking the string
 * up in a set of those names; every other pattern is a `RegExp`, as ajv's default engine makes it.
 *
 * Why: ./compact.ts groups the application settings' keys by their leaf schema into such patterns
 * (`patternProperties`). Irregexp compiles a 140-way alternation on its first use at a cost of
 * milliseconds — in every cold `plumb validate`, since compiled regular expressions are not in V8's
 * code cache — while a set answers the same question exactly, for the price of building it.
 */

/** What ajv calls on a pattern: only `test`; `toString` is the key ajv shares equal patterns by. */
export interface NamePattern {
  test(s: string): boolean;
  toString(): string;
}

const OPEN = '^(?:';
const CLOSE = ')$';
const NAME_LIST = /^[A-Za-z0-9_]+(?:\|[A-Za-z0-9_]+)*$/;

export function namePatterns(pattern: string, flags: string): NamePattern {
  const inner = pattern.startsWith(OPEN) && pattern.endsWith(CLOSE) ? pattern.slice(OPEN.length, -CLOSE.length) : undefined;
  if (inner === undefined || !NAME_LIST.test(inner)) return new RegExp(pattern, flags);
  const names = new Set(inner.split('|'));
  return { test: (s) => names.has(s), toString: () => `/${pattern}/${flags}` };
}

/** How the precompiled validator names this engine (scripts/artifacts.ts imports it under it). */
namePatterns.code = '__plumbNamePatterns';
