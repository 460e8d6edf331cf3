/**
 * `GET /groups/:id` and `GET /projects/:id`: the parts of the real v4 responses plumb and its users
 * need to resolve a reference (numeric id or full path, case-insensitive) to one object. Visibility
 * rules as everywhere: an object the caller cannot see is a 404, never a 403. Other fields of the
 * real responses are left out; clients must ignore unknown fields anyway.
 */
import { findGroup, findProject, type Caller } from './auth.js';
import { json, type ApiResponse } from './http.js';
import type { EmulatorState } from './state.js';

export interface NamespaceCtx {
  readonly state: EmulatorState;
  readonly caller: Caller | null;
}

export function getGroup(ctx: NamespaceCtx, ref: string): ApiResponse {
  const g = findGroup(ctx.state, ctx.caller, ref);
  return json(200, {
    id: g.id,
    name: g.name,
    path: g.path,
    full_path: g.fullPath,
    full_name: g.fullPath.split('/').join(' / '),
    parent_id: g.parentId,
    visibility: g.visibility,
  });
}

export function getProject(ctx: NamespaceCtx, ref: string): ApiResponse {
  const p = findProject(ctx.state, ctx.caller, ref);
  const ns = ctx.state.groupById(p.namespaceId);
  return json(200, {
    id: p.id,
    name: p.name,
    path: p.path,
    path_with_namespace: p.pathWithNamespace,
    default_branch: p.defaultBranch,
    visibility: p.visibility,
    namespace: ns ? { id: ns.id, path: ns.path, full_path: ns.fullPath, kind: 'group' } : null,
  });
}
