import type { DiagnosticCode } from './codes.js';
import type { Diagnostic } from './diagnostic.js';
/**
 * The one base of every error plumb throws (outside the emulator, a separate program): a code of the
 * closed registry (src/diagnostics/codes.ts), a one-line summary, and, when there is one, a detail
 * and a suggestion. A caller that reports the error as a diagnostic calls `toDiagnostic()`, adding
 * only what the error cannot know (where it is located, a longer summary naming the option it came
 * from), instead of copying the fields by hand. Callers match on `code`, never on message text.
 *
 * Invariants:
 * - `message` is the summary (what `String(err)` and a stack trace show), so an error thrown where no
 *   caller converts it still says what went wrong in the same words.
 * - Like every diagnostic, no summary, detail or suggestion holds a secret: the thrower redacts, or
 *   the catcher redacts the summary it passes to `toDiagnostic()`.
 * test/diagnostics/error.test.ts checks that every error class under src/ (the emulator aside)
 * derives from this one.
 */

export interface PlumbErrorInit {
  /** What it means and how it came about, beyond the summary. */
  readonly detail?: string | undefined;
  /** A concrete fix. */
  readonly suggestion?: string | undefined;
  readonly cause?: unknown;
}

export class PlumbError extends Error {
  readonly code: DiagnosticCode;
  readonly summary: string;
  readonly detail: string | undefined;
  readonly suggestion: string | undefined;

  constructor(code: DiagnosticCode, summary: string, init: PlumbErrorInit = {}) {
    super(summary, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.code = code;
    this.summary = summary;
    this.detail = init.detail;
    this.suggestion = init.suggestion;
  }

  /**
   * The error as an error diagnostic. `extra` adds what the catcher knows (a location, a pointer) or
   * replaces a field (a summary prefixed with the option the value came from, a redacted summary).
   */
  toDiagnostic(extra: Partial<Omit<Diagnostic, 'severity' | 'code'>> = {}): Diagnostic {
    return {
      severity: 'error',
      code: this.code,
      summary: this.summary,
      ...(this.detail !== undefined && { detail: this.detail }),
      ...(this.suggestion !== undefined && { suggestion: this.suggestion }),
      ...extra,
    };
  }
}
