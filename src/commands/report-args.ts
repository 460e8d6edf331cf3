/**
 * `plumb report`'s command line as data (Terraform's internal/command/arguments): argv → the
 * arguments and every mistake as a diagnostic at once; the command body never reads argv.
 * `parseExpiringWithin` is shared with plan and drift (`--expiring-within`).
 */
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import type { Diagnostic } from '../diagnostics/index.js';
import { closestMatch } from '../util/suggest.js';
import { REPORT_FILE_FORMATS } from './views/report.js';
import type { ReportFileFormat } from './views/report.js';

/** `--expiring-within`: the window as written and in days. */
export interface ExpiringWithin {
  readonly written: string;
  readonly days: number;
}

export interface ReportArgs {
  readonly help: boolean;
  readonly config: readonly string[];
  readonly cdktf?: { readonly dir: string };
  readonly now?: string;
  readonly state?: string;
  readonly instance?: string;
  readonly json: boolean;
  readonly debug: boolean;
  readonly concurrency?: number;
  readonly allowUrls: readonly string[];
  readonly unavailableSecrets: boolean;
  /** `--max-requests N`: at most N requests for the whole run (docs/report.md#the-request-budget). */
  readonly maxRequests?: number;
  readonly expiringWithin?: ExpiringWithin;
  /** The files to write, one per file format named on the command line. */
  readonly outputs: readonly { readonly format: ReportFileFormat; readonly given: string }[];
}

/** The longest window `--expiring-within` takes (ten years). */
const MAX_WINDOW_DAYS = 3650;

/**
 * `--expiring-within DURATION`: a whole number of days (`30d`) or weeks (`4w`); `0d` lists what
 * has expired already. A diagnostic when it is not one.
 */
export function parseExpiringWithin(raw: string, command: string): ExpiringWithin | Diagnostic {
  const m = /^(\d{1,5})([dw])$/.exec(raw.trim());
  const days = m ? Number(m[1]) * (m[2] === 'w' ? 7 : 1) : NaN;
  if (!m || days > MAX_WINDOW_DAYS) {
    return usage(`--expiring-within must be a number of days or weeks such as 30d or 4w (at most ${MAX_WINDOW_DAYS}d), not "${raw}"`, `write e.g. --expiring-within 30d (plumb ${command} --help)`);
  }
  return { written: raw.trim(), days };
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

function usage(summary: string, suggestion: string): Diagnostic {
  return { severity: 'error', code: 'PLUMB_USAGE', summary, suggestion };
}

function options(): NonNullable<ParseArgsConfig['options']> {
  const opts: NonNullable<ParseArgsConfig['options']> = {
    config: { type: 'string', short: 'c', multiple: true },
    cdktf: { type: 'string' },
    now: { type: 'string' },
    state: { type: 'string' },
    instance: { type: 'string' },
    json: { type: 'boolean', default: false },
    debug: { type: 'boolean', default: false },
    concurrency: { type: 'string' },
    'allow-url': { type: 'string', multiple: true },
    'unavailable-secrets': { type: 'string' },
    'max-requests': { type: 'string' },
    'expiring-within': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  };
  for (const f of REPORT_FILE_FORMATS) opts[f.option] = { type: 'string' };
  return opts;
}

const HELP = 'plumb report --help lists the options';

/** Parses `plumb report`'s arguments (after the command name). */
export function parseReportArgs(argv: readonly string[]): { args: ReportArgs; diagnostics: Diagnostic[] } {
  const spec = options();
  const diagnostics: Diagnostic[] = [];
  let values: Record<string, string | boolean | (string | boolean)[] | undefined> = {};
  let positionals: string[] = [];
  try {
    ({ values, positionals } = parseArgs({ args: [...argv], allowPositionals: true, strict: true, options: spec }));
  } catch (err) {
    diagnostics.push(parseError(err, Object.keys(spec)));
  }
  const str = (k: string): string | undefined => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
  const whole = (k: string, min: number, max: number, fix: string): number | undefined => {
    const raw = str(k);
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isInteger(n) || n < min || n > max) {
      diagnostics.push(usage(`--${k} must be a whole number from ${min}${max === Number.MAX_SAFE_INTEGER ? ' up' : ` to ${max}`}, not "${raw}"`, fix));
      return undefined;
    }
    return n;
  };
  const concurrency = whole('concurrency', 1, 64, `leave it out for the default (8) (${HELP})`);
  const maxRequests = whole('max-requests', 1, Number.MAX_SAFE_INTEGER, `give the most requests the report may send, e.g. --max-requests 5000 (${HELP})`);
  let expiringWithin: ExpiringWithin | undefined;
  const rawWindow = str('expiring-within');
  if (rawWindow !== undefined) {
    const w = parseExpiringWithin(rawWindow, 'report');
    if ('severity' in w) diagnostics.push(w);
    else expiringWithin = w;
  }
  const unavailable = str('unavailable-secrets');
  if (unavailable !== undefined && unavailable !== 'skip' && unavailable !== 'error') {
    diagnostics.push(usage(`--unavailable-secrets must be skip or error, not "${unavailable}"`, HELP));
  }
  const allowUrls = ((values['allow-url'] as string[] | undefined) ?? []).filter((u) => {
    if (isBaseUrl(u)) return true;
    diagnostics.push(usage(`--allow-url ${JSON.stringify(u)} is not an instance's base URL`, `write the URL as the configuration's url, e.g. --allow-url https://code.example.com (${HELP})`));
    return false;
  });
  const outputs: { format: ReportFileFormat; given: string }[] = [];
  for (const f of REPORT_FILE_FORMATS) {
    const given = str(f.option);
    if (given === undefined) continue;
    if (given.trim() === '') diagnostics.push(usage(`--${f.option} needs a file name`, `write e.g. --${f.option} ${f.example}`));
    else outputs.push({ format: f, given });
  }
  const cdktf = str('cdktf');
  const args: ReportArgs = {
    help: values.help === true,
    config: [...((values.config as string[] | undefined) ?? []), ...positionals],
    ...(cdktf !== undefined && { cdktf: { dir: cdktf } }),
    ...(str('now') !== undefined && { now: str('now') }),
    ...(str('state') !== undefined && { state: str('state') }),
    ...(str('instance') !== undefined && { instance: str('instance') }),
    json: values.json === true,
    debug: values.debug === true,
    ...(concurrency !== undefined && { concurrency }),
    allowUrls,
    unavailableSecrets: unavailable === 'skip',
    ...(maxRequests !== undefined && { maxRequests }),
    ...(expiringWithin && { expiringWithin }),
    outputs,
  };
  return { args, diagnostics };
}

function isBaseUrl(u: string): boolean {
  try {
    const url = new URL(u);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === '' && url.search === '' && url.hash === '';
  } catch {
    return false;
  }
}

/** node:util parseArgs's errors as plumb's sentences. */
function parseError(err: unknown, names: readonly string[]): Diagnostic {
  const code = (err as { code?: string }).code ?? '';
  const message = err instanceof Error ? err.message : String(err);
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const option = /'(-[^']*)'/.exec(message)?.[1] ?? message;
    const guess = closestMatch(option.replace(/^-+/, '').replace(/=.*$/, ''), [...names]);
    return usage(`Unknown option "${option}" for plumb report`, guess ? `did you mean "--${guess}"? (${HELP})` : HELP);
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const option = /'(--?[A-Za-z-]+)/.exec(message)?.[1] ?? 'an option';
    return usage(`Option ${option} of plumb report needs a value, or takes none`, HELP);
  }
  if (err instanceof Error) return usage(`plumb report: ${message}`, HELP);
  throw err;
}
