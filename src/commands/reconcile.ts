/**
 * `plumb plan`, `plumb apply` and `plumb drift`: load and validate the configuration offline, then
 * talk to the instance. Exit codes: plan 0 (or 2 with --detailed-exitcode when there are changes),
 * apply 0, drift 0 in sync / 2 drift; 1 for any error in all three; 130 (SIGINT) or 143 (SIGTERM)
 * when interrupted (interrupt.ts).
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { API_RESPONSE_CHANNEL, API_RETRY_CHANNEL } from '../api/events.js';
import type { ApiResponseEvent, ApiRetryEvent } from '../api/events.js';
import { fileErrorSentence } from '../util/file-error.js';
import type { ConfigResult } from '../config/validate.js';
import type { DesiredConfig } from '../config/model.js';
import type { DiagnosticCode } from '../diagnostics/codes.js';
import { makePlan, applyPlan, openSession, checkPlanPayloads } from '../engine/engine.js';
import { expandConfiguration } from '../engine/selectors.js';
import { mergeRequestSource, withholdMatches } from '../engine/withhold.js';
import { DEFAULT_SELECTOR_CHANGE } from '../engine/selector-counts.js';
import type { EngineOptions, Session } from '../engine/engine.js';
import { RunMemo } from '../engine/memo.js';
import { checkPlanFile, hasChanges, lockChanged, unacknowledgedRisks } from '../engine/plan.js';
import { lockInstances, recordLockLocations, releaseAll } from '../engine/instance-lock.js';
import { FileStateLock, LockFailed, LockHeld } from '../engine/lock.js';
import type { StateLock } from '../engine/lock.js';
import { StateProblem, checkStateFile, parseState } from '../engine/state.js';
import { instanceAt, planConnectionProblem, trustedCaFile } from '../engine/connection.js';
import type { Plan } from '../engine/plan.js';
import { renderPlanHtml } from '../render/html.js';
import { renderPlanMarkdown, renderPlanReport, MARKDOWN_LIMIT } from '../render/markdown.js';
import { builtInKinds, writesStdout } from '../resources/index.js';
import type { KindSet } from '../resources/index.js';
import { checkWritable, errnoText, writeFileAtomic } from '../util/write-file.js';
import { clean } from '../util/terminal.js';
import { protectedFile } from '../config/resolve-context.js';
import { loadConfiguration } from './config-source.js';
import type { CdktfFlags } from './config-source.js';
import { renderDriftJunit } from './junit.js';
import { HttpStateBackend, HttpStateLock, LocalCopy, StateBackendError, backendAuth, backendUrl, isBackendAddress, readCaBundle } from './state-backend.js';
import { parseNow } from './now.js';
import { joinPointer } from '../config/pointer.js';
import type { CommandHooks, Io } from './output.js';
import { applyPreview, machineOutput, reconcileView } from './views/reconcile.js';
import { Interrupts } from './interrupt.js';
import type { ReconcileView } from './views/reconcile.js';
import type { ProblemView } from './views/problem.js';
import { RequestBudget } from '../api/client.js';

export interface CommonFlags {
  readonly config: readonly string[];
  /** `--cdktf DIR`: read the configuration from the CDKTF app in DIR (docs/cdktf.md). */
  readonly cdktf?: string | CdktfFlags;
  /** Print one line per API call (method, path, status, time) to stderr. Never tokens or bodies. */
  readonly debug?: boolean;
  /** Most API requests in flight at once, per instance. */
  readonly concurrency?: number;
  /** `--max-changes` (plan, apply): more changes to one instance is the risk `large-change-set`. */
  readonly maxChanges?: number;
  /** `--max-match-change` (plan, apply): percent a selector's match count may move (selector-counts.ts). */
  readonly maxMatchChange?: number;
  readonly now?: string;
  readonly state?: string;
  readonly instance?: string;
  readonly json: boolean;
  /** `--target`: only these addresses (globs, src/engine/targets.ts); empty or absent: everything. */
  readonly targets?: readonly string[];
  /** `--allow-url`: instances the token may be sent to, besides the environment's (engine/connection.ts). */
  readonly allowUrls?: readonly string[];
  /** `--unavailable-secrets skip` (plan, drift): a secret setting whose variable is unset is not compared. */
  readonly unavailableSecrets?: boolean;
  /** `--expiring-within` (plan, drift, report): list what expires within the window (docs/report.md#the-expiry-horizon). */
  readonly expiringWithin?: { readonly written: string; readonly days: number };
  /** `report --max-requests`: the run's request budget, discovery included. */
  readonly maxRequests?: number;
}

