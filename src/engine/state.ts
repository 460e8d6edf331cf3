import { readFileSync, writeFileSync, renameSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { SecretFingerprint } from './fingerprint.js';

/**
 * plumb's only state: salted fingerprints of write-only values it has applied, so a secret that did
 * not change is not re-sent on every run, and notes about group access tokens whose secret plumb
 * never received (or whose revocation it could not finish), so the next plan can repair them.
 * Everything else is read live from the instance. The file holds no secret (see fingerprint.ts) and
 * may be cached between CI runs or committed.
 */
interface StateFile {
  version: 1;
  instances: Record<string, InstanceState>;
}

interface InstanceState {
  settings: Record<string, SecretFingerprint>;
  /** Keyed by the token id (ids are unique on an instance). Absent in files written before tokens. */
  tokens?: Record<string, TokenNote>;
  /** Keyed by `tokenSlotKey(group, name)`: what plumb knows about each declared token's sink. */
  token_slots?: Record<string, TokenSlot>;
}

/**
 * What plumb knows about one declared token beyond the live list: whose secret its sink holds, and
 * whether an issue (create, rotate, replace) ended without an answer. The list alone cannot tell a
 * token whose secret reached the sink from one the instance issued while the answer was lost; this
 * slot can, so a later plan never reports "in sync" while the sink holds a revoked secret.
 */
export interface TokenSlot {
  /** The token id whose secret the sink received last. */
  readonly held?: number;
  /** An issue whose outcome plumb could not learn (the answer and the re-check both failed). */
  readonly unknown?: {
    readonly op: 'create' | 'rotate' | 'replace';
    /** The token rotated or replaced (absent for a create). */
    readonly tokenId?: number;
    /** ISO date-time. */
    readonly at: string;
  };
  /** Tokens plumb itself revoked after their secret could not be delivered (not "revoked outside plumb"). */
  readonly revokedByPlumb?: readonly number[];
}

export function tokenSlotKey(group: string, name: string): string {
  return JSON.stringify([group, name]);
}

/**
 * Why plumb remembers a live token:
 * - `secret-not-received`: the instance issued it (create or rotate) but its secret never reached
 *   the sink; the token is active and unusable, and the next plan rotates it.
 * - `revoke-pending`: it was replaced and the new token delivered, but revoking it did not finish;
 *   the next plan revokes it.
 */
export interface TokenNote {
  readonly id: number;
  /** The group as the configuration names it (path or id). */
  readonly group: string;
  readonly name: string;
  readonly kind: 'secret-not-received' | 'revoke-pending';
  /** ISO date-time the note was written. */
  readonly at: string;
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

  /** Every token note of an instance. */
  tokenNotes(instanceUrl: string): TokenNote[] {
    return Object.values(this.#data.instances[instanceUrl]?.tokens ?? {});
  }

  tokenNote(instanceUrl: string, id: number): TokenNote | undefined {
    return this.#data.instances[instanceUrl]?.tokens?.[String(id)];
  }

  recordTokenNote(instanceUrl: string, note: TokenNote): void {
    const inst = (this.#data.instances[instanceUrl] ??= { settings: {} });
    (inst.tokens ??= {})[String(note.id)] = note;
  }

  /** Returns whether a note was removed. */
  clearTokenNote(instanceUrl: string, id: number): boolean {
    const tokens = this.#data.instances[instanceUrl]?.tokens;
    if (!tokens || !(String(id) in tokens)) return false;
    delete tokens[String(id)];
    return true;
  }

  tokenSlot(instanceUrl: string, group: string, name: string): TokenSlot | undefined {
    return this.#data.instances[instanceUrl]?.token_slots?.[tokenSlotKey(group, name)];
  }

  /** Merges `update` into the slot (a field set to undefined is removed). */
  updateTokenSlot(instanceUrl: string, group: string, name: string, update: Partial<TokenSlot>): void {
    const inst = (this.#data.instances[instanceUrl] ??= { settings: {} });
    const slots = (inst.token_slots ??= {});
    const key = tokenSlotKey(group, name);
    const next: Record<string, unknown> = { ...slots[key], ...update };
    for (const k of Object.keys(next)) if (next[k] === undefined) delete next[k];
    if (Object.keys(next).length === 0) delete slots[key];
    else slots[key] = next as TokenSlot;
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
