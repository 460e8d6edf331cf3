/**
 * Branches and protected branches, as the real v4 API has them (lib/api/branches.rb,
 * lib/api/protected_branches.rb; Gitlab::UserAccess#can_push_to_branch?): list, get, create and
 * delete each, and the one push check every write path of the emulator goes through (`pushError`).
 * docs/emulator.md#branches-and-protected-branches.
 */
import { canReadCode, findProject, requireCaller, type Caller } from './auth.js';
import type { Commit } from './git.js';
import { apiError, forbidden, json, noContent, notFound, paramErrors, type ApiResponse, type Params } from './http.js';
import { paginate, type PageRequest } from './pagination.js';
import { boolParam, str, stringParam } from './params.js';
import { effectiveSetting } from './settings.js';
import type { EmulatorState, ProjectRecord, ProtectedBranchRecord } from './state.js';

export interface BranchCtx {
  readonly state: EmulatorState;
  readonly caller: Caller | null;
  readonly params: Params;
  readonly page: PageRequest;
  readonly baseUrl: string;
}

export const PUSH_DENIED = 'You are not allowed to push into this branch';
/** ProtectedRefAccess's levels and their `access_level_description`. */
export const PROTECTED_ACCESS_LEVELS: Readonly<Record<number, string>> = { 0: 'No one', 30: 'Developers + Maintainers', 40: 'Maintainers', 60: 'Admins' };

/** A protected branch name matches as the real `ProtectedRef` does: exactly, or `*` as any run of characters. */
export function matchesProtection(name: string, branch: string): boolean {
  if (!name.includes('*')) return name === branch;
  const pattern = name.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*?');
  return new RegExp(`^${pattern}$`).test(branch);
}

export function protectionsOf(project: ProjectRecord, branch: string): ProtectedBranchRecord[] {
  return project.protectedBranches.filter((p) => matchesProtection(p.name, branch));
}

/** The caller's role for branch rules: an administrator counts as Admin (60). */
function roleOf(state: EmulatorState, caller: Caller, project: ProjectRecord): number {
  return caller.admin ? 60 : state.projectAccess(caller.user.id, project);
}

/** Whether `level` (a rule's push or merge level) lets a caller of `role` through. */
function allows(level: number, role: number): boolean {
  return level !== 0 && role >= level;
}

/**
 * `can_push_to_branch?`: Developer and above on an unprotected branch; on a protected one, any
 * matching rule whose push level the caller's role reaches (No one: nobody, administrators
 * included). Undefined when allowed, else the real refusal's words.
 */
export function pushError(state: EmulatorState, caller: Caller, project: ProjectRecord, branch: string): string | undefined {
  const role = roleOf(state, caller, project);
  if (role < 30) return PUSH_DENIED;
  const rules = protectionsOf(project, branch);
  if (rules.length === 0) return undefined;
  return rules.some((r) => allows(r.pushAccessLevel, role)) ? undefined : PUSH_DENIED;
}

/** `can_merge_to_branch?`: like push, with the merge levels. */
export function canMergeTo(state: EmulatorState, caller: Caller, project: ProjectRecord, branch: string): boolean {
  const role = roleOf(state, caller, project);
  if (role < 30) return false;
  const rules = protectionsOf(project, branch);
  return rules.length === 0 || rules.some((r) => allows(r.mergeAccessLevel, role));
}

/** The lowest `access_level` of a `default_branch_protection_defaults` list: missing is Maintainers, empty is No one. */
function levelOf(list: unknown): number {
  if (!Array.isArray(list)) return 40;
  const levels = list.map((e) => (typeof e === 'object' && e !== null ? Number((e as Record<string, unknown>)['access_level']) : NaN)).filter(Number.isFinite);
  return levels.length === 0 ? 0 : Math.min(...levels);
}

/**
 * The protection a new project's default branch gets from the instance setting
 * `default_branch_protection_defaults`, or none when the setting protects nothing (developers push
 * and merge, force push allowed: the real "not protected").
 */
