/**
 * The group access tokens' section of plumb's state file: notes about live tokens (keyed by token
 * id, section `tokens`) and what plumb knows about each declared token's sink (section
 * `token_slots`, keyed by `tokenSlotKey(group, name)`). The names are the file format of earlier
 * versions, kept so existing state files still read.
 */
import type { StateStore } from '../../engine/state.js';
import type { DeliveredVariable } from './sink-ci-variable.js';

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
  /**
   * The CI/CD variables the held secret was delivered to, by `variableSinkId` (instance, owner, key,
   * scope): a salted fingerprint of the value and the metadata written, never the value. A later
   * plan compares the live variables with it (drift) and the declared sinks with its keys (a sink
   * added, moved or removed).
   */
  readonly delivered?: Readonly<Record<string, DeliveredVariable>>;
  /**
   * Predecessors of an overlap rotation (docs/tokens.md#overlap-window): still active, their
   * revocation due at `due` (ISO date-time), written once the successor reached every sink. The
   * first apply at or after `due` revokes them; until then they are not the declaration.
   */
  readonly retiring?: readonly RetiringToken[];
}

export interface RetiringToken {
  readonly id: number;
  /** ISO date-time: revoked by the first apply at or after it. */
  readonly due: string;
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

/** Typed access to the tokens' sections of a state store. */
export class TokenState {
  readonly #store: StateStore;

  constructor(store: StateStore) {
    this.#store = store;
  }

  /**
   * Every token note of an instance. The state file is untrusted input (it may be cached or
   * committed): an entry that is not a note of this shape is left out and listed in `rejected`.
   */
  tokenNotes(instanceUrl: string, rejected: string[] = []): TokenNote[] {
    const out: TokenNote[] = [];
    for (const [key, n] of Object.entries(this.#store.section<unknown>(instanceUrl, 'tokens') ?? {})) {
      if (isNote(n) && String(n.id) === key) out.push(n);
      else rejected.push(`tokens["${key}"] is not a token note (id, group, name, kind, at)`);
    }
    return out;
  }

  tokenNote(instanceUrl: string, id: number): TokenNote | undefined {
    const n = this.#store.section<unknown>(instanceUrl, 'tokens')?.[String(id)];
    return isNote(n) ? n : undefined;
  }

  recordTokenNote(instanceUrl: string, note: TokenNote): void {
    this.#store.writableSection<TokenNote>(instanceUrl, 'tokens')[String(note.id)] = note;
  }

  /** Returns whether a note was removed. */
  clearTokenNote(instanceUrl: string, id: number): boolean {
    if (!this.#store.section<TokenNote>(instanceUrl, 'tokens')?.[String(id)]) return false;
    delete this.#store.writableSection<TokenNote>(instanceUrl, 'tokens')[String(id)];
    return true;
  }

  /** The slot of a declared token; one that is not of this shape is treated as absent and listed in `rejected`. */
  tokenSlot(instanceUrl: string, group: string, name: string, rejected: string[] = []): TokenSlot | undefined {
    const key = tokenSlotKey(group, name);
    const slot = this.#store.section<unknown>(instanceUrl, 'token_slots')?.[key];
    if (slot === undefined || isSlot(slot)) return slot;
    rejected.push(`token_slots[${JSON.stringify(key)}] is not a token slot (held, unknown, revokedByPlumb, delivered, retiring)`);
    return undefined;
  }

  /** Merges `update` into the slot (a field set to undefined is removed). */
  updateTokenSlot(instanceUrl: string, group: string, name: string, update: Partial<TokenSlot>): void {
    const slots = this.#store.writableSection<TokenSlot>(instanceUrl, 'token_slots');
    const key = tokenSlotKey(group, name);
    const next: Record<string, unknown> = { ...slots[key], ...update };
    for (const k of Object.keys(next)) if (next[k] === undefined) delete next[k];
    if (Object.keys(next).length === 0) delete slots[key];
    else slots[key] = next as TokenSlot;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;

function isNote(v: unknown): v is TokenNote {
  return (
    isObject(v) &&
    isId(v.id) &&
    typeof v.group === 'string' &&
    typeof v.name === 'string' &&
    (v.kind === 'secret-not-received' || v.kind === 'revoke-pending') &&
    typeof v.at === 'string'
  );
}

function isDelivered(v: unknown): v is DeliveredVariable {
  if (!isObject(v) || !isObject(v.fingerprint) || !isObject(v.meta)) return false;
  const m = v.meta;
  return (
    typeof v.fingerprint.salt === 'string' &&
    typeof v.fingerprint.hash === 'string' &&
    (v.fingerprint.kind === undefined || v.fingerprint.kind === 'sha256') &&
    ['protected', 'masked', 'hidden', 'raw'].every((k) => typeof m[k] === 'boolean') &&
    (m.variable_type === 'env_var' || m.variable_type === 'file') &&
    typeof m.environment_scope === 'string' &&
    (m.description === undefined || typeof m.description === 'string')
  );
}

function isSlot(v: unknown): v is TokenSlot {
  if (!isObject(v)) return false;
  if (v.held !== undefined && !isId(v.held)) return false;
  if (v.revokedByPlumb !== undefined && !(Array.isArray(v.revokedByPlumb) && v.revokedByPlumb.every(isId))) return false;
  if (v.delivered !== undefined && !(isObject(v.delivered) && Object.values(v.delivered).every(isDelivered))) return false;
  if (v.retiring !== undefined && !(Array.isArray(v.retiring) && v.retiring.every((r) => isObject(r) && isId(r.id) && typeof r.due === 'string' && !Number.isNaN(Date.parse(r.due))))) return false;
  if (v.unknown !== undefined) {
    const u = v.unknown;
    if (!isObject(u) || !['create', 'rotate', 'replace'].includes(u.op as string) || typeof u.at !== 'string' || !(u.tokenId === undefined || isId(u.tokenId))) return false;
  }
  return true;
}
