/**
 * Merge requests, as the real v4 API has them (lib/api/merge_requests.rb, MergeRequest's
 * `validate_branches`, MergeRequests::MergeService): create, list (per project and instance-wide),
 * get, update (with `state_event`), merge (with auto-merge). The records live with the CI state
 * (ci.ts), where notes find them. docs/emulator.md#merge-requests.
 */
import { canReadCode, canSeeProject, findProject, requireCaller, type Caller } from './auth.js';
import { canMergeTo, validBranchName, type BranchCtx } from './branches.js';
import { ciState, newMergeRequest, type MergeRequestRecord } from './ci.js';
import { sameEntry, type BlobEntry, type Commit } from './git.js';
import { apiError, forbidden, json, paramErrors, unauthorized, type ApiError, type ApiResponse } from './http.js';
import { paginate } from './pagination.js';
import { boolParam, enumParam, str, stringParam } from './params.js';
import type { EmulatorState, ProjectRecord } from './state.js';

const NOT_FOUND = (): ApiError => apiError(404, '404 Not found');
const STATES = ['opened', 'closed', 'locked', 'merged', 'all'] as const;

function userView(state: EmulatorState, id: number | null): Record<string, unknown> | null {
  const u = id === null ? undefined : state.userById(id);
  return u ? { id: u.id, username: u.username, name: u.name, state: 'active' } : null;
}

/** Entities::MergeRequest (the fields a client of the list and the detail reads). */
export function renderMergeRequest(ctx: BranchCtx, project: ProjectRecord, mr: MergeRequestRecord): Record<string, unknown> {
  const { state } = ctx;
  const head = project.repo.branchHead(mr.sourceBranch);
  const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);
  return {
    id: mr.id,
    iid: mr.iid,
    project_id: project.id,
    title: mr.title,
    description: mr.description,
    state: mr.state,
    created_at: mr.createdAt.toISOString(),
    updated_at: mr.updatedAt.toISOString(),
    merged_by: userView(state, mr.mergedById),
    merge_user: userView(state, mr.mergedById ?? mr.mergeUserId),
    merged_at: iso(mr.mergedAt),
    closed_by: userView(state, mr.closedById),
    closed_at: iso(mr.closedAt),
    target_branch: mr.targetBranch,
    source_branch: mr.sourceBranch,
    source_project_id: project.id,
    target_project_id: project.id,
    author: userView(state, mr.authorId),
    assignees: [],
    reviewers: [],
    labels: [...mr.labels],
    draft: /^(\[draft\]|draft:|\(draft\))/i.test(mr.title),
    merge_when_pipeline_succeeds: mr.mergeWhenPipelineSucceeds,
    merge_status: mr.state === 'opened' ? 'can_be_merged' : 'cannot_be_merged_recheck',
    detailed_merge_status: mr.state === 'opened' ? 'mergeable' : 'not_open',
    sha: head?.id ?? null,
    merge_commit_sha: mr.mergeCommitSha,
    squash_commit_sha: null,
    should_remove_source_branch: mr.state === 'merged' ? mr.removeSourceBranch : null,
    force_remove_source_branch: mr.removeSourceBranch,
    squash: mr.squash,
    reference: `!${mr.iid}`,
    references: { short: `!${mr.iid}`, relative: `!${mr.iid}`, full: `${project.pathWithNamespace}!${mr.iid}` },
    web_url: `${ctx.baseUrl}/${project.pathWithNamespace}/-/merge_requests/${mr.iid}`,
  };
}

function readableProject(ctx: BranchCtx, ref: string): ProjectRecord {
  const project = findProject(ctx.state, ctx.caller, ref);
  if (!canReadCode(ctx.state, ctx.caller, project)) throw forbidden();
  return project;
}

function roleOf(state: EmulatorState, caller: Caller, project: ProjectRecord): number {
  return caller.admin ? 60 : state.projectAccess(caller.user.id, project);
}

function findMergeRequest(state: EmulatorState, project: ProjectRecord, iidRef: string): MergeRequestRecord {
  const mr = /^\d+$/.test(iidRef) ? ciState(state).mergeRequests.find((m) => m.projectId === project.id && m.iid === Number(iidRef)) : undefined;
  if (!mr) throw NOT_FOUND();
  return mr;
}

