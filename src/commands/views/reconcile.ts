/**
 * The view of `plumb plan`, `apply` and `drift`, one implementation per output format (human,
 * `--json`), chosen once from the flags (Terraform's internal/command/views). Commands decide what
 * happened; a view decides how it is written. Every string passes through `redact` before it
 * leaves. With `--json`, standard output carries exactly one JSON document in every path: the
 * plan, the apply report, the drift report, or the error document (./problem.ts).
 */
import type { ConfigResult } from '../../config/validate.js';
import { renderDiagnosticsHuman } from '../../diagnostics/render.js';
import type { ApplyReport } from '../../engine/engine.js';
import { interruptedExitCode } from '../../engine/interrupt.js';
import { hasChanges, lockChanged } from '../../engine/plan.js';
import type { Plan, ResourceChange } from '../../engine/plan.js';
import { reasonWords, renderDiagnosticLine, renderPlanHuman, summaryLine } from '../../render/human.js';
import type { ReasonTexts } from '../../render/human.js';
import { logSections } from '../log-sections.js';
import type { LogSections } from '../log-sections.js';
import type { Io } from '../output.js';
import { useColor } from '../output.js';
import { clean } from '../../util/terminal.js';
import { expiryLines, expiryWarnings } from '../../render/report.js';
import { pendingByMergeRequest } from '../../render/merge-requests.js';
import { JsonOut, errorDocument, humanProblems } from './problem.js';
import type { ProblemView, Redact } from './problem.js';

/**
 * Where a kind's machine-readable output goes (a token's `stdout: true` sink: one JSON line per
 * issued secret): standard output itself. When a configuration declares such a sink, apply hands
 * its view an Io whose stdout is stderr, so these lines are all standard output carries.
 */
export function machineOutput(io: Io): (s: string) => void {
  const closed = io.stdoutClosed;
  if (!closed) return io.stdout;
  // A secret written into a pipe nobody reads any more is lost: the write fails, so the token kind
  // treats it as not delivered (revoked again, or noted), never as "printed".
  return (s) => {
    if (closed()) throw new Error('standard output is closed (its reader went away)');
    io.stdout(s);
    if (closed()) throw new Error('standard output closed while the secret was written (its reader went away)');
  };
}

/** What plan, apply and drift show. */
export interface ReconcileView extends ProblemView {
  /**
   * The configuration's diagnostics, after loading it. `inPlan`: a plan made from this configuration
   * will carry its warnings and show them, so they are not shown here too.
   */
  configDiagnostics(loaded: ConfigResult, inPlan: boolean): void;
  /** The configuration is unusable (its errors were shown); returns the exit code (1). */
  configInvalid(loaded: ConfigResult): number;
  plan(plan: Plan): void;
  /** Apply found nothing to do: in a plan it made (`saved: false`) or in a saved plan file. */
  nothingToApply(saved: boolean): void;
  /** The plan an unsaved apply made has errors (its preview showed them); returns the exit code (1). */
  notApplicable(plan: Plan): number;
  /** An unsaved apply without a terminal to confirm it and without --auto-approve; returns 1. */
  needsConfirmation(): number;
  /** Asks whether to apply (on a terminal). */
  prompt(): void;
  /** The answer was not "yes"; returns the exit code (1). */
  cancelled(): number;
  /** What apply did; returns the exit code. */
  applyReport(report: ApplyReport): number;
  /** What drift found; returns the exit code. */
  drift(plan: Plan): number;
  /** plumb starts reading the instance (a log section in CI). */
  readStart(): void;
  /** plumb has read the instance. */
  readEnd(): void;
}

/** `reasons`: the reasons' texts of the registry the command runs with (`KindSet.reasonText`). */
export function reconcileView(json: boolean, io: Io, redact: Redact, reasons: ReasonTexts): ReconcileView {
  return json ? new JsonView(io, redact) : new HumanView(io, redact, reasons);
}

const NEEDS_CONFIRMATION = 'plumb: refusing to apply an unsaved plan without a terminal to confirm it.\n  help: review `plumb plan --out plan.json` and run `plumb apply plan.json`, or pass --auto-approve\n';
const CANCELLED = 'Apply cancelled; nothing was changed.\n';

/** The plan an unsaved apply is about to execute, always for people (on stderr with --json). */
export function applyPreview(json: boolean, io: Io, redact: Redact, reasons: ReasonTexts): Pick<ReconcileView, 'plan'> {
  return new HumanView({ ...io, stdout: json ? io.stderr : io.stdout }, redact, reasons);
}

