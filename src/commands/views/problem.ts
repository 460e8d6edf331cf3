/**
 * What every view does with a problem that stops its command (a mistake on the command line, an
 * unreadable file, a refused connection): people read it as diagnostics on stderr; with `--json`,
 * stdout also carries it as one JSON document, so a script that asked for JSON always gets JSON.
 *
 * The error document (docs/architecture.md#views): `{"error": CODE, "diagnostics": [...]}`, where
 * CODE is the code of the first error (in the order the diagnostics are shown) and each diagnostic
 * has the form `plumb validate --json` gives it.
 */
import type { Diagnostic } from '../../diagnostics/index.js';
import { renderDiagnosticsHuman, diagnosticsToJson } from '../../diagnostics/render.js';
import type { SourceTexts } from '../../diagnostics/render.js';
import { sortDiagnostics } from '../../diagnostics/diagnostic.js';
import type { Io } from '../output.js';
import { useColor } from '../output.js';

export type Redact = (s: string) => string;

const NO_TEXTS: SourceTexts = new Map();

export interface ProblemView {
  /** The command stops on these diagnostics; returns the exit code (1). */
  problem(diagnostics: readonly Diagnostic[], texts?: SourceTexts): number;
}

/** The error document `--json` prints when a command stops before its result. */
export function errorDocument(diagnostics: readonly Diagnostic[], texts: SourceTexts = NO_TEXTS): { error: string; diagnostics: unknown[] } {
  const sorted = sortDiagnostics(diagnostics);
  const first = sorted.find((d) => d.severity === 'error') ?? sorted[0];
  return { error: first?.code ?? 'PLUMB_USAGE', diagnostics: diagnosticsToJson(diagnostics, texts) };
}

/** Diagnostics for people, on stderr. */
export function humanProblems(io: Io, redact: Redact, diagnostics: readonly Diagnostic[], texts: SourceTexts = NO_TEXTS): void {
  io.stderr(redact(renderDiagnosticsHuman(diagnostics, texts, { color: useColor(io) })));
}

/**
 * A JSON view's standard output: one document per run. A problem after the command's document
 * was written (a plan shown, then its --out file failed) goes to stderr only, so stdout stays
 * one parseable document.
 */
export class JsonOut {
  private written = false;

  constructor(
    private readonly io: Io,
    private readonly redact: Redact,
  ) {}

  /** Writes `value` as the run's document, unless one was written already; `pretty`: indented. */
  document(value: unknown, pretty = true): void {
    if (this.written) return;
    this.written = true;
    this.io.stdout(this.redact(pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value)) + '\n');
  }

  /** The error document on stdout (when nothing was written yet) and the diagnostics on stderr. */
  problem(diagnostics: readonly Diagnostic[], texts: SourceTexts = NO_TEXTS): number {
    this.document(errorDocument(diagnostics, texts), false);
    humanProblems(this.io, this.redact, diagnostics, texts);
    return 1;
  }
}

/** The problem view of a command that has no other output yet (cli.ts's usage errors). */
export function problemView(json: boolean, io: Io, redact: Redact = (s) => s): ProblemView {
  if (json) return new JsonOut(io, redact);
  return {
    problem(diagnostics, texts) {
      humanProblems(io, redact, diagnostics, texts);
      return 1;
    },
  };
}
