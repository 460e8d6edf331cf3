/**
 * Group access tokens as a resource (docs/tokens.md).
 *
 * Identity: a declared token is the group's ACTIVE token with that name (`id:` pins one when
 * several share it). A plan lists each declared group's tokens once (every page, no state filter)
 * and classifies them locally; groups are planned concurrently, the client bounds the requests in
 * flight.
 *
 * Invariants, because the instance shows a secret exactly once and punishes a repeated rotation by
 * revoking the whole token family:
 * - No token is issued (create, rotate, replace) without a sink checked first; the secret is
 *   registered for redaction the moment it arrives and delivered before the next change starts.
 * - A create or rotate is never repeated. After a failure that may have happened on the instance,
 *   the group is listed again to learn what happened; a token issued without its secret reaching
 *   plumb is noted in the state file and rotated by the next plan.
 * - A rotation is sent only when a list made just before shows the token active: a revoked token
 *   is never rotated.
 * - A replacement creates and delivers the new token before revoking the old one.
 *
 * The folder: `plan.ts` plans, `apply.ts` applies one change, `shared.ts` holds what both share
 * (addresses, the state file's sections, the session's token lists, confirming lists and sink
 * checks, kept in `ctx.memo.session`); `plan-overlap.ts` and `apply-overlap.ts` are the overlap
 * window (a rotation by successor, the predecessor revoked after it); this file is the provider the
 * engine calls.
 */
import { groupsOf } from './model.js';
import type { PayloadMeaning, ResourceProvider } from '../../engine/resource.js';
import { PayloadError } from '../../engine/payload.js';
import { parseTokenPayload } from './payload.js';
import type { NewTokenProps, TokenPayload } from './payload.js';
import { changeFingerprint, managesTokens, sharedList, tokenAddress } from './shared.js';
import { planTokens } from './plan.js';
import { overlapText } from './identity.js';
import { applyTokenChange } from './apply.js';

export { tokenAddress, tokenListKey } from './shared.js';

export const groupAccessTokensProvider: ResourceProvider<TokenPayload> = {
  kind: 'group_access_token',

  declares(instance) {
    return groupsOf(instance).some(managesTokens);
  },

  plan: planTokens,

  parsePayload: parseTokenPayload,
  describePayload: describeTokenPayload,

  /** With a `sink: {stdout: true}` token, standard output carries only the issued secrets (one JSON line each). */
  writesStdout(instance) {
    return groupsOf(instance).some((g) => g.accessTokens.some((t) => t.sinks.some((s) => s.kind === 'stdout')));
  },

  async liveFingerprint(ctx, _change, p) {
    return changeFingerprint(await sharedList(ctx, p.group), p.name, p.tokenId);
  },


  apply: applyTokenChange,
};

/** A token payload as a plan shows it (`describePayload`): the address, the action, what the new token gets. */
export function describeTokenPayload(instance: string, p: TokenPayload): PayloadMeaning {
  const at = tokenAddress({ name: instance }, p.group, p.name);
  const created = (c: NewTokenProps) => {
    if (c.name !== p.name) throw new PayloadError(`payload.create.name "${c.name}" is not the token's name "${p.name}"`);
    return [
      ...(c.description !== undefined ? [{ name: 'description', after: c.description, required: true }] : []),
      { name: 'scopes', after: [...c.scopes].sort(), required: true },
      { name: 'access_level', after: c.access_level, required: true },
      { name: 'expires_at', after: c.expires_at, required: true },
    ];
  };
  // The sinks are read again from the configuration at apply (`sink` one, `sinks` several): shown, never sent.
  const cosmetic = ['token', 'sink', 'sinks', 'rotated_by', 'revoke_old_on'];
  switch (p.op) {
    case 'none':
      return { addresses: [at], action: 'no-op', attributes: [] };
    case 'create':
      return { addresses: [at], action: 'create', attributes: created(p.create!), cosmetic };
    case 'replace':
      return { addresses: [at], action: 'replace', attributes: [...created(p.create!), { name: 'id', before: p.tokenId, required: true }], cosmetic };
    case 'overlap':
      return {
        addresses: [at],
        action: 'rotate',
        attributes: [...created(p.create!), { name: 'id', before: p.tokenId, required: true }, { name: 'overlap', after: overlapText(p.overlapHours!), required: true }],
        cosmetic,
      };
    case 'rotate':
      return {
        addresses: [at],
        action: 'rotate',
        attributes: [
          { name: 'id', before: p.tokenId, required: true },
          ...(p.expiresAt !== undefined ? [{ name: 'expires_at', after: p.expiresAt, required: true }] : []),
        ],
        cosmetic,
      };
    case 'delete':
      return { addresses: [`${at}#${p.tokenId}`, at], action: 'delete', attributes: [{ name: 'name', before: p.name, required: false }, { name: 'id', before: p.tokenId, required: true }], cosmetic: ['scopes', 'expires_at'] };
  }
}
