/**
 * Where a command's configuration comes from: YAML files (the default), or a CDKTF app, given with
 * `--cdktf DIR` or as the one path when that directory holds a cdktf.json. The CDKTF front-end is
 * imported only then, so reading YAML never loads it.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { loadDocuments } from '../config/load.js';
import { loadConfig } from '../config/validate.js';
import type { ConfigResult, ValidateOptions } from '../config/validate.js';

/** The CDKTF app directory the command reads, if any; a string is a usage mistake. */
function cdktfDir(paths: readonly string[], cdktf: string | undefined, cwd: string): string | undefined | { mistake: string; suggestion: string } {
  const isApp = (p: string) => {
    const abs = path.resolve(cwd, p);
    return existsSync(abs) && statSync(abs).isDirectory() && existsSync(path.join(abs, 'cdktf.json'));
  };
  if (cdktf !== undefined) {
    if (paths.length > 0) return { mistake: `--cdktf ${cdktf} cannot be combined with configuration paths (${paths.join(', ')})`, suggestion: 'give either a CDKTF app or YAML files' };
    return cdktf;
  }
  const apps = paths.filter(isApp);
  if (apps.length === 0) return undefined;
  if (paths.length > 1) return { mistake: `${apps[0]} is a CDKTF app (it holds cdktf.json); it cannot be combined with other configuration paths`, suggestion: 'give either a CDKTF app or YAML files' };
  return apps[0];
}

export async function loadConfiguration(paths: readonly string[], cdktf: string | undefined, opts: ValidateOptions): Promise<ConfigResult> {
  const cwd = opts.cwd ?? process.cwd();
  const dir = cdktfDir(paths, cdktf, cwd);
  if (dir === undefined) return loadConfig(paths, opts);
  if (typeof dir !== 'string') {
    return { diagnostics: [{ severity: 'error', code: 'PLUMB_USAGE', summary: dir.mistake, suggestion: dir.suggestion }], sources: loadDocuments([]) };
  }
  const { loadCdktfConfig } = await import('../cdktf/load.js');
  return loadCdktfConfig(dir, opts);
}
