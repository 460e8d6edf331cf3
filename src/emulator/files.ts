/**
 * Repository files: GET (Base64 content and metadata), HEAD (metadata headers only), blame, raw,
 * and the single-file writes POST/PUT/DELETE, each a commit on a branch.
 */
import { FILE_METADATA_HEADERS, FILE_WRITE_FIELDS, LIMITS } from '../catalogue/index.js';
import { canReadCode, findProject, requireCaller, type Caller } from './auth.js';
import { makeBlob, parseLfsPointer, sameEntry, sha256Hex, type BlobEntry, type Commit } from './git.js';
import {
  ApiError,
  apiError,
  forbidden,
  json,
  notFound,
  paramErrors,
  type ApiResponse,
  type Params,
} from './http.js';
import { pushError } from './branches.js';
import { checkRawBlobLimit } from './limits.js';
import { str } from './params.js';
import type { EmulatorState, ProjectRecord } from './state.js';
import { isoDateTime } from './time.js';

export interface FileCtx {
  readonly state: EmulatorState;
  readonly caller: Caller | null;
  readonly params: Params;
}

// --- path and ref -------------------------------------------------------------------------------

const TRAVERSAL = 'file_path should be a valid file path';

/** Ruby's `CGI.unescape`: `+` is a space, `%XX` sequences are decoded (an invalid one is kept). */
function cgiUnescape(text: string): string {
  return text.replace(/\+/g, ' ').replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

/** `Gitlab::PathTraversal`'s pattern: `.` or `..` alone, a `..` component with `/` or `\`, a line feed. */
const TRAVERSAL_PATTERN = /(^\.{1,2}$|^\.\.[/\\]|[/\\]\.\.$|[/\\]\.\.[/\\]|\n)/;

/**
 * The real API's `file_path` validator (lib/api/validations/validators/file_path.rb with
 * `Gitlab::PathTraversal`), on the path as routing decoded it: decoded once more, a path that a
 * further decoding would still change (double-encoded, `%252e%252e%252f`) is refused; the decoded
 * path is refused when it is `.` or `..`, has a `..` component (`/` or `\` separated), a line feed,
 * or is absolute. Raw (`allowInitialSeparator`) lets through a path whose leading `/` was itself
 * encoded (`%2Fdir%2Ffile`: its first directory joins the allowlist), never a plain leading `/`.
 * The path is used as given afterwards (the real blob lookup does not decode it again).
 */
export function checkFilePath(path: string, allowInitialSeparator = false): string {
  const fail = (): never => {
    throw paramErrors([TRAVERSAL]);
  };
  if (path === '' || path.includes('\0')) fail();
  const decoded = cgiUnescape(path);
  if (cgiUnescape(decoded) !== decoded) fail();
  if (TRAVERSAL_PATTERN.test(decoded)) fail();
  if (decoded.startsWith('/')) {
    const encodedSlash = allowInitialSeparator && decoded !== path && !path.startsWith('/');
    const first = decoded.split('/')[1] ?? '';
    // The allowlisted first directory `/<first>` admits the path only if the path has one.
    if (!encodedSlash || first === '') fail();
  }
  return path;
}

function resolveRef(project: ProjectRecord, ref: string): Commit {
  const commit = project.repo.resolve(ref === 'HEAD' ? project.defaultBranch : ref);
  if (!commit) throw notFound('Commit');
  return commit;
}

function requiredRef(params: Params): string {
  const ref = params['ref'];
  if (ref === undefined || ref === null) throw paramErrors(['ref is missing']);
  const s = str(ref);
  if (s === undefined) throw paramErrors(['ref is invalid']);
  if (s.trim() === '') throw paramErrors(['ref is empty']);
  return s;
}

interface FileLookup {
  project: ProjectRecord;
  commit: Commit;
  blob: BlobEntry;
  path: string;
  ref: string;
}

function readable(ctx: FileCtx, projectRef: string): ProjectRecord {
  const project = findProject(ctx.state, ctx.caller, projectRef);
  if (!canReadCode(ctx.state, ctx.caller, project)) throw forbidden();
  return project;
}

function lookup(ctx: FileCtx, projectRef: string, rawPath: string, ref: string | undefined, allowInitial = false): FileLookup {
  const path = checkFilePath(rawPath, allowInitial);
  const project = readable(ctx, projectRef);
  const effectiveRef = ref ?? project.defaultBranch;
  const commit = resolveRef(project, effectiveRef);
  const blob = commit.files.get(path);
  if (!blob) throw notFound('File');
  return { project, commit, blob, path, ref: effectiveRef };
}

const sha256Cache = new WeakMap<Buffer, string>();

/** SHA-256 of a blob's content, cached per blob (the real service caches it too). */
function contentSha256(data: Buffer): string {
  let digest = sha256Cache.get(data);
  if (digest === undefined) {
    digest = sha256Hex(data);
    sha256Cache.set(data, digest);
  }
  return digest;
}

function blobData(f: FileLookup): Record<string, unknown> {
  return {
    file_name: f.path.split('/').pop()!,
    file_path: f.path,
    size: f.blob.data.length,
    encoding: 'base64',
    content_sha256: contentSha256(f.blob.data),
    ref: f.ref,
    blob_id: f.blob.sha,
    commit_id: f.commit.id,
    last_commit_id: f.project.repo.lastCommitFor(f.commit, f.path).id,
    execute_filemode: f.blob.mode === '100755',
  };
}

function metadataHeaders(data: Record<string, unknown>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [header, field] of Object.entries(FILE_METADATA_HEADERS)) headers[header.toLowerCase()] = String(data[field]);
  return headers;
}