export interface PlanFlags extends CommonFlags {
  readonly out?: string;
  readonly markdown?: string;
  readonly report?: string;
  /** `--html FILE`: the plan as one self-contained HTML page (render/html.ts). */
  readonly html?: string;
  readonly detailedExitcode: boolean;
  /** `--show-content`: read text files to show a bounded diff of their content. */
  readonly showContent?: boolean;
  /** `--show-private-content`: the diff shows private projects' files too (command line only). */
  readonly showPrivateContent?: boolean;
  /**
   * `--withhold-matches` / `--show-matches`: whether the names of selector matches are withheld
   * (engine/withhold.ts). Absent: withheld on a merge request, as the CI's variables say.
   */
  readonly matches?: 'withhold' | 'show';
}

export interface ApplyFlags extends CommonFlags {
  readonly planFile?: string;
  readonly autoApprove: boolean;
  /** `--allow-risky`: apply changes that can lock people or plumb out (see docs/plans.md). */
  readonly allowRisky?: boolean;
  /** `--allow-destroy`: apply destroys the configuration does not opt into (unpublishing Pages). */
  readonly allowDestroy?: boolean;
  /** Answers the TTY prompt (tests); defaults to reading a line from stdin. */
  readonly confirm?: () => Promise<boolean>;
  /** `--lock-timeout`: how long to wait for another apply's lock on the state file; 0 (default) fails at once. */
  readonly lockTimeoutMs?: number;
}

export interface RunHooks extends CommandHooks {
  /** Test hook: replaces real sleeping (settings cache waits). */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Test hook: client tuning (the fault soak shortens back-off and time-outs). */
  readonly client?: Pick<EngineOptions, 'maxAttempts' | 'baseDelayMs' | 'requestTimeoutMs'>;
}

/** What load() needs of a command's view: its problems, the configuration's diagnostics, reading's log section. */
export type LoadView = ProblemView & Pick<ReconcileView, 'configDiagnostics' | 'configInvalid' | 'readStart' | 'readEnd'>;

/** Builds a command's view for the chosen format (`json`), on `io`. */
export type ViewFactory<V extends LoadView> = (json: boolean, io: Io, redact: (s: string) => string, reasons: KindSet['reasonText']) => V;

export interface Loaded<V extends LoadView = ReconcileView> {
  /**
   * Where the command's view writes: `io`, or for an apply whose configuration declares a token
   * sink with `stdout: true`, `io` with stdout turned to stderr (that sink owns standard output).
   */
  readonly io: Io;
  /** The Terraform-state backend and the engine's local copy of its state (`--state https://…`). */
  readonly backend?: { readonly backend: HttpStateBackend; readonly copy: LocalCopy };
  readonly loaded: ConfigResult;
  readonly config: DesiredConfig;
  readonly engine: EngineOptions;
  readonly redact: (s: string) => string;
  readonly view: V;
  readonly kinds: KindSet;
  /** Where the state comes from, for messages: `--state URL`, `PLUMB_STATE FILE`, … */
  readonly stateNamed: string;
  /** SIGINT/SIGTERM while the command runs (interrupt.ts). */
  readonly interrupts?: Interrupts;
  /** `--max-requests`: the budget every client of the run takes from. */
  readonly budget?: RequestBudget;
}

/**
 * Loads the configuration and builds the command's view (once: for the format the flags chose, on
 * the stream the configuration leaves it). Every early exit answers through that view.
 * `inPlan`: the command shows a plan made from this configuration, which carries its warnings.
 * `apply`: a token sink with `stdout: true` owns standard output (the view writes on stderr).
 */
