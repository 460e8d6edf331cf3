/**
 * Delivering one issued secret to every sink of a token (apply.ts `#deliver` judges the outcomes):
 * the options each sink is delivered with, and the order. Without `rollback` every sink at once;
 * with it (an overlap rotation, whose predecessor every sink still holds), what each sink holds is
 * taken first (./sink-restore.ts, memory only), the sinks that can be put back are delivered at
 * once, and only when they all succeeded the others (a hidden variable, a command, standard
 * output), one at a time in the declared order, standard output last: a failure then leaves as
 * little as possible that cannot be put back (docs/tokens.md, "When a delivery fails"); and,
 * when one failed, putting back the sinks already written.
 */
import type { DesiredAccessToken, TokenSink } from './model.js';
import type { PlanDiagnostic } from '../../engine/plan.js';
import type { InstanceContext } from '../../engine/resource.js';
import { planDiagnostic } from '../../engine/resource.js';
import { deliverSecret, DEFAULT_SINK_TIMEOUT_MS, describeSink, SinkError } from './sinks.js';
import type { DeliverOptions, Delivery, DeliveryReceipt } from './sinks.js';
import { restorePrior, takePrior } from './sink-restore.js';
import { variableSinkId } from './variable-address.js';
import type { Prior } from './sink-restore.js';
import { env } from './shared.js';

/** One sink's outcome: its receipt, or why it failed (redacted: never the secret). */
export interface SinkOutcome {
  readonly sink: TokenSink;
  readonly receipt?: DeliveryReceipt;
  readonly error?: string;
}

/**
 * The client a ci_variable sink is delivered with: the token's instance's, or the sink's
 * `instance:`'s as this session opened it (its URL pin and credential). Never another URL.
 */
function variableClient(ctx: InstanceContext, name: string | undefined) {
  if (name === undefined || name === ctx.instance.name) return ctx.client;
  const peer = ctx.peer?.(name);
  if (!peer) throw new SinkError(`instance "${name}" is not open in this run`);
  return peer.client;
}

/**
 * Delivers `delivery` to the token's sinks in the order above. `priors` (with `rollback` and two
 * sinks or more) is what each sink held before, for putting back the ones written when another failed.
 */
export async function deliverToSinks(
  ctx: InstanceContext,
  t: DesiredAccessToken,
  delivery: Delivery,
  rollback: boolean,
): Promise<{ outcomes: SinkOutcome[]; priors?: Map<TokenSink, Prior> }> {
  const raw = env(ctx).PLUMB_SINK_TIMEOUT_SECONDS;
  const timeoutMs = raw && /^\d+(\.\d+)?$/.test(raw) ? Number(raw) * 1000 : DEFAULT_SINK_TIMEOUT_MS;
  const clientFor = (name: string | undefined) => variableClient(ctx, name);
  const opts: DeliverOptions = {
    env: env(ctx),
    stdout: ctx.stdout ?? ((s) => void process.stdout.write(s)),
    timeoutMs,
    hideEnv: [ctx.instance.tokenEnv],
    variables: { clientFor },
  };
  const deliverOne = async (sink: TokenSink): Promise<SinkOutcome> => {
    try {
      return { sink, receipt: await deliverSecret(sink, delivery, opts) };
    } catch (err) {
      return { sink, error: ctx.secrets.redact(err instanceof Error ? err.message : String(err)) };
    }
  };
  // One sink: nothing else is written before it could fail, so there is nothing to take or put back.
  if (!rollback || t.sinks.length < 2) return { outcomes: await Promise.all(t.sinks.map(deliverOne)) };
  const taken = await Promise.all(t.sinks.map(async (s) => [s, await takePrior(s, clientFor, ctx.secrets)] as const));
  const first = taken.filter(([, p]) => p.kind !== 'unrestorable').map(([s]) => s);
  const last = taken.filter(([, p]) => p.kind === 'unrestorable').map(([s]) => s);
  last.sort((a, b) => Number(a.kind === 'stdout') - Number(b.kind === 'stdout'));
  const outcomes = await Promise.all(first.map(deliverOne));
  if (outcomes.every((o) => o.error === undefined)) {
    for (const sink of last) {
      const o = await deliverOne(sink);
      outcomes.push(o);
      if (o.error !== undefined) break;
    }
  }
  return { outcomes, priors: new Map(taken) };
}

/** What putting back the sinks of a failed delivery came to (apply.ts `#putBack` records it). */
export interface PutBack {
  /** The sinks put back and read back, described. */
  readonly restored: string[];
  /** The sinks that hold the successor's (revoked) secret, described. */
  readonly unrestored: string[];
  /** One error per sink not put back, located at it. */
  readonly diagnostics: PlanDiagnostic[];
  /** Their delivery records (variable sink ids) to drop, so the next plan delivers a fresh secret there. */
  readonly dropRecords: ReadonlySet<string>;
}

/**
 * Puts back every sink the failed delivery wrote (./sink-restore.ts), each read back. A sink that
 * cannot be put back is an error located at it, and its delivery record is to be dropped, so the
 * next plan delivers a fresh secret there (`sink-added`) even where nothing else would tell (a
 * hidden variable's value cannot be compared).
 */
export async function putBackSinks(ctx: InstanceContext, t: DesiredAccessToken, written: readonly TokenSink[], priors: ReadonlyMap<TokenSink, Prior>, address: string): Promise<PutBack> {
  const results = await Promise.all(
    written.map(async (sink) => {
      const prior = priors.get(sink)!;
      if (prior.kind === 'unrestorable') return { sink, why: prior.why };
      try {
        await restorePrior(prior);
        return { sink };
      } catch (err) {
        return { sink, why: `putting it back failed: ${ctx.secrets.redact(err instanceof Error ? err.message : String(err))}` };
      }
    }),
  );
  const lost = results.filter((r) => r.why !== undefined);
  return {
    restored: results.filter((r) => r.why === undefined).map((r) => describeSink(r.sink)),
    unrestored: lost.map((r) => describeSink(r.sink)),
    diagnostics: lost.map((r) =>
      planDiagnostic(ctx, {
        severity: 'error',
        code: 'PLUMB_SINK_PARTIAL',
        summary: `${describeSink(r.sink)} holds a revoked secret: the next apply delivers a fresh one (${r.why})`,
        address,
        pointer: r.sink.pointer ?? t.pointer,
      }),
    ),
    dropRecords: new Set(lost.flatMap((r) => (r.sink.kind === 'ci_variable' ? [variableSinkId(ctx.instance.name, r.sink)] : []))),
  };
}
