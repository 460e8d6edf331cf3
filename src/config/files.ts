/**
 * Every local file a configuration makes plumb read goes through here: configuration files (the
 * directory walk), `${file:…}` targets and repository files' `source:`. The configuration is
 * untrusted input (a merge request writes it), so a file is read only when
 * - its real path (symbolic links resolved) is inside the configuration root, the top of the Git
 *   work tree holding the configuration (or, outside one, the directory given): a link to
 *   `/proc/self/environ` or `~/.ssh/id_rsa` is refused. `${file:…}` may also read below the
 *   directories listed in PLUMB_FILE_ROOTS (the environment, which the merge request does not
 *   control), for secrets mounted outside the repository;
 * - no part of that path below the root is `.git` (a CI checkout keeps credentials in .git/config);
 * - it is not under /proc, /sys or /dev, whatever the roots say;
 * - it is a regular file (opened non-blocking, then checked with fstat: a FIFO, a socket or a
 *   device is refused without waiting on it) no larger than the cap for its use.
 * docs/config.md#local-files is the user's description.
 */
import { closeSync, constants, existsSync, fstatSync, openSync, readSync, realpathSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import path from 'node:path';
import { PlumbError } from '../diagnostics/error.js';
import { homeDir } from '../util/node-os.js';

/** Size caps, in bytes, by what the file is for. */
export const FILE_LIMITS = {
  /** A configuration file (YAML). */
  config: 8 * 1024 * 1024,
  /** A `${file:…}` secret. */
  secret: 64 * 1024,
  /** A repository file's `source:` (the spec names no limit; see docs/config.md#local-files). */
  source: 100 * 1024 * 1024,
} as const;

export type FileUse = keyof typeof FILE_LIMITS;

/** Where a configuration may read from. */
export interface FileRoots {
  /** The configuration root (a real path). */
  readonly root: string;
  /** Further real directories `${file:…}` may read below (PLUMB_FILE_ROOTS). */
  readonly secretRoots?: readonly string[];
}

/** Why a local file was not read: a refusal, or a directory where a file is wanted (not a refusal). */
export type LocalFileReason = 'SPECIAL' | 'GIT_DIR' | 'OUTSIDE_ROOT' | 'TOO_LARGE' | 'EISDIR';

/**
 * A local file plumb refused (PLUMB_LOCAL_FILE_REFUSED) or could not read (a directory:
 * PLUMB_CONFIG_UNREADABLE); the summary is a sentence ("it is a FIFO, …") the caller puts after the
 * file's name, with the fix for its use.
 */
export class LocalFileError extends PlumbError {
  declare readonly code: 'PLUMB_LOCAL_FILE_REFUSED' | 'PLUMB_CONFIG_UNREADABLE';
  constructor(
    summary: string,
    readonly reason: LocalFileReason,
  ) {
    super(reason === 'EISDIR' ? 'PLUMB_CONFIG_UNREADABLE' : 'PLUMB_LOCAL_FILE_REFUSED', summary);
  }
}

const SPECIAL_TREES = ['/proc', '/sys', '/dev'];

/**
 * The configuration root for a path given on the command line (a file or a directory): the
 * nearest directory at or above it holding `.git` (the work tree a merge request changes); outside
 * a Git work tree, the working directory when the path is inside it (and it is neither `/` nor the
 * home directory), else the directory itself (a file's directory). Returned as a real path.
 */
export function configRoot(given: string, cwd?: string): string {
  let dir = given;
  try {
    dir = realpathSync.native(given);
    if (!statSync(dir).isDirectory()) dir = path.dirname(dir);
  } catch {
    dir = path.dirname(given);
  }
  for (let d = dir; ; d = path.dirname(d)) {
    if (existsSync(path.join(d, '.git'))) return d;
    if (path.dirname(d) === d) break;
  }
  if (cwd !== undefined) {
    let realCwd: string | undefined;
    try {
      realCwd = realpathSync.native(cwd);
    } catch {
      realCwd = undefined;
    }
    if (realCwd !== undefined && realCwd !== path.parse(realCwd).root && realCwd !== safeHome() && within(dir, realCwd)) return realCwd;
  }
  return dir;
}

function safeHome(): string | undefined {
  try {
    return realpathSync.native(homeDir());
  } catch {
    return undefined;
  }
}

/** PLUMB_FILE_ROOTS (`:`-separated directories) as real paths; a directory that does not exist is skipped. */
export function secretRootsFrom(env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  for (const d of (env.PLUMB_FILE_ROOTS ?? '').split(path.delimiter)) {
    if (d.trim() === '' || !path.isAbsolute(d)) continue;
    try {
      out.push(realpathSync.native(d));
    } catch {
      // not there: nothing below it can be read anyway
    }
  }
  return out;
}

function within(real: string, dir: string): boolean {
  return real === dir || real.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);
}

