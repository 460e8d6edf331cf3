/**
 * Every value plumb must never print: values that came from the environment or from files through
 * interpolation, the secret settings, the instance token, token secrets issued by the instance. The
 * registry is consulted by every renderer and by the error path, so a secret that slipped into a
 * message is still masked.
 */
import { htmlText } from '../util/html.js';

export const MASK = '(sensitive value)';

/**
 * What an application setting's unset `${env:NAME}` becomes under `--unavailable-secrets skip`
 * (src/config/load.ts): a secret this pipeline is not given. A value holding it is never compared
 * nor sent.
 */
export const UNAVAILABLE_SECRET = 'plumb:secret-unavailable-in-this-pipeline';

/** What `reference` (`${env:NAME}`) becomes when its variable is unavailable: the marker, naming it. */
export function unavailableValue(reference: string): string {
  return `${UNAVAILABLE_SECRET}(${reference})`;
}

/** The references a value stands for that this pipeline is not given (see {@link unavailableValue}). */
export function unavailableReferences(value: string): string[] {
  const out: string[] = [];
  for (const m of value.matchAll(/plumb:secret-unavailable-in-this-pipeline\((\$\{env:[A-Za-z0-9_]+\})\)/g)) out.push(m[1]!);
  return out;
}

/**
 * How a plan shows a value it could not compare because a variable is unavailable
 * (`--unavailable-secrets skip`): a change of its own, never hidden behind "no changes".
 */
export function unavailableShown(references: readonly string[]): string {
  return `(new value from ${references.join(', ')}, not available here)`;
}

export class SecretRegistry {
  /**
   * The values and their textual forms, lower-cased, matched in the lower-cased text (so a value
   * upper-, lower- or mixed-cased is still found); and their base64 fragments, looked up at each
   * position of the text's runs of base64 characters that mix upper and lower case (base64 of text
   * always does), so plain words and hex digests cost nothing and the cost does not grow with the
   * number of secrets.
   */
  readonly #text = new ValueSet();
  /** Base64 fragments by their first MIN_BASE64_FRAGMENT characters: a lookup per position of a run. */
  readonly #base64 = new Map<string, string[]>();
  /** JSON pointers (into the merged config) of values that are secret. */
  readonly pointers = new Set<string>();

  add(value: string): void {
    // Very short values would mask innocent text everywhere; the configuration refuses them as
    // secrets (PLUMB_SECRET_TOO_SHORT), and a value that short that still arrives is only treated
    // as secret where it is (by pointer), not scrubbed from free text.
    if (value.length < MIN_MASKED_LENGTH) return;
    this.#text.add(textForms(value).map((f) => f.toLowerCase()));
    for (const f of base64Forms(value)) {
      const key = f.slice(0, MIN_BASE64_FRAGMENT);
      const list = this.#base64.get(key);
      if (!list) this.#base64.set(key, [f]);
      else if (!list.includes(f)) list.push(f);
    }
  }

  markPointer(pointer: string): void {
    this.pointers.add(pointer);
  }

  /** Secrets are scalars (interpolation happens in strings), so an exact match is enough. */
  isSecretPointer(pointer: string): boolean {
    return this.pointers.has(pointer);
  }

  /**
   * Replaces every known secret value in `text` with the mask: leftmost first, and the longest value
   * at a position (so an escaped form is masked whole, never cut by a value it contains). A value
   * is found in any case, in its JSON-escaped, URL-encoded, form-encoded and base64 forms, and
   * split across lines (a line break and the indentation after it, inside the value).
   */
  redact(text: string): string {
    if (this.#text.size === 0) return text;
    const hits: [number, number][] = [];
    this.#find(text, hits);
    if (text.includes('\n')) {
      // The text with every line break (and the indentation after it) removed: a value wrapped
      // over lines is found there, mapped back to the original positions and masked with its breaks.
      const joined = text.replace(LINE_BREAK, '');
      const split: [number, number][] = [];
      if (joined.length !== text.length) this.#find(joined, split);
      if (split.length > 0) {
        const origin = originalPositions(text, joined.length);
        for (const [start, end] of split) {
          const from = origin[start]!;
          const to = origin[end - 1]! + 1;
          if (to - from !== end - start) hits.push([from, to]);
        }
      }
    }
    if (hits.length === 0) return text;
    hits.sort((x, y) => x[0] - y[0] || y[1] - x[1]);
    let out = '';
    let pos = 0;
    for (const [start, end] of hits) {
      if (start < pos) {
        if (end > pos) pos = end; // overlapping hits: mask their union
        continue;
      }
      out += text.slice(pos, start) + MASK;
      pos = end;
    }
    return out + text.slice(pos);
  }

  #find(text: string, hits: [number, number][]): void {
    this.#text.find(lowerSameLength(text), hits);
    if (this.#base64.size === 0 || !/[A-Z]/.test(text)) return;
    for (const m of text.matchAll(BASE64_RUN)) {
      const run = m[0];
      if (!/[A-Z]/.test(run) || !/[a-z]/.test(run)) continue;
      for (let i = 0; i + MIN_BASE64_FRAGMENT <= run.length; i++) {
        const candidates = this.#base64.get(run.slice(i, i + MIN_BASE64_FRAGMENT));
        if (!candidates) continue;
        let longest = 0;
        for (const f of candidates) if (f.length > longest && run.startsWith(f, i)) longest = f.length;
        if (longest > 0) hits.push([m.index + i, m.index + i + longest]);
      }
    }
  }

  get size(): number {
    return this.#text.size;
  }
}

/**
 * A set of literal strings found in a text by one compiled alternation, longest first, so a message
 * costs the same whatever the number of values; values added since the last build are checked one
 * by one until there are enough of them to rebuild (rebuilding costs time linear in the number of
 * values: not on every issued token).
 */
class ValueSet {
  readonly #values = new Set<string>();
  #matcher: RegExp | undefined;
  #pending: string[] = [];

