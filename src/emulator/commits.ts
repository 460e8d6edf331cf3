/**
 * The commits API, as the real v4 API has it (lib/api/commits.rb, Files::MultiService and the Git
 * backend's index): `POST /projects/:id/repository/commits` with `actions[]` (create, update,
 * delete, move, chmod) committed all-or-nothing as one commit, `GET …/commits` and
 * `GET …/commits/:sha`. docs/emulator.md#commits.
 */
import { canReadCode, findProject, requireCaller } from './auth.js';
import { pushError, renderCommit, type BranchCtx } from './branches.js';
import { adoptFirstBranch, ancestors, checkFilePath, decodeBase64 } from './files.js';
import { makeBlob, matchLines, splitLines, type BlobEntry, type Commit } from './git.js';
import { apiError, forbidden, json, notFound, paramErrors, type ApiResponse, type Params } from './http.js';
import { paginate } from './pagination.js';
import { boolParam, enumParam, str, stringParam } from './params.js';
import type { ProjectRecord } from './state.js';

export const COMMIT_ACTIONS = ['create', 'delete', 'move', 'update', 'chmod'] as const;
type ActionName = (typeof COMMIT_ACTIONS)[number];

interface Action {
  action: ActionName;
  filePath: string;
  previousPath?: string;
  content?: string;
  base64: boolean;
  lastCommitId?: string;
  executeFilemode?: boolean;
}

/** Grape's validation of `actions[]`, every problem at once (`actions[0][file_path] is missing`). */
function parseActions(raw: unknown, errors: string[]): Action[] {
  if (raw === undefined) {
    errors.push('actions is missing');
    return [];
  }
  if (!Array.isArray(raw)) {
    errors.push('actions is invalid');
    return [];
  }
  if (raw.length === 0) errors.push('actions is empty');
  return raw.map((item, i): Action => {
    const p = (typeof item === 'object' && item !== null && !Array.isArray(item) ? item : {}) as Params;
    const at = (name: string): string => `actions[${i}][${name}]`;
    const named: Params = {};
    for (const [k, v] of Object.entries(p)) named[at(k)] = v;
    const take = <T>(r: { value?: T; error?: string }): T | undefined => {
      if (r.error) errors.push(r.error);
      return r.value;
    };
    if (p['action'] === undefined) errors.push(`${at('action')} is missing`);
    if (p['file_path'] === undefined) errors.push(`${at('file_path')} is missing`);
    const action = take(enumParam(named, at('action'), COMMIT_ACTIONS)) as ActionName | undefined;
    const encoding = take(enumParam(named, at('encoding'), ['text', 'base64']));
    const out: Action = { action: action ?? 'create', filePath: take(stringParam(named, at('file_path'))) ?? '', base64: encoding === 'base64' };
    const previous = take(stringParam(named, at('previous_path')));
    const content = take(stringParam(named, at('content')));
    const last = take(stringParam(named, at('last_commit_id')));
    const mode = take(boolParam(named, at('execute_filemode')));
    if (previous !== undefined && previous !== '') out.previousPath = previous;
    if (content !== undefined) out.content = content;
    if (last !== undefined && last !== '') out.lastCommitId = last;
    if (mode !== undefined) out.executeFilemode = mode;
    return out;
  });
}

function contentOf(a: Action): Buffer {
  if (a.content === undefined) return Buffer.alloc(0);
  return a.base64 ? decodeBase64(a.content) : Buffer.from(a.content, 'utf8');
}

/**
 * Applies the actions, in order, to a copy of the start tree; the first that cannot apply fails the
 * whole commit (400 with the real message). Answers the changes to commit.
 */
function applyActions(project: ProjectRecord, parent: Commit | undefined, actions: readonly Action[]): Map<string, BlobEntry | null> {
  const fail = (message: string): never => {
    throw apiError(400, message);
  };
  const files = new Map(parent?.files ?? []);
  const changes = new Map<string, BlobEntry | null>();
  const put = (path: string, blob: BlobEntry | null): void => {
    if (blob === null) files.delete(path);
    else files.set(path, blob);
    changes.set(path, blob);
  };
  const isDirectory = (path: string): boolean => [...files.keys()].some((f) => f.startsWith(`${path}/`));
  const underFile = (path: string): boolean => ancestors(path).some((dir) => files.has(dir));
  for (const a of actions) {
    const path = checkFilePath(a.filePath);
    // Files::MultiService checks an action's last_commit_id against the start branch (the moved
    // file's for a move): the last commit that touched the file must be the one given.
    const guarded = a.action === 'move' && a.previousPath !== undefined ? a.previousPath : path;
    if (a.lastCommitId !== undefined && parent?.files.has(guarded) && project.repo.lastCommitFor(parent, guarded).id !== a.lastCommitId) {
      fail(`The file has changed since you started editing it: ${guarded}`);
    }
    const current = files.get(path);
    switch (a.action) {
      case 'create':
        if (current) fail('A file with this name already exists');
        if (isDirectory(path)) fail('A directory with this name already exists');
        if (underFile(path)) fail('A file with this name already exists');
        put(path, makeBlob(contentOf(a), a.executeFilemode ?? false));
        break;
      case 'update':
        if (!current) fail("A file with this name doesn't exist");
        put(path, makeBlob(contentOf(a), a.executeFilemode ?? current!.mode === '100755'));
        break;
      case 'delete':
        if (!current) fail("A file with this name doesn't exist");
        put(path, null);
        break;
      case 'chmod':
        if (!current) fail("A file with this name doesn't exist");
        put(path, makeBlob(current!.data, a.executeFilemode ?? false));
        break;
      case 'move': {
        const from = checkFilePath(a.previousPath ?? fail('You must provide a previous_path for a move action'));
        const source = files.get(from);
        if (!source) fail("A file with this name doesn't exist");
        if (current) fail('A file with this name already exists');
        if (isDirectory(path) || underFile(path)) fail('A file with this name already exists');
        put(from, null);
        // Without content a move keeps the file's content (and mode).
        put(path, a.content === undefined ? source! : makeBlob(contentOf(a), a.executeFilemode ?? source!.mode === '100755'));
        break;
      }
    }
  }
  return changes;
}

