/**
 * The repository files' section of plumb's state file (`repository_files`): what plumb last wrote
 * to each file on each branch (its SHA-256 and execute bit, or that plumb deleted it), keyed by
 * `project|branch|path`. A live file that differs from both that record and the configuration was
 * changed by a push after the last apply: drift.
 */
import type { SecretFingerprint } from '../../engine/fingerprint.js';
import type { StateStore } from '../../engine/state.js';

/**
 * `sha256` null: plumb deleted the file. Content that comes from a secret is recorded as a salted
 * scrypt `fingerprint` of its SHA-256 instead, so the state file holds nothing a guess can be checked
 * against cheaply.
 */
export type FileRecord = { readonly executeFilemode?: boolean } & ({ readonly sha256: string | null } | { readonly fingerprint: SecretFingerprint });

const SECTION = 'repository_files';

export function fileKey(project: string, branch: string, path: string): string {
  return `${project}|${branch}|${path}`;
}

export function lastWritten(store: StateStore, instanceUrl: string, key: string): FileRecord | undefined {
  return store.section<FileRecord>(instanceUrl, SECTION)?.[key];
}

/** Recorded at the end of apply (`flush`), not per write: a thousand writes make one file write. */
export function recordWritten(store: StateStore, instanceUrl: string, key: string, rec: FileRecord): void {
  store.writableSection<FileRecord>(instanceUrl, SECTION)[key] = rec;
  store.markDirty();
}