export async function load<V extends LoadView = ReconcileView>(flags: CommonFlags, io: Io, hooks: RunHooks, inPlan = true, apply = false, makeView: ViewFactory<V> = reconcileView as unknown as ViewFactory<V>): Promise<Loaded<V> | number> {
  const kinds = hooks.kinds ?? (await builtInKinds());
  // The configuration's secrets are known once it is loaded; the view redacts with them from then on.
  const known: { secrets?: ConfigResult['sources']['secrets'] } = {};
  const redact = (s: string) => (known.secrets ? known.secrets.redact(s) : s);
  let view = makeView(flags.json, io, redact, kinds.reasonText);
  const now = parseNow(flags.now, io.env);
  if (!(now instanceof Date)) return view.problem([now]);
  const loaded = await loadConfiguration(flags.config, flags.cdktf, { env: io.env, cwd: io.cwd, today: now.toISOString().slice(0, 10), unavailableSecrets: flags.unavailableSecrets === true, kinds });
  known.secrets = loaded.sources.secrets;
  view.configDiagnostics(loaded, inPlan);
  if (!loaded.config) return view.configInvalid(loaded);
  // Nothing has reached stdout yet: the view that writes the command's document is built here.
  const out: Io = apply && writesStdout(loaded.config.instances, flags.instance, kinds.engine) ? { ...io, stdout: io.stderr } : io;
  if (out !== io) view = makeView(flags.json, out, redact, kinds.reasonText);
  const stateSpec = flags.state ?? io.env.PLUMB_STATE ?? '.plumb/state.json';
  // How messages name where the state comes from: the option (or variable) and its value.
  const stateNamed = `${flags.state !== undefined ? '--state' : io.env.PLUMB_STATE !== undefined ? 'PLUMB_STATE' : 'the default state'} ${shownState(stateSpec)}`;
  let backend: Loaded['backend'];
  // `ftp://…`, `file://…`, `s3://…` would otherwise be a relative path ("ftp:/…") quietly created.
  if (!isBackendAddress(stateSpec) && /^[a-z][a-z0-9+.-]*:\/\//i.test(stateSpec)) {
    return usageProblem(
      view,
      'PLUMB_STATE_BACKEND',
      `${stateNamed} is neither a file path nor an http(s) address: plumb keeps its state in a local file or the service's Terraform-state API only`,
      'give a file path (.plumb/state.json) or INSTANCE/api/v4/projects/PROJECT/terraform/state/NAME over https (a file path that really starts so: put ./ before it)',
    );
  }
  if (isBackendAddress(stateSpec)) {
    try {
      const url = backendUrl(stateSpec, io.env, flags.allowUrls);
      const base = url.href.slice(0, url.href.indexOf('/api/v4/'));
      const inst = instanceAt(base, loaded.config.instances);
      const auth = backendAuth(io.env, inst ? io.env[inst.tokenEnv] : undefined);
      if (!auth) throw new StateBackendError('PLUMB_STATE_BACKEND', `No token for the state backend ${url.origin}${url.pathname}`, 'run in the service\'s CI (CI_JOB_TOKEN), set PLUMB_STATE_TOKEN, or use an instance of the configuration on that host');
      loaded.sources.secrets.add(auth.secret);
      // The CAs the API client trusts for this host: the instance's ca_bundle, else the runner's in CI.
      backend = { backend: new HttpStateBackend(url, auth.headers, readCaBundle(trustedCaFile(base, loaded.config.instances, io.env))), copy: new LocalCopy() };
    } catch (err) {
      return stateProblem(view, err, stateNamed);
    }
  }
  const stateFile = backend ? backend.copy.file : path.resolve(io.cwd, stateSpec);
  const budget = flags.maxRequests !== undefined ? new RequestBudget(flags.maxRequests) : undefined;
  const engine: EngineOptions = {
    kinds: kinds.engine,
    env: io.env,
    now,
    stateFile,
    instance: flags.instance,
    ...(flags.targets && flags.targets.length > 0 && { targets: flags.targets }),
    // The engine's lines quote the instance (a lock holder's host, a token's name): cleaned for the log.
    log: (m) => io.stderr(redact(clean(m)) + '\n'),
    stdout: machineOutput(io),
    sleep: hooks.sleep,
    // One memo for the run: the selectors' listing, the plan and the apply (engine/memo.ts).
    memo: new RunMemo(),
    ...hooks.client,
    ...(flags.concurrency !== undefined && { concurrency: flags.concurrency }),
    ...(flags.maxChanges !== undefined && { maxChanges: flags.maxChanges }),
    ...(flags.maxMatchChange !== undefined && { selectorChange: { ...DEFAULT_SELECTOR_CHANGE, percent: flags.maxMatchChange } }),
    ...(flags.allowUrls && flags.allowUrls.length > 0 && { allowedUrls: flags.allowUrls }),
    ...(budget && { budget }),
    ...(flags.expiringWithin && { expiringWithin: flags.expiringWithin }),
  };
  traceApiCalls(flags.debug ? io : undefined, redact);
  // Selectors become entries once discovery has listed their groups (engine/selectors.ts).
  const expanded = await expandConfiguration(loaded, engine, { env: io.env, cwd: io.cwd, today: now.toISOString().slice(0, 10), unavailableSecrets: flags.unavailableSecrets === true, kinds });
  if (!expanded.config) {
    view.configDiagnostics(expanded, false);
    return view.configInvalid(expanded);
  }
  return { io: out, loaded: expanded, config: expanded.config, engine, redact, view, kinds, stateNamed, ...(backend && { backend }), ...(budget && { budget }) };
}

