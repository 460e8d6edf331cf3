/**
 * Who plumb is: `GET /personal_access_tokens/self` (the token plumb authenticates with) and
 * `GET /user` (its user). Read only when a planned change could lock plumb or the administrators
 * out, never on every plan.
 */
import type { ApiClient } from './client.js';
import { ApiInvalidResponseError } from './errors.js';
import { apiPath } from './path.js';

/** The token a request authenticated with (the service's personal access token entity). */
export interface OwnToken {
  readonly id: number;
  readonly name: string;
  readonly scopes: readonly string[];
  /** `YYYY-MM-DD`; null for a token without expiry. */
  readonly expires_at: string | null;
  readonly user_id: number;
  readonly active: boolean;
  readonly revoked: boolean;
}

/** The authenticated user, with the fields plumb reads. */
export interface CurrentUser {
  readonly id: number;
  readonly username: string;
  /** A bot user: the user behind a group or project access token (or a service account). */
  readonly bot: boolean;
  /** Present for administrators (and in some versions for everyone). */
  readonly is_admin?: boolean;
  /** The user's email and the one its commits carry (the authenticated user's own answer holds them). */
  readonly email?: string;
  readonly commit_email?: string;
}

const SELF_TOKEN = apiPath`/personal_access_tokens/self`;
const USER = apiPath`/user`;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export async function getOwnToken(client: ApiClient): Promise<OwnToken> {
  const res = await client.request<unknown>({ method: 'GET', path: SELF_TOKEN });
  const b = res.body;
  if (!isRecord(b) || typeof b['id'] !== 'number' || !Array.isArray(b['scopes'])) {
    throw ApiInvalidResponseError.lacking('GET', SELF_TOKEN, res.status, 'a token object with id and scopes');
  }
  return {
    id: b['id'],
    name: typeof b['name'] === 'string' ? b['name'] : '',
    scopes: (b['scopes'] as unknown[]).filter((s): s is string => typeof s === 'string'),
    expires_at: typeof b['expires_at'] === 'string' ? b['expires_at'].slice(0, 10) : null,
    user_id: typeof b['user_id'] === 'number' ? b['user_id'] : -1,
    active: b['active'] !== false,
    revoked: b['revoked'] === true,
  };
}

export async function getCurrentUser(client: ApiClient): Promise<CurrentUser> {
  const res = await client.request<unknown>({ method: 'GET', path: USER });
  const b = res.body;
  if (!isRecord(b) || typeof b['id'] !== 'number' || typeof b['username'] !== 'string') {
    throw ApiInvalidResponseError.lacking('GET', USER, res.status, 'a user object with id and username');
  }
  return {
    id: b['id'],
    username: b['username'],
    bot: b['bot'] === true,
    ...(typeof b['is_admin'] === 'boolean' && { is_admin: b['is_admin'] }),
    ...(typeof b['email'] === 'string' && { email: b['email'] }),
    ...(typeof b['commit_email'] === 'string' && { commit_email: b['commit_email'] }),
  };
}
