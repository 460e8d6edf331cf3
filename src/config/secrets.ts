/**
 * Every value plumb must never print: values that came from the environment or from files through
 * interpolation, the secret settings, the instance token, token secrets issued by the instance. The
 * registry is consulted by every renderer and by the error path, so a secret that slipped into a
 * message is still masked.
 */
export const MASK = '(sensitive value)';

export class SecretRegistry {
  readonly #values = new Set<string>();
  /** JSON pointers (into the merged config) of values that are secret. */
  readonly pointers = new Set<string>();

  add(value: string): void {
    // Very short values would mask innocent text everywhere; they are still treated as secret
    // where they are (by pointer), just not scrubbed from free text.
    if (value.length >= 4) this.#values.add(value);
  }

  markPointer(pointer: string): void {
    this.pointers.add(pointer);
  }

  isSecretPointer(pointer: string): boolean {
    for (const p of this.pointers) if (pointer === p || pointer.startsWith(p + '/')) return true;
    return false;
  }

  /** Replaces every known secret value in `text` with the mask. */
  redact(text: string): string {
    let out = text;
    for (const v of this.#values) if (out.includes(v)) out = out.split(v).join(MASK);
    return out;
  }

  get size(): number {
    return this.#values.size;
  }
}