/**
 * Line statistics of a commit against its first parent (the `stats` of the commit detail), path by
 * path without rename detection: a moved file counts its lines removed and added.
 */
function stats(project: ProjectRecord, c: Commit): { additions: number; deletions: number; total: number } {
  const parent = project.repo.parent(c);
  let additions = 0;
  let deletions = 0;
  const paths = new Set([...c.files.keys(), ...(parent?.files.keys() ?? [])]);
  for (const path of paths) {
    const before = parent?.files.get(path);
    const after = c.files.get(path);
    // Binary files count no lines, as in `git diff --numstat`.
    if (before?.sha === after?.sha || before?.data.includes(0) || after?.data.includes(0)) continue;
    const a = before ? splitLines(before.data) : [];
    const b = after ? splitLines(after.data) : [];
    const matched = matchLines(a, b).filter((m) => m >= 0).length;
    additions += b.length - matched;
    deletions += a.length - matched;
  }
  return { additions, deletions, total: additions + deletions };
}

/** Entities::CommitDetail. */
function renderDetail(ctx: BranchCtx, project: ProjectRecord, c: Commit, withStats: boolean): Record<string, unknown> {
  return {
    ...renderCommit(project, c, ctx.baseUrl),
    ...(withStats ? { stats: stats(project, c) } : {}),
    status: null,
    project_id: project.id,
    last_pipeline: null,
  };
}

export function createCommit(ctx: BranchCtx, projectRef: string): ApiResponse {
  const caller = requireCaller(ctx.caller);
  const p = ctx.params;
  const errors: string[] = [];
  for (const name of ['branch', 'commit_message']) {
    if (p[name] === undefined) errors.push(`${name} is missing`);
    else if (str(p[name]) === undefined) errors.push(`${name} is invalid`);
  }
  const actions = parseActions(p['actions'], errors);
  const startBranchParam = stringParam(p, 'start_branch');
  const force = boolParam(p, 'force');
  const withStats = boolParam(p, 'stats');
  for (const r of [startBranchParam, force, withStats]) if (r.error) errors.push(r.error);
  if (errors.length > 0) throw paramErrors([...new Set(errors)]);
  const branch = str(p['branch'])!;
  const project = findProject(ctx.state, caller, projectRef);
  if (project.archived) throw forbidden();
  // authorize_push_to_branch!: 403 with the reason.
  const denied = pushError(ctx.state, caller, project, branch);
  if (denied) throw forbidden(denied);

  const repo = project.repo;
  const emptyRepo = repo.branches.size === 0;
  const startBranch = startBranchParam.value || branch;
  if (!emptyRepo && !repo.branches.has(startBranch)) throw apiError(400, 'You can only create or edit files when you are on a branch');
  if (!emptyRepo && startBranch !== branch && repo.branches.has(branch) && force.value !== true) {
    throw apiError(400, `A branch called '${branch}' already exists. Switch to that branch in order to make changes`);
  }
  const parent = emptyRepo ? undefined : repo.branchHead(startBranch);
  const changes = applyActions(project, parent, actions);
  if (emptyRepo) adoptFirstBranch(project, branch);
  const author = { name: str(p['author_name']) ?? caller.user.name, email: str(p['author_email']) ?? caller.user.email };
  const commit = repo.commit({
    branch,
    ...(parent ? { parent } : {}),
    changes,
    author,
    committer: { name: caller.user.name, email: caller.user.email },
    message: str(p['commit_message'])!,
    date: ctx.state.now(),
  });
  return json(201, renderDetail(ctx, project, commit, withStats.value ?? true));
}

function readable(ctx: BranchCtx, projectRef: string): ProjectRecord {
  const project = findProject(ctx.state, ctx.caller, projectRef);
  if (!canReadCode(ctx.state, ctx.caller, project)) throw forbidden();
  return project;
}

export function listCommits(ctx: BranchCtx, projectRef: string): ApiResponse {
  const project = readable(ctx, projectRef);
  const ref = str(ctx.params['ref_name']) || project.defaultBranch;
  const path = str(ctx.params['path']);
  const history: Commit[] = [];
  for (let c = project.repo.resolve(ref); c; c = project.repo.parent(c)) {
    if (path) {
      const parent = project.repo.parent(c);
      if (c.files.get(path)?.sha === parent?.files.get(path)?.sha && c.files.get(path)?.mode === parent?.files.get(path)?.mode) continue;
    }
    history.push(c);
  }
  const { items, headers } = paginate(history, ctx.page);
  const withStats = boolParam(ctx.params, 'with_stats').value === true;
  return json(200, items.map((c) => ({ ...renderCommit(project, c, ctx.baseUrl), ...(withStats ? { stats: stats(project, c) } : {}) })), headers);
}

export function getCommit(ctx: BranchCtx, projectRef: string, sha: string): ApiResponse {
  const project = readable(ctx, projectRef);
  const commit = project.repo.resolve(sha);
  if (!commit) throw notFound('Commit');
  return json(200, renderDetail(ctx, project, commit, boolParam(ctx.params, 'stats').value ?? true));
}