/** A `--state` value as messages show it: an address without credentials, query or fragment (they may hold a token). */
function shownState(spec: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(spec)) return spec;
  try {
    const u = new URL(spec);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return `${spec.slice(0, spec.indexOf('://'))}://… (not a URL)`;
  }
}

/**
 * A state backend problem as a diagnostic named after the option it comes from (`--state URL: …`);
 * exit 1. Anything else is rethrown.
 */
function stateProblem(view: ProblemView, err: unknown, named: string): number {
  if (!(err instanceof StateBackendError) && !(err instanceof LockHeld)) throw err;
  return view.problem([err.toDiagnostic({ summary: `${named}: ${err.summary}` })]);
}

/**
 * Runs a command with its state: a local file as is; the backend's state copied in (plan and drift
 * read without locking) and, for apply (which holds the backend's `lock` for the whole run), written
 * back as a new version when the run changed it.
 */
export async function withState(l: Loaded<LoadView>, lock: HttpStateLock | undefined, run: () => Promise<number>): Promise<number> {
  const b = l.backend;
  if (!b) return run();
  let text: string | undefined;
  try {
    text = await b.backend.read();
  } catch (err) {
    b.copy.done();
    return stateProblem(l.view, err, l.stateNamed);
  }
  // Anything but plumb's own state (a Terraform state of the same name) is refused, never replaced.
  const problem = text === undefined ? undefined : parseState(text, `The state at ${b.backend.address}`);
  if (problem instanceof StateProblem) {
    b.copy.done();
    return l.view.problem([problem.toDiagnostic({ summary: `${l.stateNamed}: ${problem.summary}` })]);
  }
  b.copy.fill(text);
  let code = 1;
  let keep = false;
  // Ended at once by a second signal: the engine writes its state into the copy, which is kept.
  const kept = l.interrupts?.atHardExit(() => l.io.stderr(`The state this apply recorded is kept in ${b.copy.file}; store it before the next apply.\n`));
  try {
    code = await run();
  } finally {
    kept?.();
    try {
      const changed = lock ? b.copy.changed() : undefined;
      if (changed !== undefined) await b.backend.write(changed, lock!.id);
    } catch (err) {
      keep = true;
      code = stateProblem(l.view, err, l.stateNamed);
      l.io.stderr(`The state this apply recorded is kept in ${b.copy.file}; store it before the next apply.\n`);
    }
    if (!keep) b.copy.done();
  }
  return code;
}

/** Where `--debug` lines go for the current command (subscribed once per process). */
let traceLine: ((s: string) => void) | undefined;
let traceSubscribed = false;

/** `--debug`: the client's diagnostics_channel events as lines on stderr (`io` undefined: off). */
function traceApiCalls(io: Io | undefined, redact: (s: string) => string): void {
  traceLine = io ? (s) => io.stderr(redact(clean(`debug: ${s}`)) + '\n') : undefined;
  if (traceSubscribed || !io) return;
  traceSubscribed = true;
  diagnosticsChannel.subscribe(API_RESPONSE_CHANNEL, (m) => {
    const e = m as ApiResponseEvent;
    traceLine?.(`${e.method} /api/v4${e.path} → ${e.status} (${e.durationMs.toFixed(0)} ms${e.attempt > 1 ? `, attempt ${e.attempt}` : ''})`);
  });
  diagnosticsChannel.subscribe(API_RETRY_CHANNEL, (m) => {
    const e = m as ApiRetryEvent;
    traceLine?.(`${e.method} /api/v4${e.path}: ${e.reason}; retrying in ${e.delayMs.toFixed(0)} ms`);
  });
}

/** A problem with what the command was given (not with the configuration), as a diagnostic; exit 1. */
export function usageProblem(view: ProblemView, code: DiagnosticCode, summary: string, suggestion: string): number {
  return view.problem([{ severity: 'error', code, summary, suggestion }]);
}

