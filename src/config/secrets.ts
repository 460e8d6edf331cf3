/**
 * Every value plumb must never print: values that came from the environment or from files through
 * interpolation, the secret settings, the instance token, token secrets issued by the instance. The
 * registry is consulted by every renderer and by the error path, so a secret that slipped into a
 * message is still masked.
 */
export const MASK = '(sensitive value)';

export class SecretRegistry {
  readonly #values = new Set<string>();
  /** The values longest first (an escaped form is masked whole before its substrings); rebuilt on add. */
  #ordered: string[] | undefined;
  /** JSON pointers (into the merged config) of values that are secret. */
  readonly pointers = new Set<string>();

  add(value: string): void {
    // Very short values would mask innocent text everywhere; they are still treated as secret
    // where they are (by pointer), just not scrubbed from free text.
    if (value.length < 4) return;
    this.#values.add(value);
    // The forms a value takes once quoted into a message or serialised into JSON (once or twice).
    const once = JSON.stringify(value).slice(1, -1);
    const twice = JSON.stringify(once).slice(1, -1);
    this.#values.add(once);
    this.#values.add(twice);
    this.#ordered = undefined;
  }

  markPointer(pointer: string): void {
    this.pointers.add(pointer);
  }

  /** Secrets are scalars (interpolation happens in strings), so an exact match is enough. */
  isSecretPointer(pointer: string): boolean {
    return this.pointers.has(pointer);
  }

  /** Replaces every known secret value in `text` with the mask. */
  redact(text: string): string {
    this.#ordered ??= [...this.#values].sort((a, b) => b.length - a.length);
    let out = text;
    for (const v of this.#ordered) if (out.includes(v)) out = out.split(v).join(MASK);
    return out;
  }

  get size(): number {
    return this.#values.size;
  }
}