// --- reads --------------------------------------------------------------------------------------

function checkLargeBlobRate(ctx: FileCtx, f: FileLookup): void {
  const { aboveBytes, requestsPerMinute } = LIMITS.largeBlobRateLimit;
  if (f.blob.data.length <= aboveBytes) return;
  // Per user, whatever the project (the real limiter's scope is the user); anonymous callers share one.
  const key = `large_blob:${ctx.caller?.user.id ?? 'anonymous'}`;
  const now = ctx.state.now().getTime();
  let window = ctx.state.rateLimits.get(key);
  if (!window || now - window.start >= 60_000) {
    window = { start: now, count: 0 };
    ctx.state.rateLimits.set(key, window);
  }
  window.count++;
  if (window.count > requestsPerMinute) {
    const retryAfter = Math.max(1, Math.ceil((window.start + 60_000 - now) / 1000));
    throw new ApiError(
      429,
      { message: { error: 'This endpoint has been requested too many times. Try again later.' } },
      { 'retry-after': String(retryAfter) },
    );
  }
}

export function getFile(ctx: FileCtx, projectRef: string, path: string): ApiResponse {
  const f = lookup(ctx, projectRef, path, requiredRef(ctx.params));
  checkLargeBlobRate(ctx, f);
  const data = blobData(f);
  return json(200, { ...data, content: f.blob.data.toString('base64') }, metadataHeaders(data));
}

export function headFile(ctx: FileCtx, projectRef: string, path: string): ApiResponse {
  const f = lookup(ctx, projectRef, path, requiredRef(ctx.params));
  return { status: 200, headers: metadataHeaders(blobData(f)) };
}

function positiveInt(v: unknown, name: string): number {
  if (v === undefined || v === null) throw paramErrors([`${name} is missing`]);
  const s = str(v);
  if (s === undefined || !/^\s*-?\d+\s*$/.test(s)) throw paramErrors([`${name} is invalid`]);
  const n = Number(s);
  if (n <= 0) throw paramErrors([`${name} does not have a valid value`]);
  return n;
}

export function blame(ctx: FileCtx, projectRef: string, path: string, head: boolean): ApiResponse {
  const ref = requiredRef(ctx.params);
  let range: { start: number; end: number } | undefined;
  const rawRange = ctx.params['range'];
  if (!head && rawRange !== undefined && rawRange !== null && rawRange !== '') {
    if (typeof rawRange !== 'object' || Array.isArray(rawRange)) throw paramErrors(['range is invalid']);
    const r = rawRange as Params;
    const errors: string[] = [];
    let start = 0;
    let end = 0;
    try {
      start = positiveInt(r['start'], 'range[start]');
    } catch (e) {
      errors.push(String(((e as ApiError).body as { error: string }).error));
    }
    try {
      end = positiveInt(r['end'], 'range[end]');
    } catch (e) {
      errors.push(String(((e as ApiError).body as { error: string }).error));
    }
    if (errors.length > 0) throw paramErrors(errors);
    range = { start, end };
  }
  const f = lookup(ctx, projectRef, path, ref);
  const headers = metadataHeaders(blobData(f));
  if (head) return { status: 200, headers };
  if (range && range.start > range.end) throw apiError(400, 'range[start] must be less than or equal to range[end]');
  const ranges = f.project.repo.blame(f.commit, f.path, range);
  return json(
    200,
    ranges.map((r) => ({
      commit: {
        id: r.commit.id,
        message: r.commit.message,
        parent_ids: [...r.commit.parentIds],
        authored_date: isoDateTime(r.commit.authoredDate),
        author_name: r.commit.author.name,
        author_email: r.commit.author.email,
        committed_date: isoDateTime(r.commit.committedDate),
        committer_name: r.commit.committer.name,
        committer_email: r.commit.committer.email,
      },
      lines: r.lines,
    })),
    headers,
  );
}

