import { readFileSync, writeFileSync, renameSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { SecretFingerprint } from './fingerprint.js';

/**
 * plumb's only state: salted fingerprints of write-only values it has applied, so a secret that did
 * not change is not re-sent on every run. Everything else is read live from the instance. The file
 * holds no secret (see fingerprint.ts) and may be cached between CI runs or committed.
 */
interface StateFile {
  version: 1;
  instances: Record<string, { settings: Record<string, SecretFingerprint> }>;
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

  settingFingerprint(instanceUrl: string, name: string): SecretFingerprint | undefined {
    return this.#data.instances[instanceUrl]?.settings[name];
  }

  recordSetting(instanceUrl: string, name: string, fp: SecretFingerprint): void {
    const inst = (this.#data.instances[instanceUrl] ??= { settings: {} });
    inst.settings[name] = fp;
  }

  /** Atomic write (temp file + rename), mode 0600. */
  save(): void {
    mkdirSync(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.#data, null, 2) + '\n', { mode: 0o600 });
    renameSync(tmp, this.file);
  }
}
