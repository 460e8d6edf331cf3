/**
 * What a configuration resolver works with: the loaded sources, the diagnostics it appends to, and
 * the helpers that locate a pointer. Shared by the schema, resolve and checks stages
 * (./pipeline/) and each kind's resolver (src/resources/<kind>/config.ts), which import this file
 * and never a stage.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { Diagnostic } from '../diagnostics/index.js';
import type { LoadedSources } from './load.js';
import { configRoot } from './files.js';
import { isSelectorKey } from './selectors.js';
import type { FileRoots } from './files.js';

/** A resolver's context. */
export interface Ctx {
  readonly sources: LoadedSources;
  readonly diagnostics: Diagnostic[];
  readonly today: string;
  /** display name → absolute path, to resolve paths relative to the file that wrote them. */
  readonly files: Map<string, string>;
  readonly cwd: string;
  /**
   * Local files the configuration reads besides its own files (absolute path → what it is, e.g. a
   * repository file's `source:`), registered by the kinds that read them: nothing may write over them.
   */
  readonly localReads: Map<string, string>;
  /** Where token sink files must stay, when the door confines them (ValidateOptions.sinkRoot). */
  readonly sinkRoot?: string;
}

export function at(ctx: Ctx, pointer: string, on: 'key' | 'value' = 'value') {
  const l = ctx.sources.locations.get(pointer);
  if (!l) return undefined;
  return on === 'key' ? (l.key ?? l.value) : l.value;
}

export function push(ctx: Ctx, d: Omit<Diagnostic, 'location'> & { on?: 'key' | 'value' }): void {
  const { on, ...rest } = d;
  ctx.diagnostics.push({ ...rest, location: d.pointer !== undefined ? at(ctx, d.pointer, on) : undefined });
}

export function obj(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

export function checkRef(ref: string, p: string, kind: 'group' | 'project', ctx: Ctx): void {
  if (isSelectorKey(ref)) return; // a selector: config/selectors.ts checked it
  const ok = /^\d+$/.test(ref) || /^[A-Za-z0-9_.][A-Za-z0-9_.-]*(\/[A-Za-z0-9_.][A-Za-z0-9_.-]*)*$/.test(ref);
  if (!ok || ref.split('/').some((s) => s === '..' || s === '.')) {
    push(ctx, {
      severity: 'error',
      code: 'PLUMB_RESOURCE_REF',
      summary: `"${ref}" is neither a numeric ${kind} id nor a ${kind} full path`,
      suggestion: `write the ${kind}'s full path (e.g. platform/infra) or its numeric id`,
      pointer: p,
      on: 'key',
    });
  }
}

/** Resolves a path written in a YAML file relative to that file's directory. */
export function relativeToFile(ctx: Ctx, pointer: string, p: string): string {
  const file = ctx.sources.locations.fileOf(pointer);
  const abs = file ? ctx.files.get(file) : undefined;
  return path.resolve(abs ? path.dirname(abs) : ctx.cwd, p);
}

/** Where the document that wrote `pointer` may read local files from (src/config/files.ts). */
export function rootsOf(ctx: Ctx, pointer: string): FileRoots {
  const file = ctx.sources.locations.fileOf(pointer);
  return (file !== undefined ? ctx.sources.roots.get(file) : undefined) ?? { root: configRoot(ctx.cwd, ctx.cwd) };
}

/** A path as it would be written: the real path of what exists of it (a link followed), the rest as given. */
function landing(p: string): string {
  const abs = path.resolve(p);
  try {
    return realpathSync.native(abs);
  } catch {
    try {
      return path.join(realpathSync.native(path.dirname(abs)), path.basename(abs));
    } catch {
      return abs;
    }
  }
}

/**
 * The files plumb may never write over (a token's sink, an output the command line names), by the
 * real path they land on: every configuration file read, and every local file a kind reads (a
 * repository file's source), with what each is.
 */
export function protectedFiles(ctx: Pick<Ctx, 'files' | 'localReads'>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [shown, abs] of ctx.files) out.set(landing(abs), `the configuration file ${shown}`);
  for (const [abs, what] of ctx.localReads) out.set(landing(abs), what);
  return out;
}

/** A path confined to `root` (the Terraform door's configuration root) that lands outside it: where it lands, and how. */
export function outsideRoot(file: string, root: string): string | undefined {
  const real = landing(file);
  const rel = path.relative(root, real);
  if (rel !== '' && !rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel)) return undefined;
  const via = real === path.resolve(file) ? '' : ' (through a symbolic link)';
  return `${real} is outside ${root}${via}`;
}

/** What a write to `file` would overwrite that it must not (one of `files`, or anything under .git/), if anything. */
export function protectedFile(file: string, files: ReadonlyMap<string, string>): string | undefined {
  const real = landing(file);
  const known = files.get(real);
  if (known) return known;
  if (real.split(path.sep).some((s) => s.toLowerCase() === '.git')) return `a file inside .git/ (${real})`;
  return undefined;
}
