/**
 * The service's Code Quality report (a JSON array of issues, the Code Climate subset the merge-request
 * widget reads: description, check_name, fingerprint, severity, location.path, location.lines.begin),
 * made from validate's diagnostics. docs/ci.md#native-reports.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { Diagnostic, Severity } from '../diagnostics/index.js';
import { sortDiagnostics } from '../diagnostics/index.js';

export interface CodeQualityIssue {
  readonly description: string;
  readonly check_name: string;
  readonly fingerprint: string;
  readonly severity: 'info' | 'minor' | 'major' | 'critical' | 'blocker';
  readonly location: { readonly path: string; readonly lines: { readonly begin: number } };
}

/** An error stops plan and apply (critical); a warning is worth a look (minor); info is info. */
const SEVERITY: Record<Severity, CodeQualityIssue['severity']> = { error: 'critical', warning: 'minor', info: 'info' };

/**
 * One issue per diagnostic. Paths are relative to `root` (the job's working directory, the
 * repository's root in CI) with `/` separators; a diagnostic without a location points at line 1 of
 * the first configuration file (`.` when there is none). The fingerprint hashes the code, the file and the JSON pointer (not
 * the line, so an issue keeps its identity when lines above it move); repeats get an ordinal.
 */
export function codeQualityReport(diagnostics: readonly Diagnostic[], root: string, firstFile?: string): CodeQualityIssue[] {
  const seen = new Map<string, number>();
  return sortDiagnostics(diagnostics).map((d) => {
    const file = d.location ? relative(root, d.location.file) : firstFile ? relative(root, firstFile) : '.';
    const identity = [d.code, file, d.pointer ?? d.summary].join('\0');
    const n = seen.get(identity) ?? 0;
    seen.set(identity, n + 1);
    const fingerprint = createHash('sha256').update(n === 0 ? identity : `${identity}\0${n}`).digest('hex');
    const description = [d.summary, d.suggestion && `(${d.suggestion})`].filter(Boolean).join(' ');
    return { description, check_name: d.code, fingerprint, severity: SEVERITY[d.severity], location: { path: file, lines: { begin: d.location?.line ?? 1 } } };
  });
}

function relative(root: string, file: string): string {
  const rel = path.isAbsolute(file) ? path.relative(root, file) : file;
  return rel.split(path.sep).join('/') || '.';
}
