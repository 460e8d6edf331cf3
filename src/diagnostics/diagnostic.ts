import type { DiagnosticCode } from './codes.js';
/**
 * Diagnostics, not exceptions, for user mistakes: functions that check user input return lists of
 * these and callers append. A diagnostic is detected with a JSON pointer and located later (the
 * config boundary maps the pointer to file:line:col), as Terraform's tfdiags does.
 */

export type Severity = 'error' | 'warning' | 'info';

export interface SourceLocation {
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  /** 1-based. */
  readonly column: number;
  /** 1-based, inclusive line of the end of the range. */
  readonly endLine?: number;
  /** 1-based, exclusive column of the end of the range. */
  readonly endColumn?: number;
}

export interface Diagnostic {
  readonly severity: Severity;
  /** Stable code callers and tests match on (`PLUMB_UNKNOWN_KEY`), never the message text (src/diagnostics/codes.ts). */
  readonly code: DiagnosticCode;
  /** One line saying what is wrong. */
  readonly summary: string;
  /** What it means and how to fix it. */
  readonly detail?: string;
  /** A concrete fix, e.g. `did you mean "signup_enabled"?`. */
  readonly suggestion?: string;
  /** JSON pointer into the merged configuration (or the API request) the problem is about. */
  readonly pointer?: string;
  readonly location?: SourceLocation;
  /** Other places involved (the first definition of a duplicate, the partner of a dependency). */
  readonly related?: readonly { readonly message: string; readonly location?: SourceLocation }[];
}

export function hasErrors(diags: readonly Diagnostic[]): boolean {
  return diags.some((d) => d.severity === 'error');
}

export function countBySeverity(diags: readonly Diagnostic[]): Record<Severity, number> {
  const out: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  for (const d of diags) out[d.severity]++;
  return out;
}

/** Orders diagnostics by file, line and column so output is stable whatever order checks ran in. */
export function sortDiagnostics(diags: readonly Diagnostic[]): Diagnostic[] {
  return [...diags].sort((a, b) => {
    const fa = a.location?.file ?? '';
    const fb = b.location?.file ?? '';
    if (fa !== fb) return fa < fb ? -1 : 1;
    const la = a.location?.line ?? 0;
    const lb = b.location?.line ?? 0;
    if (la !== lb) return la - lb;
    const ca = a.location?.column ?? 0;
    const cb = b.location?.column ?? 0;
    if (ca !== cb) return ca - cb;
    return a.code < b.code ? -1 : a.code > b.code ? 1 : 0;
  });
}

export function formatLocation(loc: SourceLocation | undefined): string {
  return loc ? `${loc.file}:${loc.line}:${loc.column}` : '';
}

/** A diagnostic as flat, serialisable data (the form plans and `--json` output carry). */
export interface FlatDiagnostic {
  readonly severity: Severity;
  readonly code: DiagnosticCode;
  readonly summary: string;
  readonly detail?: string;
  readonly suggestion?: string;
  readonly file?: string;
  readonly line?: number;
  readonly column?: number;
}

export function flattenDiagnostic(d: Diagnostic): FlatDiagnostic {
  return {
    severity: d.severity,
    code: d.code,
    summary: d.summary,
    ...(d.detail !== undefined && { detail: d.detail }),
    ...(d.suggestion !== undefined && { suggestion: d.suggestion }),
    ...(d.location && { file: d.location.file, line: d.location.line, column: d.location.column }),
  };
}
