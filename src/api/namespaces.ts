/**
 * `GET /groups/:id` and `GET /projects/:id`, reduced to what resolves a reference: `:id` may be a
 * numeric id or a full path (matched case-insensitively by the service), so two spellings can name
 * one object. Unknown fields of the responses are ignored.
 */
import type { ApiClient } from './client.js';
import { ApiInvalidResponseError } from './errors.js';
import { apiPath } from './path.js';
import type { PathParam } from './path.js';

export interface GroupRef {
  readonly id: number;
  readonly full_path: string;
}

export interface ProjectRef {
  readonly id: number;
  readonly path_with_namespace: string;
  /** Absent for a project without a repository. */
  readonly default_branch?: string;
  /** `private`, `internal` or `public`; absent when the instance did not say (treat it as private). */
  readonly visibility?: string;
  /** Archived projects are read-only: the service refuses every write to them, an administrator's too. */
  readonly archived?: boolean;
  /**
   * The role of the credential's user in the project as the answer's `permissions` state it: the
   * higher of `project_access` (a member of the project) and `group_access` (of its group or a
   * parent group); 0 when neither. A role held only through a group the project is shared with is
   * not in it. Absent when the answer has no `permissions`.
   */
  readonly role?: number;
}

/** The role `permissions` (of `GET /projects/:id`) state, or undefined when there are none. */
function roleOf(permissions: unknown): number | undefined {
  if (typeof permissions !== 'object' || permissions === null) return undefined;
  const level = (v: unknown) => (typeof v === 'object' && v !== null && typeof (v as { access_level?: unknown }).access_level === 'number' ? (v as { access_level: number }).access_level : 0);
  const p = permissions as Record<string, unknown>;
  return Math.max(level(p.project_access), level(p.group_access));
}

export async function getGroupRef(client: ApiClient, group: PathParam): Promise<GroupRef> {
  const path = apiPath`/groups/${group}`;
  const res = await client.request<unknown>({ method: 'GET', path });
  const b = res.body as Partial<GroupRef> | null;
  if (typeof b?.id !== 'number' || typeof b.full_path !== 'string') throw ApiInvalidResponseError.lacking('GET', path, res.status, "the group's id and full_path");
  return { id: b.id, full_path: b.full_path };
}

export async function getProjectRef(client: ApiClient, project: PathParam): Promise<ProjectRef> {
  const path = apiPath`/projects/${project}`;
  const res = await client.request<unknown>({ method: 'GET', path });
  const b = res.body as Partial<ProjectRef> | null;
  if (typeof b?.id !== 'number' || typeof b.path_with_namespace !== 'string') {
    throw ApiInvalidResponseError.lacking('GET', path, res.status, "the project's id and path_with_namespace");
  }
  const role = roleOf((res.body as { permissions?: unknown }).permissions);
  return {
    id: b.id,
    path_with_namespace: b.path_with_namespace,
    ...(typeof b.default_branch === 'string' && { default_branch: b.default_branch }),
    ...(typeof b.visibility === 'string' && { visibility: b.visibility }),
    ...(typeof b.archived === 'boolean' && { archived: b.archived }),
    ...(role !== undefined && { role }),
  };
}

/**
 * Every group in which the credential's user has the Owner role, directly or inherited
 * (`GET /groups?min_access_level=50`, all pages): the groups whose access tokens it may manage.
 * `owned=true` would leave out subgroups of an owned group, where the role is inherited.
 */
export async function listOwnedGroups(client: ApiClient): Promise<GroupRef[]> {
  const { items } = await client.listAll<Partial<GroupRef>>({ path: apiPath`/groups`, query: { min_access_level: 50, order_by: 'path', sort: 'asc' } });
  return items.filter((g): g is GroupRef => typeof g.id === 'number' && typeof g.full_path === 'string').map((g) => ({ id: g.id, full_path: g.full_path }));
}
