/**
 * The one way plumb writes a local file (state, saved plans, --markdown, --report, export's files,
 * token sinks): a temp file with a random name is created next to the target with O_CREAT|O_EXCL
 * (so a symlink or any file planted at that name makes the create fail instead of being followed),
 * written, fsynced and renamed over the target, then the directory is fsynced. `rename` replaces a
 * symlink at the target itself rather than writing through it, so whatever a planted symlink points
 * at is never touched. A reader sees the old content or the new, never a partial file.
 *
 * `checkWritable` answers, without writing anything that stays, whether such a write can succeed:
 * commands call it for every output before their first write to an instance.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, lstatSync, mkdirSync, openSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { open, readdir, rename, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';

export interface WriteOptions {
  /** Mode of a new file (before the umask): 0o600 for anything not meant to be public. @default 0o644 */
  readonly mode?: number;
}

export interface AsyncWriteOptions extends WriteOptions {
  /**
   * Asked once the temp file is durable, right before the rename: false drops the write (the temp
   * file is removed, the target left as it is). The answer and the rename happen in one turn of the
   * event loop, so no synchronous write of the same file can come between them (StateStore's group
   * commit: a newer synchronous save makes an older write in flight moot).
   */
  readonly beforeRename?: () => boolean;
}

/** The temp name next to `file`: hidden, unpredictable, recognisable. */
function tempName(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.plumb-${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
}

/** Directories this process has already cleared of orphaned temp files. */
const cleared = new Set<string>();

/**
 * Removes the temp files a plumb process killed mid-write left in the directory of `file` (their
 * pid no longer runs): beside a token sink such a file holds a secret nobody uses. Once per
 * directory and process (no orphan appears while this process runs, but a killed one's); best
 * effort. Run after a write into the directory succeeded.
 */
export async function removeOrphanTemps(file: string): Promise<void> {
  const dir = path.dirname(path.resolve(file));
  if (cleared.has(dir)) return;
  cleared.add(dir);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^\..+\.plumb-(\d+)-[0-9a-f]+\.tmp$/.exec(name)?.[1]);
    if (!Number.isSafeInteger(pid) || pid === process.pid || running(pid)) continue;
    await unlink(path.join(dir, name)).catch(() => {});
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Atomic, durable replace of `file` (see the module comment). Asynchronous; directory fsyncs are shared. */
export async function writeFileAtomic(file: string, content: string | Uint8Array, opts: AsyncWriteOptions = {}): Promise<void> {
  const tmp = tempName(file);
  let handle: FileHandle | undefined;
  try {
    handle = await open(tmp, 'wx', opts.mode ?? 0o644);
    await handle.writeFile(content);
    await handle.sync();
    await handle.close();
    handle = undefined;
    if (opts.beforeRename) {
      if (!opts.beforeRename()) {
        await unlink(tmp);
        return;
      }
      renameSync(tmp, file);
    } else await rename(tmp, file);
  } catch (err) {
    await handle?.close().catch(() => {});
    await unlink(tmp).catch(() => {}); // not created, or already renamed
    throw err;
  }
  await syncDirectory(path.dirname(file));
}

/** The same, synchronous (the state file is saved from synchronous code). */
export function writeFileAtomicSync(file: string, content: string | Uint8Array, opts: WriteOptions = {}): void {
  const tmp = tempName(file);
  let fd: number | undefined;
  try {
    fd = openSync(tmp, 'wx', opts.mode ?? 0o644);
    const bytes = typeof content === 'string' ? Buffer.from(content) : content;
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, file);
  } catch (err) {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // already failing
      }
    }
    try {
      unlinkSync(tmp);
    } catch {
      // not created, or already renamed
    }
    throw err;
  }
  try {
    const dfd = openSync(path.dirname(file), 'r');
    try {
      fsyncSync(dfd);
    } finally {
      closeSync(dfd);
    }
  } catch {
    // Some file systems refuse fsync on a directory; the rename itself has happened.
  }
}

/**
 * Makes the renames in `dir` durable. Group commit: while one fsync of the directory runs, every
 * rename that finished meanwhile waits for one more, shared fsync, so a thousand secrets written
 * into one directory cost a handful of directory fsyncs, not a thousand.
 */
const directorySyncs = new Map<string, { running: Promise<void>; next?: Promise<void> }>();

function syncDirectory(dir: string): Promise<void> {
  const current = directorySyncs.get(dir);
  if (current) {
    // Renames done now are not covered by the fsync already running: queue one more, shared.
    current.next ??= current.running.then(() => {
      const entry = directorySyncs.get(dir)!;
      entry.next = undefined;
      entry.running = fsyncDirectory(dir);
      return entry.running;
    });
    return current.next;
  }
  const entry: { running: Promise<void>; next?: Promise<void> } = { running: fsyncDirectory(dir) };
  directorySyncs.set(dir, entry);
  const cleanup = (): void => {
    if (directorySyncs.get(dir) === entry && entry.next === undefined) directorySyncs.delete(dir);
  };
  void entry.running.then(cleanup);
  return entry.running;
}

async function fsyncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Some file systems refuse fsync on a directory; the rename itself has happened.
  }
}

/** Why a file cannot be written, as a sentence (no trailing period) and what to do. */
export interface WriteProblem {
  readonly why: string;
  readonly fix: string;
}

/**
 * Whether `file` can be written as `writeFileAtomic` writes it: its directory exists (or, with
 * `createDirectory`, can be made), is a directory, and accepts a new file (a temp file is created
 * with O_EXCL and removed at once); the target itself is not a directory. Nothing stays behind
 * except, with `createDirectory`, the directory.
 */
export function checkWritable(file: string, opts: { readonly createDirectory?: boolean } = {}): WriteProblem | undefined {
  const dir = path.dirname(file);
  try {
    if (lstatSync(file).isDirectory()) return { why: `${file} is a directory`, fix: 'name a file, not a directory' };
  } catch {
    // absent (or unreadable: the probe below tells)
  }
  if (opts.createDirectory) {
    try {
      mkdirSync(dir, { recursive: true });
    } catch (err) {
      return { why: `its directory ${dir} cannot be created (${errnoText(err)})`, fix: 'create it, or choose another path' };
    }
  }
  try {
    if (!statSync(dir).isDirectory()) return { why: `${dir} is not a directory`, fix: 'choose a path inside a directory' };
  } catch {
    return { why: `its directory ${dir} does not exist`, fix: `create it first (mkdir -p ${dir})` };
  }
  const tmp = tempName(file);
  try {
    closeSync(openSync(tmp, 'wx', 0o600));
  } catch (err) {
    return { why: `its directory ${dir} does not accept new files (${errnoText(err)})`, fix: 'fix its permissions, or choose another path' };
  }
  try {
    unlinkSync(tmp);
  } catch {
    // created but not removable: the write itself would still work
  }
  return undefined;
}

/** `EACCES: permission denied` → "permission denied". */
export function errnoText(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  switch (e.code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'read-only file system';
    case 'ENOSPC':
      return 'no space left on the device';
    case 'ENOENT':
      return 'no such file or directory';
    case 'ENOTDIR':
      return 'a part of the path is not a directory';
    case 'EISDIR':
      return 'is a directory';
    default:
      return e.code ?? (err instanceof Error ? err.message : String(err));
  }
}
