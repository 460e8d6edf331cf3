import type { ConfigResult } from '../config/validate.js';
import type { Diagnostic } from '../diagnostics/index.js';
import { hasErrors } from '../diagnostics/index.js';
import { renderDiagnosticsHuman, diagnosticsToJson } from '../diagnostics/render.js';
import { codeQualityReport } from './codequality.js';
import { loadConfiguration } from './config-source.js';
import type { CdktfFlags } from './config-source.js';
import { parseNow } from './now.js';
import type { Io } from './output.js';
import { useColor } from './output.js';

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
 * every check plan runs before it connects, with the same date (`--now`/PLUMB_NOW).
 */
export async function runValidate(paths: readonly string[], flags: ValidateFlags, io: Io): Promise<number> {
  const now = parseNow(flags.now, io.env);
  if (!(now instanceof Date)) {
    io.stderr(renderDiagnosticsHuman([now], new Map(), { color: useColor(io) }));
    return 1;
  }
  const result = await loadConfiguration(paths, flags.cdktf, { env: io.env, cwd: io.cwd, today: now.toISOString().slice(0, 10), unavailableSecrets: flags.unavailableSecrets === true });
  const diagnostics: Diagnostic[] = [...result.diagnostics];
  if (flags.instance !== undefined && result.config && !result.config.instances.some((i) => i.name === flags.instance)) {
    diagnostics.push({
      severity: 'error',
      code: 'PLUMB_INSTANCE_UNKNOWN',
      summary: `No instance named "${flags.instance}" in the configuration`,
      suggestion: `use one of: ${result.config.instances.map((i) => i.name).join(', ') || '(none declared)'}`,
    });
  }
  const redact = (s: string) => result.sources.secrets.redact(s);
  const ok = !hasErrors(diagnostics);
  validateView(flags.format ?? (flags.json ? 'json' : 'human'), io, redact).result(ok, diagnostics, result);
  return ok ? 0 : 1;
}

/** The validate command's view, one implementation per output format. */
interface ValidateView {
  result(ok: boolean, diagnostics: readonly Diagnostic[], loaded: ConfigResult): void;
}

function validateView(format: 'human' | 'json' | 'codequality', io: Io, redact: (s: string) => string): ValidateView {
  if (format === 'codequality') {
    return {
      result(ok, diagnostics, loaded) {
        io.stdout(redact(JSON.stringify(codeQualityReport(diagnostics, io.cwd, loaded.sources.files[0]), null, 2)) + '\n');
        if (!ok) io.stderr(`Configuration is invalid: ${diagnostics.filter((d) => d.severity === 'error').length} error(s) in the Code Quality report.\n`);
      },
    };
  }
  if (format === 'json') {
    return {
      result(ok, diagnostics, loaded) {
        const body = { valid: ok, files: loaded.sources.files, diagnostics: diagnosticsToJson(diagnostics, loaded.sources.texts) };
        io.stdout(redact(JSON.stringify(body, null, 2)) + '\n');
      },
    };
  }
  return {
    result(ok, diagnostics, loaded) {
      if (diagnostics.length > 0) io.stderr(redact(renderDiagnosticsHuman(diagnostics, loaded.sources.texts, { color: useColor(io) })));
      if (ok) {
        const n = loaded.config?.instances.length ?? 0;
        io.stdout(`Configuration is valid: ${loaded.sources.files.length} file(s), ${n} instance(s).\n`);
      }
    },
  };
}