/** `labels` as a comma-separated string or an array. */
function labelList(raw: unknown): string[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  const items = Array.isArray(raw) ? raw.map((x) => str(x) ?? '') : (str(raw) ?? '').split(',');
  return [...new Set(items.map((l) => l.trim()).filter((l) => l !== ''))];
}

/** The real `validate_branches`: the same branch twice is 422, a second open one for the pair 409. */
function checkBranches(state: EmulatorState, project: ProjectRecord, mr: Pick<MergeRequestRecord, 'sourceBranch' | 'targetBranch' | 'state'>, self?: MergeRequestRecord): void {
  if (mr.sourceBranch === mr.targetBranch) throw apiError(422, ["You can't use same project/branch for source and target"]);
  if (mr.state !== 'opened') return;
  const other = ciState(state).mergeRequests.find(
    (m) => m !== self && m.projectId === project.id && m.state === 'opened' && m.sourceBranch === mr.sourceBranch && m.targetBranch === mr.targetBranch,
  );
  if (other) throw apiError(409, [`Another open merge request already exists for this source branch: !${other.iid}`]);
}

export function createMergeRequest(ctx: BranchCtx, projectRef: string): ApiResponse {
  const caller = requireCaller(ctx.caller);
  const p = ctx.params;
  const errors: string[] = [];
  for (const name of ['source_branch', 'target_branch', 'title']) {
    if (p[name] === undefined) errors.push(`${name} is missing`);
    else if (str(p[name]) === undefined) errors.push(`${name} is invalid`);
    else if (str(p[name])!.trim() === '') errors.push(`${name} is empty`);
  }
  const description = stringParam(p, 'description');
  const remove = boolParam(p, 'remove_source_branch');
  const squash = boolParam(p, 'squash');
  for (const r of [description, remove, squash]) if (r.error) errors.push(r.error);
  if (errors.length > 0) throw paramErrors(errors);
  const project = findProject(ctx.state, caller, projectRef);
  // create_merge_request_in / _from: Developer and above.
  if (roleOf(ctx.state, caller, project) < 30) throw forbidden();
  const source = str(p['source_branch'])!;
  const target = str(p['target_branch'])!;
  checkBranches(ctx.state, project, { sourceBranch: source, targetBranch: target, state: 'opened' });
  // MergeRequests::BuildService: both branches must exist (422 with the base error).
  if (!validBranchName(source) || !project.repo.branches.has(source)) throw apiError(422, [`Source branch "${source}" does not exist`]);
  if (!project.repo.branches.has(target)) throw apiError(422, [`Target branch "${target}" does not exist`]);
  const mrs = ciState(ctx.state).mergeRequests;
  const mr = newMergeRequest(ctx.state, project, {
    iid: Math.max(0, ...mrs.filter((m) => m.projectId === project.id).map((m) => m.iid)) + 1,
    title: str(p['title'])!,
    description: description.value ?? '',
    sourceBranch: source,
    targetBranch: target,
    labels: labelList(p['labels']) ?? [],
    authorId: caller.user.id,
    removeSourceBranch: remove.value ?? false,
    squash: squash.value ?? false,
  });
  mrs.push(mr);
  return json(201, renderMergeRequest(ctx, project, mr));
}

/** The list filters both lists share: state, source_branch, target_branch, labels (all of them). */
function filtered(ctx: BranchCtx, mrs: readonly MergeRequestRecord[]): MergeRequestRecord[] {
  const p = ctx.params;
  const stateFilter = enumParam(p, 'state', STATES);
  if (stateFilter.error) throw paramErrors([stateFilter.error]);
  const source = str(p['source_branch']);
  const target = str(p['target_branch']);
  const labels = labelList(p['labels']);
  return mrs
    .filter((m) => !stateFilter.value || stateFilter.value === 'all' || m.state === stateFilter.value)
    .filter((m) => source === undefined || m.sourceBranch === source)
    .filter((m) => target === undefined || m.targetBranch === target)
    .filter((m) => labels === undefined || labels.every((l) => m.labels.includes(l)))
    // Newest first (order_by created_at, sort desc), ties by id.
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.id - a.id);
}

