/**
 * What a group holds, as the real v4 API lists it (docs/emulator.md#group-projects-subgroups-and-descendant-groups):
 *
 * - `GET /groups/:id/projects`: the group's projects (with `include_subgroups`, those of every
 *   descendant group too) and, while `with_shared` is true (the default), the projects shared with
 *   the group itself; only those the caller can see (an administrator sees all). Filters
 *   `archived` (absent = both), `visibility`, `search`; `order_by` (default `created_at`) and
 *   `sort` (default `desc`) with the id as tie-break in the same direction; `simple` for the short
 *   entity; paginated.
 * - `GET /groups/:id/subgroups` (direct children) and `GET /groups/:id/descendant_groups` (every
 *   depth): the GroupsFinder rules: `all_available` (default true for an administrator, else false:
 *   a member sees the groups of their memberships, inherited ones included), `search`,
 *   `skip_groups`, `owned`, `min_access_level`, `order_by` (`name` default, `path`, `id`,
 *   `similarity`) and `sort` (`asc` default) with the id ascending as tie-break; paginated.
 *
 * The group in the path must be visible to the caller (404 `Group Not Found` otherwise).
 */
import { canReadCode, canSeeGroup, canSeeProject, findGroup, type Caller } from './auth.js';
import { json, paramErrors, type ApiResponse } from './http.js';
import { groupFullName, renderGroup, renderProject } from './namespaces.js';
import { paginate, type PageRequest } from './pagination.js';
import type { EmulatorState, GroupRecord, ProjectRecord } from './state.js';
import { isoDateTime } from './time.js';

export interface DiscoveryCtx {
  readonly state: EmulatorState;
  readonly caller: Caller | null;
  readonly page: PageRequest;
  /** The base URL the request was sent to (for `web_url`). */
  readonly baseUrl: string;
}

const TRUE = ['true', 't', '1', 'yes', 'y', 'on'];
const FALSE = ['false', 'f', '0', 'no', 'n', 'off'];
const ROLES = [10, 15, 20, 30, 40, 50];

/** Grape's Boolean coercion: undefined when absent (or empty), an error when not a boolean. */
function boolParam(q: URLSearchParams, name: string, errors: string[]): boolean | undefined {
  const raw = q.get(name);
  if (raw === null || raw === '') return undefined;
  const s = raw.toLowerCase();
  if (TRUE.includes(s)) return true;
  if (FALSE.includes(s)) return false;
  errors.push(`${name} is invalid`);
  return undefined;
}

function enumParam<T extends string>(q: URLSearchParams, name: string, values: readonly T[], fallback: T, errors: string[]): T {
  const raw = q.get(name);
  if (raw === null || raw === '') return fallback;
  if ((values as readonly string[]).includes(raw)) return raw as T;
  errors.push(`${name} does not have a valid value`);
  return fallback;
}

/** The ids of `group` and every group below it. */
function subtreeIds(state: EmulatorState, group: GroupRecord): Set<number> {
  const ids = new Set([group.id]);
  // Groups are seeded parents first, but tests may push groups out of order: repeat until stable.
  for (let grew = true; grew; ) {
    grew = false;
    for (const g of state.groups) {
      if (g.parentId !== null && ids.has(g.parentId) && !ids.has(g.id)) {
        ids.add(g.id);
        grew = true;
      }
    }
  }
  return ids;
}

/** When the project last changed: its newest commit on any branch, else its creation. */
function lastActivity(p: ProjectRecord): Date {
  let last = p.createdAt;
  for (const id of p.repo.branches.values()) {
    const c = p.repo.commits.get(id);
    if (c && c.committedDate > last) last = c.committedDate;
  }
  return last;
}

const PROJECT_ORDER = ['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at', 'similarity', 'star_count'] as const;

/**
 * `BasicProjectDetails`, the entity of `simple=true`: no `archived`, no `visibility`. What depends
 * on the namespace or the base URL alone is worked out once per page (`shared`), as a list of
 * thousands of projects is read a hundred at a time.
 */
