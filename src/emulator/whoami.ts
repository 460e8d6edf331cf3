/**
 * Who is calling: `GET /user` (the authenticated user) and `GET /personal_access_tokens/self` (the
 * token the request authenticated with). Neither is in the spec; both follow the real v4 API
 * (docs/emulator.md): any valid token may read itself, whatever its scopes; `/user` needs `api`,
 * `read_api` or `read_user`. A group access token's user is its bot (`bot: true`).
 */
import { createHash } from 'node:crypto';
import { requireCaller, type Caller } from './auth.js';
import { json, type ApiResponse } from './http.js';
import type { EmulatorState } from './state.js';
import { isoDateTime } from './time.js';
import { tokenFields } from './tokens.js';

/** `baseUrl`: the base URL the request was sent to, so `web_url` names the host the client talks to. */
export function currentUser(caller: Caller | null, baseUrl: string): ApiResponse {
  const { user } = requireCaller(caller);
  return json(200, {
    id: user.id,
    username: user.username,
    name: user.name,
    state: 'active',
    locked: false,
    email: user.email,
    bot: user.bot,
    external: false,
    two_factor_enabled: false,
    web_url: `${baseUrl}/${user.username}`,
    // No uploaded avatars here: the real default (Gravatar on), its URL for the account's email.
    avatar_url: gravatarUrl(user.email),
    created_at: isoDateTime(user.createdAt),
    // The real API shows is_admin to administrators only.
    ...(user.admin && { is_admin: true }),
  });
}

/** The real GravatarService's URL: SHA-256 of the trimmed, lowercased email, 80 px, identicon. */
function gravatarUrl(email: string): string {
  return `https://www.gravatar.com/avatar/${createHash('sha256').update(email.trim().toLowerCase()).digest('hex')}?s=80&d=identicon`;
}

export function ownToken(state: EmulatorState, caller: Caller | null): ApiResponse {
  const { token } = requireCaller(caller);
  return json(200, tokenFields(state, token, true));
}
