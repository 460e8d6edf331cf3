/**
 * The sinks' part of a token plan (docs/tokens.md, "Delivering to CI/CD variables"): what each
 * change delivers (`deliveries`), whether the declared ci_variable sinks still hold what plumb
 * delivered (drift: one list per project or group), whether the set of sinks moved since the last
 * delivery (added, changed, removed), and the risk of an unmasked variable holding an `api` token.
 *
 * plumb never keeps a secret, so a sink that needs the secret again (added, moved, drifted) gets a
 * fresh one: the token is rotated for it, with its own reason, whatever its rotation date says.
 */
import type { PlannedDelivery, PlanRisk } from '../../engine/plan.js';
import type { InstanceContext } from '../../engine/resource.js';
import { flagRisk } from '../../engine/risks.js';
import type { DesiredAccessToken, DesiredGroup, TokenSink } from './model.js';
import { declaredMeta, metaDifferences, sinkContext, variableDrift, variableList } from './sink-ci-variable.js';
import { describeSink } from './sinks.js';
import type { TokenSlot } from './state.js';
import { describeVariable, variableFlags, variableOwnerOf, variableSinkId } from './variable-address.js';

/** Why a token's sinks need a fresh secret, strongest first. */
export type SinkReason = 'sink-drifted' | 'sink-added' | 'sink-changed' | 'sink-removed';

export interface SinkStatus {
  readonly reason?: SinkReason;
  /** One line per sink, for the drift report (never a value). */
  readonly lines: readonly string[];
  /** Variables delivered before and no longer declared (by their words). */
  readonly removed: readonly string[];
}

/** A sink in plan words: `ci_variable platform/app DEPLOY_TOKEN (protected, masked)`. */
export function sinkWords(sink: TokenSink): string {
  return sink.kind === 'ci_variable' ? `${describeVariable(undefined, sink)} (${variableFlags(sink)})` : describeSink(sink);
}

/** What a change that issues a new secret delivers, and the recorded variables it stops delivering to. */
export function deliveriesOf(t: DesiredAccessToken, status: SinkStatus | undefined): PlannedDelivery[] {
  return [...t.sinks.map((s): PlannedDelivery => ({ action: 'deliver', to: sinkWords(s) })), ...(status?.removed ?? []).map((to): PlannedDelivery => ({ action: 'stop', to: `${to} (left as it is; its secret stops working when the old token is revoked)` }))];
}

/** `["local","project:platform/app","KEY","*"]` → `ci_variable platform/app KEY`. */
function wordsOfId(id: string, tokenInstance: string): string {
  try {
    const [instance, owner, key, scope] = JSON.parse(id) as [string, string, string, string];
    const [kind, ref] = [owner.slice(0, owner.indexOf(':')), owner.slice(owner.indexOf(':') + 1)];
    return `ci_variable ${kind === 'group' ? `group ${ref}` : ref} ${key}${scope !== '*' ? ` [${scope}]` : ''}${instance !== tokenInstance ? ` on instance ${instance}` : ''}`;
  } catch {
    return 'a CI/CD variable';
  }
}

/**
 * For every token of the group whose secret plumb holds delivered (a slot with `held`), or that is
 * live without any delivery recorded: how its ci_variable sinks compare with the last delivery.
 * Lists each project's or group's variables once (shared with the plan's sink checks).
 */
export async function sinkStatuses(ctx: InstanceContext, g: DesiredGroup, slotOf: (t: DesiredAccessToken) => TokenSlot | undefined): Promise<Map<string, SinkStatus>> {
  const out = new Map<string, SinkStatus>();
  await Promise.all(
    g.accessTokens.map(async (t) => {
      const slot = slotOf(t);
      const recorded = slot?.delivered ?? {};
      const declared = new Map<string, Extract<TokenSink, { kind: 'ci_variable' }>>();
      for (const s of t.sinks) if (s.kind === 'ci_variable') declared.set(variableSinkId(ctx.instance.name, s), s);
      if (declared.size === 0 && Object.keys(recorded).length === 0) return;
      const lines: string[] = [];
      const found = new Set<SinkReason>();
      await Promise.all(
        [...declared].map(async ([id, sink]) => {
          const words = describeVariable(undefined, sink);
          const rec = recorded[id];
          if (!rec) {
            found.add('sink-added');
            lines.push(`${words} is a new sink of token "${t.name}" (or one a failed apply left holding a revoked secret): plumb has no delivery of the current secret there, and keeps no secret to copy; apply issues a fresh secret for every sink`);
            return;
          }
          const moved = metaDifferences(declaredMeta(sink), rec.meta);
          if (moved.length > 0) {
            found.add('sink-changed');
            lines.push(`${words} of token "${t.name}" is declared with other ${moved.join(', ')} than plumb delivered it with; apply issues a fresh secret and delivers it so`);
            return;
          }
          const target = sinkContext(ctx, sink);
          if (!target) return; // the sink check reports it
          let live;
          try {
            live = await variableList(target, variableOwnerOf(sink));
          } catch {
            return; // the sink check reports it
          }
          const drift = await variableDrift(live, sink, rec);
          if (!drift) return;
          found.add('sink-drifted');
          lines.push(
            drift.kind === 'deleted'
              ? `${words} (sink of token "${t.name}") was deleted outside plumb; apply issues a fresh secret and delivers it to every sink`
              : drift.kind === 'edited'
                ? `${words} (sink of token "${t.name}") was edited outside plumb (${drift.fields.join(', ')}); apply issues a fresh secret and delivers it to every sink`
                : `${words} (sink of token "${t.name}") holds another value than plumb delivered (edited outside plumb); apply issues a fresh secret and delivers it to every sink`,
          );
        }),
      );
      const removed = Object.keys(recorded).filter((id) => !declared.has(id)).map((id) => wordsOfId(id, ctx.instance.name));
      for (const r of removed) lines.push(`${r} is no longer a sink of token "${t.name}" but holds its current secret; apply issues a fresh secret, so it stops working there once the old token is revoked`);
      if (removed.length > 0) found.add('sink-removed');
      const reason = (['sink-drifted', 'sink-added', 'sink-changed', 'sink-removed'] as const).find((r) => found.has(r));
      out.set(t.name, { ...(reason && { reason }), lines: lines.sort(), removed });
    }),
  );
  return out;
}

/** A token with the `api` scope whose secret a change delivers into an unmasked variable: readable in every job log. */
export function unmaskedRisks(ctx: InstanceContext, t: DesiredAccessToken, address: string): PlanRisk[] {
  if (!t.scopes.includes('api')) return [];
  return t.sinks.flatMap((s) =>
    s.kind === 'ci_variable' && !s.masked
      ? [
          flagRisk(ctx, {
            id: 'unmasked-token-variable',
            address,
            summary: `the secret of token "${t.name}" (scope api) goes into ${describeVariable(undefined, s)}, which is not masked: every job log that prints it shows a credential with full API access`,
            ...(s.pointer !== undefined && { pointer: `${s.pointer}/ci_variable/masked` }),
          }),
        ]
      : [],
  );
}
