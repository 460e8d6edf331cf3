/**
 * The view of `plumb export`, one implementation per format (human, `--json`), chosen once. With
 * `--json`, stdout carries one document in every path: the summary, or the error document
 * (./problem.ts), an invalid `-c` configuration included. Notes and warnings are for people, on
 * stderr, in both formats.
 */
import { clean } from '../../util/terminal.js';
import type { ConfigResult } from '../../config/validate.js';
import type { Io } from '../output.js';
import { JsonOut, humanProblems } from './problem.js';
import type { ProblemView } from './problem.js';

/** What export wrote. */
export interface ExportSummary {
  /** The instance read. */
  readonly url: string;
  /** The YAML file written, as given (`--out` joined with plumb.yaml). */
  readonly file: string;
  /** Each exporter's sentence of what it exported, for people. */
  readonly summaries: readonly string[];
  /** Each exporter's counts, by name, for scripts. */
  readonly counts: Readonly<Record<string, number>>;
  /** The repository files written next to the YAML (paths under --out). */
  readonly files: readonly string[];
  /** The environment variables the configuration reads. */
  readonly env: readonly string[];
  /** What is left for people to fill in. */
  readonly todo: readonly string[];
}

export interface ExportView extends ProblemView {
  /** The `-c` configuration could not be loaded; returns the exit code (1). */
  configInvalid(loaded: ConfigResult): number;
  /** An exporter's note, or the client's warning. */
  note(text: string): void;
  warning(text: string): void;
  exported(summary: ExportSummary): void;
}

export function exportView(json: boolean, io: Io): ExportView {
  const people = {
    note: (text: string) => io.stderr(`note: ${clean(text)}\n`),
    warning: (text: string) => io.stderr(`warning: ${clean(text)}\n`),
  };
  if (json) {
    let redact = (s: string) => s;
    const out = new JsonOut(io, (s) => redact(s));
    return {
      ...people,
      problem: (d, t) => out.problem(d, t),
      configInvalid(loaded) {
        redact = (s) => loaded.sources.secrets.redact(s);
        return out.problem(loaded.diagnostics, loaded.sources.texts);
      },
      exported(s) {
        out.document({ out: s.file, ...s.counts, files: s.files, env: s.env }, false);
      },
    };
  }
  return {
    ...people,
    problem(d, t) {
      humanProblems(io, (s) => s, d, t);
      return 1;
    },
    configInvalid(loaded) {
      humanProblems(io, (s) => loaded.sources.secrets.redact(s), loaded.diagnostics, loaded.sources.texts);
      return 1;
    },
    exported(s) {
      io.stdout(`Exported ${s.url} to ${s.file}: ${s.summaries.join(', ')}.\n`);
      if (s.env.length > 0) io.stdout(`It reads ${s.env.length} secret(s) from the environment: ${s.env.join(', ')}.\n`);
      for (const t of s.todo) io.stdout(`${clean(t)}\n`);
    },
  };
}
