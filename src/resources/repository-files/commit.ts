/**
 * Applying the planned writes of one project and branch together (`delivery: commit`, a batch of
 * two or more: plan.ts `inCommits`): one commit through the commits API, each update and delete
 * guarded by the file's last commit seen at plan time, so a commit made since refuses the whole
 * commit (all or nothing) instead of being overwritten. The 201 and its commit id are the outcome;
 * after any other answer each file is read again (one HEAD each) to learn what happened, and the
 * files that moved are named. A commit is never repeated blindly.
 */
import { ApiAmbiguousError, ApiBadRequestError, ApiError, describeReason } from '../../api/errors.js';
import { createCommit } from '../../api/commits.js';
import type { CommitAction } from '../../api/commits.js';
import type { PlanDiagnostic, ResourceChange } from '../../engine/plan.js';
import type { ApplyResponse, InstanceContext } from '../../engine/resource.js';
import { planDiagnostic } from '../../engine/resource.js';
import { batchMessage } from './config.js';
import type { FilePayload } from './payload.js';
import { fileKey, recordWritten } from './state.js';
import { fileHolds, readBase } from './live.js';
import type { Base } from './live.js';
import { forbiddenBecause, NOT_ALLOWED_TO_PUSH, NOT_ON_A_BRANCH, prepareWrite } from './apply.js';
import type { PreparedWrite } from './apply.js';

/** The service's refusal of a branch-creating commit when the branch exists after all. */
const BRANCH_EXISTS = /A branch called .* already exists/i;

