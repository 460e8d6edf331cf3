/**
 * Merge requests and the branch plumb delivers them from (lib/api/merge_requests.rb,
 * lib/api/branches.rb of the real v4 API): list the open ones from one source branch (instance-wide
 * for an administrator, per project otherwise), create one, update it (title, description, labels,
 * `state_event: close`), ask the service to merge it when its pipeline succeeds, read and delete
 * the source branch. Unknown fields of the answers are ignored; an answer lacking what plumb reads
 * is an `ApiInvalidResponseError` naming the call.
 */
import type { ApiClient } from './client.js';
import { ApiInvalidResponseError } from './errors.js';
import { apiPath } from './path.js';
import type { PathParam } from './path.js';

/** A merge request, with the fields plumb reads. */
export interface MergeRequest {
  readonly id: number;
  readonly iid: number;
  readonly project_id: number;
  /** `group/project`, from `references.full` (`group/project!12`); absent when the service did not say. */
  readonly project_path?: string;
  readonly title: string;
  readonly description: string;
  readonly state: string;
  readonly source_branch: string;
  readonly target_branch: string;
  readonly labels: readonly string[];
  /** The source branch's head commit, as the service last saw it. */
  readonly sha?: string;
  readonly web_url: string;
}

/** The head commit of a branch, with the fields plumb reads. */
export interface BranchHead {
  readonly name: string;
  readonly commit: {
    readonly id: string;
    readonly message: string;
    readonly author_name?: string;
    readonly author_email?: string;
    readonly committer_name?: string;
    readonly committer_email?: string;
    readonly parent_ids: readonly string[];
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** One merge request of an answer; undefined when it lacks an id, iid, project or branches. */
function mergeRequestOf(raw: unknown): MergeRequest | undefined {
  if (!isRecord(raw)) return undefined;
  const { id, iid, project_id: projectId } = raw;
  const source = str(raw['source_branch']);
  const target = str(raw['target_branch']);
  if (typeof id !== 'number' || typeof iid !== 'number' || typeof projectId !== 'number' || source === undefined || target === undefined) return undefined;
  const refs = isRecord(raw['references']) ? str(raw['references']['full']) : undefined;
  const bang = refs?.lastIndexOf('!') ?? -1;
  return {
    id,
    iid,
    project_id: projectId,
    ...(refs !== undefined && bang > 0 && { project_path: refs.slice(0, bang) }),
    title: str(raw['title']) ?? '',
    description: str(raw['description']) ?? '',
    state: str(raw['state']) ?? '',
    source_branch: source,
    target_branch: target,
    labels: Array.isArray(raw['labels']) ? raw['labels'].filter((l): l is string => typeof l === 'string') : [],
    ...(str(raw['sha']) !== undefined && { sha: str(raw['sha']) }),
    web_url: str(raw['web_url']) ?? '',
  };
}

function one(method: string, path: string, status: number, body: unknown): MergeRequest {
  const mr = mergeRequestOf(body);
  if (!mr) throw ApiInvalidResponseError.lacking(method, path, status, "the merge request's id, iid, project and branches");
  return mr;
}

/**
 * The open merge requests from `sourceBranch`: of every project plumb's user can read
 * (`GET /merge_requests?scope=all`, meant for an administrator, whose reach is the instance), or of
 * one project. Every page; items the service answers without what plumb reads are left out.
 */
export async function listOpenMergeRequests(client: ApiClient, sourceBranch: string, project?: PathParam): Promise<MergeRequest[]> {
  const query = { state: 'opened', source_branch: sourceBranch, ...(project === undefined && { scope: 'all' }) };
  const path = project === undefined ? apiPath`/merge_requests` : apiPath`/projects/${project}/merge_requests`;
  const { items } = await client.listAll<unknown>({ path, query }, { concurrent: true });
  return items.map(mergeRequestOf).filter((m): m is MergeRequest => m !== undefined && m.state === 'opened' && m.source_branch === sourceBranch);
}

export interface NewMergeRequest {
  readonly source_branch: string;
  readonly target_branch: string;
  readonly title: string;
  readonly description: string;
  readonly labels?: string;
  readonly remove_source_branch?: boolean;
  readonly squash?: boolean;
}

export async function createMergeRequest(client: ApiClient, project: PathParam, props: NewMergeRequest): Promise<MergeRequest> {
  const path = apiPath`/projects/${project}/merge_requests`;
  const res = await client.request<unknown>({ method: 'POST', path, body: props });
  return one('POST', path, res.status, res.body);
}

export interface MergeRequestUpdate {
  readonly title?: string;
  readonly description?: string;
  /** Comma-separated: replaces the labels. */
  readonly labels?: string;
  readonly add_labels?: string;
  readonly remove_source_branch?: boolean;
  readonly squash?: boolean;
  readonly state_event?: 'close' | 'reopen';
}

export async function updateMergeRequest(client: ApiClient, project: PathParam, iid: number, props: MergeRequestUpdate): Promise<MergeRequest> {
  const path = apiPath`/projects/${project}/merge_requests/${iid}`;
  const res = await client.request<unknown>({ method: 'PUT', path, body: props });
  return one('PUT', path, res.status, res.body);
}

/**
 * Asks the service to merge when the pipeline succeeds (`PUT …/merge` with `auto_merge` and, for
 * older versions, `merge_when_pipeline_succeeds`), guarded by the source branch's head plumb wrote
 * (`sha`: a push since makes the service answer 409 and merge nothing).
 */
export async function mergeWhenPipelineSucceeds(client: ApiClient, project: PathParam, iid: number, sha: string | undefined): Promise<MergeRequest> {
  const path = apiPath`/projects/${project}/merge_requests/${iid}/merge`;
  const res = await client.request<unknown>({ method: 'PUT', path, body: { auto_merge: true, merge_when_pipeline_succeeds: true, ...(sha !== undefined && { sha }) } });
  return one('PUT', path, res.status, res.body);
}

export async function getBranchHead(client: ApiClient, project: PathParam, branch: string): Promise<BranchHead> {
  const path = apiPath`/projects/${project}/repository/branches/${branch}`;
  const res = await client.request<unknown>({ method: 'GET', path });
  const b = res.body;
  const c = isRecord(b) && isRecord(b['commit']) ? b['commit'] : undefined;
  if (!isRecord(b) || !c || typeof c['id'] !== 'string') throw ApiInvalidResponseError.lacking('GET', path, res.status, "the branch's head commit");
  const opt = (k: string) => (str(c[k]) !== undefined ? { [k]: str(c[k]) } : {});
  return {
    name: str(b['name']) ?? branch,
    commit: {
      id: c['id'],
      message: str(c['message']) ?? str(c['title']) ?? '',
      ...opt('author_name'),
      ...opt('author_email'),
      ...opt('committer_name'),
      ...opt('committer_email'),
      parent_ids: Array.isArray(c['parent_ids']) ? c['parent_ids'].filter((x): x is string => typeof x === 'string') : [],
    },
  };
}

export async function deleteBranch(client: ApiClient, project: PathParam, branch: string): Promise<void> {
  await client.request({ method: 'DELETE', path: apiPath`/projects/${project}/repository/branches/${branch}` });
}