/**
 * Whether an output the command line names may be written: never over a configuration file, a
 * file the configuration reads (`source:`), or anything under .git/ (as a token's sink), then
 * `checkWritable`. The refusal as a diagnostic; undefined when it may.
 */
const OUTPUT_EXAMPLES: Readonly<Record<string, string>> = { '--out': 'plan.json', '--markdown': 'plan.md', '--report': 'plan-report.json', '--junit': 'drift-junit.xml', '--html': 'plan.html' };

export function outputProblem(view: ProblemView, loaded: ConfigResult, option: string, given: string, file: string, example = OUTPUT_EXAMPLES[option] ?? 'out.txt'): number | undefined {
  const over = protectedFile(file, loaded.protectedFiles ?? new Map());
  if (over) return usageProblem(view, 'PLUMB_OUTPUT_UNWRITABLE', `${option} ${given} would overwrite ${over}`, `name another file for ${option}, outside the configuration's files and .git/ (e.g. ${option} ${example})`);
  const problem = checkWritable(file, { createDirectory: true });
  if (problem) return usageProblem(view, 'PLUMB_OUTPUT_UNWRITABLE', `${option} ${given} cannot be written: ${problem.why}`, problem.fix);
  return undefined;
}

/** The files plan was asked to write, each checked before the instance is read. */
function planOutputs(flags: PlanFlags, cwd: string): { option: string; given: string; file: string }[] {
  const outs: { option: string; given: string; file: string }[] = [];
  for (const option of ['out', 'markdown', 'report', 'html'] as const) {
    const given = flags[option];
    if (given !== undefined) outs.push({ option: `--${option}`, given, file: path.resolve(cwd, given) });
  }
  return outs;
}

/** Runs a command with SIGINT and SIGTERM answered as interrupt.ts says. */
async function interruptible(command: 'plan' | 'apply' | 'drift', io: Io, json: boolean, run: (interrupts: Interrupts) => Promise<number>): Promise<number> {
  const interrupts = new Interrupts(io, command, json);
  const stop = interrupts.watch();
  try {
    return await run(interrupts);
  } finally {
    stop();
  }
}

export async function runPlan(flags: PlanFlags, io: Io, hooks: RunHooks = {}): Promise<number> {
  return interruptible('plan', io, flags.json, () => planCommand(flags, io, hooks));
}

async function planCommand(flags: PlanFlags, io: Io, hooks: RunHooks): Promise<number> {
  const l = await load(flags, io, hooks);
  if (typeof l === 'number') return l;
  const outputs = planOutputs(flags, io.cwd);
  for (const o of outputs) {
    const refused = outputProblem(l.view, l.loaded, o.option, o.given, o.file);
    if (refused !== undefined) return refused;
  }
  return withState(l, undefined, () => planLoaded(flags, io, l, outputs));
}

async function planLoaded(flags: PlanFlags, io: Io, l: Loaded, outputs: ReturnType<typeof planOutputs>): Promise<number> {
  const made = await planWithProgress(io, l.redact, () => makePlan(l.loaded, l.config, { ...l.engine, ...(flags.showContent && { showContent: true }), ...(flags.showPrivateContent && { showPrivateContent: true }) }), l.view);
  // On a merge request, the names of what selectors found are withheld from every output (docs/security.md).
  const why = flags.matches === 'show' ? undefined : flags.matches === 'withhold' ? '--withhold-matches' : mergeRequestSource(io.env);
  const plan = why === undefined ? made : withholdMatches(made, l.loaded, why);
  l.view.plan(plan);
  if (!plan.applicable) return 1;
  // Blocked matches (docs/plans.md#blocked-matches): the plan of the rest is written, and the run fails.
  const blocked = (plan.blocked ?? []).length > 0;
  for (const o of outputs) {
    // A saved plan names the instance's resources: 0600. The comment and the report are meant to be posted.
    const [content, mode] =
      o.option === '--out'
        ? [l.redact(JSON.stringify(plan, null, 2)) + '\n', 0o600]
        : o.option === '--markdown'
          ? [l.redact(renderPlanMarkdown(plan, MARKDOWN_LIMIT, l.kinds.reasonText)), 0o644]
          : o.option === '--html'
            ? [l.redact(renderPlanHtml(plan, l.kinds.reasonText, 'plan')), 0o644]
            : [JSON.stringify(renderPlanReport(plan)) + '\n', 0o644];
    try {
      await writeFileAtomic(o.file, content, { mode });
    } catch (err) {
      return usageProblem(l.view, 'PLUMB_OUTPUT_UNWRITABLE', `${o.option} ${o.given} could not be written: ${errnoText(err)}`, 'fix the path or its permissions and plan again');
    }
  }
  if (blocked) return 1;
  return flags.detailedExitcode && (hasChanges(plan) || lockChanged(plan)) ? 2 : 0;
}


