/**
 * `GET /groups/:id` and `GET /projects/:id`: the fields of the real v4 responses that plumb and real
 * clients (python-gitlab, gitbeaker) read. Visibility rules as everywhere: an object the caller
 * cannot see is a 404, never a 403. Every URL (`web_url`, `http_url_to_repo`, ...) is derived from
 * the base URL the request was sent to (its Host header), as the real service derives them from its
 * external URL, so a client's pagination and links stay on the emulator it talks to.
 */
import { findGroup, findProject, type Caller } from './auth.js';
import { json, type ApiResponse } from './http.js';
import type { EmulatorState, GroupRecord, ProjectRecord } from './state.js';
import { isoDateTime } from './time.js';

export interface NamespaceCtx {
  readonly state: EmulatorState;
  readonly caller: Caller | null;
  /** The base URL the request was sent to, without `/api/v4` (e.g. `http://127.0.0.1:41234`). */
  readonly baseUrl: string;
}

/** The names of the group and its ancestors, root first, joined as the service does ("Platform / Infrastructure"). */
export function groupFullName(state: EmulatorState, group: GroupRecord): string {
  return state
    .groupChain(group)
    .reverse()
    .map((g) => g.name)
    .join(' / ');
}

/** A group as `GET /groups/:id` and `GET /groups` show it. */
export function renderGroup(state: EmulatorState, g: GroupRecord, baseUrl: string): Record<string, unknown> {
  return {
    id: g.id,
    web_url: `${baseUrl}/groups/${g.fullPath}`,
    name: g.name,
    path: g.path,
    description: g.description,
    visibility: g.visibility,
    full_name: groupFullName(state, g),
    full_path: g.fullPath,
    created_at: isoDateTime(g.createdAt),
    parent_id: g.parentId,
  };
}

export function getGroup(ctx: NamespaceCtx, ref: string): ApiResponse {
  const g = findGroup(ctx.state, ctx.caller, ref);
  return json(200, renderGroup(ctx.state, g, ctx.baseUrl));
}

/** A project as `GET /projects/:id` shows it (and `GET /groups/:id/projects` lists it). */
export function renderProject(state: EmulatorState, p: ProjectRecord, baseUrl: string): Record<string, unknown> {
  const ns = state.groupById(p.namespaceId);
  const host = new URL(baseUrl).hostname;
  return {
    id: p.id,
    description: p.description,
    name: p.name,
    name_with_namespace: ns ? `${groupFullName(state, ns)} / ${p.name}` : p.name,
    path: p.path,
    path_with_namespace: p.pathWithNamespace,
    created_at: isoDateTime(p.createdAt),
    default_branch: p.defaultBranch,
    ssh_url_to_repo: `git@${host}:${p.pathWithNamespace}.git`,
    http_url_to_repo: `${baseUrl}/${p.pathWithNamespace}.git`,
    web_url: `${baseUrl}/${p.pathWithNamespace}`,
    namespace: ns
      ? { id: ns.id, name: ns.name, path: ns.path, kind: 'group', full_path: ns.fullPath, parent_id: ns.parentId, web_url: `${baseUrl}/groups/${ns.fullPath}` }
      : null,
    empty_repo: p.repo.branches.size === 0,
    archived: p.archived,
    visibility: p.visibility,
    pages_access_level: p.pagesAccessLevel,
  };
}

/**
 * `permissions` of `GET /projects/:id` (Entities::ProjectWithAccess): the caller's own membership of
 * the project (`project_access`) and the highest of the project's group and its ancestors
 * (`group_access`, `highest_group_member`), each null when there is none. A role through a group
 * the project is shared with is in neither, as on the real service; an administrator who is no
 * member gets two nulls.
 */
function permissionsOf(state: EmulatorState, caller: Caller | null, p: ProjectRecord): Record<string, unknown> {
  const access = (level: number) => (level > 0 ? { access_level: level, notification_level: 3 } : null);
  const ns = state.groupById(p.namespaceId);
  const id = caller?.user.id;
  return {
    project_access: access(id === undefined ? 0 : (p.members.get(id) ?? 0)),
    group_access: access(id === undefined || !ns ? 0 : state.groupAccess(id, ns)),
  };
}

export function getProject(ctx: NamespaceCtx, ref: string): ApiResponse {
  const p = findProject(ctx.state, ctx.caller, ref);
  return json(200, { ...renderProject(ctx.state, p, ctx.baseUrl), permissions: permissionsOf(ctx.state, ctx.caller, p) });
}