  add(values: readonly string[]): void {
    for (const v of values) {
      if (this.#values.has(v)) continue;
      this.#values.add(v);
      this.#pending.push(v);
    }
    // Geometric: the values compiled in all rebuilds stay a few times the final number.
    if (this.#pending.length > Math.max(PENDING_MAX, this.#values.size / 3)) this.#rebuild();
  }

  #rebuild(): void {
    this.#matcher = alternation([...this.#values]);
    this.#pending = [];
  }

  find(text: string, hits: [number, number][]): void {
    // A long text read once per pending value costs more than compiling them in.
    if (this.#pending.length * text.length > 1_000_000) this.#rebuild();
    if (this.#matcher) for (const m of text.matchAll(this.#matcher)) hits.push([m.index, m.index + m[0].length]);
    for (const v of this.#pending) for (let i = text.indexOf(v); i >= 0; i = text.indexOf(v, i + 1)) hits.push([i, i + v.length]);
  }

  get size(): number {
    return this.#values.size;
  }
}

const PENDING_MAX = 64;

/** Values shorter than this are not scrubbed from free text (see `add`). */
export const MIN_MASKED_LENGTH = 4;

/** Base64 fragments shorter than this are not masked: they would match innocent text. */
const MIN_BASE64_FRAGMENT = 8;

/** A run of base64 characters (standard or URL-safe) that can hold a fragment. */
const BASE64_RUN = /[A-Za-z0-9+/_-]{8,}/g;

function alternation(values: readonly string[]): RegExp | undefined {
  if (values.length === 0) return undefined;
  const ordered = [...values].sort((a, b) => b.length - a.length);
  return new RegExp(ordered.map(escapeRegExp).join('|'), 'g');
}

/** `text` lower-cased, character for character (positions stay those of `text`). */
function lowerSameLength(text: string): string {
  const lower = text.toLowerCase();
  if (lower.length === text.length) return lower;
  let out = '';
  for (const c of text) {
    const l = c.toLowerCase();
    out += l.length === c.length ? l : c;
  }
  return out;
}

/**
 * The forms a value takes once it is quoted into a message, serialised into JSON (once or twice),
 * or put in a URL (a path segment, a query, a form body), or escaped into an HTML page (util/html.ts).
 */
export function textForms(value: string): string[] {
  const once = JSON.stringify(value).slice(1, -1);
  const twice = JSON.stringify(once).slice(1, -1);
  return [...new Set([value, once, twice, encodeURIComponent(value), new URLSearchParams({ v: value }).toString().slice(2), encodeURI(value), htmlText(value), htmlText(once)])];
}

/**
 * A value base64-encoded inside a longer encoded text, at each of the three byte alignments: the
 * characters that depend on the value alone (standard and URL-safe alphabets).
 */
export function base64Forms(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const forms = new Set<string>();
  for (const k of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(k), bytes]).toString('base64');
    // Character i encodes bits [6i, 6i + 6); the value occupies bits [8k, 8(k + n)).
    const inner = encoded.slice(Math.ceil((8 * k) / 6), Math.floor((8 * (k + bytes.length)) / 6));
    if (inner.length < MIN_BASE64_FRAGMENT) continue;
    forms.add(inner);
    forms.add(inner.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return [...forms];
}

/** A line break and the indentation after it. */
const LINE_BREAK = /\r?\n[ \t]*/g;

/** For each character of `text` without its line breaks (`length` of them), its index in `text`. */
function originalPositions(text: string, length: number): Int32Array {
  const origin = new Int32Array(length);
  let n = 0;
  let chunk = 0;
  for (const m of text.matchAll(LINE_BREAK)) {
    for (let i = chunk; i < m.index; i++) origin[n++] = i;
    chunk = m.index + m[0].length;
  }
  for (let i = chunk; i < text.length; i++) origin[n++] = i;
  return origin;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