async function askOnTty(view: ReconcileView): Promise<boolean> {
  view.prompt();
  const rl = createInterface({ input: process.stdin });
  const answer = await new Promise<string>((resolve) => rl.once('line', resolve).once('close', () => resolve('')));
  rl.close();
  return answer.trim() === 'yes';
}

export async function runApply(flags: ApplyFlags, io0: Io, hooks: RunHooks = {}): Promise<number> {
  return interruptible('apply', io0, flags.json, (interrupts) => applyCommand(flags, io0, hooks, interrupts));
}

async function applyCommand(flags: ApplyFlags, io0: Io, hooks: RunHooks, interrupts: Interrupts): Promise<number> {
  const loaded = await load({ ...flags, unavailableSecrets: false }, io0, hooks, !flags.planFile, true);
  if (typeof loaded === 'number') return loaded;
  const l: Loaded = { ...loaded, interrupts };
  // Every output apply writes is checked before the first request: a state file that cannot
  // record a newly issued token must stop apply before the token is issued. (A state backend is
  // checked by reading it, under its lock.)
  if (!l.backend) {
    const stateProblem = checkStateFile(l.engine.stateFile);
    if (stateProblem) return l.view.problem([stateProblem.toDiagnostic()]);
  }
  // One apply at a time per state, from before its plan to after its last write: the state
  // backend's lock, or the state file's.
  const lock: StateLock = l.backend ? new HttpStateLock(l.backend.backend, 'plumb apply') : new FileStateLock(l.engine.stateFile);
  try {
    await lock.acquire({ timeoutMs: flags.lockTimeoutMs ?? 0, log: l.engine.log });
  } catch (err) {
    if (err instanceof LockHeld && !l.backend) return l.view.problem([err.toDiagnostic()]);
    return stateProblem(l.view, err, l.stateNamed);
  }
  let code = 1;
  try {
    code = await withState(l, lock instanceof HttpStateLock ? lock : undefined, () => applyLoaded(flags, l));
  } finally {
    try {
      await lock.release();
    } catch (err) {
      // A lock left behind refuses every later apply: the run fails, though its changes went through.
      code = stateProblem(l.view, err, l.stateNamed);
    }
  }
  return code;
}

