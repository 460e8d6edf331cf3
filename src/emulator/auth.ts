/**
 * Authentication and authorisation: `PRIVATE-TOKEN` (or `Authorization: Bearer`) personal and group
 * access tokens, scopes, admin (with admin mode), and the visibility/role checks of groups and
 * projects.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { insufficientScope, notFound, unauthorized, type Params } from './http.js';
import { effectiveSetting } from './settings.js';
import type { EmulatorState, GroupRecord, ProjectRecord, TokenRecord, UserRecord } from './state.js';

export interface Caller {
  readonly user: UserRecord;
  readonly token: TokenRecord;
  /** Administrator for this request (admin mode needs the `admin_mode` scope). */
  readonly admin: boolean;
}

const ROTATION_PATH = /access_tokens\/(\d+|self)\/rotate$/;

/**
 * The token a request presents: the `PRIVATE-TOKEN` header, else `Authorization: Bearer`, else the
 * `private_token` query parameter (accepted as the real API does; recorded requests show it as
 * `[FILTERED]`).
 */
export function credential(headers: IncomingHttpHeaders, query: Params): string | undefined {
  const header = headers['private-token'];
  if (typeof header === 'string' && header !== '') return header;
  const auth = headers['authorization'];
  if (typeof auth === 'string') {
    const m = /^Bearer\s+(.+)$/i.exec(auth.trim());
    if (m) return m[1];
  }
  const param = query['private_token'];
  if (typeof param === 'string' && param !== '') return param;
  return undefined;
}

/** The user a credential would authenticate as, without side effects; null when it would not. */
export function identify(state: EmulatorState, value: string | undefined): number | null {
  if (value === undefined) return null;
  const token = state.tokenByValue(value);
  if (!token || !state.isActive(token) || !state.userById(token.userId)) return null;
  if (token.kind === 'personal' && effectiveSetting(state, 'disable_personal_access_tokens') === true) return null;
  return token.userId;
}

/**
 * The caller, or null for an anonymous request. A token that is unknown, revoked or expired is a
 * 401; a revoked token presented to a rotate endpoint is a reuse attempt and revokes its family.
 */
export function authenticate(state: EmulatorState, value: string | undefined, path: string): Caller | null {
  if (value === undefined) return null;
  const token = state.tokenByValue(value);
  if (!token) throw unauthorized();
  if (token.revoked) {
    if (ROTATION_PATH.test(path)) revokeFamily(state, token);
    throw unauthorized();
  }
  if (state.isExpired(token)) throw unauthorized();
  const user = state.userById(token.userId);
  if (!user) throw unauthorized();
  if (token.kind === 'personal' && effectiveSetting(state, 'disable_personal_access_tokens') === true) throw unauthorized();
  token.lastUsedAt = state.now();
  const adminMode = effectiveSetting(state, 'admin_mode') === true;
  return { user, token, admin: user.admin && (!adminMode || token.scopes.includes('admin_mode')) };
}

export function revokeFamily(state: EmulatorState, token: TokenRecord): void {
  for (const t of state.tokenFamily(token)) state.revoke(t);
}

/** 403 insufficient_scope unless the token has one of `allowed`. */
export function requireScope(caller: Caller | null, allowed: readonly string[]): void {
  if (caller && !caller.token.scopes.some((s) => allowed.includes(s))) throw insufficientScope(allowed);
}

export function requireCaller(caller: Caller | null): Caller {
  if (!caller) throw unauthorized();
  return caller;
}

// --- visibility and roles ---------------------------------------------------------------------

export function canSeeGroup(state: EmulatorState, caller: Caller | null, group: GroupRecord): boolean {
  if (group.visibility === 'public') return true;
  if (!caller) return false;
  if (caller.admin || group.visibility === 'internal') return true;
  return state.groupAccess(caller.user.id, group) > 0 || state.hasDescendantMembership(caller.user.id, group);
}

export function findGroup(state: EmulatorState, caller: Caller | null, ref: string): GroupRecord {
  const group = state.groupByRef(ref);
  if (!group || !canSeeGroup(state, caller, group)) throw notFound('Group');
  return group;
}

export function projectAccess(state: EmulatorState, caller: Caller | null, project: ProjectRecord): number {
  return caller ? state.projectAccess(caller.user.id, project) : 0;
}

export function canSeeProject(state: EmulatorState, caller: Caller | null, project: ProjectRecord): boolean {
  if (project.visibility === 'public') return true;
  if (!caller) return false;
  if (caller.admin || project.visibility === 'internal') return true;
  return projectAccess(state, caller, project) > 0;
}

export function findProject(state: EmulatorState, caller: Caller | null, ref: string): ProjectRecord {
  const project = state.projectByRef(ref);
  if (!project || !canSeeProject(state, caller, project)) throw notFound('Project');
  return project;
}

/** Reading code: anyone on public, any signed-in user on internal, Reporter+ on private. */
export function canReadCode(state: EmulatorState, caller: Caller | null, project: ProjectRecord): boolean {
  if (project.visibility === 'public') return true;
  if (!caller) return false;
  if (caller.admin) return true;
  if (project.visibility === 'internal' && !caller.user.bot) return true;
  return projectAccess(state, caller, project) >= 20;
}
