import { readFileSync, writeFileSync, renameSync, mkdirSync } from 'node:fs';
import path from 'node:path';

/**
 * plumb's only state: what each resource kind must remember between runs because the instance cannot
 * tell it (settings: salted fingerprints of write-only values applied; group access tokens: notes
 * about tokens whose secret never arrived and what each sink holds). Everything else is read live
 * from the instance. The store knows no kind: each kind owns a named section per instance, keyed by
 * its own ids, and the shape of its entries (src/resources/<kind>/state.ts). The file holds no
 * secret (see fingerprint.ts) and may be cached between CI runs or committed.
 */
interface StateFile {
  version: 1;
  /** instance URL → section name → entry key → entry. */
  instances: Record<string, Record<string, Record<string, unknown>>>;
}

export class StateStore {
  #data: StateFile;
  readonly file: string;

  private constructor(file: string, data: StateFile) {
    this.file = file;
    this.#data = data;
  }

  static open(file: string): StateStore {
    try {
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as StateFile;
      if (parsed && parsed.version === 1 && typeof parsed.instances === 'object') return new StateStore(file, parsed);
    } catch {
      // absent or unreadable: start empty; every write-only value counts as "not known to be applied"
    }
    return new StateStore(file, { version: 1, instances: {} });
  }

  /** A kind's section of an instance's state, or undefined when nothing was recorded yet. Read only. */
  section<T>(instanceUrl: string, name: string): Readonly<Record<string, T>> | undefined {
    return this.#data.instances[instanceUrl]?.[name] as Readonly<Record<string, T>> | undefined;
  }

  /** A kind's section of an instance's state for writing, created when absent; `save` or `markDirty` after. */
  writableSection<T>(instanceUrl: string, name: string): Record<string, T> {
    const inst = (this.#data.instances[instanceUrl] ??= {});
    return (inst[name] ??= {}) as Record<string, T>;
  }

  /** Records that are not worth a write of their own (which token a sink holds) wait for `flush`. */
  #dirty = false;

  markDirty(): void {
    this.#dirty = true;
  }

  /** Writes the file if anything changed since the last write. */
  flush(): void {
    if (this.#dirty) this.save();
  }

  /** Atomic write (temp file + rename), mode 0600. */
  save(): void {
    this.#dirty = false;
    mkdirSync(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.#data, null, 2) + '\n', { mode: 0o600 });
    renameSync(tmp, this.file);
  }
}
