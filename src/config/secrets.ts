/**
 * Every value plumb must never print: values that came from the environment or from files through
 * interpolation, the secret settings, the instance token, token secrets issued by the instance. The
 * registry is consulted by every renderer and by the error path, so a secret that slipped into a
 * message is still masked.
 */
export const MASK = '(sensitive value)';

/**
 * What an application setting's unset `${env:NAME}` becomes under `--unavailable-secrets skip`
 * (src/config/load.ts): a secret this pipeline is not given. A value holding it is never compared
 * nor sent.
 */
export const UNAVAILABLE_SECRET = 'plumb:secret-unavailable-in-this-pipeline';

export class SecretRegistry {
  readonly #values = new Set<string>();
  /**
   * One compiled alternation of the values, longest first (an escaped form is masked whole before
   * its substrings), so a message costs the same whatever the number of secrets; `#pending` holds
   * values added since, checked one by one until there are enough of them to rebuild.
   */
  #matcher: RegExp | undefined;
  #pending: string[] = [];
  /** JSON pointers (into the merged config) of values that are secret. */
  readonly pointers = new Set<string>();

  add(value: string): void {
    // Very short values would mask innocent text everywhere; they are still treated as secret
    // where they are (by pointer), just not scrubbed from free text.
    if (value.length < 4) return;
    // The forms a value takes once quoted into a message or serialised into JSON (once or twice).
    const once = JSON.stringify(value).slice(1, -1);
    const twice = JSON.stringify(once).slice(1, -1);
    for (const v of [value, once, twice]) {
      if (this.#values.has(v)) continue;
      this.#values.add(v);
      this.#pending.push(v);
    }
    // Rebuilding costs time linear in the number of values: do it every PENDING_MAX additions, not
    // on every issued token, and keep the per-message check of the pending ones short.
    if (this.#pending.length > PENDING_MAX) this.#rebuild();
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
   * at a position (so an escaped form is masked whole, never cut by a value it contains).
   */
  redact(text: string): string {
    const hits: [number, number][] = [];
    if (this.#matcher) for (const m of text.matchAll(this.#matcher)) hits.push([m.index, m.index + m[0].length]);
    for (const v of this.#pending) for (let i = text.indexOf(v); i >= 0; i = text.indexOf(v, i + 1)) hits.push([i, i + v.length]);
    if (hits.length === 0) return text;
    hits.sort((x, y) => x[0] - y[0] || y[1] - x[1]);
    let out = '';
    let pos = 0;
    for (const [start, end] of hits) {
      if (start < pos) continue;
      out += text.slice(pos, start) + MASK;
      pos = end;
    }
    return out + text.slice(pos);
  }

  #rebuild(): void {
    const ordered = [...this.#values].sort((a, b) => b.length - a.length);
    this.#matcher = new RegExp(ordered.map(escapeRegExp).join('|'), 'g');
    this.#pending = [];
  }

  get size(): number {
    return this.#values.size;
  }
}

const PENDING_MAX = 64;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
