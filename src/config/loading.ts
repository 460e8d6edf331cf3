/**
 * What the loader's steps share while they read files: the diagnostics waiting for a location, the
 * context of one file's walk, and the pointers already reported (so one problem gives one error).
 */
import type { Diagnostic } from '../diagnostics/index.js';
import type { SecretRegistry } from './secrets.js';
import type { FileRoots } from './files.js';
import type { AliasBudget } from './aliases.js';
import type { KindPointer } from './pointer.js';
import type { Credentials } from './credentials.js';

/** See `LoadedSources.reported` (./load.ts). */
export class ReportedPointers {
  readonly #subtrees = new Set<string>();
  readonly #exact = new Set<string>();

  /** @internal */
  addSubtree(pointer: string): void {
    this.#subtrees.add(pointer);
  }

  /** @internal */
  addExact(pointer: string): void {
    this.#exact.add(pointer);
  }

  /** Whether a later diagnostic about `pointer` repeats a problem already reported. */
  covers(pointer: string): boolean {
    if (this.#exact.has(pointer)) return true;
    for (let p = pointer; ; p = p.slice(0, p.lastIndexOf('/'))) {
      if (this.#subtrees.has(p)) return true;
      if (p === '') return false;
    }
  }
}

/** A problem found while loading, located once all files are read. */
export interface PendingDiagnostic extends Omit<Diagnostic, 'location'> {
  readonly fileIndex: number;
  readonly pointer: string;
  readonly on?: 'key' | 'value';
}

export interface WalkContext {
  readonly file: string;
  readonly abs: string;
  readonly env: NodeJS.ProcessEnv;
  readonly secrets: SecretRegistry;
  readonly pending: PendingDiagnostic[];
  readonly fileIndex: number;
  /** Every pointer this file defines. */
  readonly pointers: string[];
  readonly reported: ReportedPointers;
  readonly aliases: AliasBudget;
  readonly roots: FileRoots;
  readonly unavailableSecrets: boolean;
  /** The kinds' places (the registry's `KindPointer`s). */
  readonly places: readonly KindPointer[];
  /** The variables no value may interpolate (./credentials.ts). */
  readonly credentials: Credentials;
}

/** One error for a problem found while reading a value; later checks stay silent about it. */
export function reportAt(ctx: WalkContext, d: Omit<PendingDiagnostic, 'fileIndex'>): void {
  ctx.pending.push({ ...d, fileIndex: ctx.fileIndex });
  ctx.reported.addSubtree(d.pointer);
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
