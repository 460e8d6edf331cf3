/**
 * The view of `plumb report`, chosen once from the flags (docs/architecture.md#views): what goes
 * to standard output (human, or the JSON document with `--json`), and the files the flags name,
 * one `ReportFileFormat` each (`--out` JSON, `--markdown`; `--html` adds itself to
 * REPORT_FILE_FORMATS). Every format reads only the report document (engine/report.ts); every
 * string passes through `redact` before it leaves.
 */
import type { ConfigResult } from '../../config/validate.js';
import type { Report } from '../../engine/report.js';
import type { ReasonTexts } from '../../render/human.js';
import { renderReportHtml } from '../../render/html.js';
import { renderReportHuman, renderReportMarkdown, reportExitCode } from '../../render/report.js';
import type { Io } from '../output.js';
import { useColor } from '../output.js';
import type { ProblemView, Redact } from './problem.js';
import { HumanLoadView, JsonLoadView } from './reconcile.js';

/** What a file format of the report is given besides the document. */
export interface ReportRenderContext {
  /** The reasons' texts of the registry the command runs with. */
  readonly reasons: ReasonTexts;
}

/**
 * One file the report can be written as: an option that names the file, and a renderer from the
 * report document to the file's text. A format is one entry of REPORT_FILE_FORMATS; the command
 * line (commands/report-args.ts) takes one option per entry, and the command checks every named
 * file before the first request and writes each after the report is made. The text is redacted
 * with the configuration's secrets as it is written.
 */
export interface ReportFileFormat {
  /** The option without dashes: `markdown` for `--markdown FILE`. */
  readonly option: string;
  /** A file name for help and suggestions: `report.md`. */
  readonly example: string;
  /** One line for `plumb report --help`. */
  readonly help: string;
  /** The file's mode (a report is meant to be shared: 0644). */
  readonly mode: number;
  render(report: Report, ctx: ReportRenderContext): string;
}

/** The report as a JSON document (the schema's shape), indented, with a final newline. */
export function reportJson(report: Report): string {
  return JSON.stringify(report, null, 2) + '\n';
}

export const REPORT_FILE_FORMATS: readonly ReportFileFormat[] = [
  { option: 'out', example: 'report.json', help: 'also write the JSON document to FILE (schemas/plumb-report.schema.json)', mode: 0o644, render: (r) => reportJson(r) },
  { option: 'markdown', example: 'report.md', help: 'also write the report as markdown to FILE (a merge request comment, a wiki page)', mode: 0o644, render: (r, ctx) => renderReportMarkdown(r, ctx.reasons) },
  { option: 'html', example: 'report.html', help: 'also write the report as one self-contained HTML page to FILE (docs/report.md#the-html-page)', mode: 0o644, render: (r, ctx) => renderReportHtml(r, ctx.reasons) },
];

/** What `plumb report` shows on its standard streams. */
export interface ReportView extends ProblemView {
  /** The configuration's diagnostics, after loading it (`inPlan`: the report carries its warnings). */
  configDiagnostics(loaded: ConfigResult, inPlan: boolean): void;
  /** The configuration is unusable (its errors were shown); returns the exit code (1). */
  configInvalid(loaded: ConfigResult): number;
  /** plumb starts reading the instance (a log section in CI). */
  readStart(): void;
  readEnd(): void;
  /** The report; returns the exit code (docs/report.md#exit-codes). */
  report(report: Report): number;
}

/** `json`: `--json` (the document on stdout). `reasons`: the reasons' texts of the registry. */
export function reportView(json: boolean, io: Io, redact: Redact, reasons: ReasonTexts): ReportView {
  return json ? new JsonReportView(io, redact) : new HumanReportView(io, redact, reasons);
}

class HumanReportView extends HumanLoadView implements ReportView {
  constructor(
    io: Io,
    redact: Redact,
    private readonly reasons: ReasonTexts,
  ) {
    super(io, redact);
  }

  report(report: Report): number {
    this.io.stdout(this.redact(renderReportHuman(report, { color: useColor(this.io), reasons: this.reasons })));
    return reportExitCode(report);
  }
}

class JsonReportView extends JsonLoadView implements ReportView {
  report(report: Report): number {
    this.out.document(report);
    return reportExitCode(report);
  }
}

