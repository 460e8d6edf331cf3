/**
 * TEMPORARY: one commit of a project's files through the commits API, until the file-commit
 * branch's commit builder is merged (then this file goes and merge-request-apply.ts calls that).
 */
import { createHash } from 'node:crypto';
import { apiPath } from '../../api/path.js';
import type { ResourceChange } from '../../engine/plan.js';
import type { InstanceContext } from '../../engine/resource.js';
import { matchesFingerprint } from '../../engine/fingerprint.js';
import { contentBytes, isText } from './content.js';
import { filesOf } from './model.js';
import type { FilePayload } from './payload.js';

export interface CommitRequest {
  readonly project: string;
  readonly branch: string;
  readonly startBranch?: string;
  readonly force?: boolean;
  readonly message: string;
  readonly files: readonly FilePayload[];
}

export async function commitFiles(ctx: InstanceContext, _change: ResourceChange, r: CommitRequest): Promise<{ id: string }> {
  const declared = filesOf(ctx.instance).find((pr) => pr.ref === r.project);
  const actions = await Promise.all(
    r.files.map(async (p) => {
      const guard = p.op !== 'create' && p.lastCommitId !== undefined ? { last_commit_id: p.lastCommitId } : {};
      if (p.op === 'delete') return { action: 'delete', file_path: p.path, ...guard };
      const file = declared?.files.find((f) => f.pointer === p.pointer);
      if (!file) throw new Error(`${p.path} is no longer declared`);
      const bytes = await contentBytes(file);
      const sha = createHash('sha256').update(bytes).digest('hex');
      if (!(p.contentFingerprint ? await matchesFingerprint(sha, p.contentFingerprint) : sha === p.sha256)) throw new Error(`The content of ${p.path} changed since the plan`);
      const text = isText(bytes);
      return { action: p.op, file_path: p.path, content: bytes.toString(text ? 'utf8' : 'base64'), encoding: text ? 'text' : 'base64', ...(p.executeFilemode !== undefined && { execute_filemode: p.executeFilemode }), ...guard };
    }),
  );
  const res = await ctx.client.request<{ id: string }>({
    method: 'POST',
    path: apiPath`/projects/${r.project}/repository/commits`,
    body: { branch: r.branch, commit_message: r.message, actions, ...(r.startBranch !== undefined && { start_branch: r.startBranch }), ...(r.force && { force: true }) },
  });
  return { id: res.body.id };
}