export async function applyCommit(ctx: InstanceContext, changes: readonly ResourceChange[], payloads: readonly FilePayload[]): Promise<ApplyResponse[]> {
  const writes = changes.map((change, i) => ({ change, p: payloads[i]! }));
  const first = writes[0]!.p;
  const where = `${first.branch} of project "${first.project}"`;
  const files = writes.map((w) => w.p.path).join(', ');

  // Every file as declared, checked against the plan, before anything is sent: all or nothing.
  const prepared: PreparedWrite[] = [];
  for (const w of writes) {
    const r = await prepareWrite(ctx, w.change, w.p);
    if ('applied' in r) return writes.map((x) => (x === w ? r : notCommitted(`${w.p.path} of the same commit could not be written`)));
    prepared.push(r);
  }
  const record = () => writes.forEach((w, i) => recordWritten(ctx.state, ctx.instance.url, fileKey(w.p.project, w.p.branch, w.p.path), prepared[i]!.written));
  const actions: CommitAction[] = writes.map(({ p }, i): CommitAction => {
    const body = prepared[i]!.body;
    if (p.op === 'create') return { action: 'create', file_path: p.path, ...body! };
    if (p.op === 'update') return { action: 'update', file_path: p.path, ...body!, last_commit_id: p.lastCommitId! };
    return { action: 'delete', file_path: p.path, last_commit_id: p.lastCommitId! };
  });
  const creates = writes.find((w) => w.p.createsBranch && w.p.startBranch !== undefined)?.p.startBranch;
  const author = { ...(first.authorName !== undefined && { author_name: first.authorName }), ...(first.authorEmail !== undefined && { author_email: first.authorEmail }) };
  const send = (withStart: boolean) =>
    createCommit(ctx.client, first.project, { branch: first.branch, commit_message: batchMessage(writes.map((w) => w.p)), actions, ...(withStart && creates !== undefined && { start_branch: creates }), ...author });
  const done = (note: string): ApplyResponse[] => {
    record();
    return writes.map(() => ({ applied: true, diagnostics: [], notes: [note] }));
  };

  try {
    const made = await send(true);
    return done(`committed to ${first.branch} with ${writes.length - 1} other file(s) in commit ${made.id.slice(0, 12)}`);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const call = err.status !== undefined ? `${err.method} ${err.path} answered ${err.status}` : `the answer was lost (${err.method} ${err.path})`;
    // Whatever the answer, the files as they are now say what happened: read them again.
    let now: Base[];
    try {
      now = await Promise.all(writes.map(({ p }) => readBase(ctx, p.project, p.path, p.branch, p.startBranch)));
    } catch (readErr) {
      const why = ctx.secrets.redact(readErr instanceof Error ? readErr.message : String(readErr));
      const code = err instanceof ApiAmbiguousError ? err.code : 'PLUMB_FILE_OUTCOME_UNKNOWN';
      return everyone(ctx, writes, code, `The commit of ${files} to ${where}: outcome unknown (${ctx.secrets.redact(err.message)})`, 'run `plumb plan` once the instance answers: it shows the files as they are', `${call}, and reading the files again failed too (${why}); plumb did not repeat the commit.`);
    }
    if (writes.every((w, i) => fileHolds(now[i]!.live, w.p, prepared[i]!.sha))) {
      return done(err instanceof ApiBadRequestError ? `nothing changed: ${first.branch} already holds the declared files (the instance refused the commit; checked again with HEAD)` : `${call}, but reading the files again shows ${first.branch} holds the declared files: the commit was made`);
    }
    // The files that moved since the plan: their last commit is not the plan's (or they appeared or went).
    const moved = writes.filter((w, i) => now[i]!.live?.last_commit_id !== (w.p.op === 'create' ? undefined : w.p.lastCommitId));
    if (moved.length > 0) {
      return writes.map((w, i) => {
        if (!moved.includes(w)) return notCommitted(`the commit was refused as a whole: ${moved.map((m) => m.p.path).join(', ')} moved since the plan`);
        const live = now[i]!.live;
        const planned = w.p.op === 'create' ? undefined : w.p.lastCommitId;
        return failure(
          ctx,
          w.change,
          'PLUMB_FILE_CONFLICT',
          live === undefined
            ? `${w.p.path} on ${w.p.branch} was deleted by another commit since the plan; plumb committed none of ${files}`
            : `${w.p.path} on ${w.p.branch} was ${planned === undefined ? 'created' : 'changed'} by commit ${live.last_commit_id?.slice(0, 12) ?? '(unknown)'} since the plan${planned ? ` (planned against ${planned.slice(0, 12)})` : ''}; plumb committed none of ${files}, so nothing was overwritten`,
          'review that commit, then run `plumb plan` again: the new plan compares with the files as they are now',
          `${call}${err.serverMessage ? ` (${err.serverMessage})` : ''}; the commit holds every changed file of the branch, and the service refuses it whole.`,
        );
      });
    }
    // The branch exists after all (a start_branch commit refused because it does): commit to it.
    if (creates !== undefined && err instanceof ApiBadRequestError && BRANCH_EXISTS.test(err.serverMessage ?? '')) {
      try {
        const made = await send(false);
        return done(`committed to ${first.branch} with ${writes.length - 1} other file(s) in commit ${made.id.slice(0, 12)}`);
      } catch (again) {
        if (!(again instanceof ApiError)) throw again;
      }
    }
    const unchanged = `${call}; reading the files again shows them unchanged since the plan, so nothing was committed (plumb did not repeat the commit).`;
    const said = err.serverMessage ?? '';
    if (NOT_ALLOWED_TO_PUSH.test(said)) {
      return everyone(ctx, writes, 'PLUMB_FILE_BRANCH_PROTECTED', `The instance refused the commit of ${files} to ${where}: "${said.replace(/^403 Forbidden - /, '')}" (the branch is protected)`, `allow plumb's token to push to ${first.branch} in the project's protected branches, or deliver through a merge request (\`delivery: merge_request\`), then plan again`, unchanged);
    }
    if (err.status === 403) {
      const why = await forbiddenBecause(ctx, first, err);
      if (why) return everyone(ctx, writes, why.code, ctx.secrets.redact(why.summary), why.suggestion, unchanged);
    }
    if (err instanceof ApiBadRequestError && NOT_ON_A_BRANCH.test(said)) {
      return everyone(ctx, writes, 'PLUMB_FILE_BRANCH_MISSING', `Branch "${first.branch}" of project "${first.project}" does not exist`, 'create the branch, or declare `start_branch:` on the files to create it from another branch', unchanged);
    }
    const refusal = err.status !== undefined && err.status < 500;
    const what = err instanceof ApiAmbiguousError ? `${err.method} ${err.path}: ${describeReason(err.reason, err.status)}` : err.message;
    return everyone(
      ctx,
      writes,
      err instanceof ApiBadRequestError ? 'PLUMB_FILE_WRITE_FAILED' : err.code,
      ctx.secrets.redact(`The commit of ${files} to ${where} failed: ${err instanceof ApiBadRequestError ? (said || 'no message') : what}`),
      refusal ? "check the project path, the branch and the token's role (Developer at least), then plan again" : 'run `plumb apply` again once the instance answers (the files are unchanged)',
      unchanged,
    );
  }
}

/** A write of a commit that was not made because of another file of it (its failure is reported there). */
function notCommitted(why: string): ApplyResponse {
  return { applied: false, diagnostics: [], notes: [`not committed: ${why}`] };
}

function failure(ctx: InstanceContext, change: ResourceChange, code: PlanDiagnostic['code'], summary: string, suggestion: string, detail?: string): ApplyResponse {
  return { applied: false, notes: [], diagnostics: [planDiagnostic(ctx, { severity: 'error', code, summary, suggestion, ...(detail && { detail }), address: change.address, pointer: change.pointer })] };
}

/** One diagnostic for the commit, on its first file; the others say they went with it. */
function everyone(ctx: InstanceContext, writes: readonly { change: ResourceChange; p: FilePayload }[], code: PlanDiagnostic['code'], summary: string, suggestion: string, detail?: string): ApplyResponse[] {
  return writes.map((w, i) => (i === 0 ? failure(ctx, w.change, code, summary, suggestion, detail) : notCommitted(`the commit with ${writes[0]!.p.path} failed (reported there)`)));
}