function simpleRenderer(state: EmulatorState, caller: Caller | null, baseUrl: string): (p: ProjectRecord) => Record<string, unknown> {
  const host = new URL(baseUrl).hostname;
  const namespaces = new Map<number, { fullName: string; rendered: Record<string, unknown> } | null>();
  const namespaceOf = (id: number): { fullName: string; rendered: Record<string, unknown> } | null => {
    let entry = namespaces.get(id);
    if (entry === undefined) {
      const ns = state.groupById(id);
      entry = ns
        ? {
            fullName: groupFullName(state, ns),
            rendered: { id: ns.id, name: ns.name, path: ns.path, kind: 'group', full_path: ns.fullPath, parent_id: ns.parentId, web_url: `${baseUrl}/groups/${ns.fullPath}` },
          }
        : null;
      namespaces.set(id, entry);
    }
    return entry;
  };
  return (p) => renderSimpleProject(state, caller, p, baseUrl, host, namespaceOf(p.namespaceId));
}

function renderSimpleProject(
  state: EmulatorState,
  caller: Caller | null,
  p: ProjectRecord,
  baseUrl: string,
  host: string,
  ns: { fullName: string; rendered: Record<string, unknown> } | null,
): Record<string, unknown> {
  return {
    id: p.id,
    description: p.description,
    name: p.name,
    name_with_namespace: ns ? `${ns.fullName} / ${p.name}` : p.name,
    path: p.path,
    path_with_namespace: p.pathWithNamespace,
    created_at: isoDateTime(p.createdAt),
    // The real entity shows the default branch only to who may read the code.
    ...(canReadCode(state, caller, p) ? { default_branch: p.defaultBranch } : {}),
    tag_list: [],
    topics: [],
    ssh_url_to_repo: `git@${host}:${p.pathWithNamespace}.git`,
    http_url_to_repo: `${baseUrl}/${p.pathWithNamespace}.git`,
    web_url: `${baseUrl}/${p.pathWithNamespace}`,
    readme_url: null,
    forks_count: 0,
    avatar_url: null,
    star_count: 0,
    last_activity_at: isoDateTime(lastActivity(p)),
    namespace: ns ? { ...ns.rendered } : null,
  };
}

export function listGroupProjects(ctx: DiscoveryCtx, groupRef: string): ApiResponse {
  const { state, caller } = ctx;
  const q = new URLSearchParams(ctx.page.query);
  const errors: string[] = [];
  const archived = boolParam(q, 'archived', errors);
  const includeSubgroups = boolParam(q, 'include_subgroups', errors) ?? false;
  const withShared = boolParam(q, 'with_shared', errors) ?? true;
  const simple = boolParam(q, 'simple', errors) ?? false;
  const orderBy = enumParam(q, 'order_by', PROJECT_ORDER, 'created_at', errors);
  const sort = enumParam(q, 'sort', ['asc', 'desc'] as const, 'desc', errors);
  const visibility = q.get('visibility');
  if (visibility !== null && visibility !== '' && !['private', 'internal', 'public'].includes(visibility)) errors.push('visibility does not have a valid value');
  if (errors.length > 0) throw paramErrors(errors);
  const group = findGroup(state, caller, groupRef);

  const namespaces = includeSubgroups ? subtreeIds(state, group) : new Set([group.id]);
  const search = q.get('search')?.toLowerCase();
  const projects = state.projects.filter((p) => {
    if (!namespaces.has(p.namespaceId) && !(withShared && p.sharedWith.has(group.id))) return false;
    if (archived !== undefined && p.archived !== archived) return false;
    if (visibility && p.visibility !== visibility) return false;
    if (search && ![p.name, p.path, p.description].some((s) => s.toLowerCase().includes(search))) return false;
    return canSeeProject(state, caller, p);
  });

  // The real `reorder_projects`: the field in the asked direction, then the id in the same direction
  // (`similarity` without a search and `star_count`, always 0 here, come down to name/id).
  const dir = sort === 'asc' ? 1 : -1;
  const activity = orderBy === 'updated_at' || orderBy === 'last_activity_at' ? new Map(projects.map((p) => [p.id, lastActivity(p).getTime()])) : undefined;
  const key = (p: ProjectRecord): string | number => {
    switch (orderBy) {
      case 'name':
      case 'similarity':
        return p.name.toLowerCase();
      case 'path':
        return p.path.toLowerCase();
      case 'created_at':
        return p.createdAt.getTime();
      case 'updated_at':
      case 'last_activity_at':
        return activity!.get(p.id)!;
      default:
        return 0;
    }
  };
  projects.sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    if (ka < kb) return orderBy === 'similarity' ? -1 : -dir;
    if (ka > kb) return orderBy === 'similarity' ? 1 : dir;
    return (a.id - b.id) * dir;
  });

  const { items, headers } = paginate(projects, ctx.page);
  const render = simple ? simpleRenderer(state, caller, ctx.baseUrl) : (p: ProjectRecord) => ({ ...renderProject(state, p, ctx.baseUrl), last_activity_at: isoDateTime(lastActivity(p)) });
  return json(200, items.map(render), headers);
}

