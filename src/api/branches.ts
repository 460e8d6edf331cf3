/**
 * One branch of a project: `GET /projects/:id/repository/branches/:branch` (lib/api/branches.rb of
 * the real v4 API), with what file delivery plans against: whether the branch is protected, and
 * whether the calling user may push to it (`can_push`: the service's own verdict, its role, its
 * administrator status and every matching protection rule included).
 */
import type { ApiClient } from './client.js';
import { ApiInvalidResponseError, ApiNotFoundError } from './errors.js';
import { apiPath } from './path.js';
import type { PathParam } from './path.js';

export interface BranchAccess {
  readonly name: string;
  readonly protected: boolean;
  /** Whether the calling user may push to it. */
  readonly can_push: boolean;
}

/** The branch, or undefined when the project has no branch of that name (a 404). */
export async function getBranchAccess(client: ApiClient, project: PathParam, branch: string): Promise<BranchAccess | undefined> {
  const path = apiPath`/projects/${project}/repository/branches/${branch}`;
  let res;
  try {
    res = await client.request<unknown>({ method: 'GET', path });
  } catch (err) {
    if (err instanceof ApiNotFoundError && /branch/i.test(err.serverMessage ?? '')) return undefined;
    throw err;
  }
  const b = res.body as { name?: unknown; protected?: unknown; can_push?: unknown } | null;
  if (typeof b?.protected !== 'boolean' || typeof b.can_push !== 'boolean') throw ApiInvalidResponseError.lacking('GET', path, res.status, "the branch's protected and can_push");
  return { name: typeof b.name === 'string' ? b.name : branch, protected: b.protected, can_push: b.can_push };
}
