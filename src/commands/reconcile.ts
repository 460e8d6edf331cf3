/**
 * `plumb plan`, `plumb apply` and `plumb drift`: load and validate the configuration offline, then
 * talk to the instance. Exit codes: plan 0 (or 2 with --detailed-exitcode when there are changes),
 * apply 0, drift 0 in sync / 2 drift; 1 for any error in all three.
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import { readFileSync, writeFileSync, renameSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { API_RESPONSE_CHANNEL, API_RETRY_CHANNEL } from '../api/events.js';
import type { ApiResponseEvent, ApiRetryEvent } from '../api/events.js';
import { fileErrorSentence } from '../config/load.js';
import { loadConfig } from '../config/validate.js';
import type { ConfigResult } from '../config/validate.js';
import type { DesiredConfig } from '../config/model.js';
import { hasErrors } from '../diagnostics/index.js';
import { renderDiagnosticsHuman } from '../diagnostics/render.js';
import { makePlan, applyPlan, openSession } from '../engine/engine.js';
import type { ApplyReport, EngineOptions } from '../engine/engine.js';
import { checkPlanFile, hasChanges, unacknowledgedRisks } from '../engine/plan.js';
import type { Plan } from '../engine/plan.js';
import { renderPlanHuman, renderDiagnosticLine } from '../render/human.js';
import { renderPlanMarkdown, renderPlanReport } from '../render/markdown.js';
import { parseNow } from './now.js';
import type { Io } from './output.js';
import { useColor } from './output.js';

export interface CommonFlags {
  readonly config: readonly string[];
  /** Print one line per API call (method, path, status, time) to stderr. Never tokens or bodies. */
  readonly debug?: boolean;
  /** Most API requests in flight at once, per instance. */
  readonly concurrency?: number;
  readonly now?: string;
  readonly state?: string;
  readonly instance?: string;
  readonly json: boolean;
}

export interface PlanFlags extends CommonFlags {
  readonly out?: string;
  readonly markdown?: string;
  readonly report?: string;
  readonly detailedExitcode: boolean;
}

export interface ApplyFlags extends CommonFlags {
  readonly planFile?: string;
  readonly autoApprove: boolean;
  /** `--allow-risky`: apply changes that can lock people or plumb out (see docs/plans.md). */
  readonly allowRisky?: boolean;
  /** Answers the TTY prompt (tests); defaults to reading a line from stdin. */
  readonly confirm?: () => Promise<boolean>;
}

export interface RunHooks {
  /** Test hook: replaces real sleeping (settings cache waits). */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Test hook: client tuning (the fault soak shortens back-off and time-outs). */
  readonly client?: Pick<EngineOptions, 'maxAttempts' | 'baseDelayMs' | 'requestTimeoutMs'>;
}

interface Loaded {
  readonly loaded: ConfigResult;
  readonly config: DesiredConfig;
  readonly engine: EngineOptions;
  readonly redact: (s: string) => string;
}

function load(flags: CommonFlags, io: Io, hooks: RunHooks): Loaded | number {
  const now = parseNow(flags.now, io.env);
  if (!(now instanceof Date)) {
    io.stderr(renderDiagnosticsHuman([now], new Map(), { color: useColor(io) }));
    return 1;
  }
  const loaded = loadConfig(flags.config, { env: io.env, cwd: io.cwd, today: now.toISOString().slice(0, 10) });
  const redact = (s: string) => loaded.sources.secrets.redact(s);
  if (loaded.diagnostics.length > 0 && (hasErrors(loaded.diagnostics) || !flags.json)) {
    io.stderr(redact(renderDiagnosticsHuman(loaded.diagnostics, loaded.sources.texts, { color: useColor(io) })));
  }
  if (!loaded.config) {
    if (flags.json) io.stdout(JSON.stringify({ error: 'configuration is invalid', diagnostics: loaded.diagnostics.length }) + '\n');
    return 1;
  }
  const stateFile = path.resolve(io.cwd, flags.state ?? io.env.PLUMB_STATE ?? '.plumb/state.json');
  const engine: EngineOptions = {
    env: io.env,
    now,
    stateFile,
    instance: flags.instance,
    log: (m) => io.stderr(redact(m) + '\n'),
    stdout: io.stdout,
    sleep: hooks.sleep,
    ...hooks.client,
    ...(flags.concurrency !== undefined && { concurrency: flags.concurrency }),
  };
  traceApiCalls(flags.debug ? io : undefined, redact);
  return { loaded, config: loaded.config, engine, redact };
}

