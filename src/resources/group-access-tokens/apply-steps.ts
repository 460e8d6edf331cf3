/**
 * Small pieces every token change shares (apply.ts, apply-overlap.ts): whether a failed issue may
 * have happened on the instance, and the group's list as it is after this run's own issues and
 * revocations.
 */
import { ApiError } from '../../api/errors.js';
import type { GroupAccessToken, NewGroupAccessToken } from '../../api/group-access-tokens.js';

/** Whether a failed create/rotate may still have happened on the instance (so: look, never repeat). */
export function issueMayHaveActed(err: unknown): boolean {
  if (!(err instanceof ApiError)) return true;
  if (err.code === 'PLUMB_API_INVALID_RESPONSE') return true; // a success status without the secret
  return err.status === undefined || err.status >= 500;
}

/** A token as a list shows it: the secret an issue returned is never kept (lists are shared and cached). */
export function listedToken(issued: NewGroupAccessToken): GroupAccessToken {
  const { token: _secret, ...token } = issued;
  return token;
}

/** The list with a token this run issued (created, or the new token of a rotation). */
export const withIssued = (issued: NewGroupAccessToken) => (list: readonly GroupAccessToken[]): GroupAccessToken[] => [...list.filter((x) => x.id !== issued.id), listedToken(issued)];

/** The list with a token this run revoked (or rotated: the old token is revoked by it), as the instance lists it now. */
export const withRevoked = (id: number) => (list: readonly GroupAccessToken[]): GroupAccessToken[] => list.map((x) => (x.id === id ? { ...x, active: false, revoked: true } : x));
