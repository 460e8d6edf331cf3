/**
 * The repository files' desired part: per project (a container, src/catalogue/containers.ts) that
 * declares files, its files. Kept under the kind's name in `DesiredInstance.resources` and read
 * through {@link filesOf}.
 */
import type { DesiredInstance } from '../../config/model.js';
import type { Delivery } from './delivery.js';

export interface DesiredFile {
  readonly path: string;
  readonly pointer: string;
  /** Empty means the project's default branch. */
  readonly branches: readonly string[];
  /** A branch that does not exist yet is created from this one by the first write to it. */
  readonly startBranch?: string;
  readonly state: 'present' | 'absent';
  /** Content exactly as it must be in the repository (inline, or a base64 source decoded). */
  readonly content?: Buffer;
  /** Absolute path of a local file whose bytes are the content (read streaming, not held here). */
  readonly source?: string;
  readonly encoding: 'text' | 'base64';
  readonly executeFilemode?: boolean;
  /** Commit message template per action (`{path}`, `{branch}`, `{project}`, `{action}`); absent: plumb's default. */
  readonly commitMessages: { readonly create?: string; readonly update?: string; readonly delete?: string };
  readonly authorName?: string;
  readonly authorEmail?: string;
  readonly secret: boolean;
}

/** A project's declared files. */
export interface FilesProject {
  /** Numeric id or full path, as written. */
  readonly ref: string;
  readonly pointer: string;
  readonly files: readonly DesiredFile[];
  /** How its changed files reach it (`delivery:`; the default: one commit per branch). */
  readonly delivery: Delivery;
}

/** The projects of the instance that declare files. */
export function filesOf(instance: DesiredInstance): readonly FilesProject[] {
  return (instance.resources.get('repository_file') as readonly FilesProject[] | undefined) ?? [];
}