/**
 * Real paths come from `realpathSync.native` (one realpath(3) call) rather than node's JavaScript
 * walk, which lstat()s every component and normalizes the path at each step: a cold `plumb
 * validate` resolves a few dozen paths, enough for V8 to optimize node's `normalizeString` on a
 * background thread that the process then waits for at exit (issue 30, ~2.7 ms).
 *
 * The real path of `abs` once it is allowed for `use` (see the module comment); throws
 * {@link LocalFileError} (or the file system's error, e.g. ENOENT) otherwise.
 */
export function allowedPath(abs: string, use: FileUse, roots: FileRoots): string {
  const real = realpathSync.native(abs);
  if (SPECIAL_TREES.some((t) => within(real, t))) {
    throw new LocalFileError(`it is a special file (${real}), not a regular file`, 'SPECIAL');
  }
  const extra = use === 'secret' ? (roots.secretRoots ?? []) : [];
  if (within(real, roots.root)) {
    const below = path.relative(roots.root, real).split(path.sep);
    if (below.includes('.git')) throw new LocalFileError(`it is inside .git/ (${real}), which plumb never reads`, 'GIT_DIR');
  } else if (!extra.some((r) => within(real, r))) {
    const via = real === path.resolve(abs) ? '' : ` (through a symbolic link, to ${real})`;
    throw new LocalFileError(
      `it is outside the configuration root ${roots.root}${via}${use === 'secret' ? '; list its directory in PLUMB_FILE_ROOTS to allow it' : ''}`,
      'OUTSIDE_ROOT',
    );
  }
  return real;
}

function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory, not a file';
  if (st.isFIFO()) return 'a FIFO (named pipe), not a regular file';
  if (st.isSocket()) return 'a socket, not a regular file';
  if (st.isCharacterDevice()) return 'a character device, not a regular file';
  if (st.isBlockDevice()) return 'a block device, not a regular file';
  return 'not a regular file';
}

function sizeText(n: number): string {
  return n >= 1024 * 1024 ? `${n / (1024 * 1024)} MiB` : `${n / 1024} KiB`;
}

/**
 * Opens an allowed file without blocking (a FIFO does not wait for a writer) and checks it with
 * fstat: a regular file within the cap. Returns the open descriptor and its size; the caller closes it.
 */
export function openLocalFile(abs: string, use: FileUse, roots: FileRoots): { fd: number; size: number; real: string } {
  const real = allowedPath(abs, use, roots);
  const fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new LocalFileError(`it is ${kindOf(st)}`, st.isDirectory() ? 'EISDIR' : 'SPECIAL');
    const cap = FILE_LIMITS[use];
    if (st.size > cap) throw new LocalFileError(`it is ${st.size.toLocaleString('en')} bytes, more than the ${sizeText(cap)} plumb reads for ${USE_NAMES[use]}`, 'TOO_LARGE');
    return { fd, size: st.size, real };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

const USE_NAMES: Record<FileUse, string> = { config: 'a configuration file', secret: 'a ${file:…} secret', source: "a repository file's source" };

/** Reads an allowed file whole (never more than its cap, whatever fstat said). */
export function readLocalFile(abs: string, use: FileUse, roots: FileRoots): Buffer {
  const { fd, size } = openLocalFile(abs, use, roots);
  try {
    const cap = FILE_LIMITS[use];
    const buf = Buffer.alloc(Math.min(size, cap) + 1);
    let n = 0;
    for (;;) {
      const r = readSync(fd, buf, n, buf.length - n, null);
      if (r === 0) break;
      n += r;
      if (n === buf.length) break;
    }
    if (n > cap) throw new LocalFileError(`it is more than the ${sizeText(cap)} plumb reads for ${USE_NAMES[use]}`, 'TOO_LARGE');
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/** Checks an allowed file (regular, within the cap) without reading it; returns its real path. */
export function checkLocalFile(abs: string, use: FileUse, roots: FileRoots): string {
  const { fd, real } = openLocalFile(abs, use, roots);
  closeSync(fd);
  return real;
}

/**
 * Whether `bytes` are text a code frame may show: valid UTF-8 with no NUL and no control character
 * (C0 other than tab, line feed and carriage return; DEL; C1 other than NEL): ESC or CSI would
 * drive the terminal, and YAML allows none of them anyway.
 */
export function isShowableText(bytes: Buffer): boolean {
  const text = bytes.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(bytes)) return false;
  return !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u0084\u0086-\u009f]/.test(text);
}
