/**
 * What the service's CI adds to the emulator, kept apart from the core routes: CI job tokens
 * (`CI_JOB_TOKEN`, which act as the user who runs the job, inside the job's project), merge
 * requests to comment on, and the routes of the Terraform-state API (terraform-state.ts) and of
 * merge-request notes (notes.ts). server.ts hands a request here first (`ciRoute`).
 * docs/emulator.md#ci-the-terraform-state-api-and-merge-request-notes.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { authenticate, credential, type Caller } from './auth.js';
import { ApiError, parseQueryString, readBody, unauthorized, type ApiResponse, type Params } from './http.js';
import type { EmulatorState, ProjectRecord, TokenRecord } from './state.js';

export interface JobToken {
  readonly userId: number;
  readonly projectId: number;
}

/** A merge request: seeded (`addMergeRequest`, to comment on) or opened through the API (merge-requests.ts). */
export interface MergeRequestRecord {
  readonly projectId: number;
  readonly iid: number;
  readonly id: number;
  title: string;
  description: string;
  sourceBranch: string;
  targetBranch: string;
  state: 'opened' | 'closed' | 'merged';
  labels: string[];
  /** Null for a seeded merge request (no author was named). */
  authorId: number | null;
  readonly createdAt: Date;
  updatedAt: Date;
  mergedAt: Date | null;
  mergedById: number | null;
  closedAt: Date | null;
  closedById: number | null;
  /** Auto-merge asked for (`merge_when_pipeline_succeeds`), by `mergeUserId`. */
  mergeWhenPipelineSucceeds: boolean;
  mergeUserId: number | null;
  removeSourceBranch: boolean;
  squash: boolean;
  mergeCommitSha: string | null;
}

interface CiState {
  readonly jobTokens: Map<string, JobToken>;
  readonly mergeRequests: MergeRequestRecord[];
}

const CI = new WeakMap<EmulatorState, CiState>();

export function ciState(state: EmulatorState): CiState {
  let s = CI.get(state);
  if (!s) CI.set(state, (s = { jobTokens: new Map(), mergeRequests: [] }));
  return s;
}

/** A running job's token: it authenticates as `username`, for `project` only. */
export function addJobToken(state: EmulatorState, token: string, username: string, project: string): void {
  const user = state.userByUsername(username);
  const p = state.projectByRef(project);
  if (!user || !p) throw new Error(`addJobToken: no user ${username} or project ${project}`);
  ciState(state).jobTokens.set(token, { userId: user.id, projectId: p.id });
}

/** An open merge request of `project` (notes can be posted on it). */
export function addMergeRequest(state: EmulatorState, project: string, iid: number, title = `Merge request !${iid}`): void {
  const p = state.projectByRef(project);
  if (!p) throw new Error(`addMergeRequest: no project ${project}`);
  ciState(state).mergeRequests.push(newMergeRequest(state, p, { iid, title, sourceBranch: `merge-request-${iid}`, targetBranch: p.defaultBranch }));
}

/** An open merge request record with the real defaults for every field `fields` leaves out. */
export function newMergeRequest(
  state: EmulatorState,
  project: ProjectRecord,
  fields: Pick<MergeRequestRecord, 'iid' | 'title' | 'sourceBranch' | 'targetBranch'> & Partial<MergeRequestRecord>,
): MergeRequestRecord {
  const now = state.now();
  return {
    projectId: project.id,
    id: state.nextId('merge_request'),
    description: '',
    state: 'opened',
    labels: [],
    authorId: null,
    createdAt: now,
    updatedAt: now,
    mergedAt: null,
    mergedById: null,
    closedAt: null,
    closedById: null,
    mergeWhenPipelineSucceeds: false,
    mergeUserId: null,
    removeSourceBranch: false,
    squash: false,
    mergeCommitSha: null,
    ...fields,
  };
}

