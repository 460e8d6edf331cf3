/**
 * `plumb report`'s command line as data (Terraform's internal/command/arguments): argv → the
 * arguments and every mistake as a diagnostic at once; the command body never reads argv.
 * `parseExpiringWithin` is shared with plan and drift (`--expiring-within`).
 */
import { ArgvReader, COMMON_OPTIONS, commonArgs, expiringArg } from './args.js';
import type { ExpiringWithin } from './args.js';

export { parseExpiringWithin } from './args.js';
export type { ExpiringWithin } from './args.js';
import type { CommonArgs, Options, Parsed } from './args.js';
import { REPORT_FILE_FORMATS } from './views/report.js';
import type { ReportFileFormat } from './views/report.js';

export interface ReportArgs extends CommonArgs {
  /** `--max-requests N`: at most N requests for the whole run (docs/report.md#the-request-budget). */
  readonly maxRequests?: number;
  readonly expiringWithin?: ExpiringWithin;
  /** The files to write, one per file format named on the command line. */
  readonly outputs: readonly { readonly format: ReportFileFormat; readonly given: string }[];
}

export const REPORT_USAGE = `Usage: plumb report [PATHS...] [options]

Reads the instance and reports, for every declared resource (selectors expanded), whether it is
compliant, drifted, missing or unreadable, with the fields that differ, and a summary per selector.
Read-only: it never writes to the instance, never writes the state file and takes no lock
(docs/report.md). Exit 0 all compliant (and nothing expiring), 2 something is not, 1 error.

  --max-requests N      send at most N requests (retries and discovery included); when they run
                        out, the report says which resources it did not check (not-checked)
  --expiring-within DURATION
                        also list group access tokens, Pages certificates and unverified Pages
                        domains that expire within DURATION (30d, 4w), soonest first
${REPORT_FILE_FORMATS.map((f) => formatHelp(f)).join('\n')}
  --unavailable-secrets skip
                        a secret setting whose \${env:NAME} is not set is not compared, and said so
  -c, --config PATH     a YAML file or directory of YAML files (repeatable; same as PATHS)
  --cdktf DIR           read the configuration from the CDKTF app in DIR
  --instance NAME       only this instance of the configuration
  --now DATE            the date plumb decides with (default: PLUMB_NOW, else today)
  --state FILE|URL      plumb's state file, read only (default: PLUMB_STATE, else .plumb/state.json)
  --concurrency N       API requests in flight per instance, 1 to 64 (default 8)
  --allow-url URL       an instance the token may be sent to (repeatable)
  --debug               one line per API call on stderr (never tokens or bodies)
  --json                the report's JSON document on stdout (schemas/plumb-report.schema.json)
  -h, --help            this help
`;

function formatHelp(f: ReportFileFormat): string {
  const head = `  --${f.option} FILE`;
  return head.length < 24 ? `${head.padEnd(24)}${f.help}` : `${head}\n${' '.repeat(24)}${f.help}`;
}

/** The options report takes: the common ones (it plans, read-only), and its own. */
const REPORT_OPTIONS: Options = {
  ...COMMON_OPTIONS,
  'unavailable-secrets': { type: 'string' },
  'max-requests': { type: 'string' },
  'expiring-within': { type: 'string' },
  ...Object.fromEntries(REPORT_FILE_FORMATS.map((f) => [f.option, { type: 'string' }])),
};

/** Parses `plumb report`'s arguments (after the command name): every mistake at once. */
export function parseReportArgs(argv: readonly string[]): Parsed<ReportArgs> {
  const a = new ArgvReader('report', argv, REPORT_OPTIONS);
  const rawMax = a.str('max-requests');
  let maxRequests: number | undefined;
  if (rawMax !== undefined) {
    const n = Number(rawMax);
    if (rawMax.trim() !== '' && Number.isInteger(n) && n >= 1) maxRequests = n;
    else a.problem(`--max-requests must be a whole number of 1 or more, not "${rawMax}"`, `give the most requests the report may send, e.g. --max-requests 5000 (${a.help})`);
  }
  const outputs: { format: ReportFileFormat; given: string }[] = [];
  for (const f of REPORT_FILE_FORMATS) {
    const given = a.str(f.option);
    if (given === undefined) continue;
    if (given.trim() === '') a.problem(`--${f.option} needs a file name`, `write e.g. --${f.option} ${f.example}`);
    else outputs.push({ format: f, given });
  }
  return a.result({ ...commonArgs(a), ...(maxRequests !== undefined && { maxRequests }), ...expiringArg(a), outputs });
}
