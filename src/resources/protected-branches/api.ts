/**
 * The protected-branches API (`/projects/:id/protected_branches`, Maintainer or above): list, create,
 * update and delete, one function per call, the answers checked before use and read into whole
 * rules (./protection.ts `RuleValues`). As the real service has them (lib/api/protected_branches.rb):
 * PATCH takes `allow_force_push` (and, on Premium, `code_owner_approval_required`); it does not take
 * the push and merge levels, which is why a level change is a replacement (./provider.ts).
 */
import type { ApiClient } from '../../api/client.js';
import { ApiInvalidResponseError } from '../../api/errors.js';
import { apiPath } from '../../api/path.js';
import type { ApiPath, PathParam } from '../../api/path.js';
import type { Level } from './levels.js';
import { parseLevel } from './levels.js';
import type { RuleValues } from './protection.js';

/** A rule as the instance holds it; the Premium fields are absent when the instance does not return them. */
export interface LiveRule extends Omit<RuleValues, 'unprotect_access_level' | 'code_owner_approval_required'> {
  readonly unprotect_access_level?: Level;
  readonly code_owner_approval_required?: boolean;
}

/** The body of a POST: the name and the fields to set (the service fills the rest with its defaults). */
export interface CreateRule {
  readonly name: string;
  readonly push_access_level?: Level;
  readonly merge_access_level?: Level;
  readonly unprotect_access_level?: Level;
  readonly allow_force_push?: boolean;
  readonly code_owner_approval_required?: boolean;
}

/** The body of a PATCH. */
export interface UpdateRule {
  readonly allow_force_push?: boolean;
  readonly code_owner_approval_required?: boolean;
}

const listPath = (project: PathParam): ApiPath => apiPath`/projects/${project}/protected_branches`;
const rulePath = (project: PathParam, name: string): ApiPath => apiPath`/projects/${project}/protected_branches/${name}`;

/**
 * The level of an access-level list: its role entries' (users, groups and deploy keys aside) lowest
 * non-zero level, 0 when they all say No one or there is none.
 */
function listLevel(v: unknown): Level | undefined {
  if (!Array.isArray(v)) return undefined;
  const roles = v.filter((e): e is Record<string, unknown> => typeof e === 'object' && e !== null && e.user_id == null && e.group_id == null && e.deploy_key_id == null);
  const levels = roles.map((e) => parseLevel(e.access_level)).filter((l): l is Level => l !== undefined);
  const open = levels.filter((l) => l !== 0);
  return open.length > 0 ? (Math.min(...open) as Level) : 0;
}

function asRule(method: string, path: ApiPath, status: number, body: unknown): LiveRule {
  const o = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : undefined;
  const push = listLevel(o?.push_access_levels);
  const merge = listLevel(o?.merge_access_levels);
  if (!o || typeof o.name !== 'string' || push === undefined || merge === undefined) throw ApiInvalidResponseError.lacking(method, path, status, 'a protected branch (name, push_access_levels, merge_access_levels)');
  const unprotect = listLevel(o.unprotect_access_levels);
  return {
    name: o.name,
    push_access_level: push,
    merge_access_level: merge,
    ...(unprotect !== undefined && { unprotect_access_level: unprotect }),
    allow_force_push: o.allow_force_push === true,
    ...(typeof o.code_owner_approval_required === 'boolean' && { code_owner_approval_required: o.code_owner_approval_required }),
  };
}

/** Every rule of a project, in the instance's order (one listing, paginated). */
export async function listRules(client: ApiClient, project: PathParam): Promise<LiveRule[]> {
  const path = listPath(project);
  const { items } = await client.listAll<unknown>({ path });
  return items.map((r) => asRule('GET', path, 200, r));
}

/** Protects a branch (or a wildcard). Not repeated on an unclear outcome: the listing says whether it happened. */
export async function createRule(client: ApiClient, project: PathParam, rule: CreateRule): Promise<LiveRule> {
  const path = listPath(project);
  const res = await client.request<unknown>({ method: 'POST', path, body: rule });
  return asRule('POST', path, res.status, res.body);
}

/** Sets a rule's flags; setting the same values twice is harmless, so it is retried like a GET. */
export async function updateRule(client: ApiClient, project: PathParam, name: string, changes: UpdateRule): Promise<LiveRule> {
  const path = rulePath(project, name);
  const res = await client.request<unknown>({ method: 'PATCH', path, body: changes, idempotent: true });
  return asRule('PATCH', path, res.status, res.body);
}

/** Unprotects a branch (removes the rule). */
export async function deleteRule(client: ApiClient, project: PathParam, name: string): Promise<void> {
  await client.request({ method: 'DELETE', path: rulePath(project, name) });
}
