/**
 * The repository files' section of plumb's state file (`repository_files`): what plumb last wrote
 * to each file on each branch (its SHA-256 and execute bit, or that plumb deleted it), keyed by
 * `project|branch|path`. A live file that differs from both that record and the configuration was
 * changed by a push after the last apply: drift.
 */
import type { StateStore } from '../../engine/state.js';

export interface FileRecord {
  /** null: plumb deleted the file. */
  readonly sha256: string | null;
  readonly executeFilemode?: boolean;
}

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