/** A change that says the instance differs: not one made only of values this pipeline could not compare. */
function differs(c: ResourceChange): boolean {
  return c.action !== 'no-op' && !(c.attributes.length > 0 && c.attributes.every((a) => a.unavailable));
}

/** Whether everything but the blocked units is in sync. */
function inSyncRest(plan: Plan): boolean {
  return plan.drift.every((d) => d.informational) && !plan.changes.some(differs);
}

/**
 * Drift's verdict. Exit 2 also when, with `--expiring-within`, something expires or lapses within
 * the window (a token plumb rotates on schedule does not count): a scheduled job fails before the
 * outage (docs/report.md#exit-codes).
 */
function driftSummary(plan: Plan) {
  const drifted = plan.drift.filter((d) => !d.informational);
  const errors = plan.diagnostics.filter((d) => d.severity === 'error');
  const inSync = drifted.length === 0 && !plan.changes.some(differs);
  // A pending change without a drift entry (a file that differs, with no state file to say who
  // changed it) is a difference too: counted and listed, so "differ" never says 0 with exit 2.
  const seen = new Set(drifted.map((d) => d.address));
  // A change of values this pipeline could not compare (--unavailable-secrets skip) is not drift.
  const undrifted = plan.changes.filter((c) => differs(c) && !seen.has(c.address));
  const expiring = expiryWarnings(plan.expiring);
  return { drifted, undrifted, differ: seen.size + new Set(undrifted.map((c) => c.address)).size, errors, inSync, expiring, code: errors.length > 0 ? 1 : inSync && expiring === 0 ? 0 : 2 };
}

/**
 * What every view of a command that loads a configuration and reads the instance shows for
 * people before its result (plan, apply, drift, report): the configuration's diagnostics, the
 * reading's log section, a problem that stops it.
 */
export class HumanLoadView {
  protected readonly sections: LogSections;

  constructor(
    protected readonly io: Io,
    protected readonly redact: Redact,
  ) {
    this.sections = logSections(io, io.stdout);
  }

  readStart(): void {
    this.sections.start('plumb_read', 'plumb: reading the instance', true);
  }

  readEnd(): void {
    this.sections.end('plumb_read');
  }

  configDiagnostics(loaded: ConfigResult, inPlan: boolean): void {
    const shownByPlan = inPlan && !loaded.diagnostics.some((d) => d.severity === 'error');
    if (loaded.diagnostics.length > 0 && !shownByPlan) {
      this.io.stderr(this.redact(renderDiagnosticsHuman(loaded.diagnostics, loaded.sources.texts, { color: useColor(this.io) })));
    }
  }

  configInvalid(): number {
    return 1;
  }

  problem(diagnostics: Parameters<ProblemView['problem']>[0], texts?: Parameters<ProblemView['problem']>[1]): number {
    humanProblems(this.io, this.redact, diagnostics, texts);
    return 1;
  }
}

/** The same with `--json`: one document on stdout in every path (the error document when it stops). */
export class JsonLoadView {
  protected readonly out: JsonOut;

  constructor(
    protected readonly io: Io,
    protected readonly redact: Redact,
  ) {
    this.out = new JsonOut(io, redact);
  }

  /** Warnings travel inside the JSON document; errors also go to stderr for people. */
  configDiagnostics(loaded: ConfigResult): void {
    if (loaded.diagnostics.some((d) => d.severity === 'error')) new HumanLoadView(this.io, this.redact).configDiagnostics(loaded, false);
  }

  /** The error document with every diagnostic of the configuration (people read them on stderr already). */
  configInvalid(loaded: ConfigResult): number {
    this.out.document(errorDocument(loaded.diagnostics, loaded.sources.texts), false);
    return 1;
  }

  problem(diagnostics: Parameters<ProblemView['problem']>[0], texts?: Parameters<ProblemView['problem']>[1]): number {
    return this.out.problem(diagnostics, texts);
  }

  /** JSON on stdout stays JSON: no log sections. */
  readStart(): void {}

  readEnd(): void {}
}

class HumanView extends HumanLoadView implements ReconcileView {
  constructor(
    io: Io,
    redact: Redact,
    private readonly reasons: ReasonTexts,
  ) {
    super(io, redact);
  }