const GROUP_ORDER = ['name', 'path', 'id', 'similarity'] as const;

function listGroupsUnder(ctx: DiscoveryCtx, groupRef: string, depth: 'children' | 'descendants'): ApiResponse {
  const { state, caller } = ctx;
  const q = new URLSearchParams(ctx.page.query);
  const errors: string[] = [];
  const allAvailableParam = boolParam(q, 'all_available', errors);
  const owned = boolParam(q, 'owned', errors) ?? false;
  const orderBy = enumParam(q, 'order_by', GROUP_ORDER, 'name', errors);
  const sort = enumParam(q, 'sort', ['asc', 'desc'] as const, 'asc', errors);
  const minRaw = q.get('min_access_level');
  const min = minRaw === null || minRaw === '' ? undefined : Number(minRaw);
  if (min !== undefined && !ROLES.includes(min)) errors.push('min_access_level does not have a valid value');
  // `skip_groups[]=1&skip_groups[]=2` or `skip_groups=1,2`.
  const skip = new Set<number>();
  for (const raw of [...q.getAll('skip_groups'), ...q.getAll('skip_groups[]')]) {
    for (const part of raw.split(',')) {
      if (part.trim() === '') continue;
      if (!/^\d+$/.test(part.trim())) errors.push('skip_groups is invalid');
      else skip.add(Number(part.trim()));
    }
  }
  if (errors.length > 0) throw paramErrors([...new Set(errors)]);
  const parent = findGroup(state, caller, groupRef);

  const userId = caller?.user.id;
  const allAvailable = allAvailableParam ?? caller?.admin ?? false;
  const listed = (g: GroupRecord): boolean => {
    if (owned) return userId !== undefined && g.members.get(userId) === 50;
    if (min !== undefined) return userId !== undefined && state.groupAccess(userId, g) >= min;
    if (!caller) return g.visibility === 'public';
    if (allAvailable) return canSeeGroup(state, caller, g);
    // Without all_available, a signed-in user (an administrator included) sees the groups of their
    // memberships, inherited ones included.
    return state.groupAccess(caller.user.id, g) > 0;
  };
  const below = depth === 'children' ? new Set([parent.id]) : subtreeIds(state, parent);
  const search = q.get('search')?.toLowerCase();
  const groups = state.groups.filter((g) => {
    if (g.id === parent.id || g.parentId === null || !below.has(g.parentId)) return false;
    if (skip.has(g.id)) return false;
    if (search && !g.name.toLowerCase().includes(search) && !g.path.toLowerCase().includes(search)) return false;
    return listed(g);
  });
  const key = (g: GroupRecord): string | number => (orderBy === 'id' ? g.id : orderBy === 'path' ? g.path.toLowerCase() : g.name.toLowerCase());
  groups.sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    const c = ka < kb ? -1 : ka > kb ? 1 : 0;
    if (c !== 0) return sort === 'asc' || orderBy === 'similarity' ? c : -c;
    return a.id - b.id;
  });
  const { items, headers } = paginate(groups, ctx.page);
  return json(
    200,
    items.map((g) => renderGroup(state, g, ctx.baseUrl)),
    headers,
  );
}

export function listSubgroups(ctx: DiscoveryCtx, groupRef: string): ApiResponse {
  return listGroupsUnder(ctx, groupRef, 'children');
}

export function listDescendantGroups(ctx: DiscoveryCtx, groupRef: string): ApiResponse {
  return listGroupsUnder(ctx, groupRef, 'descendants');
}