function looksLikeText(data: Buffer): boolean {
  if (data.includes(0)) return false;
  return Buffer.from(data.toString('utf8'), 'utf8').equals(data);
}

/** HEAD on the raw path: the metadata headers only, as for the file path. */
export function headRaw(ctx: FileCtx, projectRef: string, path: string): ApiResponse {
  const f = lookup(ctx, projectRef, path, optionalRef(ctx.params), true);
  return { status: 200, headers: metadataHeaders(blobData(f)) };
}

function optionalRef(params: Params): string | undefined {
  const refParam = params['ref'];
  if (refParam === undefined || refParam === null) return undefined;
  const ref = str(refParam);
  if (ref === undefined) throw paramErrors(['ref is invalid']);
  if (ref.trim() === '') throw paramErrors(['ref is empty']);
  return ref;
}

/**
 * `Content-Disposition` as Rails formats it: an ASCII `filename` (other characters as `%XX` of
 * `?`) and the exact name as RFC 5987 `filename*`, so any file name fits in a header.
 */
export function contentDisposition(disposition: 'inline' | 'attachment', fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/gu, '?').replace(/[^ A-Za-z0-9!#$+.^_`|~-]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const exact = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${disposition}; filename="${ascii}"; filename*=UTF-8''${exact}`;
}

export function raw(ctx: FileCtx, projectRef: string, path: string): ApiResponse {
  const ref = optionalRef(ctx.params);
  let lfs = false;
  const rawLfs = ctx.params['lfs'];
  if (rawLfs !== undefined && rawLfs !== null && rawLfs !== '') {
    const s = String(rawLfs).toLowerCase();
    if (['true', 't', '1', 'yes', 'y', 'on'].includes(s)) lfs = true;
    else if (!['false', 'f', '0', 'no', 'n', 'off'].includes(s)) throw paramErrors(['lfs is invalid']);
  }
  const f = lookup(ctx, projectRef, path, ref, true);
  checkRawBlobLimit(ctx.state, f.project.id, f.path);
  const fileName = f.path.split('/').pop()!;
  if (lfs) {
    const oid = parseLfsPointer(f.blob.data);
    if (oid !== undefined) {
      const object = f.project.lfsObjects.get(oid);
      if (!object) throw notFound();
      return {
        status: 200,
        headers: {
          'content-type': 'application/octet-stream',
          'content-disposition': contentDisposition('attachment', fileName),
        },
        raw: object,
      };
    }
  }
  return {
    status: 200,
    headers: {
      ...metadataHeaders(blobData(f)),
      'content-type': looksLikeText(f.blob.data) ? 'text/plain; charset=utf-8' : 'application/octet-stream',
      'content-disposition': contentDisposition('inline', fileName),
      'cache-control': 'no-cache, no-store',
      pragma: 'no-cache',
      expires: 'Fri, 01 Jan 1990 00:00:00 GMT',
    },
    raw: f.blob.data,
  };
}

// --- writes -------------------------------------------------------------------------------------

type WriteMethod = 'POST' | 'PUT' | 'DELETE';

interface WriteParams {
  branch: string;
  commitMessage: string;
  /** Decoded only after the project and role checks, as the backend sees it last. */
  content?: { text: string; base64: boolean };
  authorName?: string;
  authorEmail?: string;
  startBranch?: string;
  lastCommitId?: string;
  executeFilemode?: boolean;
}

const BOOL_TRUE = ['true', 't', '1', 'yes', 'y', 'on'];
const BOOL_FALSE = ['false', 'f', '0', 'no', 'n', 'off'];

/** API-layer validation of the write body, driven by the catalogue's per-method presence. */
function writeParams(params: Params, method: WriteMethod): WriteParams {
  const errors: string[] = [];
  const values: Record<string, unknown> = {};
  for (const field of FILE_WRITE_FIELDS) {
    const presence = field.methods[method];
    if (presence === 'absent') continue;
    const raw = params[field.name];
    if (raw === undefined) {
      if (presence === 'required') errors.push(`${field.name} is missing`);
      continue;
    }
    if (field.type === 'boolean') {
      if (raw === null || raw === '') continue;
      const s = String(raw).toLowerCase();
      if (typeof raw === 'boolean') values[field.name] = raw;
      else if (BOOL_TRUE.includes(s)) values[field.name] = true;
      else if (BOOL_FALSE.includes(s)) values[field.name] = false;
      else errors.push(`${field.name} is invalid`);
      continue;
    }
    if (raw === null) {
      if (presence === 'required') errors.push(`${field.name} is empty`);
      continue;
    }
    const s = str(raw);
    if (s === undefined) {
      errors.push(`${field.name} is invalid`);
      continue;
    }
    // branch and commit_message may not be blank.
    if (presence === 'required' && field.name !== 'content' && s.trim() === '') {
      errors.push(`${field.name} is empty`);
      continue;
    }
    if (field.enum && !field.enum.includes(s)) {
      errors.push(`${field.name} does not have a valid value`);
      continue;
    }
    values[field.name] = s;
  }
  if (errors.length > 0) throw paramErrors(errors);
  const encoding = (values['encoding'] as string | undefined) ?? 'text';
  const content = values['content'] as string | undefined;
  const out: WriteParams = {
    branch: values['branch'] as string,
    commitMessage: values['commit_message'] as string,
  };
  if (content !== undefined) out.content = { text: content, base64: encoding === 'base64' };
  if (values['author_name'] !== undefined) out.authorName = values['author_name'] as string;
  if (values['author_email'] !== undefined) out.authorEmail = values['author_email'] as string;
  if (values['start_branch'] !== undefined && values['start_branch'] !== '') out.startBranch = values['start_branch'] as string;
  if (values['last_commit_id'] !== undefined && values['last_commit_id'] !== '') out.lastCommitId = values['last_commit_id'] as string;
  if (values['execute_filemode'] !== undefined) out.executeFilemode = values['execute_filemode'] as boolean;
  return out;
}

/**
 * Strict Base64 (the standard alphabet, padded), as the real service's Git backend decodes
 * `encoding: base64` content; line breaks are ignored. Node's own decoder skips anything it does
 * not understand, so invalid content would silently become other bytes: refused instead with the
 * Go decoder's message (a commit error, 400 `{"message": ...}`).
 */
export function decodeBase64(text: string): Buffer {
  const fail = (at: number): never => {
    throw apiError(400, `illegal base64 data at input byte ${at}`);
  };
  const clean = text.replace(/[\r\n]/g, '');
  const bad = clean.search(/[^A-Za-z0-9+/=]/);
  if (bad >= 0) fail(bad);
  const pad = clean.indexOf('=');
  if (pad >= 0 && (!/^={1,2}$/.test(clean.slice(pad)) || clean.length % 4 !== 0)) fail(pad);
  if (clean.length % 4 !== 0) fail(clean.length - (clean.length % 4));
  return Buffer.from(clean, 'base64');
}

function writable(ctx: FileCtx, projectRef: string): { caller: Caller; project: ProjectRecord } {
  const caller = requireCaller(ctx.caller);
  const project = findProject(ctx.state, caller, projectRef);
  // The real `authorize! :push_code`: an archived project refuses every push, an administrator's too.
  if (project.archived) throw forbidden();
  if (!caller.admin && ctx.state.projectAccess(caller.user.id, project) < 30) throw forbidden();
  return { caller, project };
}

const FILE_CHANGED = 'You are attempting to update a file that has changed since you started editing it.';

function commitChange(
  ctx: FileCtx,
  method: WriteMethod,
  projectRef: string,
  rawPath: string,
): ApiResponse {
  const { state } = ctx;
  // As the real API: authentication, then parameter validation, then project and role checks.
  requireCaller(ctx.caller);
  const path = checkFilePath(rawPath);
  const p = writeParams(ctx.params, method);
  const { caller, project } = writable(ctx, projectRef);
  const repo = project.repo;
  const fail = (message: string): never => {
    throw apiError(400, message);
  };

  // Commits::CreateService validations.
  const denied = pushError(state, caller, project, p.branch);
  if (denied) fail(denied);
  const emptyRepo = repo.branches.size === 0;
  const startBranch = p.startBranch ?? p.branch;
  if (!emptyRepo && !repo.branches.has(startBranch)) fail('You can only create or edit files when you are on a branch');
  if (!emptyRepo && startBranch !== p.branch && repo.branches.has(p.branch)) {
    fail(`A branch called '${p.branch}' already exists. Switch to that branch in order to make changes`);
  }
  const parent = emptyRepo ? undefined : repo.branchHead(startBranch);
  const content = p.content === undefined ? undefined : p.content.base64 ? decodeBase64(p.content.text) : Buffer.from(p.content.text, 'utf8');
  const current = parent?.files.get(path);

  let change: BlobEntry | null;
  if (method === 'POST') {
    if (current) fail('A file with this name already exists');
    // Git's index refuses a file where a directory is, and a file under a file (the Git backend's
    // index errors, as the real service words them).
    if (parent && [...parent.files.keys()].some((f) => f.startsWith(`${path}/`))) fail('A directory with this name already exists');
    if (parent && ancestors(path).some((dir) => parent.files.has(dir))) fail('A file with this name already exists');
    change = makeBlob(content!, p.executeFilemode ?? false);
  } else {
    if (!current) fail("A file with this name doesn't exist");
    if (p.lastCommitId !== undefined && repo.lastCommitFor(parent!, path).id !== p.lastCommitId) fail(FILE_CHANGED);
    if (method === 'PUT') {
      const executable = p.executeFilemode ?? current!.mode === '100755';
      change = makeBlob(content!, executable);
      if (sameEntry(change, current)) fail('The commit would be empty: the new content is identical to the current content');
    } else {
      change = null;
    }
  }
  const author = {
    name: p.authorName ?? caller.user.name,
    email: p.authorEmail ?? caller.user.email,
  };
  if (emptyRepo) adoptFirstBranch(project, p.branch);
  repo.commit({
    branch: p.branch,
    ...(parent ? { parent } : {}),
    changes: new Map([[path, change]]),
    author,
    committer: { name: caller.user.name, email: caller.user.email },
    message: p.commitMessage,
    date: state.now(),
  });
  // DELETE answers 200 as the spec says, with no body (the body is not shown).
  if (method === 'DELETE') return { status: 200, headers: {} };
  return json(method === 'POST' ? 201 : 200, { file_path: path, branch: p.branch });
}

/**
 * The first commit of an empty repository makes its branch the default branch (and the default
 * branch's protection moves with it), as the real service does on a first push.
 */
export function adoptFirstBranch(project: ProjectRecord, branch: string): void {
  if (project.defaultBranch === branch) return;
  for (const rule of project.protectedBranches) if (rule.name === project.defaultBranch) rule.name = branch;
  project.defaultBranch = branch;
}

/** `a/b/c.txt` -> ['a', 'a/b']. */
export function ancestors(path: string): string[] {
  const parts = path.split('/');
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('/'));
}

export function createFile(ctx: FileCtx, projectRef: string, path: string): ApiResponse {
  return commitChange(ctx, 'POST', projectRef, path);
}

/** The spec's "non-specific message" of a failed update commit, whatever the cause. */
export const UPDATE_FAILED = 'The file could not be updated';

export function updateFile(ctx: FileCtx, projectRef: string, path: string): ApiResponse {
  try {
    return commitChange(ctx, 'PUT', projectRef, path);
  } catch (e) {
    // Parameter errors stay specific; every failed commit (a /../ path, an empty commit, a branch
    // that moved, a missing file or branch, a protected branch) answers one message.
    if (e instanceof ApiError && e.status === 400 && isCommitFailure(e)) throw apiError(400, UPDATE_FAILED);
    throw e;
  }
}

function isCommitFailure(e: ApiError): boolean {
  const body = e.body as { message?: unknown; error?: unknown };
  return typeof body.message === 'string' || body.error === TRAVERSAL;
}

export function deleteFile(ctx: FileCtx, projectRef: string, path: string): ApiResponse {
  return commitChange(ctx, 'DELETE', projectRef, path);
}
