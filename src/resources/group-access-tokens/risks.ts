/**
 * The token kind's safety rail: a planned revocation (pruning an undeclared token, or finishing a
 * superseded one) of the very token plumb authenticates with would lock plumb out halfway through
 * the run. plumb's credential is read (`GET /personal_access_tokens/self`) only when the plan
 * revokes something, so an ordinary plan makes no extra request.
 */
import type { PlanRisk, ResourceChange } from '../../engine/plan.js';
import type { InstanceContext } from '../../engine/resource.js';
import { credentialOf, flagRisk } from '../../engine/risks.js';

export async function revocationRisks<C extends Pick<ResourceChange, 'action' | 'address'>>(ctx: InstanceContext, changes: readonly C[], tokenIdOf: (c: C) => number | undefined): Promise<PlanRisk[]> {
  const revokes = changes.filter((c) => c.action === 'delete');
  if (revokes.length === 0) return [];
  const credential = await credentialOf(ctx);
  const own = credential.token?.id;
  const risks: PlanRisk[] = [];
  for (const c of revokes) {
    const id = tokenIdOf(c);
    if (own === undefined) {
      // Unknown credential: assume the worst only when plumb runs as a group token at all.
      if (credential.kind === 'personal') continue;
      risks.push(
        flagRisk(ctx, {
          id: 'prune-own-credential',
          address: c.address,
          summary: `revoking token id ${id} may revoke the credential plumb runs with (plumb could not read its own token: ${credential.problems.join('; ') || 'unknown'})`,
        }),
      );
      continue;
    }
    if (id === own) {
      risks.push(
        flagRisk(ctx, {
          id: 'prune-own-credential',
          address: c.address,
          summary: `revoking token id ${id} revokes the credential plumb runs with (${ctx.instance.tokenEnv}); the rest of this run and every later one would be refused`,
        }),
      );
    }
  }
  return risks;
}
