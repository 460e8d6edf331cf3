/**
 * Applying one project's delivery by merge request (planned in ./merge-request.ts): the files in
 * one commit on the merge request's branch, made from the target branch by the commit itself
 * (`start_branch`; `force` when an existing branch of plumb's is rebuilt), then the merge request
 * opened, updated in place or closed. Every write is guarded by what the plan saw: the target
 * branch's files by each action's `last_commit_id`, the merge request's branch by its head commit
 * (read again right before a rebuild or a close: a push since the plan is never overwritten).
 */
import { ApiBadRequestError, ApiConflictError, ApiError, ApiNotFoundError } from '../../api/errors.js';
import { createMergeRequest, deleteBranch, getBranchHead, mergeWhenPipelineSucceeds, updateMergeRequest } from '../../api/merge-requests.js';
import type { MergeRequest } from '../../api/merge-requests.js';
import type { ResourceChange } from '../../engine/plan.js';
import type { ApplyResponse, InstanceContext } from '../../engine/resource.js';
import { credentialOf } from '../../engine/risks.js';
import { isPlumbCommit } from './merge-request.js';
import type { MergeRequestPayload } from './merge-request.js';
import { deliveryCommitMessage, deliveryDescription } from './merge-request-text.js';
import { createCommit } from '../../api/commits.js';
import type { CommitAction } from '../../api/commits.js';
import { failed, prepareWrite } from './apply.js';

const BRANCH_EXISTS = /branch called .* already exists/i;

export async function applyMergeRequest(ctx: InstanceContext, change: ResourceChange, p: MergeRequestPayload): Promise<ApplyResponse> {
  if (p.op === 'none') return { applied: true, diagnostics: [], notes: [] };
  try {
    if (p.op === 'close') return await close(ctx, change, p);
    if (p.op === 'open') return await open(ctx, change, p);
    return await update(ctx, change, p);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return failed(ctx, change, err.code, ctx.secrets.redact(`${what(p)} failed: ${err.message}`), 'run `plumb plan` again: it reads the merge request and its branch as they are now', err.status !== undefined ? `${err.method} ${err.path} answered ${err.status}.` : `${err.method} ${err.path}: the answer was lost.`);
  }
}

function what(p: MergeRequestPayload): string {
  return p.op === 'open' ? `Opening the merge request of project "${p.project}"` : `${p.op === 'close' ? 'Closing' : 'Updating'} merge request !${p.iid} of project "${p.project}"`;
}

/** The emails plumb's user commits with. */
async function plumbEmails(ctx: InstanceContext): Promise<Set<string>> {
  const user = (await credentialOf(ctx)).user;
  return new Set([user?.email, user?.commit_email].filter((e): e is string => e !== undefined).map((e) => e.toLowerCase()));
}

/** The branch's head is still the one the plan saw; otherwise the failure that says who moved it. */
async function guardHead(ctx: InstanceContext, change: ResourceChange, p: MergeRequestPayload): Promise<ApplyResponse | undefined> {
  let now: string | undefined;
  try {
    now = (await getBranchHead(ctx.client, p.project, p.sourceBranch)).commit.id;
  } catch (err) {
    if (!(err instanceof ApiNotFoundError)) throw err;
  }
  if (now === p.head) return undefined;
  return failed(
    ctx,
    change,
    'PLUMB_FILE_MR_FOREIGN_COMMIT',
    `Branch "${p.sourceBranch}" of project "${p.project}" moved since the plan (${p.head?.slice(0, 12) ?? 'none'} then, ${now?.slice(0, 12) ?? 'deleted'} now): plumb left merge request !${p.iid} untouched`,
    'run `plumb plan` again: a push by someone else keeps plumb off the branch',
  );
}

async function commit(ctx: InstanceContext, change: ResourceChange, p: MergeRequestPayload, force: boolean): Promise<{ id: string } | ApplyResponse> {
  // Every file as declared, checked against the plan (./apply.ts), before anything is sent.
  const actions: CommitAction[] = [];
  for (const f of p.files) {
    const prepared = await prepareWrite(ctx, change, f);
    if ('applied' in prepared) return prepared;
    const guard = f.lastCommitId !== undefined ? { last_commit_id: f.lastCommitId } : {};
    if (f.op === 'create') actions.push({ action: 'create', file_path: f.path, ...prepared.body! });
    else if (f.op === 'update') actions.push({ action: 'update', file_path: f.path, ...prepared.body!, ...guard });
    else actions.push({ action: 'delete', file_path: f.path, ...guard });
  }
  const message = deliveryCommitMessage(ctx.instance.name, p);
  const author = p.files.find((f) => f.authorName !== undefined || f.authorEmail !== undefined);
  // The branch is made (or, with force, rebuilt) from the target branch by the commit itself; each
  // action guarded by the target branch's file as the plan saw it.
  const attempt = (withForce: boolean) =>
    createCommit(ctx.client, p.project, {
      branch: p.sourceBranch,
      start_branch: p.targetBranch,
      ...(withForce && { force: true }),
      commit_message: message,
      actions,
      ...(author?.authorName !== undefined && { author_name: author.authorName }),
      ...(author?.authorEmail !== undefined && { author_email: author.authorEmail }),
    });
  try {
    return await attempt(force);
  } catch (err) {
    if (force || !(err instanceof ApiBadRequestError) || !BRANCH_EXISTS.test(err.serverMessage ?? '')) throw err;
  }
  // The branch is there without an open merge request (one merged or closed without removing it):
  // rebuilt only when its head is plumb's own commit.
  const head = await getBranchHead(ctx.client, p.project, p.sourceBranch);
  if (!isPlumbCommit(head, ctx.instance.name, await plumbEmails(ctx))) {
    return failed(
      ctx,
      change,
      'PLUMB_FILE_MR_FOREIGN_COMMIT',
      `Branch "${p.sourceBranch}" of project "${p.project}" exists with commit ${head.commit.id.slice(0, 12)} by ${head.commit.committer_name ?? 'someone'}, not plumb's: plumb did not overwrite it`,
      `delete branch "${p.sourceBranch}" or name another one under \`delivery: {merge_request: {branch: …}}\`, then plan again`,
    );
  }
  return attempt(true);
}

