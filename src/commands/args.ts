/**
 * The command line as data (Terraform's internal/command/arguments): each command's module
 * (`validate-args.ts`, `plan-args.ts`, …) turns argv into its arguments plus every mistake as a
 * PLUMB_USAGE diagnostic, so one run reports them all and the command body never reads argv. This
 * file holds what they share: reading argv against an option table, the options of every
 * configuration command and their checks, and the help text of those options.
 *
 * Imports nothing heavy: cli.ts loads every argument module before it knows the command, and
 * `plumb validate` must start in about node's own start-up time (bench/run.js).
 */
import type { ParseArgsConfig } from 'node:util';
import type { Diagnostic } from '../diagnostics/index.js';
import { closestMatch } from '../util/suggest.js';
import { targetProblem } from '../engine/targets.js';
import type { CdktfFlags } from './config-source.js';

export type Options = NonNullable<ParseArgsConfig['options']>;
export type Values = Record<string, string | boolean | string[] | undefined>;

/** One command's arguments and the mistakes found in them (`ParsePlan(args) (*Plan, tfdiags.Diagnostics)`). */
export interface Parsed<A> {
  readonly args: A;
  /** Every mistake on the command line; the command runs only when there is none. */
  readonly diagnostics: readonly Diagnostic[];
}

/** A mistake on the command line. */
export function usageProblem(summary: string, suggestion: string, detail?: string): Diagnostic {
  return { severity: 'error', code: 'PLUMB_USAGE', summary, ...(detail !== undefined && { detail }), suggestion };
}

/**
 * argv read against one command's option table. Where node's strict parseArgs stops at the first
 * mistake, this collects them all: unknown options, options without their value or with one they
 * do not take, arguments where the command takes none. The argument modules add their value
 * checks with {@link ArgvReader.problem} and finish with {@link ArgvReader.result}.
 */
export class ArgvReader {
  readonly positionals: string[] = [];
  private readonly values: Values = {};
  /** Mistakes in the shape of the command line (which options, which arguments). */
  private readonly shape: Diagnostic[] = [];
  /** Mistakes in the options' values. */
  private readonly checks: Diagnostic[] = [];
  readonly help: string;

  constructor(
    readonly command: string,
    argv: readonly string[],
    readonly options: Options,
    allowPositionals = true,
  ) {
    this.help = `plumb ${command} --help lists the options`;
    const names = Object.keys(options);
    for (const t of tokensOf(negativeValuesJoined(argv, options), options)) {
      if (t.kind === 'positional') {
        if (allowPositionals) this.positionals.push(t.value);
        else this.shape.push(usageProblem(`plumb ${command} takes no argument "${t.value}"`, this.help));
        continue;
      }
      if (t.kind !== 'option') continue;
      const spec = options[t.name];
      if (!spec) {
        const guess = closestMatch(t.name, names);
        this.shape.push(usageProblem(`Unknown option "${t.rawName}" for plumb ${command}`, guess ? `did you mean "--${guess}"? (${this.help})` : this.help));
        continue;
      }
      if (spec.type === 'boolean') {
        if (t.value !== undefined) this.shape.push(usageProblem(`Option ${t.rawName} of plumb ${command} takes no value`, `write ${t.rawName} alone (${this.help})`));
        else this.values[t.name] = true;
        continue;
      }
      // A value that looks like an option (`--out --json`) is a forgotten value, as in parseArgs's strict mode.
      if (t.value === undefined || (!t.inlineValue && t.value.startsWith('-'))) {
        this.shape.push(usageProblem(`Option ${t.rawName} of plumb ${command} needs a value`, `write ${t.rawName} VALUE (${this.help})`));
        continue;
      }
      if (spec.multiple) this.values[t.name] = [...((this.values[t.name] as string[] | undefined) ?? []), t.value];
      else this.values[t.name] = t.value;
    }
  }

  /** A string option's value, if given. */
  str(name: string): string | undefined {
    const v = this.values[name];
    return typeof v === 'string' ? v : undefined;
  }