/** Where `--debug` lines go for the current command (subscribed once per process). */
let traceLine: ((s: string) => void) | undefined;
let traceSubscribed = false;

/** `--debug`: the client's diagnostics_channel events as lines on stderr (`io` undefined: off). */
function traceApiCalls(io: Io | undefined, redact: (s: string) => string): void {
  traceLine = io ? (s) => io.stderr(redact(`debug: ${s}`) + '\n') : undefined;
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
function usageProblem(io: Io, code: string, summary: string, suggestion: string): number {
  io.stderr(renderDiagnosticsHuman([{ severity: 'error', code, summary, suggestion }], new Map(), { color: useColor(io) }));
  return 1;
}

function writeAtomic(file: string, content: string, mode = 0o644): void {
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, content, { mode });
  renameSync(tmp, file);
}

export async function runPlan(flags: PlanFlags, io: Io, hooks: RunHooks = {}): Promise<number> {
  const l = load(flags, io, hooks);
  if (typeof l === 'number') return l;
  const plan = await makePlan(l.loaded, l.config, l.engine);
  emitPlan(plan, flags, io, l.redact);
  if (!plan.applicable) return 1;
  if (flags.out) writeAtomic(path.resolve(io.cwd, flags.out), l.redact(JSON.stringify(plan, null, 2)) + '\n', 0o600);
  if (flags.markdown) writeAtomic(path.resolve(io.cwd, flags.markdown), l.redact(renderPlanMarkdown(plan)));
  if (flags.report) writeAtomic(path.resolve(io.cwd, flags.report), JSON.stringify(renderPlanReport(plan)) + '\n');
  return flags.detailedExitcode && hasChanges(plan) ? 2 : 0;
}

function emitPlan(plan: Plan, flags: CommonFlags, io: Io, redact: (s: string) => string): void {
  if (flags.json) io.stdout(redact(JSON.stringify(plan, null, 2)) + '\n');
  else io.stdout(redact(renderPlanHuman(plan, { color: useColor(io) })));
}

async function askOnTty(io: Io): Promise<boolean> {
  io.stdout('\nDo you want to perform these actions? Only "yes" will be accepted.\n  Enter a value: ');
  const rl = createInterface({ input: process.stdin });
  const answer = await new Promise<string>((resolve) => rl.once('line', resolve).once('close', () => resolve('')));
  rl.close();
  return answer.trim() === 'yes';
}

/**
 * With a `sink: {stdout: true}` token, standard output carries only the issued secrets (one JSON
 * line each, for a pipe to read), so everything meant for people goes to standard error.
 */
function declaresStdoutSink(config: DesiredConfig, instance: string | undefined): boolean {
  return config.instances.some(
    (i) => (!instance || i.name === instance) && i.groups.some((g) => g.accessTokens.some((t) => t.sink?.kind === 'stdout')),
  );
}

export async function runApply(flags: ApplyFlags, io0: Io, hooks: RunHooks = {}): Promise<number> {
  const l = load(flags, io0, hooks);
  if (typeof l === 'number') return l;
  const io: Io = declaresStdoutSink(l.config, flags.instance) ? { ...io0, stdout: io0.stderr } : io0;
  let plan: Plan;
  let fromFile = false;
  if (flags.planFile) {
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(path.resolve(io.cwd, flags.planFile), 'utf8'));
    } catch (err) {
      const why = err instanceof SyntaxError ? 'it is not JSON' : fileErrorSentence(err);
      return usageProblem(io, 'PLUMB_PLAN_UNREADABLE', `Cannot read the plan file ${flags.planFile}: ${why}`, 'apply the file `plumb plan --out FILE` wrote');
    }
    const problem = checkPlanFile(data);
    if (problem) return usageProblem(io, 'PLUMB_PLAN_INVALID', `${flags.planFile} is not a plan plumb can apply: ${problem}`, 'make a new plan with `plumb plan --out FILE`');
    plan = data as Plan;
    fromFile = true;
  } else {
    if (!flags.autoApprove && !io.isTTY && !flags.confirm) {
      io.stderr('plumb: refusing to apply an unsaved plan without a terminal to confirm it.\n  help: review `plumb plan --out plan.json` and run `plumb apply plan.json`, or pass --auto-approve\n');
      return 1;
    }
    const session = openSession(l.loaded, l.config, l.engine);
    try {
      plan = await makePlan(l.loaded, l.config, l.engine, session);
      emitPlan(plan, { ...flags, json: false }, { ...io, stdout: flags.json ? io.stderr : io.stdout }, l.redact);
      if (!plan.applicable) return 1;
      if (!hasChanges(plan)) {
        if (flags.json) io.stdout(JSON.stringify({ ok: true, outcomes: [] }) + '\n');
        return 0;
      }
      // A plan apply would refuse for its risks is not worth a question.
      const refusesRisks = unacknowledgedRisks(plan).length > 0 && !flags.allowRisky;
      if (!flags.autoApprove && !refusesRisks) {
        const yes = await (flags.confirm ?? (() => askOnTty(io)))();
        if (!yes) {
          io.stderr('Apply cancelled; nothing was changed.\n');
          return 1;
        }
      }
      const report = await applyPlan(plan, l.loaded, l.config, { ...l.engine, fromFile: false, allowRisky: !!flags.allowRisky }, session);
      return emitReport(report, flags, io, l.redact);
    } finally {
      await session.close();
    }
  }
  if (!hasChanges(plan)) {
    io.stdout('The saved plan has no changes.\n');
    return 0;
  }
  const report = await applyPlan(plan, l.loaded, l.config, { ...l.engine, fromFile, allowRisky: !!flags.allowRisky });
  return emitReport(report, flags, io, l.redact);
}

