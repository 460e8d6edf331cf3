/**
 * `GET /groups`: the groups the caller can see, as the real v4 API lists them, with the filters
 * plumb export uses: `min_access_level` (the caller's effective role, inherited from ancestors, at
 * least this), `owned` (groups the caller is a direct Owner of), `search`, `order_by` (name, path,
 * id; default name) and `sort` (asc, desc; default asc), paginated. An administrator sees every
 * group, but `min_access_level` and `owned` count only memberships, as in the real API.
 */
import { canSeeGroup, type Caller } from './auth.js';
import { json, paramErrors, type ApiResponse } from './http.js';
import { paginate, type PageRequest } from './pagination.js';
import { renderGroup } from './namespaces.js';
import type { EmulatorState, GroupRecord } from './state.js';

export interface GroupListCtx {
  readonly state: EmulatorState;
  readonly caller: Caller | null;
  readonly page: PageRequest;
  /** The base URL the request was sent to (for `web_url`). */
  readonly baseUrl: string;
}

const ORDER_BY = ['name', 'path', 'id'] as const;

export function listGroups(ctx: GroupListCtx): ApiResponse {
  const q = new URLSearchParams(ctx.page.query);
  const errors: string[] = [];
  const minRaw = q.get('min_access_level');
  const min = minRaw === null || minRaw === '' ? undefined : Number(minRaw);
  if (min !== undefined && ![10, 15, 20, 30, 40, 50].includes(min)) errors.push('min_access_level does not have a valid value');
  const orderBy = q.get('order_by') ?? 'name';
  if (!(ORDER_BY as readonly string[]).includes(orderBy)) errors.push('order_by does not have a valid value');
  const sort = q.get('sort') ?? 'asc';
  if (sort !== 'asc' && sort !== 'desc') errors.push('sort does not have a valid value');
  const owned = q.get('owned') === 'true';
  if (errors.length > 0) throw paramErrors(errors);
  const search = q.get('search')?.toLowerCase();
  const { state, caller } = ctx;
  const userId = caller?.user.id;
  const groups = state.groups.filter((g) => {
    if (!canSeeGroup(state, caller, g)) return false;
    if (min !== undefined && (userId === undefined || state.groupAccess(userId, g) < min)) return false;
    if (owned && (userId === undefined || g.members.get(userId) !== 50)) return false;
    if (search && !g.name.toLowerCase().includes(search) && !g.path.toLowerCase().includes(search)) return false;
    return true;
  });
  const key = (g: GroupRecord): string | number => (orderBy === 'id' ? g.id : orderBy === 'path' ? g.fullPath : g.name);
  groups.sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    const c = ka < kb ? -1 : ka > kb ? 1 : a.id - b.id;
    return sort === 'asc' ? c : -c;
  });
  const { items, headers } = paginate(groups, ctx.page);
  return json(
    200,
    items.map((g) => renderGroup(state, g, ctx.baseUrl)),
    headers,
  );
}