/** Who calls a CI route; `jobProjectId` when it is a job token (valid for that project only). */
export interface CiCaller {
  readonly caller: Caller;
  readonly jobProjectId?: number;
}

/**
 * `PRIVATE-TOKEN` (or Bearer, or `private_token`) as everywhere; HTTP basic auth with a personal
 * access token as the password (the Terraform http backend's `username`/`password`); and the job
 * token only through basic auth as `gitlab-ci-token`, as the real API allows it on these routes
 * (`job_token_allowed: :basic_auth`). A `JOB-TOKEN` header is not accepted here.
 */
export function ciCaller(state: EmulatorState, req: IncomingMessage, query: Params, path: string): CiCaller | null {
  const auth = req.headers['authorization'];
  const basic = typeof auth === 'string' ? /^Basic\s+(\S+)$/i.exec(auth.trim()) : null;
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const user = colon < 0 ? decoded : decoded.slice(0, colon);
    const password = colon < 0 ? '' : decoded.slice(colon + 1);
    if (user === 'gitlab-ci-token') {
      const job = ciState(state).jobTokens.get(password);
      const u = job && state.userById(job.userId);
      if (!job || !u) throw unauthorized();
      const token = { id: 0, userId: u.id, name: 'ci-job-token', scopes: ['api'], kind: 'personal' } as unknown as TokenRecord;
      return { caller: { user: u, token, admin: u.admin }, jobProjectId: job.projectId };
    }
    const caller = authenticate(state, password, path);
    if (!caller || caller.user.username !== user) throw unauthorized();
    return { caller };
  }
  const caller = authenticate(state, credential(req.headers, query), path);
  return caller ? { caller } : null;
}

/** The caller's role in the project: a job token is confined to its own project. */
export function ciAccess(state: EmulatorState, c: CiCaller, project: ProjectRecord): number {
  if (c.jobProjectId !== undefined && c.jobProjectId !== project.id) return 0;
  if (c.caller.admin) return 60;
  return state.projectAccess(c.caller.user.id, project);
}

export interface CiRequest {
  readonly state: EmulatorState;
  readonly method: string;
  readonly path: string;
  readonly query: Params;
  /** The raw query string (pagination links keep it). */
  readonly rawQuery: string;
  readonly body: Buffer;
  readonly contentType: string | undefined;
  readonly ci: CiCaller | null;
  /** Absolute URL of the endpoint without query (Link headers). */
  readonly endpointUrl: string;
}

type CiHandler = (req: CiRequest) => ApiResponse | undefined;
const HANDLERS: CiHandler[] = [];

/** terraform-state.ts and notes.ts register themselves. */
export function registerCiRoutes(handler: CiHandler): void {
  HANDLERS.push(handler);
}

const CI_PATH = /^\/projects\/[^/]+\/(terraform\/state\/|merge_requests\/[^/]+\/notes)/;

/**
 * The response of a CI route, or undefined when `path` is not one (the core router handles it).
 * Never throws: an ApiError becomes its response.
 */
export async function ciRoute(state: EmulatorState, req: IncomingMessage, path: string, query: string, endpointUrl: string): Promise<ApiResponse | undefined> {
  if (!CI_PATH.test(path)) return undefined;
  const method = (req.method ?? 'GET').toUpperCase();
  try {
    const body = await readBody(req, 64 * 1024 * 1024);
    const q = parseQueryString(query);
    const ci = ciCaller(state, req, q, path);
    delete q['private_token'];
    const r: CiRequest = { state, method, path, query: q, rawQuery: query, body, contentType: req.headers['content-type'], ci, endpointUrl };
    for (const h of HANDLERS) {
      const res = h(r);
      if (res) return res;
    }
    return { status: 404, headers: {}, body: { error: '404 Not Found' } };
  } catch (e) {
    if (e instanceof ApiError) return { status: e.status, headers: { ...e.headers }, body: e.body };
    return { status: 500, headers: {}, body: { message: '500 Internal Server Error' } };
  }
}

export const sha256 = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');