  /** A repeatable option's values. */
  list(name: string): string[] {
    const v = this.values[name];
    return Array.isArray(v) ? v : [];
  }

  /** Whether a boolean option was given. */
  flag(name: string): boolean {
    return this.values[name] === true;
  }

  /** Every value read, by option name (what export hands each exporter). */
  all(): Readonly<Values> {
    return this.values;
  }

  /** Records a mistake in an option's value. */
  problem(summary: string, suggestion: string, detail?: string): void {
    this.checks.push(usageProblem(summary, suggestion, detail));
  }

  /**
   * The arguments and the mistakes. With `--help` the values are not checked (the usage is
   * shown instead), but a command line that cannot be read is still a mistake.
   */
  result<A extends { readonly help: boolean }>(args: A): Parsed<A> {
    return { args, diagnostics: args.help ? this.shape : [...this.shape, ...this.checks] };
  }
}

/** What ArgvReader reads of a token of node's parseArgs. */
type Token = { kind: 'positional'; value: string } | { kind: 'option'; name: string; rawName: string; value?: string | undefined; inlineValue?: boolean | undefined } | { kind: 'option-terminator' };

/**
 * argv's tokens, as node's parseArgs gives them. A command line without a single dash holds only
 * arguments, one positional token each, and needs no parser: `plumb validate` and `plumb plan
 * DIR`, run on every merge request, then load neither `node:util`'s public module nor parseArgs
 * (~0.5 ms of a cold start, issue 30).
 */
function tokensOf(args: string[], options: Options): readonly Token[] {
  if (!args.some((a) => a.startsWith('-'))) return args.map((value) => ({ kind: 'positional', value }));
  const { parseArgs } = process.getBuiltinModule('node:util');
  return parseArgs({ args, options, strict: false, allowPositionals: true, tokens: true }).tokens as readonly Token[];
}

/**
 * `--max-changes -1` as `--max-changes=-1`: a negative number is never an option, so the option's
 * own check says what it takes ("a whole number of 1 or more, not "-1""), where parseArgs would
 * say it "needs a value".
 */
