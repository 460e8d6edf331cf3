/**
 * Repository files as a resource: one file on one branch of one project. A plan makes one HEAD per
 * declared file and branch and compares the SHA-256 of the local content (hashed streaming) and the
 * execute bit with the `X-Service-*` headers: it never downloads a file (`--show-content` reads text
 * files up to 10 MB, to show a diff). Apply writes every changed file of one project and branch in
 * one commit (`delivery: commit`): through the commits API when there are several (commit.ts), as
 * one POST, PUT or DELETE of the files API when there is one (apply.ts); updates and deletes carry
 * the file's last commit seen at plan time, so a commit made since fails the write and is reported
 * as a conflict instead of being overwritten. Writes to one branch run one at a time (a lane per
 * project and branch); everything else runs in parallel.
 *
 * The folder: `plan.ts` plans, `apply.ts` applies one change, `live.ts` holds what both read and
 * compare; this file is the provider the engine calls.
 */
import { filesOf } from './model.js';
import { MASK } from '../../config/secrets.js';
import { canonical } from '../../util/canonical.js';
import type { ResourceChange } from '../../engine/plan.js';
import type { ResourceProvider } from '../../engine/resource.js';
import { parseFilePayload } from './payload.js';
import type { FilePayload } from './payload.js';
import { fileAddress, baseFingerprint, readBase, shortSha } from './live.js';
import { planRepositoryFiles } from './plan.js';
import { applyFile } from './apply.js';
import { applyCommit } from './commit.js';
import { mergeRequestAddress, mergeRequestFingerprint, parseMergeRequestPayload } from './merge-request.js';
import type { MergeRequestPayload } from './merge-request.js';
import { applyMergeRequest } from './merge-request-apply.js';

/** One file on one branch, or one project's files delivered by merge request (./merge-request.ts). */
export type FilesKindPayload = FilePayload | MergeRequestPayload;

const isMr = (p: FilesKindPayload): p is MergeRequestPayload => 'delivery' in p && p.delivery === 'merge_request';

export const repositoryFilesProvider: ResourceProvider<FilesKindPayload> = {
  kind: 'repository_file',

  declares(instance) {
    return filesOf(instance).some((p) => p.files.length > 0);
  },

  parsePayload: (raw) => (typeof raw === 'object' && raw !== null && (raw as { delivery?: unknown }).delivery === 'merge_request' ? parseMergeRequestPayload(raw, parseFilePayload) : parseFilePayload(raw)),

  /** A file payload as a plan shows it: which file on which branch, what is written. */
  describePayload(instance, p) {
    if (isMr(p)) {
      const action = p.op === 'open' ? 'create' : p.op === 'close' ? 'delete' : p.op === 'update' ? 'update' : 'no-op';
      const files = p.op === 'close' ? [] : p.files.map((f) => {
        const secret = f.contentFingerprint !== undefined;
        return { name: `file ${f.path}`, after: f.op === 'delete' ? '(deleted)' : secret ? MASK : (shortSha(f.sha256) ?? f.op), ...(secret && { sensitive: true }), required: p.op === 'open' || p.op === 'update' };
      });
      const fields = p.op === 'open' ? [{ name: 'target_branch', after: p.targetBranch, required: true }, { name: 'title', after: p.title, required: true }] : p.op === 'update' ? [{ name: 'title', after: p.title, required: false }] : [];
      // Labels are shown with those the merge request already has; the merge request's iid before a close: live values.
      return { addresses: [mergeRequestAddress(instance, p.project, p.sourceBranch)], action, attributes: [...files, ...fields], cosmetic: ['labels', 'merge_request'] };
    }
    const action = p.op === 'none' ? 'no-op' : p.op;
    const addresses = [fileAddress(instance, p)];
    if (p.op === 'none') return { addresses, action, attributes: [] };
    const startBranch = { name: 'start_branch', after: p.startBranch, required: p.startBranch !== undefined };
    if (p.op === 'delete') return { addresses, action, attributes: [startBranch], cosmetic: ['content_sha256'] };
    const secret = p.contentFingerprint !== undefined;
    return {
      addresses,
      action,
      attributes: [
        { name: 'content_sha256', after: secret ? MASK : shortSha(p.sha256), ...(secret && { sensitive: true }), required: p.op === 'create' },
        { name: 'execute_filemode', after: p.op === 'create' ? (p.executeFilemode ?? false) : p.executeFilemode, required: p.op === 'create' },
        startBranch,
      ],
    };
  },

  plan: planRepositoryFiles,

  async liveFingerprint(ctx, _change, p) {
    if (isMr(p)) return mergeRequestFingerprint(ctx, p);
    const base = await readBase(ctx, p.project, p.path, p.branch, p.startBranch);
    return baseFingerprint(base.live, p.contentFingerprint !== undefined);
  },

  /**
   * A saved plan whose file differs from the one planned again only in the content to write: the
   * `source:` file (or the secret behind the content) changed since the plan, or the plan's hash
   * was edited. Refused either way; said as the apply of that file has always said it.
   */
  explainDifference(saved, derived) {
    const keys = (o: Readonly<Record<string, unknown>>) => Object.keys(o).filter((k) => k !== 'sha256' && k !== 'contentFingerprint');
    const bare = (o: Readonly<Record<string, unknown>>) => Object.fromEntries(keys(o).map((k) => [k, o[k]]));
    // A merge request's files carry their digests one level down, and show them as `file <path>`.
    const payload = (p: Readonly<Record<string, unknown>>) => (Array.isArray(p.files) ? { ...bare(p), files: (p.files as Record<string, unknown>[]).map(bare) } : bare(p));
    const rest = (c: ResourceChange) => JSON.stringify(canonical({ ...c, payload: payload(c.payload), attributes: c.attributes.filter((a) => a.name !== 'content_sha256' && !a.name.startsWith('file ')), diff: undefined }));
    if (saved.kind !== 'repository_file' || rest(saved) !== rest(derived)) return undefined;
    const path = typeof derived.payload.path === 'string' ? derived.payload.path : derived.address;
    return {
      severity: 'error',
      code: 'PLUMB_FILE_SOURCE_CHANGED',
      summary: `The content of ${path} is not the one the plan was made with`,
      detail: 'Its source file (or the secret it comes from) changed since the plan, or the plan file was edited. Nothing was applied.',
      suggestion: 'run `plumb plan` again and review the new plan',
      address: derived.address,
    };
  },

  apply: (ctx, change, p) => (isMr(p) ? applyMergeRequest(ctx, change, p) : applyFile(ctx, change, p)),

  // Batches are of file writes only (plan.ts `inCommits`); a merge request is one change.
  applyBatch: (ctx, changes, payloads) => applyCommit(ctx, changes, payloads as FilePayload[]),
};
