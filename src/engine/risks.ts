/**
 * Safety rails: changes that can lock the administrators or plumb itself out. Each resource kind
 * detects its own risks while planning and returns them with `flagRisk`; the engine only collects
 * them onto the plan and refuses to apply an unacknowledged one without `--allow-risky`.
 *
 * A risk is acknowledged in the configuration by listing its id under the instance's
 * `allow_risky`. Ids are stable: configurations and scripts name them.
 */
import { getCurrentUser, getOwnToken } from '../api/credential.js';
import type { CurrentUser, OwnToken } from '../api/credential.js';
import type { ApiClient } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import type { PlanDiagnostic, PlanRisk, ResourceChange } from './plan.js';
import type { InstanceContext } from './resource.js';
import { howToAccept } from '../config/risk-ids.js';
import type { Door, RiskId } from '../config/risk-ids.js';

export { RISKS, RISK_IDS, howToAccept, isRiskId } from '../config/risk-ids.js';
export type { Door, RiskId } from '../config/risk-ids.js';

/**
 * A risk found while planning `address`, acknowledged when the instance's `allow_risky` lists its
 * id. `summary` is one line saying what would happen and why (never a secret), in no door's words:
 * how to accept it is worded per door (`howToAccept`). `pointer`: the configuration value that
 * asks for the change, when one does (a setting), so a door can show the refusal there. `id` is
 * one of the shared `RiskId`s, or one the kind declares (`KindConfig.risks`, its type as `K`),
 * which `allow_risky` accepts alike.
 */
export function flagRisk<K extends string = never>(ctx: Pick<InstanceContext, 'instance'>, r: { readonly id: RiskId | K; readonly address: string; readonly summary: string; readonly pointer?: string }): PlanRisk {
  return { address: r.address, instance: ctx.instance.name, id: r.id, summary: r.summary, acknowledged: ctx.instance.allowRisky.includes(r.id), ...(r.pointer !== undefined && { pointer: r.pointer }) };
}

/** The risk id of a blast radius over `--max-changes`. */
export const LARGE_CHANGE_SET = 'large-change-set' satisfies RiskId;

/** Changes to one instance above which a plan is risky, when `--max-changes` is not given. */
export const DEFAULT_MAX_CHANGES = 100;

/**
 * The blast radius: an instance that more than `max` changes (no-ops aside) would touch is one
 * `large-change-set` risk on the instance's address, so that a mistake repeated across a fleet is
 * applied only when somebody says so (`--allow-risky`, or `allow_risky` of the instance).
 */
export function blastRadius(
  changes: readonly Pick<ResourceChange, 'instance' | 'action'>[],
  instances: readonly { readonly name: string; readonly allowRisky: readonly string[] }[],
  max = DEFAULT_MAX_CHANGES,
): PlanRisk[] {
  const counts = new Map<string, number>();
  for (const c of changes) if (c.action !== 'no-op') counts.set(c.instance, (counts.get(c.instance) ?? 0) + 1);
  return instances.flatMap((instance) => {
    const n = counts.get(instance.name) ?? 0;
    if (n <= max) return [];
    const summary = `${n.toLocaleString('en-US')} changes to instance "${instance.name}", more than --max-changes (${max}): a mistake would reach all of them at once`;
    return [{ address: instance.name, instance: instance.name, id: LARGE_CHANGE_SET, summary, acknowledged: instance.allowRisky.includes(LARGE_CHANGE_SET) }];
  });
}

/** One error per unacknowledged risk, saying how to accept it in the words of the door the configuration came through. */
export function riskRefusals(risks: readonly PlanRisk[], door: Door = 'cli'): PlanDiagnostic[] {
  return risks.map((r): PlanDiagnostic => r.gate === 'destroy' ? {
    severity: 'error' as const,
    code: 'PLUMB_DESTROY_NOT_ACCEPTED',
    summary: `Destroy not accepted: ${r.summary}`,
    detail: `"${r.id}": this change removes something people use, so plumb applies it only when asked to (${door === 'terraform' ? 'the provider\'s allow_risky' : '--allow-risky'} does not accept it).`,
    suggestion: `if you mean it, ${howToAccept(r, door)}`,
    address: r.address,
  } : {
    severity: 'error' as const,
    code: 'PLUMB_RISK_NOT_ACCEPTED',
    summary: `Risky change not accepted: ${r.summary}`,
    detail: r.id === LARGE_CHANGE_SET ? `Risk "${r.id}": plumb applies this many changes at once only when asked to (the threshold is --max-changes).` : `Risk "${r.id}": a change that can lock people or plumb out, or leave something unprotected, is applied only when asked to.`,
    suggestion: `if you mean it, ${howToAccept(r, door)}`,
    address: r.address,
  });
}

// ---------------------------------------------------------------------------------------------
// plumb's own credential

/**
 * What plumb knows about the credential it runs with. Each part is undefined when it could not be
 * read, with `problems` saying why (risk checks then assume the worst and say so).
 */
export interface Credential {
  readonly token?: OwnToken;
  readonly user?: CurrentUser;
  /**
   * `resource`: a group or project access token (its user is a bot named `group_<id>_bot_…` or
   * `project_<id>_bot_…`); `personal`: any other token (a service account's included);
   * `unknown`: `GET /user` failed.
   */
  readonly kind: 'personal' | 'resource' | 'unknown';
  readonly problems: readonly string[];
}

const RESOURCE_BOT = /^(group|project)_\d+_bot(_|$)/;

/** Reads plumb's credential once per instance per run (both calls in parallel), on first need. */
export function credentialOf(ctx: Pick<InstanceContext, 'client' | 'memo'>): Promise<Credential> {
  return ctx.memo.identity.get('credential', () => readCredential(ctx.client));
}

async function readCredential(client: ApiClient): Promise<Credential> {
  const problems: string[] = [];
  const why = (err: unknown) => (err instanceof ApiError ? err.message : String(err));
  const [token, user] = await Promise.all([
    getOwnToken(client).catch((err: unknown) => void problems.push(why(err))),
    getCurrentUser(client).catch((err: unknown) => void problems.push(why(err))),
  ]);
  const kind = !user ? 'unknown' : user.bot && RESOURCE_BOT.test(user.username) ? 'resource' : 'personal';
  return { ...(token && { token }), ...(user && { user }), kind, problems };
}
