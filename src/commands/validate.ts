import type { Diagnostic } from '../diagnostics/index.js';
import { hasErrors } from '../diagnostics/index.js';
import { loadConfiguration } from './config-source.js';
import { BUILT_IN_CONFIG_KINDS } from '../resources/index.js';
import type { CdktfFlags } from './config-source.js';
import { parseNow } from './now.js';
import type { CommandHooks, Io } from './output.js';
import { validateView } from './views/validate.js';

export interface ValidateFlags {
  readonly json: boolean;
  /** `--format`: `codequality` writes the service's Code Quality report (JSON) on stdout instead. */
  readonly format?: 'human' | 'json' | 'codequality';
  /** `--unavailable-secrets skip` (src/config/load.ts `unavailableSecrets`). */
  readonly unavailableSecrets?: boolean;
  /** The date checks use (`--now`); default: PLUMB_NOW, else today. */
  readonly now?: string;
  /** `--instance`: the configuration must declare it (the whole configuration is still checked). */
  readonly instance?: string;
  /** `--cdktf DIR`: read the configuration from the CDKTF app in DIR (docs/cdktf.md). */
  readonly cdktf?: string | CdktfFlags;
}

/**
 * `plumb validate [paths…]`: offline only; exit 0 when valid (warnings allowed), 1 when not. Runs
 * every check plan runs before it connects, with the same date (`--now`/PLUMB_NOW). `hooks.kinds`:
 * the registry whose blocks it validates (default the built-in kinds, through the generated schema).
 */
export async function runValidate(paths: readonly string[], flags: ValidateFlags, io: Io, hooks: CommandHooks = {}): Promise<number> {
  let redact = (s: string) => s;
  const format = flags.format ?? (flags.json ? 'json' : 'human');
  // Only the Code Quality report loads node:crypto (its fingerprints): a plain validate starts faster without it.
  const report = format === 'codequality' ? (await import('./codequality.js')).codeQualityReport : undefined;
  const view = validateView(format, io, (s) => redact(s), report);
  const now = parseNow(flags.now, io.env);
  if (!(now instanceof Date)) return view.result(false, [now], { files: [], texts: new Map(), instances: 0 });
  const result = await loadConfiguration(paths, flags.cdktf, { env: io.env, cwd: io.cwd, today: now.toISOString().slice(0, 10), unavailableSecrets: flags.unavailableSecrets === true, kinds: hooks.kinds ?? BUILT_IN_CONFIG_KINDS });
  redact = (s: string) => result.sources.secrets.redact(s);
  const diagnostics: Diagnostic[] = [...result.diagnostics];
  if (flags.instance !== undefined && result.config && !result.config.instances.some((i) => i.name === flags.instance)) {
    diagnostics.push({
      severity: 'error',
      code: 'PLUMB_INSTANCE_UNKNOWN',
      summary: `No instance named "${flags.instance}" in the configuration`,
      suggestion: `use one of: ${result.config.instances.map((i) => i.name).join(', ') || '(none declared)'}`,
    });
  }
  const cdktf = typeof flags.cdktf === 'string' ? flags.cdktf : flags.cdktf?.dir;
  return view.result(!hasErrors(diagnostics), diagnostics, { files: result.sources.files, texts: result.sources.texts, instances: result.config?.instances.length ?? 0, ...(cdktf !== undefined && { cdktf }) });
}