export function listProjectMergeRequests(ctx: BranchCtx, projectRef: string): ApiResponse {
  const project = readableProject(ctx, projectRef);
  const list = filtered(ctx, ciState(ctx.state).mergeRequests.filter((m) => m.projectId === project.id));
  const { items, headers } = paginate(list, ctx.page);
  return json(200, items.map((m) => renderMergeRequest(ctx, project, m)), headers);
}

/**
 * `GET /merge_requests`: every project the caller can read code of; `scope` is `created_by_me` by
 * default (the real default), `all` for every visible one, `assigned_to_me` (never anyone here).
 */
export function listAllMergeRequests(ctx: BranchCtx): ApiResponse {
  const caller = requireCaller(ctx.caller);
  const scope = enumParam(ctx.params, 'scope', ['created_by_me', 'assigned_to_me', 'all']);
  if (scope.error) throw paramErrors([scope.error]);
  const projects = new Map(ctx.state.projects.filter((p) => canSeeProject(ctx.state, caller, p) && canReadCode(ctx.state, caller, p)).map((p) => [p.id, p]));
  const mine = (m: MergeRequestRecord): boolean => {
    const s = scope.value ?? 'created_by_me';
    return s === 'all' || (s === 'created_by_me' && m.authorId === caller.user.id);
  };
  const list = filtered(ctx, ciState(ctx.state).mergeRequests.filter((m) => projects.has(m.projectId) && mine(m)));
  const { items, headers } = paginate(list, ctx.page);
  return json(200, items.map((m) => renderMergeRequest(ctx, projects.get(m.projectId)!, m)), headers);
}

export function getMergeRequest(ctx: BranchCtx, projectRef: string, iid: string): ApiResponse {
  const project = readableProject(ctx, projectRef);
  return json(200, renderMergeRequest(ctx, project, findMergeRequest(ctx.state, project, iid)));
}

export function updateMergeRequest(ctx: BranchCtx, projectRef: string, iid: string): ApiResponse {
  const caller = requireCaller(ctx.caller);
  const project = findProject(ctx.state, caller, projectRef);
  const mr = findMergeRequest(ctx.state, project, iid);
  // update_merge_request: Developer and above (or the author).
  if (roleOf(ctx.state, caller, project) < 30 && mr.authorId !== caller.user.id) throw forbidden();
  const p = ctx.params;
  const errors: string[] = [];
  const title = stringParam(p, 'title');
  const description = stringParam(p, 'description');
  const target = stringParam(p, 'target_branch');
  const event = enumParam(p, 'state_event', ['close', 'reopen']);
  const remove = boolParam(p, 'remove_source_branch');
  const squash = boolParam(p, 'squash');
  for (const r of [title, description, target, event, remove, squash]) if (r.error) errors.push(r.error);
  const known = ['title', 'description', 'target_branch', 'state_event', 'labels', 'add_labels', 'remove_labels', 'remove_source_branch', 'squash', 'assignee_id', 'assignee_ids', 'reviewer_ids', 'milestone_id', 'discussion_locked'];
  if (!known.some((k) => p[k] !== undefined)) errors.push(`${known.join(', ')} are missing, at least one parameter must be provided`);
  if (errors.length > 0) throw paramErrors(errors);
  const nextState = event.value === 'close' && mr.state === 'opened' ? 'closed' : event.value === 'reopen' && mr.state === 'closed' ? 'opened' : mr.state;
  const nextTarget = target.value ?? mr.targetBranch;
  if (target.value !== undefined && !project.repo.branches.has(target.value)) throw apiError(422, [`Target branch "${target.value}" does not exist`]);
  checkBranches(ctx.state, project, { sourceBranch: mr.sourceBranch, targetBranch: nextTarget, state: nextState }, mr);
  const now = ctx.state.now();
  if (title.value !== undefined) mr.title = title.value;
  if (description.value !== undefined) mr.description = description.value;
  mr.targetBranch = nextTarget;
  let labels = labelList(p['labels']) ?? mr.labels;
  labels = [...new Set([...labels, ...(labelList(p['add_labels']) ?? [])])].filter((l) => !(labelList(p['remove_labels']) ?? []).includes(l));
  mr.labels = labels;
  if (remove.value !== undefined) mr.removeSourceBranch = remove.value;
  if (squash.value !== undefined) mr.squash = squash.value;
  if (nextState !== mr.state) {
    mr.state = nextState;
    mr.closedAt = nextState === 'closed' ? now : null;
    mr.closedById = nextState === 'closed' ? caller.user.id : null;
    if (nextState === 'closed') mr.mergeWhenPipelineSucceeds = false;
  }
  mr.updatedAt = now;
  return json(200, renderMergeRequest(ctx, project, mr));
}