async function applyLoaded(flags: ApplyFlags, l: Loaded): Promise<number> {
  // A kind that writes machine-readable output (issued secrets, one JSON line each) owns standard
  // output; everything meant for people goes to standard error (`l.io`, load()).
  const { io, view } = l;
  let plan: Plan;
  let fromFile = false;
  if (flags.planFile) {
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(path.resolve(io.cwd, flags.planFile), 'utf8'));
    } catch (err) {
      const why = err instanceof SyntaxError ? 'it is not JSON' : fileErrorSentence(err);
      return usageProblem(view, 'PLUMB_PLAN_UNREADABLE', `Cannot read the plan file ${flags.planFile}: ${why}`, 'apply the file `plumb plan --out FILE` wrote');
    }
    const problem = checkPlanFile(data) ?? checkPlanPayloads(data as Plan, l.kinds.engine);
    if (problem) return usageProblem(view, 'PLUMB_PLAN_INVALID', `${flags.planFile} is not a plan plumb can apply: ${problem}`, 'make a new plan with `plumb plan --out FILE`');
    plan = data as Plan;
    fromFile = true;
    if (plan.withheld) {
      return usageProblem(view, 'PLUMB_PLAN_WITHHELD', `${flags.planFile} was made for a merge request (${plan.withheld.why}): the names of ${plan.withheld.matches} selector match(es) are withheld from it, so it cannot be applied`, 'apply the plan of the protected default-branch job, or plan and apply there (`plumb plan --out FILE`, then `plumb apply FILE`)');
    }
    // The connection comes from the configuration and the pinned URLs, never from the plan file.
    const elsewhere = planConnectionProblem(plan, l.config);
    if (elsewhere) {
      return usageProblem(view, 'PLUMB_PLAN_INSTANCE_MISMATCH', `${flags.planFile} does not match the configuration: ${elsewhere}; nothing was sent`, 'apply the plan with the configuration it was made from, or make a new plan with `plumb plan --out FILE`');
    }
    const given = flags.targets ?? [];
    if (given.length > 0 && JSON.stringify(given) !== JSON.stringify(plan.targets ?? [])) {
      return usageProblem(view, 'PLUMB_USAGE', `--target does not apply to a saved plan: ${flags.planFile} was made ${plan.targets?.length ? `with --target ${plan.targets.join(', ')}` : 'without --target'}`, 'leave --target out (apply uses the plan\'s targets), or make a new plan with the targets you want');
    }
  } else {
    if (!flags.autoApprove && !io.isTTY && !flags.confirm) return view.needsConfirmation();
    const session = openSession(l.loaded, l.config, l.engine);
    const locks = await lockTheInstances(session, flags, io, l);
    if (typeof locks === 'number') {
      await session.close();
      return locks;
    }
    try {
      plan = await planWithProgress(io, l.redact, () => makePlan(l.loaded, l.config, l.engine, session), view);
      applyPreview(flags.json, io, l.redact, l.kinds.reasonText).plan(plan);
      if (!plan.applicable) return view.notApplicable(plan);
      // A moved lock is a change of its own: the apply records where it held it.
      if (!hasChanges(plan) && !lockChanged(plan)) {
        recordLockLocations(session.contexts);
        for (const ctx of session.contexts.values()) ctx.state.flush();
        view.nothingToApply(false);
        return (plan.blocked ?? []).length > 0 ? 1 : 0;
      }
      // A plan apply would refuse for its risks is not worth a question.
      const refusesRisks = unacknowledgedRisks(plan, flags).length > 0;
      if (!flags.autoApprove && !refusesRisks) {
        const yes = await (flags.confirm ?? (() => askOnTty(view)))();
        if (!yes) return view.cancelled();
      }
      const report = await applyPlan(plan, l.loaded, l.config, { ...l.engine, fromFile: false, allowRisky: !!flags.allowRisky, allowDestroy: !!flags.allowDestroy, ...progressOn(io), ...(l.interrupts && { interrupt: l.interrupts }) }, session);
      return view.applyReport(report);
    } finally {
      await releaseAll(locks);
      await session.close();
    }
  }
  if (!hasChanges(plan) && !lockChanged(plan)) {
    view.nothingToApply(true);
    return (plan.blocked ?? []).length > 0 ? 1 : 0;
  }
  // A saved plan applies with the targets it was made with: only their instances are opened.
  const engine = { ...l.engine, ...(plan.targets && plan.targets.length > 0 && { targets: plan.targets }) };
  const session = openSession(l.loaded, l.config, engine);
  const locks = await lockTheInstances(session, flags, io, l);
  if (typeof locks === 'number') {
    await session.close();
    return locks;
  }
  try {
    const report = await applyPlan(plan, l.loaded, l.config, { ...engine, fromFile, allowRisky: !!flags.allowRisky, allowDestroy: !!flags.allowDestroy, ...progressOn(io), ...(l.interrupts && { interrupt: l.interrupts }) }, session);
    return view.applyReport(report);
  } finally {
    await releaseAll(locks);
    await session.close();
  }
}

/**
 * The lock on each instance that declares `lock:` (docs/state.md#locking), taken with the session's
 * own clients (a rotation of plumb's own token switches them, and the release still works), before
 * anything is read for the plan. Exit code 1 when one cannot be taken.
 */
async function lockTheInstances(session: Session, flags: ApplyFlags, io: Io, l: Loaded): Promise<StateLock[] | number> {
  try {
    return await lockInstances(session, { timeoutMs: flags.lockTimeoutMs ?? 0, log: l.engine.log, env: io.env });
  } catch (err) {
    if (!(err instanceof LockHeld || err instanceof LockFailed)) throw err;
    // Located at the instance's `lock:` block, where the project, path and branch are declared.
    const at = err.instance === undefined ? undefined : l.loaded.sources.locations.get(joinPointer('/instances', err.instance, 'lock'));
    const location = at?.key ?? at?.value;
    return l.view.problem([err.toDiagnostic({ summary: l.redact(err.summary), ...(location && { location }) })], l.loaded.sources.texts);
  }
}