function emitReport(report: ApplyReport, flags: CommonFlags, io: Io, redact: (s: string) => string): number {
  if (flags.json) {
    io.stdout(redact(JSON.stringify(report, null, 2)) + '\n');
    return report.ok ? 0 : 1;
  }
  const lines: string[] = [];
  if (report.refused) lines.push(`Apply refused: ${report.refused}.`);
  for (const o of report.outcomes) {
    const mark = o.status === 'applied' ? '✓' : o.status === 'failed' ? '✗' : '·';
    lines.push(`${mark} ${o.address}: ${o.action} ${o.status}${o.notes.length ? ` — ${o.notes.join('; ')}` : ''}`);
  }
  for (const d of report.diagnostics) lines.push(renderDiagnosticLine(d));
  const applied = report.outcomes.filter((o) => o.status === 'applied').length;
  const failed = report.outcomes.filter((o) => o.status === 'failed').length;
  // Skipped: a change it depends on did not apply. Not attempted: apply refused before any write.
  const skipped = report.outcomes.filter((o) => o.status === 'skipped').length;
  const notAttempted = report.outcomes.filter((o) => o.status === 'not-attempted').length;
  lines.push(`Apply ${report.ok ? 'complete' : 'stopped'}: ${applied} applied, ${failed} failed, ${skipped} skipped${notAttempted > 0 ? `, ${notAttempted} not attempted` : ''}.`);
  (report.ok ? io.stdout : io.stderr)(redact(lines.join('\n')) + '\n');
  return report.ok ? 0 : 1;
}

export async function runDrift(flags: CommonFlags, io: Io, hooks: RunHooks = {}): Promise<number> {
  const l = load(flags, io, hooks);
  if (typeof l === 'number') return l;
  const plan = await makePlan(l.loaded, l.config, l.engine);
  const drifted = plan.drift.filter((d) => !d.informational);
  const errors = plan.diagnostics.filter((d) => d.severity === 'error');
  const inSync = drifted.length === 0 && !hasChanges(plan);
  if (flags.json) {
    const report = {
      formatVersion: plan.formatVersion,
      checkedAt: new Date().toISOString(),
      inSync: errors.length === 0 ? inSync : null,
      drift: plan.drift,
      pendingChanges: plan.changes.filter((c) => c.action !== 'no-op').map((c) => ({ address: c.address, action: c.action, reasons: c.reasons })),
      diagnostics: plan.diagnostics,
    };
    io.stdout(l.redact(JSON.stringify(report, null, 2)) + '\n');
  } else {
    const out: string[] = [];
    if (errors.length > 0) out.push('Drift check failed:');
    else if (inSync) out.push('In sync: the instance matches the configuration.');
    else out.push(`Drift detected: ${drifted.length} resource(s) differ from the configuration.`, '');
    for (const d of plan.drift) {
      out.push(`  ${d.informational ? 'note' : 'drift'}: ${d.address}: ${d.summary}`);
      for (const a of d.attributes) out.push(`      ${a.name}: ${JSON.stringify(a.before ?? null)} (instance) ≠ ${JSON.stringify(a.after ?? null)} (configuration)`);
    }
    for (const d of plan.diagnostics) out.push(renderDiagnosticLine(d));
    if (!inSync && errors.length === 0) out.push('', 'Run `plumb plan` to review and `plumb apply` to converge.');
    io.stdout(l.redact(out.join('\n')) + '\n');
  }
  if (errors.length > 0) return 1;
  return inSync ? 0 : 2;
}