  /**
   * In CI the plan's body is a collapsed section headed by its summary; it stays open when it holds
   * something a reviewer must not miss (a risk, an error).
   */
  plan(plan: Plan): void {
    const changed = hasChanges(plan);
    const blocked = (plan.blocked ?? []).length;
    const header = `${!changed ? (lockChanged(plan) ? 'plumb plan: the lock location changed' : 'plumb plan: no changes') : `plumb ${summaryLine(plan)}`}${blocked > 0 ? ` (${blocked} blocked)` : ''}`;
    const loud = plan.risks.length > 0 || lockChanged(plan) || blocked > 0 || plan.diagnostics.some((d) => d.severity === 'error');
    this.sections.start('plumb_plan', this.redact(header), !loud);
    this.io.stdout(this.redact(renderPlanHuman(plan, { color: useColor(this.io), reasons: this.reasons })));
    // Token names and domains are the instance's text: cleaned.
    if (plan.expiring) this.io.stdout(this.redact(clean(['', ...expiryLines(plan.expiring)].join('\n'))) + '\n');
    this.sections.end('plumb_plan');
  }

  nothingToApply(saved: boolean): void {
    // An unsaved apply has just shown its plan, which says "no changes".
    if (saved) this.io.stdout('The saved plan has no changes.\n');
  }

  notApplicable(): number {
    return 1;
  }

  needsConfirmation(): number {
    this.io.stderr(NEEDS_CONFIRMATION);
    return 1;
  }

  prompt(): void {
    this.io.stdout('\nDo you want to perform these actions? Only "yes" will be accepted.\n  Enter a value: ');
  }

  cancelled(): number {
    this.io.stderr(CANCELLED);
    return 1;
  }

  applyReport(report: ApplyReport): number {
    const lines: string[] = [];
    if (report.refused) lines.push(`Apply refused: ${report.refused}.`);
    for (const o of report.outcomes) {
      const mark = o.status === 'applied' ? '✓' : o.status === 'failed' ? '✗' : o.status === 'unknown' ? '?' : '·';
      lines.push(`${mark} ${o.address}: ${o.action} ${o.status}${o.notes.length ? ` — ${o.notes.join('; ')}` : ''}`);
    }
    for (const b of report.blocked ?? []) lines.push(`⊘ ${b.address}: blocked, not planned and not applied (${b.codes.join(', ')})`);
    for (const d of report.diagnostics) lines.push(renderDiagnosticLine(d));
    const applied = report.outcomes.filter((o) => o.status === 'applied').length;
    const failed = report.outcomes.filter((o) => o.status === 'failed').length;
    const skipped = report.outcomes.filter((o) => o.status === 'skipped').length;
    const notAttempted = report.outcomes.filter((o) => o.status === 'not-attempted').length;
    const unknown = report.outcomes.filter((o) => o.status === 'unknown').length;
    const state = report.interrupted ? `interrupted by ${report.interrupted}` : report.ok ? 'complete' : 'stopped';
    lines.push(
      `Apply ${state}: ${applied} applied, ${failed} failed, ${skipped} skipped${notAttempted ? `, ${notAttempted} not attempted` : ''}${unknown ? `, ${unknown} unknown (still in flight)` : ''}${report.blocked?.length ? `, ${report.blocked.length} blocked` : ''}.`,
    );
    const ok = report.ok && !report.interrupted;
    const sections = logSections(this.io, ok ? this.io.stdout : this.io.stderr);
    sections.start('plumb_apply', `plumb apply${report.interrupted ? ' (interrupted)' : ''}: ${applied} applied, ${failed} failed`);
    // Addresses and notes carry the instance's names (a token's): cleaned for the log.
    (ok ? this.io.stdout : this.io.stderr)(this.redact(clean(lines.join('\n'))) + '\n');
    sections.end('plumb_apply');
    return applyExitCode(report);
  }

