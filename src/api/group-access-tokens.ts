/**
 * Group access tokens: `/groups/:id/access_tokens`.
 *
 * Create, rotate and revoke are never repeated by the client (a 429 excepted: the server refused
 * before acting). Rotation matters most: rotating a token that was already rotated is a reuse
 * attempt, and the service revokes every active token of the family. When a rotation ends without
 * a clear answer the client throws `ApiAmbiguousError`; list the tokens to see what happened.
 */
import type { ApiClient } from './client.js';
import { ApiInvalidResponseError } from './errors.js';
import { apiPath } from './path.js';
import type { ApiPath, PathParam } from './path.js';

/** 10 Guest, 15 Planner, 20 Reporter, 30 Developer, 40 Maintainer, 50 Owner. */
export type AccessLevel = 10 | 15 | 20 | 30 | 40 | 50;

export interface GroupAccessToken {
  readonly id: number;
  readonly user_id: number;
  readonly name: string;
  readonly description?: string | null;
  readonly scopes: readonly string[];
  readonly access_level: number;
  readonly active: boolean;
  readonly revoked: boolean;
  readonly created_at: string;
  /** `YYYY-MM-DD`; null for a token without expiry (older instances). */
  readonly expires_at: string | null;
  /** Returned by list and rotate; absent from get. */
  readonly last_used_at?: string | null;
}

/** What create and rotate return: the token object plus its secret, shown once. */
export interface NewGroupAccessToken extends GroupAccessToken {
  readonly token: string;
}

export type GroupAccessTokenSort =
  | 'created_asc'
  | 'created_desc'
  | 'expires_asc'
  | 'expires_desc'
  | 'last_used_asc'
  | 'last_used_desc'
  | 'name_asc'
  | 'name_desc';

export interface GroupAccessTokenFilters {
  readonly state?: 'active' | 'inactive';
  readonly revoked?: boolean;
  /** Tokens whose name contains this value. */
  readonly search?: string;
  readonly sort?: GroupAccessTokenSort;
  readonly created_after?: string;
  readonly created_before?: string;
  readonly expires_after?: string;
  readonly expires_before?: string;
  readonly last_used_after?: string;
  readonly last_used_before?: string;
}

export interface CreateGroupAccessTokenProps {
  readonly name: string;
  readonly description?: string;
  readonly scopes: readonly string[];
  /** @default 40 (server side) */
  readonly access_level?: AccessLevel;
  /** `YYYY-MM-DD`. @default the instance's maximum lifetime (server side) */
  readonly expires_at?: string;
}

export interface RotateGroupAccessTokenProps {
  /** `YYYY-MM-DD`. @default one week after rotation when expiry is required, else the maximum lifetime */
  readonly expires_at?: string;
}

const tokensPath = (groupId: PathParam): ApiPath => apiPath`/groups/${groupId}/access_tokens`;

/** Every token of the group, all pages. */
export async function listGroupAccessTokens(
  client: ApiClient,
  groupId: PathParam,
  filters: GroupAccessTokenFilters = {},
): Promise<GroupAccessToken[]> {
  const { items } = await client.listAll<GroupAccessToken>({ path: tokensPath(groupId), query: { ...filters } });
  return items;
}

export async function getGroupAccessToken(
  client: ApiClient,
  groupId: PathParam,
  tokenId: PathParam,
): Promise<GroupAccessToken> {
  const res = await client.request<GroupAccessToken>({
    method: 'GET',
    path: apiPath`/groups/${groupId}/access_tokens/${tokenId}`,
  });
  return res.body;
}

export async function createGroupAccessToken(
  client: ApiClient,
  groupId: PathParam,
  props: CreateGroupAccessTokenProps,
): Promise<NewGroupAccessToken> {
  const path = tokensPath(groupId);
  const res = await client.request<unknown>({ method: 'POST', path, body: props });
  return withSecret('POST', path, res.status, res.body);
}

/** Revokes `tokenId` (or the calling token with `'self'`) and returns its replacement. Never repeated. */
export async function rotateGroupAccessToken(
  client: ApiClient,
  groupId: PathParam,
  tokenId: number | 'self',
  props: RotateGroupAccessTokenProps = {},
): Promise<NewGroupAccessToken> {
  const path = apiPath`/groups/${groupId}/access_tokens/${tokenId}/rotate`;
  const body = props.expires_at === undefined ? undefined : { expires_at: props.expires_at };
  const res = await client.request<unknown>({ method: 'POST', path, body });
  return withSecret('POST', path, res.status, res.body);
}

/** Revokes a token (204). */
export async function revokeGroupAccessToken(client: ApiClient, groupId: PathParam, tokenId: number): Promise<void> {
  await client.request({ method: 'DELETE', path: apiPath`/groups/${groupId}/access_tokens/${tokenId}` });
}

function withSecret(method: string, path: ApiPath, status: number, body: unknown): NewGroupAccessToken {
  const token = (body as { token?: unknown } | null)?.token;
  if (typeof body !== 'object' || body === null || typeof token !== 'string') {
    // The secret is shown once: without it the new token is unusable, and the caller must know.
    throw ApiInvalidResponseError.lacking(method, path, status, "the new token's secret");
  }
  return body as NewGroupAccessToken;
}
