/**
 * `plumb report`: a read-only compliance report (docs/report.md). It loads the configuration as
 * plan does (discovery included), makes a plan, and shows the report built from it
 * (engine/report.ts `buildReport`): the report is a view of a plan, never a second diff. It never
 * writes to the instance (a plan only reads), never writes the state file (it reads the local file
 * or copies the backend's without locking it) and takes no lock. `--max-requests` bounds the
 * requests of the whole run; what the budget did not reach is reported as not checked.
 * Exit codes: render/report.ts `reportExitCode`.
 */
import path from 'node:path';
import { makePlan } from '../engine/engine.js';
import { buildReport } from '../engine/report.js';
import { errnoText, writeFileAtomic } from '../util/write-file.js';
import type { Io } from './output.js';
import { load, outputProblem, planWithProgress, usageProblem, withState } from './reconcile.js';
import type { RunHooks } from './reconcile.js';
import type { ReportArgs } from './report-args.js';
import { reportView } from './views/report.js';
import type { ReportView } from './views/report.js';

/** `plumb report` (cli.ts parses its arguments with parseReportArgs, commands/report-args.ts). */
export async function runReport(args: ReportArgs, io: Io, hooks: RunHooks = {}): Promise<number> {
  const flags = {
    config: args.config,
    ...(args.cdktf && { cdktf: args.cdktf.dir }),
    debug: args.debug,
    ...(args.concurrency !== undefined && { concurrency: args.concurrency }),
    ...(args.now !== undefined && { now: args.now }),
    ...(args.state !== undefined && { state: args.state }),
    ...(args.instance !== undefined && { instance: args.instance }),
    json: args.json,
    allowUrls: args.allowUrls,
    unavailableSecrets: args.unavailableSecrets,
    ...(args.expiringWithin && { expiringWithin: args.expiringWithin }),
    // Without --max-requests the budget has no bound: it counts the requests the report sent.
    maxRequests: args.maxRequests ?? Number.POSITIVE_INFINITY,
  };
  const l = await load<ReportView>(flags, io, hooks, true, false, reportView);
  if (typeof l === 'number') return l;
  const outputs = args.outputs.map((o) => ({ ...o, file: path.resolve(io.cwd, o.given) }));
  // Every file is checked before the first request.
  for (const o of outputs) {
    const refused = outputProblem(l.view, l.loaded, `--${o.format.option}`, o.given, o.file, o.format.example);
    if (refused !== undefined) return refused;
  }
  return withState(l, undefined, async () => {
    const plan = await planWithProgress(io, l.redact, () => makePlan(l.loaded, l.config, { ...l.engine, readOnly: true }), l.view);
    const report = buildReport(plan, {
      ...(args.maxRequests !== undefined && { maxRequests: args.maxRequests }),
      requestsUsed: l.budget?.used ?? 0,
      budgetExhausted: l.budget?.exhausted ?? false,
    });
    for (const o of outputs) {
      try {
        await writeFileAtomic(o.file, l.redact(o.format.render(report, { reasons: l.kinds.reasonText })), { mode: o.format.mode });
      } catch (err) {
        return usageProblem(l.view, 'PLUMB_OUTPUT_UNWRITABLE', `--${o.format.option} ${o.given} could not be written: ${errnoText(err)}`, 'fix the path or its permissions and run the report again');
      }
    }
    return l.view.report(report);
  });
}
