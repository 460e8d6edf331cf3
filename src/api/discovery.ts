/**
 * Discovery: what a group holds, for selectors that name every project or group under one
 * (`platform/*`, `platform/**`). Only the group's own lists are read, never the whole instance:
 *
 * - `GET /groups/:id/projects?include_subgroups=…&archived=…&with_shared=false&order_by=id&sort=asc`
 * - `GET /groups/:id/subgroups` and `GET /groups/:id/descendant_groups` (`all_available=true`,
 *   `order_by=id&sort=asc`)
 *
 * Each list asks for 100 items a page, reads `X-Total-Pages` from the first page and fetches the
 * other pages at once through the client's concurrency limit (`listAll` with `concurrent`); above
 * 10,000 results, where the service does not count, it follows the next links one page at a time.
 * A page that fails is retried as every GET is (docs/client.md).
 *
 * Choices: projects shared with the group are not under it (`with_shared=false`, whose default is
 * true); ids ascending keep the order stable while projects are created (a new one lands on the last
 * page instead of shifting the others); a project listed twice (offset pages of a list that moved)
 * is kept once. With `archived` `exclude` or `only` the short entity (`simple=true`, a fraction of
 * the full one's size) suffices, since the filter tells the flag; `include` needs the full entity,
 * which carries `archived`. Unknown fields are ignored; an item without its id or path is an
 * invalid response rather than a project silently left out of a selector.
 */
import type { ApiClient } from './client.js';
import { ApiInvalidResponseError } from './errors.js';
import { apiPath } from './path.js';
import type { ApiPath, PathParam, QueryParams } from './path.js';

export interface GroupProjectRef {
  readonly id: number;
  readonly path_with_namespace: string;
  readonly archived: boolean;
  /** Absent for a project without a repository yet, or when the credential may not read its code. */
  readonly default_branch?: string;
  /** The id of the group the project is in (absent if the service did not say). */
  readonly namespace_id?: number;
  /** Its display name and page, as the service gives them (absent if it did not say). */
  readonly name?: string;
  readonly web_url?: string;
}

export interface DescendantGroupRef {
  readonly id: number;
  readonly full_path: string;
  readonly parent_id: number | null;
  /** Its display name and page, as the service gives them (absent if it did not say). */
  readonly name?: string;
  readonly web_url?: string;
}

export interface ListGroupProjectsOptions {
  /** Also the projects of every group below (`platform/**`). @default false */
  readonly includeSubgroups?: boolean;
  /** `exclude` archived projects, list `only` them, or `include` both. @default 'exclude' */
  readonly archived?: 'exclude' | 'include' | 'only';
}

/** Every project in `group` (and its subgroups with `includeSubgroups`) the credential can see, by id. */
export async function listGroupProjects(client: ApiClient, group: PathParam, options: ListGroupProjectsOptions = {}): Promise<GroupProjectRef[]> {
  const archived = options.archived ?? 'exclude';
  const path = apiPath`/groups/${group}/projects`;
  const query: QueryParams = {
    include_subgroups: options.includeSubgroups ?? false,
    with_shared: false,
    order_by: 'id',
    sort: 'asc',
    ...(archived === 'include' ? {} : { archived: archived === 'only', simple: true }),
  };
  const { items } = await client.listAll<unknown>({ path, query }, { concurrent: true });
  const seen = new Set<number>();
  const refs: GroupProjectRef[] = [];
  for (const item of items) {
    const p = item as { id?: unknown; path_with_namespace?: unknown; archived?: unknown; default_branch?: unknown; namespace?: { id?: unknown } | null; name?: unknown; web_url?: unknown } | null;
    if (typeof p?.id !== 'number' || typeof p.path_with_namespace !== 'string') {
      throw ApiInvalidResponseError.lacking('GET', path, 200, "each project's id and path_with_namespace");
    }
    const isArchived = archived === 'include' ? p.archived : archived === 'only';
    if (typeof isArchived !== 'boolean') throw ApiInvalidResponseError.lacking('GET', path, 200, "each project's archived flag");
    if (seen.has(p.id)) continue;
    seen.add(p.id);
    refs.push({
      id: p.id,
      path_with_namespace: p.path_with_namespace,
      archived: isArchived,
      ...(typeof p.default_branch === 'string' && { default_branch: p.default_branch }),
      ...(typeof p.namespace?.id === 'number' && { namespace_id: p.namespace.id }),
      ...(typeof p.name === 'string' && { name: p.name }),
      ...(typeof p.web_url === 'string' && { web_url: p.web_url }),
    });
  }
  return refs;
}

/** The groups directly under `group` (`platform/*`) the credential can see, by id. */
export function listSubgroups(client: ApiClient, group: PathParam): Promise<DescendantGroupRef[]> {
  return listGroups(client, apiPath`/groups/${group}/subgroups`);
}

/** The groups at every depth under `group` (`platform/**`) the credential can see, by id. */
export function listDescendantGroups(client: ApiClient, group: PathParam): Promise<DescendantGroupRef[]> {
  return listGroups(client, apiPath`/groups/${group}/descendant_groups`);
}

async function listGroups(client: ApiClient, path: ApiPath): Promise<DescendantGroupRef[]> {
  // all_available=true: every group the credential can see, not only its memberships (the default
  // for a credential that is not an administrator).
  const query: QueryParams = { all_available: true, order_by: 'id', sort: 'asc' };
  const { items } = await client.listAll<unknown>({ path, query }, { concurrent: true });
  const seen = new Set<number>();
  const refs: DescendantGroupRef[] = [];
  for (const item of items) {
    const g = item as { id?: unknown; full_path?: unknown; parent_id?: unknown; name?: unknown; web_url?: unknown } | null;
    if (typeof g?.id !== 'number' || typeof g.full_path !== 'string') {
      throw ApiInvalidResponseError.lacking('GET', path, 200, "each group's id and full_path");
    }
    if (seen.has(g.id)) continue;
    seen.add(g.id);
    refs.push({
      id: g.id,
      full_path: g.full_path,
      parent_id: typeof g.parent_id === 'number' ? g.parent_id : null,
      ...(typeof g.name === 'string' && { name: g.name }),
      ...(typeof g.web_url === 'string' && { web_url: g.web_url }),
    });
  }
  return refs;
}