export function defaultBranchProtection(state: EmulatorState, branch: string, id: number): ProtectedBranchRecord | undefined {
  const raw = effectiveSetting(state, 'default_branch_protection_defaults');
  const d = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  const push = levelOf(d['allowed_to_push']);
  const merge = levelOf(d['allowed_to_merge']);
  const force = d['allow_force_push'] === true;
  if (push !== 0 && push <= 30 && merge !== 0 && merge <= 30 && force) return undefined;
  return { id, name: branch, pushAccessLevel: push, mergeAccessLevel: merge, unprotectAccessLevel: 40, allowForcePush: force, codeOwnerApprovalRequired: false };
}

// --- rendering ----------------------------------------------------------------------------------

/** Entities::Commit. */
export function renderCommit(project: ProjectRecord, c: Commit, baseUrl: string): Record<string, unknown> {
  const title = c.message.split('\n')[0] ?? '';
  return {
    id: c.id,
    short_id: c.id.slice(0, 8),
    created_at: c.committedDate.toISOString(),
    parent_ids: [...c.parentIds],
    title,
    message: c.message,
    author_name: c.author.name,
    author_email: c.author.email,
    authored_date: c.authoredDate.toISOString(),
    committer_name: c.committer.name,
    committer_email: c.committer.email,
    committed_date: c.committedDate.toISOString(),
    trailers: {},
    extended_trailers: {},
    web_url: `${baseUrl}/${project.pathWithNamespace}/-/commit/${c.id}`,
  };
}

/** Whether `ancestor` is on the first-parent history of `head`. */
function isAncestor(project: ProjectRecord, ancestor: Commit, head: Commit): boolean {
  for (let c: Commit | undefined = head; c; c = project.repo.parent(c)) if (c.id === ancestor.id) return true;
  return false;
}

function renderBranch(ctx: BranchCtx, project: ProjectRecord, name: string): Record<string, unknown> {
  const head = project.repo.branchHead(name)!;
  const defaultHead = project.repo.branchHead(project.defaultBranch);
  const rules = protectionsOf(project, name);
  const caller = ctx.caller;
  return {
    name,
    commit: renderCommit(project, head, ctx.baseUrl),
    merged: name !== project.defaultBranch && defaultHead !== undefined && isAncestor(project, head, defaultHead),
    protected: rules.length > 0,
    developers_can_push: rules.length > 0 && rules.some((r) => allows(r.pushAccessLevel, 30)),
    developers_can_merge: rules.length > 0 && rules.some((r) => allows(r.mergeAccessLevel, 30)),
    can_push: caller !== null && pushError(ctx.state, caller, project, name) === undefined,
    default: name === project.defaultBranch,
    web_url: `${ctx.baseUrl}/${project.pathWithNamespace}/-/tree/${name}`,
  };
}

function accessLevels(id: number, level: number): Record<string, unknown>[] {
  return [{ id, access_level: level, access_level_description: PROTECTED_ACCESS_LEVELS[level] ?? String(level), deploy_key_id: null, user_id: null, group_id: null }];
}

/** Entities::ProtectedBranch; access-level ids are derived from the rule's id (3n-2, 3n-1, 3n). */
export function renderProtectedBranch(p: ProtectedBranchRecord): Record<string, unknown> {
  return {
    id: p.id,
    name: p.name,
    push_access_levels: accessLevels(p.id * 3 - 2, p.pushAccessLevel),
    merge_access_levels: accessLevels(p.id * 3 - 1, p.mergeAccessLevel),
    unprotect_access_levels: accessLevels(p.id * 3, p.unprotectAccessLevel),
    allow_force_push: p.allowForcePush,
    code_owner_approval_required: p.codeOwnerApprovalRequired,
  };
}

// --- branches -----------------------------------------------------------------------------------

function readable(ctx: BranchCtx, projectRef: string): ProjectRecord {
  const project = findProject(ctx.state, ctx.caller, projectRef);
  if (!canReadCode(ctx.state, ctx.caller, project)) throw forbidden();
  return project;
}

