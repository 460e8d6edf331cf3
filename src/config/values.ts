/**
 * One file's values, copied out of js-yaml's result into plain data: every pointer noted, aliases
 * expanded within bounds, strings interpolated, and what cannot be sent as written (a merge key, a
 * too long key, an invisible character, a number beyond JSON's or 2^53) reported where it is.
 */
import { joinPointer } from './pointer.js';
import { ALIAS_LIMITS, AliasLimitExceeded } from './aliases.js';
import { interpolate } from './interpolate.js';
import { interpolationAllowed } from './places.js';
import { reportAt } from './loading.js';
import type { WalkContext } from './loading.js';

/**
 * Copies js-yaml's output into fresh plain data, interpolating strings and noting every pointer.
 * js-yaml returns an aliased value as the same object, so the copy is where aliases get expanded:
 * it counts the expansion and stops at the bounds (see {@link ALIAS_LIMITS}).
 */
export function fromYaml(v: unknown, pointer: string, ctx: WalkContext): unknown {
  ctx.pointers.push(pointer);
  const budget = ctx.aliases;
  if (budget.depth > 0 && ++budget.nodes > ALIAS_LIMITS.nodes) throw new AliasLimitExceeded();
  if (v === undefined || v === null) return null;
  if (typeof v === 'object' && !(v instanceof Date)) {
    const again = budget.seen.has(v);
    if (again && ++budget.aliases > ALIAS_LIMITS.aliases) throw new AliasLimitExceeded();
    budget.seen.add(v);
    if (again) budget.depth++;
    try {
      if (Array.isArray(v)) return v.map((item, i) => fromYaml(item, joinPointer(pointer, i), ctx));
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        const child = joinPointer(pointer, k);
        if (k === '<<') {
          mergeKey(child, pointer, ctx);
          continue;
        }
        if (k.length > MAX_KEY_LENGTH) {
          longKey(k, child, ctx);
          continue;
        }
        if (invisibleIn(k)) {
          invisibleKey(k, child, ctx);
          continue;
        }
        out[k] = fromYaml(x, child, ctx);
      }
      return out;
    } finally {
      if (again) budget.depth--;
    }
  }
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  if (typeof v === 'number') checkNumber(v, pointer, ctx);
  if (typeof v === 'string' && v.includes('${')) return interpolate(v, pointer, ctx, interpolationAllowed(pointer, ctx.places));
  return v;
}

/**
 * Merge keys (`<<: *defaults`) are not part of YAML 1.2 and plumb does not support them: a merged
 * key would have no place of its own in the file to report problems at, and which of two values
 * wins would be a rule to learn. Write the keys out, or alias a whole value.
 */
function mergeKey(pointer: string, mapping: string, ctx: WalkContext): void {
  reportAt(ctx, {
    severity: 'error',
    code: 'PLUMB_YAML_MERGE_KEY',
    summary: 'YAML merge keys (<<) are not supported',
    detail: 'plumb reads YAML 1.2, where "<<" is an ordinary key; merged keys would have no place in the file of their own to report problems at.',
    suggestion: 'write the keys out here, or use an alias for a whole value (key: *anchor)',
    pointer,
    on: 'key',
  });
  // The mapping lacks what the merge would have brought: do not also report it as incomplete.
  ctx.reported.addExact(mapping);
}

/**
 * No key plumb knows is longer than this (a setting name, a group path, a file path in a
 * repository); a longer key is refused at once, before any check compares it with the known
 * names (a 1 MB key made the did-you-mean search take minutes).
 */
export const MAX_KEY_LENGTH = 256;

function longKey(key: string, pointer: string, ctx: WalkContext): void {
  reportAt(ctx, {
    severity: 'error',
    code: 'PLUMB_KEY_TOO_LONG',
    summary: `A key of ${key.length.toLocaleString('en')} characters ("${key.slice(0, 40)}…") is longer than the ${MAX_KEY_LENGTH} plumb reads`,
    detail: 'No setting, group, project or file path plumb manages has a longer name; the key and its value were not read.',
    suggestion: 'check that this key is what you meant (a value written as a key, a missing colon or line break)',
    pointer,
    on: 'key',
  });
}

/** Characters that do not show, or look like a plain space, in an editor. */
const INVISIBLE = /[\u00A0\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180E\u2000-\u200F\u202A-\u202F\u205F-\u2064\u2066-\u206F\u3000\u3164\uFEFF]/;
const INVISIBLE_NAMES: Record<number, string> = {
  0x00a0: 'NO-BREAK SPACE',
  0x00ad: 'SOFT HYPHEN',
  0x200b: 'ZERO WIDTH SPACE',
  0x200c: 'ZERO WIDTH NON-JOINER',
  0x200d: 'ZERO WIDTH JOINER',
  0x200e: 'LEFT-TO-RIGHT MARK',
  0x200f: 'RIGHT-TO-LEFT MARK',
  0x2060: 'WORD JOINER',
  0x202f: 'NARROW NO-BREAK SPACE',
  0x3000: 'IDEOGRAPHIC SPACE',
  0xfeff: 'BYTE ORDER MARK',
};

/** The first invisible character of `s`, as `U+200B (ZERO WIDTH SPACE)`, if any. */
export function invisibleIn(s: string): string | undefined {
  const m = INVISIBLE.exec(s);
  if (!m) return undefined;
  const cp = m[0].codePointAt(0)!;
  const name = INVISIBLE_NAMES[cp];
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}${name ? ` (${name})` : ''}`;
}

function invisibleKey(key: string, pointer: string, ctx: WalkContext): void {
  const which = invisibleIn(key)!;
  const shown = key.replace(new RegExp(INVISIBLE.source, 'g'), (c) => `<U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`);
  reportAt(ctx, {
    severity: 'error',
    code: 'PLUMB_INVISIBLE_CHARACTER',
    summary: `The key "${shown}" contains an invisible character ${which}`,
    detail: 'It looks like a key plumb knows but is a different key. Such characters come from copying text out of web pages, chats or word processors; YAML indents with plain spaces only.',
    suggestion: 'delete the key and the spaces before it, and type them again',
    pointer,
    on: 'key',
  });
}

/**
 * A number must reach the instance as written: YAML's .inf and .nan have no JSON form, and an
 * integer beyond 2^53 - 1 has already been rounded when it was read.
 */
function checkNumber(v: number, pointer: string, ctx: WalkContext): void {
  if (!Number.isFinite(v)) {
    const written = Number.isNaN(v) ? '.nan (not a number)' : v > 0 ? '.inf (infinity)' : '-.inf (minus infinity)';
    reportAt(ctx, {
      severity: 'error',
      code: 'PLUMB_NUMBER_NOT_FINITE',
      summary: `${written} is not a value the instance accepts`,
      detail: 'YAML reads .inf and .nan as special numbers; the interface takes finite numbers only.',
      suggestion: 'write a finite number (for "no limit", see the setting in docs/settings.md: often 0)',
      pointer,
    });
  } else if (Math.abs(v) > Number.MAX_SAFE_INTEGER) {
    reportAt(ctx, {
      severity: 'error',
      code: 'PLUMB_NUMBER_UNSAFE',
      summary: 'This number is too large to be sent exactly',
      detail: `Numbers beyond ±${Number.MAX_SAFE_INTEGER} (2^53 - 1) are rounded when read; plumb refuses to send a value other than the one written.`,
      suggestion: `use a number between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`,
      pointer,
    });
  }
}