  drift(plan: Plan): number {
    const { undrifted, differ, errors, inSync, expiring, code } = driftSummary(plan);
    const out: string[] = [];
    const blocked = plan.blocked ?? [];
    if (errors.some((d) => d.blocks === undefined)) out.push('Drift check failed:');
    else if (errors.length > 0) out.push(`Drift check incomplete: ${blocked.length} unit(s) could not be checked (${blocked.map((b) => b.address).join(', ')}); of the rest: ${inSyncRest(plan) ? 'in sync' : `${differ} resource(s) differ from the configuration`}.`, '');
    else if (inSync && expiring > 0) out.push(`In sync, but ${expiring} thing(s) expire within ${plan.expiring!.within}.`);
    else if (inSync) out.push('In sync: the instance matches the configuration.');
    else out.push(`Drift detected: ${differ} resource(s) differ from the configuration.`, '');
    for (const d of plan.drift) {
      if (d.mergeRequest) continue;
      out.push(`  ${d.informational ? 'note' : 'drift'}: ${d.address}: ${d.summary}`);
      for (const a of d.attributes) out.push(`      ${a.name}: ${JSON.stringify(a.before ?? null)} (instance) ≠ ${JSON.stringify(a.after ?? null)} (configuration)`);
    }
    // Their own category: the difference is known, and waits in a merge request for review.
    const pending = pendingByMergeRequest(plan.drift);
    if (pending.length > 0) {
      const files = pending.reduce((n, g) => n + g.entries.length, 0);
      out.push(`  Pending in open merge requests (${files} file(s) in ${pending.length} merge request(s), waiting for review):`);
      for (const g of pending) out.push(`    pending: merge request !${g.iid} ${g.url}: ${g.entries.map((d) => d.address).join(', ')}`);
    }
    for (const c of undrifted) out.push(`  differs: ${c.address}: apply would ${c.action} it (${reasonWords(c, this.reasons).join('; ') || 'no reason recorded'})`);
    for (const d of plan.diagnostics) out.push(renderDiagnosticLine(d));
    if (plan.expiring) out.push('', ...expiryLines(plan.expiring));
    if (!inSync && errors.length === 0) out.push('', 'Run `plumb plan` to review and `plumb apply` to converge.');
    // Addresses and summaries carry the instance's names (a token's, a group's): cleaned for the log.
    this.io.stdout(this.redact(clean(out.join('\n'))) + '\n');
    return code;
  }
}

class JsonView extends JsonLoadView implements ReconcileView {
  plan(plan: Plan): void {
    this.out.document(plan);
  }

  nothingToApply(): void {
    this.out.document({ ok: true, outcomes: [] }, false);
  }

  /** An apply report that refuses, as apply itself refuses a plan with errors (engine.ts). */
  notApplicable(plan: Plan): number {
    return this.applyReport(refusal('the plan has errors; fix them and plan again', plan));
  }

  needsConfirmation(): number {
    this.io.stderr(NEEDS_CONFIRMATION);
    this.out.document(errorDocument([{ severity: 'error', code: 'PLUMB_USAGE', summary: 'refusing to apply an unsaved plan without a terminal to confirm it', suggestion: 'review `plumb plan --out plan.json` and run `plumb apply plan.json`, or pass --auto-approve' }]), false);
    return 1;
  }

  /** The question goes to people, on stderr: stdout carries only the document. */
  prompt(): void {
    this.io.stderr('\nDo you want to perform these actions? Only "yes" will be accepted.\n  Enter a value: ');
  }

  cancelled(): number {
    this.io.stderr(CANCELLED);
    return this.applyReport({ ok: false, refused: 'apply was cancelled (the answer was not "yes"); nothing was changed', outcomes: [], diagnostics: [] });
  }

  applyReport(report: ApplyReport): number {
    this.out.document(report);
    return applyExitCode(report);
  }

  drift(plan: Plan): number {
    const { errors, inSync, code } = driftSummary(plan);
    const report = {
      formatVersion: plan.formatVersion,
      checkedAt: new Date().toISOString(),
      inSync: errors.length === 0 ? inSync : null,
      drift: plan.drift,
      // 1.4: the drift entries that wait in an open merge request, per merge request (they are in `drift` too).
      ...(plan.drift.some((d) => d.mergeRequest) && { pendingInMergeRequests: pendingByMergeRequest(plan.drift).map((g) => ({ iid: g.iid, url: g.url, addresses: g.entries.map((d) => d.address) })) }),
      pendingChanges: plan.changes.filter((c) => c.action !== 'no-op').map((c) => ({ address: c.address, action: c.action, reasons: c.reasons })),
      // Selector matches that could not be checked (docs/plans.md#blocked-matches): the rest was.
      ...(plan.blocked && plan.blocked.length > 0 && { blocked: plan.blocked }),
      ...(plan.expiring && { expiring: plan.expiring }),
      diagnostics: plan.diagnostics,
    };
    this.out.document(report);
    return code;
  }
}

/** 0 applied, 1 a change failed or apply refused, 130/143 interrupted by SIGINT/SIGTERM (docs/plans.md#interrupted-applies). */
function applyExitCode(report: ApplyReport): number {
  if (report.interrupted) return interruptedExitCode(report.interrupted);
  return report.ok ? 0 : 1;
}

/** The report of an apply that wrote nothing: every change of `plan` not attempted. */
function refusal(why: string, plan: Plan): ApplyReport {
  const todo = plan.changes.filter((c) => c.action !== 'no-op');
  return { ok: false, refused: why, outcomes: todo.map((c) => ({ address: c.address, action: c.action, status: 'not-attempted', notes: [] })), diagnostics: [...plan.diagnostics] };
}
