/**
 * The view of `plumb validate`, one implementation per format (`--format human|json|codequality`,
 * `--json`), chosen once. Every path of the command ends in `result`: an unusable `--now` is an
 * invalid result like any configuration error, so `--json` and the Code Quality report are always
 * one document on stdout.
 */
import type { Diagnostic } from '../../diagnostics/index.js';
import { diagnosticsToJson, renderDiagnosticsHuman } from '../../diagnostics/render.js';
import type { SourceTexts } from '../../diagnostics/render.js';
import type { codeQualityReport } from '../codequality.js';
import type { Io } from '../output.js';
import { useColor } from '../output.js';
import type { Redact } from './problem.js';

export type ValidateFormat = 'human' | 'json' | 'codequality';

/** What validate read: its files (as shown), their texts, how many instances it declares. */
export interface ValidateInput {
  /** The YAML files, or for a CDKTF app (`cdktf`) the constructs' paths, which stand in for files. */
  readonly files: readonly string[];
  /** `--cdktf DIR`: the app's directory; `files` are then its constructs. */
  readonly cdktf?: string;
  readonly texts: SourceTexts;
  readonly instances: number;
}

export interface ValidateView {
  /** The verdict and every diagnostic; returns the exit code (0 valid, 1 invalid). */
  result(ok: boolean, diagnostics: readonly Diagnostic[], input: ValidateInput): number;
}

/** `report`: the Code Quality report (src/commands/codequality.ts), given for that format only, so the others never load it. */
export function validateView(format: ValidateFormat, io: Io, redact: Redact, report?: typeof codeQualityReport): ValidateView {
  if (format === 'codequality' && report) {
    return {
      result(ok, diagnostics, input) {
        io.stdout(redact(JSON.stringify(report(diagnostics, io.cwd, input.files[0]), null, 2)) + '\n');
        if (!ok) io.stderr(`Configuration is invalid: ${diagnostics.filter((d) => d.severity === 'error').length} error(s) in the Code Quality report.\n`);
        return ok ? 0 : 1;
      },
    };
  }
  if (format === 'json') {
    return {
      result(ok, diagnostics, input) {
        const body = { valid: ok, files: input.files, diagnostics: diagnosticsToJson(diagnostics, input.texts) };
        io.stdout(redact(JSON.stringify(body, null, 2)) + '\n');
        return ok ? 0 : 1;
      },
    };
  }
  return {
    result(ok, diagnostics, input) {
      if (diagnostics.length > 0) io.stderr(redact(renderDiagnosticsHuman(diagnostics, input.texts, { color: useColor(io) })));
      if (ok) {
        const read = input.cdktf === undefined ? `${input.files.length} file(s)` : `the CDKTF app in ${input.cdktf}, ${input.files.length} construct(s)`;
        io.stdout(`Configuration is valid: ${read}, ${input.instances} instance(s).\n`);
      }
      return ok ? 0 : 1;
    },
  };
}
