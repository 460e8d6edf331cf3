/**
 * Lowering `max_personal_access_token_lifetime` makes the instance revoke every active token that
 * outlives the new limit (spec: "lowering revokes tokens beyond the limit"): personal, group and
 * project tokens alike. plumb can see two kinds of them: its own credential
 * (`GET /personal_access_tokens/self`) and the tokens of the groups whose access tokens the
 * configuration manages. A plan that lowers the limit lists those groups (only then: an ordinary
 * plan makes no extra request) and flags the lowering as a risk naming the tokens it revokes,
 * plumb's own first; an apply that sends a new limit lists them before and after the write and
 * reports what the instance revoked.
 */
import { listGroupAccessTokens } from '../../api/group-access-tokens.js';
import type { GroupAccessToken } from '../../api/group-access-tokens.js';
import { ApiError } from '../../api/errors.js';
import type { PlanDiagnostic, PlanRisk } from '../../engine/plan.js';
import type { InstanceContext } from '../../engine/resource.js';
import { planDiagnostic } from '../../engine/resource.js';
import type { Credential } from '../../engine/risks.js';
import { flagRisk } from '../../engine/risks.js';

/** One live token of a managed group. */
export interface ManagedToken {
  readonly group: string;
  readonly id: number;
  readonly name: string;
  readonly expiresAt: string | null;
}

const active = (t: GroupAccessToken) => !t.revoked && t.active !== false;

/** The groups whose tokens the configuration manages: the groups holding anything it declares (tokens are the only kind under groups, and declare a group only when it has tokens or prunes). */
function managedGroups(ctx: InstanceContext): string[] {
  return (ctx.instance.containers.get('groups') ?? []).map((g) => g.ref);
}

/** The active tokens of the managed groups; `problems` names each group that could not be listed. */
export async function managedTokens(ctx: InstanceContext): Promise<{ tokens: ManagedToken[]; problems: string[] }> {
  const problems: string[] = [];
  const lists = await Promise.all(
    managedGroups(ctx).map(async (group) => {
      try {
        const list = await listGroupAccessTokens(ctx.client, /^\d+$/.test(group) ? Number(group) : group);
        return list.filter(active).map((t) => ({ group, id: t.id, name: t.name, expiresAt: t.expires_at }));
      } catch (err) {
        problems.push(`group "${group}": ${err instanceof ApiError ? err.message : String(err)}`);
        return [];
      }
    }),
  );
  return { tokens: lists.flat(), problems };
}

const outlives = (expiresAt: string | null | undefined, limit: string) => expiresAt === null || expiresAt === undefined || expiresAt > limit;

const describe = (t: ManagedToken) => `"${t.name}" of group "${t.group}" (id ${t.id}, ${t.expiresAt ? `expires on ${t.expiresAt}` : 'never expires'})`;

/**
 * The risk of lowering the limit to `days` (ending on `limit`, YYYY-MM-DD): none when nothing plumb
 * can see outlives it. `token-lifetime-revokes-credential` when plumb's own token is among the
 * revoked (it is named first), else `token-lifetime-lowered`.
 */
export async function lifetimeRisk(ctx: InstanceContext, cred: Credential, days: number, limit: string, address: string, pointer?: string): Promise<PlanRisk | undefined> {
  const { tokens, problems } = await managedTokens(ctx);
  const revoked = tokens.filter((t) => outlives(t.expiresAt, limit));
  const ownExpires = cred.token?.expires_at;
  const own = !cred.token || outlives(ownExpires, limit);
  const ownText = cred.token
    ? `plumb's own token (${ctx.instance.tokenEnv}, ${ownExpires ? `expires on ${ownExpires}` : 'never expires'})`
    : `possibly plumb's own token (plumb could not read it: ${cred.problems.join('; ') || 'no answer'}, so it assumes the worst)`;
  // plumb's own token may be one of the managed ones (a `self` group token): name it once.
  const others = revoked.filter((t) => t.id !== cred.token?.id);
  if (!own && others.length === 0 && problems.length === 0) return undefined;
  const names = [...(own ? [ownText] : []), ...others.map(describe)];
  const unlisted = problems.length > 0 ? `; plumb could not list ${problems.join('; ')}, so it may revoke tokens there too` : '';
  return flagRisk(ctx, {
    id: own ? 'token-lifetime-revokes-credential' : 'token-lifetime-lowered',
    address,
    ...(pointer !== undefined && { pointer }),
    summary: `lowering max_personal_access_token_lifetime to ${days} days: the instance revokes every token that outlives ${limit}${names.length > 0 ? `, among them ${names.join(', ')}` : ''}${unlisted}`,
  });
}

/**
 * After a write that set a new limit: the managed tokens that were active before it and are not any
 * more, reported as one warning (their sinks now hold dead secrets).
 */
export async function reportRevokedByLimit(ctx: InstanceContext, before: readonly ManagedToken[], address: string): Promise<{ diagnostics: PlanDiagnostic[]; notes: string[] }> {
  if (before.length === 0) return { diagnostics: [], notes: [] };
  const after = await managedTokens(ctx);
  if (after.problems.length > 0 && after.tokens.length === 0) {
    const refused = after.problems.some((p) => /401|unauthori[sz]ed/i.test(p));
    return {
      notes: [],
      diagnostics: [
        planDiagnostic(ctx, {
          severity: 'warning',
          code: 'PLUMB_TOKENS_REVOKED_BY_LIMIT',
          summary: refused
            ? `The new max_personal_access_token_lifetime seems to have revoked plumb's own token: listing the managed groups' tokens is refused now`
            : `The new max_personal_access_token_lifetime may have revoked tokens, but the managed groups' tokens could not be listed again (${after.problems.join('; ')})`,
          suggestion: refused ? `give plumb a new token in ${ctx.instance.tokenEnv}, then run \`plumb plan\`` : 'run `plumb plan`: it shows which declared tokens must be created anew',
          address,
        }),
      ],
    };
  }
  const still = new Set(after.tokens.map((t) => t.id));
  const revoked = before.filter((t) => !still.has(t.id) && !after.problems.some((p) => p.startsWith(`group "${t.group}"`)));
  if (revoked.length === 0) return { diagnostics: [], notes: ['the new max_personal_access_token_lifetime revoked none of the managed tokens'] };
  return {
    notes: [`the instance revoked ${revoked.length} managed token(s) beyond the new limit: ${revoked.map((t) => `id ${t.id}`).join(', ')}`],
    diagnostics: [
      planDiagnostic(ctx, {
        severity: 'warning',
        code: 'PLUMB_TOKENS_REVOKED_BY_LIMIT',
        summary: `The new max_personal_access_token_lifetime made the instance revoke ${revoked.length} managed token(s): ${revoked.map(describe).join(', ')}`,
        detail: 'Their sinks still hold the old secrets, which no longer work.',
        suggestion: 'run `plumb plan` and `plumb apply`: they create the declared tokens anew and deliver the secrets',
        address,
      }),
    ],
  };
}
