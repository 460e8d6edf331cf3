/**
 * The group access tokens kind: everything plumb knows about it lives in this folder (config
 * resolution, pointers, plan, apply, payload, reasons, state sections, identity rules, sinks).
 *
 * This file is the kind's registry entry: light (no provider, no API client), its runtime parts
 * behind `load()` (./runtime.ts).
 */
import type { Reason } from '../../engine/plan.js';
import type { KindEntry } from '../kind.js';
import { codesOf } from '../codes.js';
import { TOKEN_CONFIG } from './config.js';
import { TOKEN_SHAPE } from './shape.js';
import type { TokenPayload } from './payload.js';

/** How a plan explains this kind's reasons to people (assembled by the registry, src/resources/index.ts). */
export const TOKEN_REASONS = {
  'missing-in-live': 'it does not exist on the instance',
  'expiring-soon': 'it expires within the rotation window',
  'expiry-changed': 'the declared expiry date changed',
  'revoked-out-of-band': 'it was revoked outside plumb',
  'expired-out-of-band': 'it expired',
  'immutable-field-changed': 'an attribute that cannot change in place differs: the new token is issued first, then the old one revoked',
  'not-in-config': 'it is not declared and pruning is on',
  'secret-not-received': 'its secret was never received',
  'absent-requested': 'the configuration asks for it to be absent',
  superseded: 'it was replaced by a new token and its revocation did not finish',
  'sink-holds-other-token': 'its sink holds the secret of another token than the active one',
  'revoked-by-plumb': 'plumb revoked it after its secret could not be delivered',
  'overlap-ended': 'its successor reached every sink and the overlap window has passed',
  'sink-added': 'a sink was added: plumb keeps no secret, so it issues a fresh one for every sink',
  'sink-changed': 'a sink moved or changed: plumb keeps no secret, so it issues a fresh one for every sink',
  'sink-removed': 'a sink was removed: a fresh secret makes the one left there stop working',
  'sink-drifted': 'a sink drifted (deleted or edited outside plumb): a fresh secret is delivered to every sink',
} as const satisfies Partial<Record<Reason, string>>;

/** The kind's registry entry: what every door asks of it (src/resources/kind.ts). */
export const groupAccessTokensKind: KindEntry<TokenPayload> = {
  kind: TOKEN_CONFIG.kind,
  reasons: TOKEN_REASONS,
  codes: codesOf(['PLUMB_TOKEN_', 'PLUMB_SINK_', 'PLUMB_PRUNE_ALL_TOKENS', 'PLUMB_TF_SINK_STDOUT']),
  config: TOKEN_CONFIG,
  stateSlots: ['tokens', 'token_slots'],
  terraformShape: TOKEN_SHAPE,
  load: async () => (await import('./runtime.js')).groupAccessTokensRuntime,
};