async function open(ctx: InstanceContext, change: ResourceChange, p: MergeRequestPayload): Promise<ApplyResponse> {
  const made = await commit(ctx, change, p, false);
  if ('applied' in made) return made;
  let mr: MergeRequest;
  try {
    mr = await createMergeRequest(ctx.client, p.project, {
      source_branch: p.sourceBranch,
      target_branch: p.targetBranch,
      title: p.title,
      description: deliveryDescription(p, ctx.env ?? process.env),
      ...(p.labels.length > 0 && { labels: p.labels.join(',') }),
      remove_source_branch: p.removeSourceBranch,
      ...(p.squash !== undefined && { squash: p.squash }),
    });
  } catch (err) {
    if (!(err instanceof ApiConflictError)) throw err;
    return failed(ctx, change, 'PLUMB_FILE_MR_FOREIGN_COMMIT', `Project "${p.project}" already has an open merge request from "${p.sourceBranch}" (${err.serverMessage ?? '409'}), opened since the plan; the branch holds plumb's commit ${made.id.slice(0, 12)}`, 'run `plumb plan` again: it finds that merge request and keeps it');
  }
  const notes = [`opened merge request !${mr.iid} (${mr.web_url}): 1 commit with ${p.files.length} file${p.files.length === 1 ? '' : 's'} on ${p.sourceBranch}`];
  notes.push(...(await autoMerge(ctx, p, mr.iid, made.id)));
  return { applied: true, diagnostics: [], notes };
}

async function update(ctx: InstanceContext, change: ResourceChange, p: MergeRequestPayload): Promise<ApplyResponse> {
  const moved = await guardHead(ctx, change, p);
  if (moved) return moved;
  const notes: string[] = [];
  let sha: string | undefined;
  if (p.rebuild) {
    const made = await commit(ctx, change, p, true);
    if ('applied' in made) return made;
    sha = made.id;
    notes.push(`rebuilt ${p.sourceBranch} from ${p.targetBranch}: 1 commit with ${p.files.length} file${p.files.length === 1 ? '' : 's'}`);
  }
  await updateMergeRequest(ctx.client, p.project, p.iid!, {
    title: p.title,
    description: deliveryDescription(p, ctx.env ?? process.env),
    ...(p.labels.length > 0 && { add_labels: p.labels.join(',') }),
    remove_source_branch: p.removeSourceBranch,
    ...(p.squash !== undefined && { squash: p.squash }),
  });
  notes.push(`updated merge request !${p.iid} in place`);
  // A push to the branch cancels a pending auto-merge on the service: asked again.
  if (sha !== undefined) notes.push(...(await autoMerge(ctx, p, p.iid!, sha)));
  return { applied: true, diagnostics: [], notes };
}

async function close(ctx: InstanceContext, change: ResourceChange, p: MergeRequestPayload): Promise<ApplyResponse> {
  const moved = await guardHead(ctx, change, p);
  if (moved) return moved;
  await updateMergeRequest(ctx.client, p.project, p.iid!, { state_event: 'close' });
  try {
    await deleteBranch(ctx.client, p.project, p.sourceBranch);
  } catch (err) {
    if (!(err instanceof ApiNotFoundError)) throw err;
  }
  return { applied: true, diagnostics: [], notes: [`closed merge request !${p.iid} and removed ${p.sourceBranch}: ${p.targetBranch} already holds the declared files`] };
}

/** `auto_merge: true`: the service merges when the pipeline succeeds. A refusal is a note, not a failure: the merge request is there. */
async function autoMerge(ctx: InstanceContext, p: MergeRequestPayload, iid: number, sha: string): Promise<string[]> {
  if (!p.autoMerge) return [];
  try {
    await mergeWhenPipelineSucceeds(ctx.client, p.project, iid, sha);
    return ['set to merge when the pipeline succeeds'];
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return [ctx.secrets.redact(`auto-merge not set: ${err.message}`)];
  }
}
