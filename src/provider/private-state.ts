/**
 * What plumb remembers between runs (src/engine/state.ts: salted fingerprints of write-only
 * settings, token slots and notes, what plumb last wrote to a file), kept under Terraform in each
 * resource's PRIVATE state: the `private` bytes of plugin protocol 6, which Terraform stores with
 * the resource in its state and backend and hands back on every read, plan and apply. So a fresh
 * working directory or CI runner with the same backend knows what the last apply did, and a CDKTF
 * stack keeps no second copy under `cdktf.out/`. The provider writes no state file.
 *
 * The private state holds only what the state file held: salted scrypt fingerprints
 * (src/engine/fingerprint.ts), token ids, SHA-256 digests of non-secret file content and dates;
 * never a secret. Terraform hands it back unchanged, but a state can be edited, so it is read as the
 * state file is: untrusted, each kind checking the shape of its entries before acting on one.
 *
 * Migration: a resource whose private state carries no plumb data yet (written by an older plumb,
 * which kept a state file) takes the entries that concern it from that file (the provider's
 * `state_file`, else PLUMB_STATE, else `.plumb/state.json` in the working directory) on its first
 * read, plan or apply; Terraform stores them with the resource at the next apply. The file is only
 * read, never written or deleted.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { StateProblem, StateStore } from '../engine/state.js';
import { canonicalInstanceUrl } from '../util/url.js';
import type { TerraformPart, TfDiagnostic, TfObject } from '../resources/terraform.js';

/** How plumb's messages name where this state is kept ("plumb noted it in …"). */
export const PRIVATE_STATE_WHERE = "Terraform's state (the resource's private data)";

/** The format of the private bytes: `{plumb: 1, url, state: {section: {key: entry}}}` as JSON. */
const FORMAT = 1;

interface PrivateDocument {
  readonly plumb: number;
  /** The instance the entries belong to, as plumb keys its state (canonical URL). */
  readonly url: string;
  readonly state: Record<string, Record<string, unknown>>;
}

/** The key plumb's state uses for an instance: its URL as the loader canonicalizes it. */
export function instanceKey(url: string): string {
  return canonicalInstanceUrl(url) ?? url.replace(/\/+$/, '');
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function parse(bytes: Uint8Array): PrivateDocument | undefined {
  try {
    const d = JSON.parse(Buffer.from(bytes).toString('utf8')) as unknown;
    if (isObject(d) && d.plumb === FORMAT && typeof d.url === 'string' && isObject(d.state)) return d as unknown as PrivateDocument;
  } catch {
    // not plumb's: treated as holding nothing
  }
  return undefined;
}

export interface OpenedPrivate {
  readonly store: StateStore;
  /** A state file that could not be read for migration. */
  readonly diagnostics: TfDiagnostic[];
}

export interface OpenOptions {
  /** The provider's instance URL. */
  readonly url: string;
  readonly part: TerraformPart;
  /** The resource's values in Terraform's state (null: it does not exist yet, nothing to migrate). */
  readonly values: TfObject | null;
  /** The state file an older plumb kept (absolute), read for migration only. */
  readonly legacyFile?: string;
}

/** The store of one RPC: the resource's private state, or what the old state file holds for it. */
export function openPrivate(bytes: Uint8Array | null | undefined, o: OpenOptions): OpenedPrivate {
  const store = StateStore.inMemory(PRIVATE_STATE_WHERE);
  const key = instanceKey(o.url);
  const fill = (sections: Readonly<Record<string, unknown>>, keep: (section: string, k: string, entry: unknown) => boolean) => {
    for (const [section, entries] of Object.entries(sections)) {
      if (!isObject(entries)) continue;
      for (const [k, entry] of Object.entries(entries)) if (keep(section, k, entry)) store.writableSection<unknown>(key, section)[k] = entry;
    }
  };
  if (bytes && bytes.length > 0) {
    const doc = parse(bytes);
    // Entries of another instance (the provider's url changed) are not this one's.
    if (doc && doc.url === key) fill(doc.state, () => true);
    return { store, diagnostics: [] };
  }
  const { values, legacyFile, part } = o;
  if (!values || !legacyFile || !part.ownsStateEntry || !existsSync(legacyFile)) return { store, diagnostics: [] };
  const legacy = StateStore.read(legacyFile);
  if (legacy instanceof StateProblem) {
    return {
      store,
      diagnostics: [{
        severity: 'warning',
        summary: `plumb could not read its former state file to move this resource's entries into Terraform's state: ${legacy.summary}`,
        detail: `plumb now keeps what it remembers in Terraform's state and reads ${path.basename(legacyFile)} only once per resource, to move its entries. Without them, plumb may send write-only settings again.\nhelp: ${legacy.suggestion}`,
      }],
    };
  }
  const owns = part.ownsStateEntry.bind(part);
  fill(legacy.sections(key), (section, k, entry) => owns(section, k, entry, values));
  return { store, diagnostics: [] };
}

/** The private bytes that carry a store's entries for the instance (always plumb's marker, so migration happens once). */
export function sealPrivate(store: StateStore, url: string): Buffer {
  const key = instanceKey(url);
  const state = Object.fromEntries(Object.entries(store.sections(key)).filter(([, entries]) => Object.keys(entries).length > 0));
  const doc: PrivateDocument = { plumb: FORMAT, url: key, state: state as Record<string, Record<string, unknown>> };
  return Buffer.from(JSON.stringify(doc), 'utf8');
}

/** The state file an older provider kept, absolute. */
export function legacyStateFile(stateFile: string, cwd: string): string {
  return path.resolve(cwd, stateFile);
}
