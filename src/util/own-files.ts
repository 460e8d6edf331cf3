import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { nodeOs } from './node-os.js';
import path from 'node:path';
import { findUp } from './find-up.js';

/**
 * plumb's own data files (schemas/, proto/, examples/emulator-seed.yaml), named by their path in
 * the package with `/` separators. An npm installation reads them from disk, found by walking up
 * from the module's URL (findUp). The standalone executable carries them inside itself: its entry
 * (src/sea.ts) installs an embedded source with `useEmbeddedFiles` before anything asks.
 */
export interface EmbeddedFiles {
  /** Every embedded file's name. */
  readonly names: readonly string[];
  /** A file's text, or undefined when it is not embedded. */
  text(name: string): string | undefined;
}

let embedded: EmbeddedFiles | undefined;
let materialized: string | undefined;

export function useEmbeddedFiles(files: EmbeddedFiles | undefined): void {
  embedded = files;
}

/** Whether plumb reads its files from inside itself: it runs as the standalone executable (or the one-file provider). */
export function runsFromEmbeddedFiles(): boolean {
  return embedded !== undefined;
}

/** The text of one of plumb's files, or undefined when the installation lacks it. */
export function ownText(name: string, fromUrl: string): string | undefined {
  if (embedded) return embedded.text(name);
  const file = findUp(path.join(...name.split('/')), fromUrl);
  return file === undefined ? undefined : readFileSync(file, 'utf8');
}

/**
 * A path on disk to one of plumb's files or directories, for libraries that read by path
 * (@grpc/proto-loader, the emulator's seed loader). Embedded files are written on first use to a
 * directory of this process's own (mkdtemp: a fresh name, mode 0700, nothing another user can
 * plant), removed when the process exits.
 */
export function ownPath(name: string, fromUrl: string): string | undefined {
  if (!embedded) return findUp(path.join(...name.split('/')), fromUrl);
  const wanted = embedded.names.filter((n) => n === name || n.startsWith(`${name}/`));
  if (wanted.length === 0) return undefined;
  if (materialized === undefined) {
    const dir = mkdtempSync(path.join(nodeOs().tmpdir(), 'plumb-files-'));
    materialized = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  for (const n of wanted) {
    const file = path.join(materialized, ...n.split('/'));
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, embedded.text(n) ?? '', { mode: 0o600 });
  }
  return path.join(materialized, ...name.split('/'));
}