/** The merge base on first-parent histories: the newest commit of `target`'s history that `source` also has. */
function mergeBase(project: ProjectRecord, source: Commit, target: Commit): Commit | undefined {
  const onSource = new Set<string>();
  for (let c: Commit | undefined = source; c; c = project.repo.parent(c)) onSource.add(c.id);
  for (let c: Commit | undefined = target; c; c = project.repo.parent(c)) if (onSource.has(c.id)) return c;
  return undefined;
}

/**
 * `PUT …/merge`: merges now, or, with `merge_when_pipeline_succeeds`/`auto_merge`, records the
 * auto-merge request and leaves it open (the emulator runs no pipelines; the merge request is
 * taken to have one running). Merging is a three-way merge of the file trees into a merge commit
 * (parents: the target head, then the source head); a path both sides changed differently is a
 * conflict (422 `Branch cannot be merged`).
 */
export function mergeMergeRequest(ctx: BranchCtx, projectRef: string, iid: string): ApiResponse {
  const caller = requireCaller(ctx.caller);
  const project = findProject(ctx.state, caller, projectRef);
  const mr = findMergeRequest(ctx.state, project, iid);
  const p = ctx.params;
  const errors: string[] = [];
  const auto = boolParam(p, 'merge_when_pipeline_succeeds');
  const autoMerge = boolParam(p, 'auto_merge');
  const remove = boolParam(p, 'should_remove_source_branch');
  const squash = boolParam(p, 'squash');
  for (const r of [auto, autoMerge, remove, squash]) if (r.error) errors.push(r.error);
  if (errors.length > 0) throw paramErrors(errors);
  // can_be_merged_by?: the merge level of the target branch's protection.
  if (!canMergeTo(ctx.state, caller, project, mr.targetBranch)) throw unauthorized();
  if (mr.state !== 'opened') throw apiError(405, '405 Method Not Allowed');
  const source = project.repo.branchHead(mr.sourceBranch);
  const target = project.repo.branchHead(mr.targetBranch);
  if (!source || !target) throw apiError(422, 'Branch cannot be merged');
  const sha = str(p['sha']);
  if (sha !== undefined && sha !== source.id) throw apiError(409, `SHA does not match HEAD of source branch: ${source.id}`);
  if (remove.value !== undefined) mr.removeSourceBranch = remove.value;
  if (squash.value !== undefined) mr.squash = squash.value;
  const now = ctx.state.now();
  if (auto.value === true || autoMerge.value === true) {
    mr.mergeWhenPipelineSucceeds = true;
    mr.mergeUserId = caller.user.id;
    mr.updatedAt = now;
    return json(200, renderMergeRequest(ctx, project, mr));
  }
  const base = mergeBase(project, source, target);
  const changes = new Map<string, BlobEntry | null>();
  const paths = new Set([...source.files.keys(), ...(base?.files.keys() ?? [])]);
  for (const path of paths) {
    const was = base?.files.get(path);
    const ours = target.files.get(path);
    const theirs = source.files.get(path);
    if (sameEntry(was, theirs) || sameEntry(ours, theirs)) continue;
    if (!sameEntry(was, ours)) throw apiError(422, 'Branch cannot be merged');
    changes.set(path, theirs ?? null);
  }
  const person = { name: caller.user.name, email: caller.user.email };
  const message = `Merge branch '${mr.sourceBranch}' into '${mr.targetBranch}'\n\n${mr.title}\n\nSee merge request ${project.pathWithNamespace}!${mr.iid}`;
  const merged = project.repo.commit({ branch: mr.targetBranch, parent: target, otherParents: [source], changes, author: person, committer: person, message, date: now });
  mr.state = 'merged';
  mr.mergedAt = now;
  mr.mergedById = caller.user.id;
  mr.mergeCommitSha = merged.id;
  mr.updatedAt = now;
  if (mr.removeSourceBranch && mr.sourceBranch !== project.defaultBranch) project.repo.branches.delete(mr.sourceBranch);
  return json(200, renderMergeRequest(ctx, project, mr));
}

