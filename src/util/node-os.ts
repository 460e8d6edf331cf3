/**
 * `node:os`, loaded when first asked for. Most commands never need a home or temporary directory,
 * and loading the module costs a cold `plumb validate` about 0.3 ms of its ~15 (issue 30), so the
 * modules on validate's path do not import it at start-up.
 */
import { createRequire } from 'node:module';
import type * as NodeOsModule from 'node:os';

type NodeOs = typeof NodeOsModule;
let os: NodeOs | undefined;

export function nodeOs(): NodeOs {
  os ??= createRequire(import.meta.url)('node:os') as NodeOs;
  return os;
}

/**
 * The user's home directory as `os.homedir()` gives it, without loading `node:os` where it need
 * not: libuv answers `$HOME` when it is set and not empty (POSIX), so this does too.
 */
export function homeDir(): string {
  const home = process.platform === 'win32' ? undefined : process.env.HOME;
  return home ? home : nodeOs().homedir();
}
