import { loadConfig } from '../config/validate.js';
import { hasErrors } from '../diagnostics/index.js';
import { renderDiagnosticsHuman, diagnosticsToJson } from '../diagnostics/render.js';
import type { Io } from './output.js';
import { useColor } from './output.js';

export interface ValidateFlags {
  readonly json: boolean;
  readonly today?: string;
}

/** `plumb validate [paths…]`: offline only; exit 0 when valid (warnings allowed), 1 when not. */
export function runValidate(paths: readonly string[], flags: ValidateFlags, io: Io): number {
  const result = loadConfig(paths, { env: io.env, cwd: io.cwd, today: flags.today });
  const redact = (s: string) => result.sources.secrets.redact(s);
  const ok = !hasErrors(result.diagnostics);
  if (flags.json) {
    const body = {
      valid: ok,
      files: result.sources.files,
      diagnostics: diagnosticsToJson(result.diagnostics, result.sources.texts),
    };
    io.stdout(redact(JSON.stringify(body, null, 2)) + '\n');
  } else {
    if (result.diagnostics.length > 0) {
      io.stderr(redact(renderDiagnosticsHuman(result.diagnostics, result.sources.texts, { color: useColor(io) })));
    }
    if (ok) {
      const n = result.config?.instances.length ?? 0;
      io.stdout(`Configuration is valid: ${result.sources.files.length} file(s), ${n} instance(s).\n`);
    }
  }
  return ok ? 0 : 1;
}