/** `authorize_push_project`: Developer and above (an archived project refuses every push). */
function pushable(ctx: BranchCtx, projectRef: string): { caller: Caller; project: ProjectRecord } {
  const caller = requireCaller(ctx.caller);
  const project = findProject(ctx.state, caller, projectRef);
  if (project.archived || roleOf(ctx.state, caller, project) < 30) throw forbidden();
  return { caller, project };
}

export function listBranches(ctx: BranchCtx, projectRef: string): ApiResponse {
  const project = readable(ctx, projectRef);
  const search = str(ctx.params['search']);
  const names = [...project.repo.branches.keys()]
    .filter((n) => search === undefined || search === '' || n.toLowerCase().includes(search.toLowerCase()))
    .sort();
  const { items, headers } = paginate(names, ctx.page);
  return json(200, items.map((n) => renderBranch(ctx, project, n)), headers);
}

export function getBranch(ctx: BranchCtx, projectRef: string, name: string): ApiResponse {
  const project = readable(ctx, projectRef);
  if (!project.repo.branches.has(name)) throw notFound('Branch');
  return json(200, renderBranch(ctx, project, name));
}

/** `git check-ref-format --branch`, the rules the real service applies to a new branch's name. */
export function validBranchName(name: string): boolean {
  if (name === '' || name === 'HEAD' || name.startsWith('-') || name.startsWith('/') || name.endsWith('/') || name.endsWith('.')) return false;
  if (name.includes('..') || name.includes('//') || name.includes('@{') || /[\x00-\x20\x7f~^:?*[\\]/.test(name)) return false;
  return name.split('/').every((part) => !part.startsWith('.') && !part.endsWith('.lock'));
}

export function createBranch(ctx: BranchCtx, projectRef: string): ApiResponse {
  const { project } = pushable(ctx, projectRef);
  const errors: string[] = [];
  const branch = stringParam(ctx.params, 'branch');
  const ref = stringParam(ctx.params, 'ref');
  if (ctx.params['branch'] === undefined) errors.push('branch is missing');
  else if (branch.error) errors.push(branch.error);
  if (ctx.params['ref'] === undefined) errors.push('ref is missing');
  else if (ref.error) errors.push(ref.error);
  if (errors.length > 0) throw paramErrors(errors);
  const name = branch.value!;
  if (!validBranchName(name)) throw apiError(400, 'Branch name is invalid');
  if (project.repo.branches.has(name)) throw apiError(400, 'Branch already exists');
  const target = project.repo.resolve(ref.value!);
  if (!target) throw apiError(400, `Invalid reference name: ${ref.value!}`);
  project.repo.branches.set(name, target.id);
  return json(201, renderBranch(ctx, project, name));
}

export function deleteBranch(ctx: BranchCtx, projectRef: string, name: string): ApiResponse {
  const { caller, project } = pushable(ctx, projectRef);
  if (!project.repo.branches.has(name)) throw notFound('Branch');
  // Gitlab::Checks::BranchCheck, through the service's pre-receive checks: 400 with their words.
  if (name === project.defaultBranch) throw apiError(400, 'The default branch of a project cannot be deleted.');
  if (protectionsOf(project, name).length > 0 && roleOf(ctx.state, caller, project) < 40) {
    throw apiError(400, 'You are not allowed to delete protected branches from this project. Only a project maintainer or owner can delete a protected branch.');
  }
  project.repo.branches.delete(name);
  return noContent();
}

// --- protected branches -------------------------------------------------------------------------

/** `authorize_admin_project`: Maintainer and above. */
function administrable(ctx: BranchCtx, projectRef: string): ProjectRecord {
  const caller = requireCaller(ctx.caller);
  const project = findProject(ctx.state, caller, projectRef);
  if (roleOf(ctx.state, caller, project) < 40) throw forbidden();
  return project;
}

function findProtection(project: ProjectRecord, name: string): ProtectedBranchRecord {
  const rule = project.protectedBranches.find((p) => p.name === name);
  // ActiveRecord::RecordNotFound, as the API renders it.
  if (!rule) throw apiError(404, '404 Not found');
  return rule;
}

export function listProtectedBranches(ctx: BranchCtx, projectRef: string): ApiResponse {
  const project = administrable(ctx, projectRef);
  const search = str(ctx.params['search']);
  const rules = project.protectedBranches.filter((p) => search === undefined || search === '' || p.name.toLowerCase().includes(search.toLowerCase()));
  const { items, headers } = paginate(rules, ctx.page);
  return json(200, items.map(renderProtectedBranch), headers);
}

export function getProtectedBranch(ctx: BranchCtx, projectRef: string, name: string): ApiResponse {
  return json(200, renderProtectedBranch(findProtection(administrable(ctx, projectRef), name)));
}

function levelParam(params: Params, name: string, errors: string[]): number | undefined {
  const raw = params[name];
  if (raw === undefined || raw === null || raw === '') return undefined;
  const s = str(raw);
  const n = s !== undefined && /^\d+$/.test(s.trim()) ? Number(s) : NaN;
  if (Number.isNaN(n)) {
    errors.push(`${name} is invalid`);
    return undefined;
  }
  if (!(n in PROTECTED_ACCESS_LEVELS)) {
    errors.push(`${name} does not have a valid value`);
    return undefined;
  }
  return n;
}

export function createProtectedBranch(ctx: BranchCtx, projectRef: string): ApiResponse {
  const project = administrable(ctx, projectRef);
  const p = ctx.params;
  const errors: string[] = [];
  const name = stringParam(p, 'name');
  if (p['name'] === undefined) errors.push('name is missing');
  else if (name.error) errors.push(name.error);
  const push = levelParam(p, 'push_access_level', errors);
  const merge = levelParam(p, 'merge_access_level', errors);
  const unprotect = levelParam(p, 'unprotect_access_level', errors);
  const force = boolParam(p, 'allow_force_push');
  const codeOwners = boolParam(p, 'code_owner_approval_required');
  for (const r of [force, codeOwners]) if (r.error) errors.push(r.error);
  if (errors.length > 0) throw paramErrors(errors);
  if (project.protectedBranches.some((r) => r.name === name.value)) throw apiError(409, `Protected branch '${name.value!}' already exists`);
  if (name.value!.trim() === '') throw apiError(400, { name: ["can't be blank"] });
  const rule: ProtectedBranchRecord = {
    id: ctx.state.nextId('protected_branch'),
    name: name.value!,
    pushAccessLevel: push ?? 40,
    mergeAccessLevel: merge ?? 40,
    unprotectAccessLevel: unprotect ?? 40,
    allowForcePush: force.value ?? false,
    // Code-owner approval is a Premium feature; on the free tier it stays false.
    codeOwnerApprovalRequired: ctx.state.tier !== 'free' && (codeOwners.value ?? false),
  };
  project.protectedBranches.push(rule);
  return json(201, renderProtectedBranch(rule));
}

/** The kinds of access-level entries a rule holds, their record fields and the entry ids' offsets (3n-2, 3n-1, 3n). */
const ENTRY_KINDS = [
  { param: 'allowed_to_push', field: 'pushAccessLevel', offset: 2 },
  { param: 'allowed_to_merge', field: 'mergeAccessLevel', offset: 1 },
  { param: 'allowed_to_unprotect', field: 'unprotectAccessLevel', offset: 0 },
] as const;

/**
 * One `allowed_to_*` array of a PATCH, as `ProtectedBranches::UpdateService` reads it into
 * `*_access_levels_attributes`: `{id, _destroy: true}` removes that entry, `{id, access_level}`
 * changes it, `{access_level}` adds one (the same level twice: 422 `… access level has already
 * been taken`). The emulator's rule holds one entry of each kind, so an array that would leave
 * none or two is refused (422, documented as not modelled). User, group and deploy-key entries
 * are not modelled either.
 */
function applyEntries(rule: ProtectedBranchRecord, kind: (typeof ENTRY_KINDS)[number], raw: unknown, errors: string[]): number | undefined {
  if (!Array.isArray(raw)) {
    errors.push(`${kind.param} is invalid`);
    return undefined;
  }
  const id = rule.id * 3 - kind.offset;
  let levels = [{ id: id as number | undefined, level: rule[kind.field] }];
  for (const e of raw as unknown[]) {
    const o = typeof e === 'object' && e !== null ? (e as Record<string, unknown>) : undefined;
    if (!o) {
      errors.push(`${kind.param} is invalid`);
      return undefined;
    }
    const level = o['access_level'] === undefined ? undefined : Number(o['access_level']);
    if (level !== undefined && !(level in PROTECTED_ACCESS_LEVELS)) {
      errors.push(`${kind.param}[access_level] does not have a valid value`);
      return undefined;
    }
    const destroy = boolParam(o, '_destroy').value === true;
    if (o['id'] !== undefined) {
      // An id of another rule's entry is not this rule's: ignored, as the nested attributes ignore it.
      if (Number(o['id']) !== id) continue;
      levels = destroy ? levels.filter((l) => l.id !== id) : levels.map((l) => (l.id === id && level !== undefined ? { ...l, level } : l));
    } else if (level !== undefined) {
      levels.push({ id: undefined, level });
    }
  }
  const what = { allowed_to_push: 'Push', allowed_to_merge: 'Merge', allowed_to_unprotect: 'Unprotect' }[kind.param];
  if (new Set(levels.map((l) => l.level)).size < levels.length) throw apiError(422, [`${what} access levels access level has already been taken`]);
  if (levels.length !== 1) throw apiError(422, [`${what} access levels: the emulator holds exactly one access level of each kind per rule (not modelled)`]);
  return levels[0]!.level;
}

/**
 * `PATCH /projects/:id/protected_branches/:name`: `allow_force_push` on every tier; on a paid tier
 * also `code_owner_approval_required` and the `allowed_to_push`, `allowed_to_merge` and
 * `allowed_to_unprotect` arrays (the Premium parameters, which the free tier's API does not declare
 * and so ignores). `push_access_level` and `merge_access_level` are not parameters of the update.
 */
export function updateProtectedBranch(ctx: BranchCtx, projectRef: string, name: string): ApiResponse {
  const project = administrable(ctx, projectRef);
  const rule = findProtection(project, name);
  const p = ctx.params;
  const errors: string[] = [];
  const force = boolParam(p, 'allow_force_push');
  if (force.error) errors.push(force.error);
  // `allow_blank: false`
  if (p['allow_force_push'] === '') errors.push('allow_force_push is empty');
  const paid = ctx.state.tier !== 'free';
  const codeOwners = paid ? boolParam(p, 'code_owner_approval_required') : {};
  if (codeOwners.error) errors.push(codeOwners.error);
  const levels: Partial<Record<(typeof ENTRY_KINDS)[number]['field'], number>> = {};
  if (paid) {
    for (const kind of ENTRY_KINDS) {
      if (p[kind.param] === undefined) continue;
      const level = applyEntries(rule, kind, p[kind.param], errors);
      if (level !== undefined) levels[kind.field] = level;
    }
  }
  if (errors.length > 0) throw paramErrors(errors);
  if (force.value !== undefined) rule.allowForcePush = force.value;
  if (codeOwners.value !== undefined) rule.codeOwnerApprovalRequired = codeOwners.value;
  Object.assign(rule, levels);
  return json(200, renderProtectedBranch(rule));
}

export function deleteProtectedBranch(ctx: BranchCtx, projectRef: string, name: string): ApiResponse {
  const project = administrable(ctx, projectRef);
  const rule = findProtection(project, name);
  project.protectedBranches.splice(project.protectedBranches.indexOf(rule), 1);
  return noContent();
}