/** Progress goes to a terminal only, on stderr: never into piped output or CI logs. */
function showsProgress(io: Io): boolean {
  return io.isTTY && !io.env.CI;
}

const seconds = (since: number): string => `${((performance.now() - since) / 1000).toFixed(1)} s`;

/** Apply's progress: one self-overwriting line, done/total, the change that finished, elapsed. */
function progressOn(io: Io): { onProgress?: (done: number, total: number, address: string) => void } {
  if (!showsProgress(io)) return {};
  const t0 = performance.now();
  return {
    onProgress: (done, total, address) => {
      io.stderr(`\r\x1b[2K[${done}/${total}] ${clean(address)} · ${seconds(t0)}${done === total ? '\n' : ''}`);
    },
  };
}

/**
 * Reading progress while a plan is made (how many calls are unknown until the kinds have read):
 * requests answered, the last one, elapsed; at most ten updates a second, cleared when done.
 */
function readProgress(io: Io, redact: (s: string) => string): () => void {
  if (!showsProgress(io)) return () => {};
  const t0 = performance.now();
  let answered = 0;
  let shown = 0;
  const onResponse = (m: unknown): void => {
    const e = m as ApiResponseEvent;
    answered++;
    const now = performance.now();
    if (now - shown < 100) return;
    shown = now;
    io.stderr(redact(`\r\x1b[2K[reading] ${answered} request(s) · ${e.method} ${e.path} · ${seconds(t0)}`));
  };
  diagnosticsChannel.subscribe(API_RESPONSE_CHANNEL, onResponse);
  return () => {
    diagnosticsChannel.unsubscribe(API_RESPONSE_CHANNEL, onResponse);
    if (shown > 0) io.stderr('\r\x1b[2K');
  };
}

/** Makes a plan with reading progress on a terminal. */
export async function planWithProgress(io: Io, redact: (s: string) => string, make: () => Promise<Plan>, view?: Pick<ReconcileView, 'readStart' | 'readEnd'>): Promise<Plan> {
  const done = readProgress(io, redact);
  view?.readStart();
  try {
    return await make();
  } finally {
    view?.readEnd();
    done();
  }
}

export interface DriftFlags extends CommonFlags {
  /** `--junit FILE`: also write the result as a JUnit XML report (src/commands/junit.ts). */
  readonly junit?: string;
  /** `--html FILE`: also write the result as one self-contained HTML page (render/html.ts). */
  readonly html?: string;
}

export async function runDrift(flags: DriftFlags, io: Io, hooks: RunHooks = {}): Promise<number> {
  return interruptible('drift', io, flags.json, () => driftCommand(flags, io, hooks));
}

async function driftCommand(flags: DriftFlags, io: Io, hooks: RunHooks): Promise<number> {
  const l = await load(flags, io, hooks);
  if (typeof l === 'number') return l;
  const junit = flags.junit === undefined ? undefined : path.resolve(io.cwd, flags.junit);
  const html = flags.html === undefined ? undefined : path.resolve(io.cwd, flags.html);
  for (const [option, given, file] of [['--junit', flags.junit, junit], ['--html', flags.html, html]] as const) {
    if (file === undefined) continue;
    const refused = outputProblem(l.view, l.loaded, option, given!, file);
    if (refused !== undefined) return refused;
  }
  return withState(l, undefined, async () => {
    const t0 = performance.now();
    const plan = await planWithProgress(io, l.redact, () => makePlan(l.loaded, l.config, { ...l.engine, compareOnly: true }), l.view);
    if (junit) {
      try {
        await writeFileAtomic(junit, l.redact(renderDriftJunit(plan, l.kinds.reasonText, (performance.now() - t0) / 1000)), { mode: 0o644 });
      } catch (err) {
        return usageProblem(l.view, 'PLUMB_OUTPUT_UNWRITABLE', `--junit ${flags.junit} could not be written: ${errnoText(err)}`, 'fix the path or its permissions and run drift again');
      }
    }
    if (html) {
      try {
        await writeFileAtomic(html, l.redact(renderPlanHtml(plan, l.kinds.reasonText, 'drift')), { mode: 0o644 });
      } catch (err) {
        return usageProblem(l.view, 'PLUMB_OUTPUT_UNWRITABLE', `--html ${flags.html} could not be written: ${errnoText(err)}`, 'fix the path or its permissions and run drift again');
      }
    }
    return l.view.drift(plan);
  });
}