function negativeValuesJoined(args: readonly string[], options: Options): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const next = args[i + 1];
    if (a.startsWith('--') && options[a.slice(2)]?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      out.push(`${a}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

export const HELP_OPTION = { help: { type: 'boolean', short: 'h', default: false } } as const satisfies Options;

/** The options of every configuration command (validate, plan, apply, drift). */
export const COMMON_OPTIONS = {
  config: { type: 'string', short: 'c', multiple: true },
  cdktf: { type: 'string' },
  'cdktf-timeout': { type: 'string' },
  now: { type: 'string' },
  state: { type: 'string' },
  instance: { type: 'string' },
  json: { type: 'boolean', default: false },
  debug: { type: 'boolean', default: false },
  concurrency: { type: 'string' },
  'allow-url': { type: 'string', multiple: true },
  ...HELP_OPTION,
} as const satisfies Options;

export const COMMON_HELP = `Common options:
  -c, --config PATH     a YAML file or directory of YAML files (repeatable; same as PATHS)
  --cdktf DIR           run the CDKTF app in DIR (the directory of its cdktf.json) and read its
                        synth output instead of YAML; only with this flag does plumb run an app
  --cdktf-timeout SECONDS  stop the app's synth (and everything it started) after this long
                        (default 120)
  --instance NAME       only this instance of the configuration
  --now DATE            the date plumb decides with (default: PLUMB_NOW, else today)
  --state FILE|URL      plumb's state file (default: PLUMB_STATE, else .plumb/state.json), or the
                        service's Terraform-state API, INSTANCE/api/v4/projects/ID/terraform/
                        state/NAME (apply holds its lock; see docs/ci.md)
  --concurrency N       API requests in flight per instance, 1 to 64 (default 8)
  --allow-url URL       an instance the token may be sent to (repeatable; also PLUMB_ALLOWED_URLS,
                        PLUMB_URL, CI_SERVER_URL in GitLab CI; loopback needs none; see
                        docs/config.md#where-the-token-may-go)
  --debug               one line per API call on stderr (never tokens or bodies)
  --json                machine-readable output on stdout
  -h, --help            this help`;

export const UNAVAILABLE_HELP = `  --unavailable-secrets skip
                        a secret setting whose \${env:NAME} is not set in this pipeline (a
                        protected variable in a merge-request pipeline) is not compared, and said
                        so, instead of an error (default: error; apply has no such option)`;

export const MAX_CHANGES_HELP = `  --max-changes N       more than N changes to one instance is the risk large-change-set, which
                        apply carries out only with --allow-risky or allow_risky (default 100)
  --max-match-change P  a selector whose match count moved by more than P percent (and more than
                        5 objects) since the last apply is the risk selector-match-count-changed
                        (0 to 100, default 10)`;

export const EXPIRING_HELP = `  --expiring-within DURATION
                        also list group access tokens, Pages certificates and unverified Pages
                        domains that expire within DURATION (30d, 4w), soonest first
                        (docs/report.md#the-expiry-horizon)`;

export const TARGET_HELP = `  --target ADDRESS      only resources at or beneath ADDRESS (repeatable; \`*\` matches within one
                        segment: 'prod.group["platform/*"]'; quote it for the shell)`;

/** The options every configuration command shares, as its arguments. */
export interface CommonArgs {
  readonly help: boolean;
  readonly config: string[];
  readonly cdktf?: CdktfFlags;
  readonly now?: string;
  readonly state?: string;
  readonly instance?: string;
  readonly json: boolean;
  readonly debug: boolean;
  readonly concurrency?: number;
  readonly maxChanges?: number;
  /** `--max-match-change`: percent a selector's count may move before selector-match-count-changed. */
  readonly maxMatchChange?: number;
  readonly targets: string[];
  readonly allowUrls: string[];
  readonly unavailableSecrets: boolean;
}

/** The common options' values, each checked (a mistake is recorded on `a`, the value left out). */
export function commonArgs(a: ArgvReader, paths: readonly string[] = a.positionals): CommonArgs {
  const more = `see plumb ${a.command} --help`;
  const concurrency = wholeNumber(a, 'concurrency', (n) => n >= 1 && n <= 64, (raw) => [`--concurrency must be a whole number from 1 to 64, not "${raw}"`, `leave it out for the default (8), or ${more}`]);
  const maxChanges = wholeNumber(a, 'max-changes', (n) => n >= 1, (raw) => [`--max-changes must be a whole number of 1 or more, not "${raw}"`, `leave it out for the default (100), or ${more}`]);
  const maxMatchChange = wholeNumber(a, 'max-match-change', (n) => n >= 0 && n <= 100, (raw) => [
    `--max-match-change must be a whole number of percent from 0 to 100, not "${raw}"`,
    `leave it out for the default (10), or ${more}`,
    ...(Number(raw) > 100 ? ['A selector that loses every match moves by 100%: above 100, a selector emptied by a moved group or a changed pattern would never be the risk selector-match-count-changed.'] : []),
  ]);
  const cdktf = a.str('cdktf');
  const rawTimeout = a.str('cdktf-timeout');
  let timeout = rawTimeout === undefined ? undefined : Number(rawTimeout);
  if (timeout !== undefined && !(Number.isFinite(timeout) && timeout > 0 && timeout <= 86_400 && rawTimeout!.trim() !== '')) {
    a.problem(`--cdktf-timeout must be a number of seconds above 0, not "${rawTimeout}"`, `leave it out for the default (120), or ${more}`);
    timeout = undefined;
  } else if (timeout !== undefined && cdktf === undefined) {
    a.problem('--cdktf-timeout applies only with --cdktf DIR', `give the app with --cdktf DIR, or leave --cdktf-timeout out (plumb ${a.command} --help)`);
  }
  // --now is checked by the command, with PLUMB_NOW: validate's verdict on a date it cannot use is
  // its document (`valid: false`, a Code Quality finding), not a usage error.
  const now = a.str('now');
  return {
    help: a.flag('help'),
    config: [...a.list('config'), ...paths],
    ...(cdktf !== undefined && { cdktf: { dir: cdktf, ...(timeout !== undefined && { timeoutMs: Math.round(timeout * 1000) }) } }),
    ...(now !== undefined && { now }),
    ...(a.str('state') !== undefined && { state: a.str('state') }),
    ...(a.str('instance') !== undefined && { instance: a.str('instance') }),
    json: a.flag('json'),
    debug: a.flag('debug'),
    ...(concurrency !== undefined && { concurrency }),
    ...(maxChanges !== undefined && { maxChanges }),
    ...(maxMatchChange !== undefined && { maxMatchChange }),
    targets: targets(a),
    allowUrls: allowUrls(a),
    unavailableSecrets: unavailableSecrets(a),
  };
}

/** A whole-number option; `explain(raw)` gives the summary, suggestion and detail of a bad value. */
function wholeNumber(a: ArgvReader, name: string, ok: (n: number) => boolean, explain: (raw: string) => string[]): number | undefined {
  const raw = a.str(name);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (raw.trim() !== '' && Number.isInteger(n) && ok(n)) return n;
  const [summary, suggestion, detail] = explain(raw);
  a.problem(summary!, suggestion!, detail);
  return undefined;
}

/** Whether `u` is an instance's base URL (what `--allow-url` takes; docs/config.md#where-the-token-may-go). */
export function isBaseUrl(u: string): boolean {
  try {
    const url = new URL(u);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === '' && url.search === '' && url.hash === '';
  } catch {
    return false;
  }
}

/** `--allow-url` values: absolute http(s) URLs. */
export function allowUrls(a: ArgvReader): string[] {
  return a.list('allow-url').filter((u) => {
    if (isBaseUrl(u)) return true;
    a.problem(`--allow-url ${JSON.stringify(u)} is not an instance's base URL`, `write the URL as the configuration's url, e.g. --allow-url https://code.example.com (plumb ${a.command} --help)`);
    return false;
  });
}

/** `--unavailable-secrets skip|error`. */
function unavailableSecrets(a: ArgvReader): boolean {
  const raw = a.str('unavailable-secrets');
  if (raw === undefined || raw === 'error') return false;
  if (raw === 'skip') return true;
  a.problem(`--unavailable-secrets must be skip or error, not "${raw}"`, `plumb ${a.command} --help`);
  return false;
}

/** `--target` values, each checked (docs/plans.md#targeting). */
function targets(a: ArgvReader): string[] {
  return a.list('target').filter((t) => {
    const problem = targetProblem(t);
    if (problem) a.problem(`--target ${JSON.stringify(t)} is not an address: ${problem}`, `write an address as the plan shows it, e.g. --target 'prod.group["platform/*"]' (plumb ${a.command} --help)`);
    return !problem;
  });
}


/** `--expiring-within`: the window as written and in days. */
export interface ExpiringWithin {
  readonly written: string;
  readonly days: number;
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
    return usageProblem(`--expiring-within must be a number of days or weeks such as 30d or 4w (at most ${MAX_WINDOW_DAYS}d), not "${raw}"`, `write e.g. --expiring-within 30d (plumb ${command} --help)`);
  }
  return { written: raw.trim(), days };
}

/** `--expiring-within` of plan, drift and report (docs/report.md#the-expiry-horizon), checked. */
export function expiringArg(a: ArgvReader): { readonly expiringWithin?: ExpiringWithin } {
  const raw = a.str('expiring-within');
  if (raw === undefined) return {};
  const w = parseExpiringWithin(raw, a.command);
  if ('severity' in w) {
    a.problem(w.summary, w.suggestion ?? a.help);
    return {};
  }
  return { expiringWithin: w };
}
