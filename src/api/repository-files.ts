/**
 * Repository files: `/projects/:id/repository/files/:file_path` (each write is one commit).
 *
 * `filePath` is the path in the repository as written (`config/app settings.yml`); `apiPath`
 * encodes slashes and dots as the spec requires. Create, update and delete are not repeated by the
 * client: a repeated create fails as "already exists", a repeated update as an empty commit, and
 * either would hide what really happened.
 */
import type { ApiClient } from './client.js';
import { ApiInvalidResponseError } from './errors.js';
import { apiPath } from './path.js';
import type { ApiPath, PathParam } from './path.js';

export interface RepositoryFile {
  readonly file_name: string;
  readonly file_path: string;
  readonly size: number;
  readonly encoding: string;
  /** Base64 when `encoding` is `base64`. */
  readonly content: string;
  readonly content_sha256: string;
  readonly ref: string;
  readonly blob_id: string;
  readonly commit_id: string;
  readonly last_commit_id: string;
  readonly execute_filemode?: boolean;
}

/** The file fields without content, from the `X-Service-*` headers of a HEAD request. */
export interface RepositoryFileMetadata {
  readonly blob_id: string | undefined;
  readonly commit_id: string | undefined;
  readonly content_sha256: string | undefined;
  readonly encoding: string | undefined;
  readonly file_name: string | undefined;
  readonly file_path: string | undefined;
  readonly last_commit_id: string | undefined;
  readonly ref: string | undefined;
  readonly size: number | undefined;
  readonly execute_filemode: boolean | undefined;
}

export interface BlameCommit {
  readonly id: string;
  readonly message: string;
  readonly parent_ids: readonly string[];
  readonly authored_date: string;
  readonly author_name: string;
  readonly author_email: string;
  readonly committed_date: string;
  readonly committer_name: string;
  readonly committer_email: string;
}

export interface BlameRange {
  readonly commit: BlameCommit;
  readonly lines: readonly string[];
}

export interface BlameOptions {
  /** First line (1-based). */
  readonly start?: number;
  /** Last line. */
  readonly end?: number;
}

export interface RawFileOptions {
  /** @default the project's HEAD (server side) */
  readonly ref?: string;
  /** Return the large-file-storage content instead of the pointer. @default false */
  readonly lfs?: boolean;
}

interface CommitAuthor {
  readonly author_email?: string;
  readonly author_name?: string;
  /** Base branch to create `branch` from. */
  readonly start_branch?: string;
}

export interface CreateFileProps extends CommitAuthor {
  readonly branch: string;
  readonly commit_message: string;
  readonly content: string;
  /** @default 'text' */
  readonly encoding?: 'text' | 'base64';
  readonly execute_filemode?: boolean;
}

export interface UpdateFileProps extends CreateFileProps {
  /** Last known commit of the file: the update fails if the file changed since. */
  readonly last_commit_id?: string;
}

export interface DeleteFileProps extends CommitAuthor {
  readonly branch: string;
  readonly commit_message: string;
  readonly last_commit_id?: string;
}

export interface FileWriteResult {
  readonly file_path: string;
  readonly branch: string;
}

const filePath = (projectId: PathParam, path: string): ApiPath => apiPath`/projects/${projectId}/repository/files/${path}`;

export async function getFile(client: ApiClient, projectId: PathParam, path: string, ref: string): Promise<RepositoryFile> {
  const res = await client.request<RepositoryFile>({ method: 'GET', path: filePath(projectId, path), query: { ref } });
  return res.body;
}

/** HEAD: the metadata without downloading the content. A header the server did not send is undefined. */
export async function getFileMetadata(
  client: ApiClient,
  projectId: PathParam,
  path: string,
  ref: string,
): Promise<RepositoryFileMetadata> {
  const res = await client.request({ method: 'HEAD', path: filePath(projectId, path), query: { ref } });
  const h = (name: string): string | undefined => res.headers[`x-service-${name}`];
  const size = h('size');
  const exec = h('execute-filemode');
  return {
    blob_id: h('blob-id'),
    commit_id: h('commit-id'),
    content_sha256: h('content-sha256'),
    encoding: h('encoding'),
    file_name: h('file-name'),
    file_path: h('file-path'),
    last_commit_id: h('last-commit-id'),
    ref: h('ref'),
    size: size !== undefined && /^\d+$/.test(size.trim()) ? Number(size) : undefined,
    execute_filemode: exec === undefined ? undefined : exec.trim().toLowerCase() === 'true',
  };
}

/** Blame ranges of the file, optionally only lines `start`..`end`. */
export async function getFileBlame(
  client: ApiClient,
  projectId: PathParam,
  path: string,
  ref: string,
  range: BlameOptions = {},
): Promise<BlameRange[]> {
  // The service does not paginate blame today; walking pages costs nothing if it ever does.
  const { items } = await client.listAll<BlameRange>({
    path: apiPath`/projects/${projectId}/repository/files/${path}/blame`,
    query: { ref, range: { start: range.start, end: range.end } },
  });
  return items;
}

/** The file's bytes as stored (or the LFS object with `lfs: true`). */
export async function getRawFile(
  client: ApiClient,
  projectId: PathParam,
  path: string,
  options: RawFileOptions = {},
): Promise<Uint8Array> {
  const res = await client.request({
    method: 'GET',
    path: apiPath`/projects/${projectId}/repository/files/${path}/raw`,
    query: { ref: options.ref, lfs: options.lfs },
    expectJson: false,
  });
  return res.body;
}

export async function createFile(
  client: ApiClient,
  projectId: PathParam,
  path: string,
  props: CreateFileProps,
): Promise<FileWriteResult> {
  const target = filePath(projectId, path);
  const res = await client.request<unknown>({ method: 'POST', path: target, body: props });
  return writeResult('POST', res.status, res.body, target);
}

export async function updateFile(
  client: ApiClient,
  projectId: PathParam,
  path: string,
  props: UpdateFileProps,
): Promise<FileWriteResult> {
  const target = filePath(projectId, path);
  const res = await client.request<unknown>({ method: 'PUT', path: target, body: props });
  return writeResult('PUT', res.status, res.body, target);
}

export async function deleteFile(
  client: ApiClient,
  projectId: PathParam,
  path: string,
  props: DeleteFileProps,
): Promise<void> {
  await client.request({ method: 'DELETE', path: filePath(projectId, path), body: props });
}

function writeResult(method: string, status: number, body: unknown, path: string): FileWriteResult {
  if (typeof body !== 'object' || body === null || typeof (body as { file_path?: unknown }).file_path !== 'string') {
    throw ApiInvalidResponseError.lacking(method, path, status, "the written file's path");
  }
  return body as FileWriteResult;
}
