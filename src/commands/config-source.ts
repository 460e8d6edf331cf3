/**
 * Where a command's configuration comes from: YAML files (the default), or a CDKTF app, only when
 * `--cdktf DIR` says so. Running an app runs code from the repository, so it is never inferred: a
 * configuration path that holds a cdktf.json is an error that names the flag, and nothing runs
 * (docs/cdktf.md#running-the-app). The CDKTF front-end is imported only with --cdktf, so reading
 * YAML never loads it.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Diagnostic } from '../diagnostics/index.js';
import { noSources } from '../config/load.js';
import { loadConfig } from '../config/validate.js';
import type { ConfigResult, ValidateOptions } from '../config/validate.js';

export interface CdktfFlags {
  /** `--cdktf DIR`. */
  readonly dir?: string;
  /** `--cdktf-timeout SECONDS`, in milliseconds. */
  readonly timeoutMs?: number;
}

/** A configuration path that is a CDKTF app given without --cdktf: an error, before anything runs. */
function appWithoutFlag(paths: readonly string[], cwd: string): Diagnostic | undefined {
  for (const p of paths) {
    const abs = path.resolve(cwd, p);
    let isDir = false;
    try {
      isDir = statSync(abs).isDirectory();
    } catch {
      continue;
    }
    if (!isDir || !existsSync(path.join(abs, 'cdktf.json'))) continue;
    const shown = path.join(p, 'cdktf.json');
    return {
      severity: 'error',
      code: 'PLUMB_CDKTF_NOT_ENABLED',
      summary: `${p} is a CDKTF app (it holds cdktf.json); plumb runs an app's code only when asked`,
      detail: 'Running the app executes code from the repository; a configuration directory is read as YAML only, and plumb never runs an app it found there.',
      suggestion: `run with --cdktf ${p} to execute it (and no other configuration path), or remove cdktf.json from a YAML configuration directory`,
      location: { file: shown, line: 1, column: 1 },
    };
  }
  return undefined;
}

function usage(summary: string, suggestion: string): ConfigResult {
  return { diagnostics: [{ severity: 'error', code: 'PLUMB_USAGE', summary, suggestion }], sources: noSources() };
}

export async function loadConfiguration(paths: readonly string[], cdktf: string | CdktfFlags | undefined, opts: ValidateOptions): Promise<ConfigResult> {
  const cwd = opts.cwd ?? process.cwd();
  const flags: CdktfFlags = typeof cdktf === 'string' ? { dir: cdktf } : (cdktf ?? {});
  if (flags.dir === undefined) {
    const refused = appWithoutFlag(paths, cwd);
    if (refused) return { diagnostics: [refused], sources: noSources() };
    return loadConfig(paths, opts);
  }
  if (paths.length > 0) return usage(`--cdktf ${flags.dir} cannot be combined with configuration paths (${paths.join(', ')})`, 'give either a CDKTF app or YAML files');
  const { loadCdktfConfig } = await import('../cdktf/load.js');
  return loadCdktfConfig(flags.dir, { ...opts, ...(flags.timeoutMs !== undefined && { timeoutMs: flags.timeoutMs }) });
}
