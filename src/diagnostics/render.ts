import { clean } from '../util/terminal.js';
import type { Diagnostic, SourceLocation } from './diagnostic.js';
import { flattenDiagnostic, formatLocation, sortDiagnostics, countBySeverity } from './diagnostic.js';

/** Source text by file name, for code frames. */
export type SourceTexts = ReadonlyMap<string, string>;

export interface RenderOptions {
  readonly color?: boolean;
}


const paint = (on: boolean, code: string) => (s: string) => (on ? `\u001b[${code}m${s}\u001b[0m` : s);

/** Human rendering with a code frame: the offending line and a caret under the range. */
export function renderDiagnosticsHuman(
  diags: readonly Diagnostic[],
  sources: SourceTexts,
  opts: RenderOptions = {},
): string {
  const color = opts.color ?? false;
  const red = paint(color, '31;1');
  const yellow = paint(color, '33;1');
  const blue = paint(color, '34');
  const bold = paint(color, '1');
  const parts: string[] = [];
  for (const d of sortDiagnostics(diags)) {
    const sev = d.severity === 'error' ? red('error') : d.severity === 'warning' ? yellow('warning') : blue('info');
    const lines = [`${sev}[${clean(d.code)}]: ${bold(clean(d.summary))}`];
    if (d.location) {
      lines.push(`  ${blue('-->')} ${clean(formatLocation(d.location))}`);
      const frame = codeFrame(sources.get(d.location.file), d.location, color);
      if (frame) lines.push(frame);
    } else if (d.pointer) {
      lines.push(`  ${blue('-->')} ${clean(d.pointer)}`);
    }
    if (d.detail) lines.push(...clean(d.detail).split('\n').map((l) => `  ${l}`));
    for (const r of d.related ?? []) {
      lines.push(`  ${blue('note:')} ${clean(r.message)}${r.location ? ` (${clean(formatLocation(r.location))})` : ''}`);
    }
    if (d.suggestion) lines.push(`  ${blue('help:')} ${clean(d.suggestion)}`);
    parts.push(lines.join('\n'));
  }
  const n = countBySeverity(diags);
  parts.push(`${n.error} error(s), ${n.warning} warning(s)`);
  return parts.join('\n\n') + '\n';
}

function codeFrame(text: string | undefined, loc: SourceLocation, color: boolean): string | undefined {
  if (text === undefined) return undefined;
  const lines = text.split(/\r?\n/);
  const raw = lines[loc.line - 1];
  if (raw === undefined) return undefined;
  const src = clean(raw);
  const gutter = String(loc.line).length;
  const pad = ' '.repeat(gutter);
  const endCol = loc.endLine === undefined || loc.endLine === loc.line ? (loc.endColumn ?? loc.column + 1) : src.length + 1;
  const width = Math.max(1, Math.min(endCol, src.length + 1) - loc.column);
  const caret = ' '.repeat(Math.max(0, loc.column - 1)) + '^'.repeat(width);
  const c = color ? (s: string) => `\u001b[31;1m${s}\u001b[0m` : (s: string) => s;
  return [`  ${pad} |`, `  ${loc.line} | ${src}`, `  ${pad} | ${c(caret)}`].join('\n');
}

/** The machine form: one object per diagnostic with file, line, column and the source line. */
export function diagnosticsToJson(diags: readonly Diagnostic[], sources: SourceTexts): unknown[] {
  return sortDiagnostics(diags).map((d) => {
    const snippet = d.location ? sources.get(d.location.file)?.split(/\r?\n/)[d.location.line - 1] : undefined;
    return {
      ...flattenDiagnostic(d),
      ...(d.pointer !== undefined && { pointer: d.pointer }),
      ...(d.location?.endLine !== undefined && { endLine: d.location.endLine, endColumn: d.location.endColumn }),
      ...(snippet !== undefined && { snippet }),
      ...(d.related?.length && {
        related: d.related.map((r) => ({ message: r.message, ...(r.location && { ...r.location }) })),
      }),
    };
  });
}
