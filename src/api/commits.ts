/**
 * Commits: `POST /projects/:id/repository/commits` (lib/api/commits.rb of the real v4 API): several
 * file actions committed as one commit, all or nothing. Not repeated by the client: a repeated
 * commit fails ("already exists") or commits twice, and either would hide what really happened.
 */
import type { ApiClient } from './client.js';
import { ApiInvalidResponseError } from './errors.js';
import { apiPath } from './path.js';
import type { PathParam } from './path.js';

/** One file action of a commit. `last_commit_id` guards an update or delete: the commit fails when the file's last commit is another. */
export type CommitAction =
  | { readonly action: 'create'; readonly file_path: string; readonly content: string; readonly encoding: 'text' | 'base64'; readonly execute_filemode?: boolean }
  | { readonly action: 'update'; readonly file_path: string; readonly content: string; readonly encoding: 'text' | 'base64'; readonly execute_filemode?: boolean; readonly last_commit_id?: string }
  | { readonly action: 'delete'; readonly file_path: string; readonly last_commit_id?: string };

export interface CommitProps {
  readonly branch: string;
  readonly commit_message: string;
  readonly actions: readonly CommitAction[];
  /** Create `branch` from this branch (or, with `force`, rebuild it from this branch). */
  readonly start_branch?: string;
  /** With `start_branch`: overwrite `branch` with a commit on top of `start_branch`. */
  readonly force?: boolean;
  readonly author_name?: string;
  readonly author_email?: string;
}

/** The commit made, with the fields plumb reads. */
export interface CommitMade {
  readonly id: string;
  readonly web_url?: string;
}

export async function createCommit(client: ApiClient, project: PathParam, props: CommitProps): Promise<CommitMade> {
  const path = apiPath`/projects/${project}/repository/commits`;
  // `stats` off: the line counts cost the service a diff plumb does not read.
  const res = await client.request<unknown>({ method: 'POST', path, body: { ...props, stats: false } });
  const b = res.body as { id?: unknown; web_url?: unknown } | null;
  if (typeof b?.id !== 'string') throw ApiInvalidResponseError.lacking('POST', path, res.status, "the commit's id");
  return { id: b.id, ...(typeof b.web_url === 'string' && { web_url: b.web_url }) };
}
