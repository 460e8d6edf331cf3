/**
 * `node:os`, loaded when first asked for, through `process.getBuiltinModule` (Node 20.16+, hence
 * `engines`): most commands never need a home or temporary directory, and neither a static import
 * of `node:os` nor a `createRequire` (which loads `node:module`) is free in a cold `plumb
 * validate` (~0.3 ms each of its ~15, issue 30).
 */
import type * as NodeOsModule from 'node:os';

type NodeOs = typeof NodeOsModule;

export function nodeOs(): NodeOs {
  return process.getBuiltinModule('node:os');
}

/**
 * The user's home directory as `os.homedir()` gives it, without loading `node:os` where it need
 * not: libuv answers `$HOME` when it is set and not empty (POSIX), so this does too.
 */
export function homeDir(): string {
  const home = process.platform === 'win32' ? undefined : process.env.HOME;
  return home ? home : nodeOs().homedir();
}
