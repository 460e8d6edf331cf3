/**
 * The HTTP server: routing under /api/v4, authentication, scope checks, HEAD handling, faults,
 * request recording. Handlers return an ApiResponse (or throw an ApiError), so a `drop after` fault
 * can perform the request and then throw the response away.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { authenticate, credential, identify, requireCaller, requireScope, type Caller } from './auth.js';
import { checkMaintenanceMode, checkThrottles } from './limits.js';
import { FaultInjector } from './faults.js';
import {
  createBranch,
  createProtectedBranch,
  deleteBranch,
  deleteProtectedBranch,
  updateProtectedBranch,
  getBranch,
  getProtectedBranch,
  listBranches,
  listProtectedBranches,
} from './branches.js';
import { ciRoute } from './ci-routes.js';
import { createCommit, getCommit, listCommits } from './commits.js';
import { blame, createFile, deleteFile, getFile, headFile, headRaw, raw, updateFile } from './files.js';
import {
  ApiError,
  forbidden,
  parseBody,
  parseQueryString,
  readBody,
  type ApiResponse,
  type Params,
} from './http.js';
import {
  createMergeRequest,
  getMergeRequest,
  listAllMergeRequests,
  listProjectMergeRequests,
  mergeMergeRequest,
  updateMergeRequest,
} from './merge-requests.js';
import { getGroup, getProject } from './namespaces.js';
import { listGroups } from './group-list.js';
import { listDescendantGroups, listGroupProjects, listSubgroups } from './group-discovery.js';
import { deletePages, getPages, listAllDomains, listProjectDomains, patchPages } from './pages.js';
import { loadSeedFile, createEmulatorState } from './seed.js';
import { getSettings, putSettings } from './settings.js';
import { createVariable, deleteVariable, getVariable, listVariables, updateVariable } from './variables.js';
import { getVersion } from './version.js';
import type { EmulatorState } from './state.js';
import { createToken, enforceMaxLifetime, getToken, listTokens, purgeInactiveTokens, revokeToken, rotateToken } from './tokens.js';
import type { EmulatorOptions, FaultRule, RecordedRequest } from './types.js';
import { currentUser, ownToken } from './whoami.js';

export interface RunningEmulator {
  /** Base URL without /api/v4, e.g. http://127.0.0.1:41234 */
  readonly url: string;
  readonly state: EmulatorState;
  readonly requests: readonly RecordedRequest[];
  /** Requests being handled right now (arrived, not yet answered or dropped). */
  readonly inFlight: number;
  /** The most requests in flight at once since the start or the last `resetRequests()`. */
  readonly maxInFlight: number;
  addFault(rule: FaultRule): void;
  clearFaults(): void;
  resetRequests(): void;
  close(): Promise<void>;
}

const API_PREFIX = '/api/v4';
const BODY_LIMIT = 64 * 1024 * 1024;

/** What a route's handler is given about one request (`EmulatorRoute`). */
export interface EmulatorRequest {
  readonly state: EmulatorState;
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly params: Params;
  readonly caller: Caller | null;
  /** Absolute URL of this endpoint without query (for Link headers). */
  readonly endpointUrl: string;
  /** The base URL the request was sent to, without /api/v4 (every `web_url` derives from it). */
  readonly baseUrl: string;
}

type Ctx = EmulatorRequest;

/**
 * One endpoint under /api/v4: the built-in ones below, and the extra route modules a test passes
 * (`EmulatorOptions.routes`: a test-only kind's own endpoints), which go through the same throttles,
 * authentication, maintenance mode, scope checks, faults and request log.
 */
export interface EmulatorRoute {
  readonly method: string;
  /** Matched against the path after /api/v4; its groups are the handler's `args`, URL-decoded. */
  readonly pattern: RegExp;
  /** Scopes accepted besides `api` (and `read_api` on GET/HEAD). */
  readonly extraScopes?: readonly string[];
  /** Scope check done by the handler itself. */
  readonly ownScopes?: boolean;
  readonly handler: (ctx: EmulatorRequest, args: string[]) => ApiResponse;
}

type Route = EmulatorRoute;

const SEG = '([^/]+)';
const FILES = `^/projects/${SEG}/repository/files/${SEG}`;
const READ_REPO = ['read_repository'];

const ROUTES: readonly Route[] = [
  { method: 'GET', pattern: /^\/version$/, extraScopes: ['read_user'], handler: (ctx) => getVersion(ctx.state, ctx.caller) },
  {
    method: 'GET',
    pattern: /^\/application\/settings$/,
    handler: (ctx) => {
      requireAdmin(ctx.caller);
      return getSettings(ctx.state);
    },
  },
  {
    method: 'PUT',
    pattern: /^\/application\/settings$/,
    handler: (ctx) => {
      requireAdmin(ctx.caller);
      const { response, changed } = putSettings(ctx.state, ctx.params);
      // Whenever the maximum lifetime changes to a value (lowered, raised, or set where it was
      // blank), the tokens beyond it are revoked: the real model's `after_commit
      // :update_personal_access_tokens_lifetime, if: :saved_change_to_max_personal_access_token_lifetime?`.
      if (changed.includes('max_personal_access_token_lifetime')) enforceMaxLifetime(ctx.state);
      return response;
    },
  },
  { method: 'GET', pattern: new RegExp(`^/groups/${SEG}/access_tokens$`), handler: (ctx, [g]) => listTokens(callCtx(ctx), g!) },
  { method: 'POST', pattern: new RegExp(`^/groups/${SEG}/access_tokens$`), handler: (ctx, [g]) => createToken(callCtx(ctx), g!) },
  { method: 'GET', pattern: new RegExp(`^/groups/${SEG}/access_tokens/${SEG}$`), handler: (ctx, [g, t]) => getToken(callCtx(ctx), g!, t!) },
  { method: 'DELETE', pattern: new RegExp(`^/groups/${SEG}/access_tokens/${SEG}$`), handler: (ctx, [g, t]) => revokeToken(callCtx(ctx), g!, t!) },
  {
    method: 'POST',
    pattern: new RegExp(`^/groups/${SEG}/access_tokens/${SEG}/rotate$`),
    ownScopes: true,
    handler: (ctx, [g, t]) => rotateToken(callCtx(ctx), g!, t!),
  },
  { method: 'GET', pattern: /^\/user$/, extraScopes: ['read_user'], handler: (ctx) => currentUser(ctx.caller, ctx.baseUrl) },
  { method: 'GET', pattern: /^\/personal_access_tokens\/self$/, ownScopes: true, handler: (ctx) => ownToken(ctx.state, ctx.caller) },
  { method: 'GET', pattern: new RegExp(`${FILES}/blame$`), extraScopes: READ_REPO, handler: (ctx, [p, f]) => blame(ctx, p!, f!, false) },
  { method: 'HEAD', pattern: new RegExp(`${FILES}/blame$`), extraScopes: READ_REPO, handler: (ctx, [p, f]) => blame(ctx, p!, f!, true) },
  { method: 'GET', pattern: new RegExp(`${FILES}/raw$`), extraScopes: READ_REPO, handler: (ctx, [p, f]) => raw(ctx, p!, f!) },
  { method: 'HEAD', pattern: new RegExp(`${FILES}/raw$`), extraScopes: READ_REPO, handler: (ctx, [p, f]) => headRaw(ctx, p!, f!) },
  { method: 'GET', pattern: new RegExp(`${FILES}$`), extraScopes: READ_REPO, handler: (ctx, [p, f]) => getFile(ctx, p!, f!) },
  { method: 'HEAD', pattern: new RegExp(`${FILES}$`), extraScopes: READ_REPO, handler: (ctx, [p, f]) => headFile(ctx, p!, f!) },
  { method: 'POST', pattern: new RegExp(`${FILES}$`), handler: (ctx, [p, f]) => createFile(ctx, p!, f!) },
  { method: 'PUT', pattern: new RegExp(`${FILES}$`), handler: (ctx, [p, f]) => updateFile(ctx, p!, f!) },
  { method: 'DELETE', pattern: new RegExp(`${FILES}$`), handler: (ctx, [p, f]) => deleteFile(ctx, p!, f!) },
  ...(['groups', 'projects'] as const).flatMap((owner): Route[] => {
    const kind = owner === 'groups' ? 'group' : 'project';
    const list = new RegExp(`^/${owner}/${SEG}/variables$`);
    const one = new RegExp(`^/${owner}/${SEG}/variables/${SEG}$`);
    return [
      { method: 'GET', pattern: list, handler: (ctx, [o]) => listVariables(callCtx(ctx), kind, o!) },
      { method: 'POST', pattern: list, handler: (ctx, [o]) => createVariable(callCtx(ctx), kind, o!) },
      { method: 'GET', pattern: one, handler: (ctx, [o, k]) => getVariable(callCtx(ctx), kind, o!, k!) },
      { method: 'PUT', pattern: one, handler: (ctx, [o, k]) => updateVariable(callCtx(ctx), kind, o!, k!) },
      { method: 'DELETE', pattern: one, handler: (ctx, [o, k]) => deleteVariable(callCtx(ctx), kind, o!, k!) },
    ];
  }),
  { method: 'GET', pattern: new RegExp(`^/projects/${SEG}/repository/branches$`), extraScopes: READ_REPO, handler: (ctx, [p]) => listBranches(branchCtx(ctx), p!) },
  { method: 'POST', pattern: new RegExp(`^/projects/${SEG}/repository/branches$`), handler: (ctx, [p]) => createBranch(branchCtx(ctx), p!) },
  { method: 'GET', pattern: new RegExp(`^/projects/${SEG}/repository/branches/${SEG}$`), extraScopes: READ_REPO, handler: (ctx, [p, b]) => getBranch(branchCtx(ctx), p!, b!) },
  { method: 'DELETE', pattern: new RegExp(`^/projects/${SEG}/repository/branches/${SEG}$`), handler: (ctx, [p, b]) => deleteBranch(branchCtx(ctx), p!, b!) },
  { method: 'GET', pattern: new RegExp(`^/projects/${SEG}/repository/commits$`), extraScopes: READ_REPO, handler: (ctx, [p]) => listCommits(branchCtx(ctx), p!) },
  { method: 'POST', pattern: new RegExp(`^/projects/${SEG}/repository/commits$`), handler: (ctx, [p]) => createCommit(branchCtx(ctx), p!) },
  { method: 'GET', pattern: new RegExp(`^/projects/${SEG}/repository/commits/${SEG}$`), extraScopes: READ_REPO, handler: (ctx, [p, c]) => getCommit(branchCtx(ctx), p!, c!) },
  { method: 'GET', pattern: /^\/merge_requests$/, handler: (ctx) => listAllMergeRequests(branchCtx(ctx)) },
  { method: 'GET', pattern: new RegExp(`^/projects/${SEG}/merge_requests$`), handler: (ctx, [p]) => listProjectMergeRequests(branchCtx(ctx), p!) },
  { method: 'POST', pattern: new RegExp(`^/projects/${SEG}/merge_requests$`), handler: (ctx, [p]) => createMergeRequest(branchCtx(ctx), p!) },
  { method: 'GET', pattern: new RegExp(`^/projects/${SEG}/merge_requests/${SEG}$`), handler: (ctx, [p, m]) => getMergeRequest(branchCtx(ctx), p!, m!) },
  { method: 'PUT', pattern: new RegExp(`^/projects/${SEG}/merge_requests/${SEG}$`), handler: (ctx, [p, m]) => updateMergeRequest(branchCtx(ctx), p!, m!) },
  { method: 'PUT', pattern: new RegExp(`^/projects/${SEG}/merge_requests/${SEG}/merge$`), handler: (ctx, [p, m]) => mergeMergeRequest(branchCtx(ctx), p!, m!) },
  { method: 'GET', pattern: new RegExp(`^/projects/${SEG}/protected_branches$`), handler: (ctx, [p]) => listProtectedBranches(branchCtx(ctx), p!) },
  { method: 'POST', pattern: new RegExp(`^/projects/${SEG}/protected_branches$`), handler: (ctx, [p]) => createProtectedBranch(branchCtx(ctx), p!) },
  { method: 'GET', pattern: new RegExp(`^/projects/${SEG}/protected_branches/${SEG}$`), handler: (ctx, [p, b]) => getProtectedBranch(branchCtx(ctx), p!, b!) },
  { method: 'PATCH', pattern: new RegExp(`^/projects/${SEG}/protected_branches/${SEG}$`), handler: (ctx, [p, b]) => updateProtectedBranch(branchCtx(ctx), p!, b!) },
  { method: 'DELETE', pattern: new RegExp(`^/projects/${SEG}/protected_branches/${SEG}$`), handler: (ctx, [p, b]) => deleteProtectedBranch(branchCtx(ctx), p!, b!) },
  { method: 'GET', pattern: /^\/groups$/, handler: (ctx) => listGroups(listCtx(ctx)) },
  { method: 'GET', pattern: new RegExp(`^/groups/${SEG}/projects$`), handler: (ctx, [g]) => listGroupProjects(listCtx(ctx), g!) },
  { method: 'GET', pattern: new RegExp(`^/groups/${SEG}/subgroups$`), handler: (ctx, [g]) => listSubgroups(listCtx(ctx), g!) },
  { method: 'GET', pattern: new RegExp(`^/groups/${SEG}/descendant_groups$`), handler: (ctx, [g]) => listDescendantGroups(listCtx(ctx), g!) },
  { method: 'GET', pattern: new RegExp(`^/groups/${SEG}$`), handler: (ctx, [g]) => getGroup(ctx, g!) },
  { method: 'GET', pattern: new RegExp(`^/projects/${SEG}$`), handler: (ctx, [p]) => getProject(ctx, p!) },
  { method: 'GET', pattern: new RegExp(`^/projects/${SEG}/pages$`), handler: (ctx, [p]) => getPages(ctx, p!) },
  { method: 'PATCH', pattern: new RegExp(`^/projects/${SEG}/pages$`), handler: (ctx, [p]) => patchPages(ctx, p!) },
  { method: 'DELETE', pattern: new RegExp(`^/projects/${SEG}/pages$`), handler: (ctx, [p]) => deletePages(ctx, p!) },
  { method: 'GET', pattern: new RegExp(`^/projects/${SEG}/pages/domains$`), handler: (ctx, [p]) => listProjectDomains(callCtx(ctx), p!) },
  { method: 'GET', pattern: /^\/pages\/domains$/, handler: (ctx) => listAllDomains(callCtx(ctx)) },
];

/** Refuses a caller that is not an administrator (403), as the admin-only endpoints do. */
export function requireAdmin(caller: Caller | null): void {
  const c = requireCaller(caller);
  if (!c.admin) throw forbidden();
}

function pageOf(ctx: Ctx) {
  return { url: ctx.endpointUrl, query: ctx.query, countLimit: ctx.state.paginationCountLimit };
}

/** What the token and variable handlers take: state, caller, parameters, the page request. */
function callCtx(ctx: Ctx) {
  return { state: ctx.state, caller: ctx.caller, params: ctx.params, page: pageOf(ctx) };
}

/** What the branch handlers take: the call context plus the base URL (`web_url`). */
function branchCtx(ctx: Ctx) {
  return { ...callCtx(ctx), baseUrl: ctx.baseUrl };
}

function listCtx(ctx: Ctx) {
  return { state: ctx.state, caller: ctx.caller, baseUrl: ctx.baseUrl, page: pageOf(ctx) };
}

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function findRoute(routes: readonly Route[], method: string, path: string): { route: Route; args: string[]; head: boolean } | 'method' | undefined {
  const lookup = (m: string): { route: Route; args: string[] } | undefined => {
    for (const route of routes) {
      if (route.method !== m) continue;
      const match = route.pattern.exec(path);
      if (match) return { route, args: match.slice(1).map(decodeSegment) };
    }
    return undefined;
  };
  const direct = lookup(method);
  if (direct) return { ...direct, head: false };
  if (method === 'HEAD') {
    const get = lookup('GET');
    if (get) return { ...get, head: true };
  }
  return routes.some((r) => r.pattern.test(path)) ? 'method' : undefined;
}

function errorResponse(e: unknown): ApiResponse {
  if (e instanceof ApiError) return { status: e.status, headers: { ...e.headers }, body: e.body };
  return { status: 500, headers: {}, body: { message: '500 Internal Server Error' } };
}

/** Runs one request through routing, auth and the handler; never throws. */
async function dispatch(routes: readonly Route[], state: EmulatorState, req: IncomingMessage, path: string, query: string, baseUrl: string): Promise<ApiResponse> {
  const method = (req.method ?? 'GET').toUpperCase();
  try {
    const body = await readBody(req, BODY_LIMIT);
    const query_ = parseQueryString(query);
    const token = credential(req.headers, query_);
    delete query_['private_token'];
    // The throttles come first, as Rack::Attack sits in front of the application.
    const throttled = checkThrottles(state, () => identify(state, token), req.socket.remoteAddress ?? 'unknown');
    if (throttled) return throttled;
    const found = findRoute(routes, method, path);
    if (found === undefined) return { status: 404, headers: {}, body: { error: '404 Not Found' } };
    if (found === 'method') return { status: 405, headers: {}, body: { error: '405 Not Allowed' } };
    purgeInactiveTokens(state);
    const caller = authenticate(state, token, path);
    checkMaintenanceMode(state, method, caller);
    const { route, args, head } = found;
    if (!route.ownScopes) {
      const readOnly = method === 'GET' || method === 'HEAD';
      requireScope(caller, ['api', ...(readOnly ? ['read_api'] : []), ...(route.extraScopes ?? [])]);
    }
    const params: Params = { ...query_, ...(method === 'GET' || method === 'HEAD' ? {} : (parseBody(body, req.headers['content-type']) ?? {})) };
    const ctx: Ctx = { state, method, path, query, params, caller, baseUrl, endpointUrl: `${baseUrl}${API_PREFIX}${path}` };
    const response = route.handler(ctx, args);
    return head ? { status: response.status, headers: response.headers } : response;
  } catch (e) {
    return errorResponse(e);
  }
}

/**
 * Header values go on the wire as UTF-8 bytes, as the real service sends them (a file called
 * `docs/日本.md` in `X-Service-File-Path`); Node takes a header string as Latin-1, so a value with
 * non-ASCII characters is handed over as the Latin-1 reading of its UTF-8 bytes.
 */
function headerValue(v: string): string {
  return /[^\x00-\x7f]/.test(v) ? Buffer.from(v, 'utf8').toString('latin1') : v;
}

function write(res: ServerResponse, response: ApiResponse, head: boolean): void {
  let payload: Buffer | undefined;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(response.headers)) headers[k] = headerValue(v);
  if (response.raw !== undefined) payload = response.raw;
  else if (response.body !== undefined) {
    payload = Buffer.from(JSON.stringify(response.body));
    headers['content-type'] ??= 'application/json';
  }
  if (payload !== undefined) headers['content-length'] = String(payload.length);
  else if (response.status !== 204) headers['content-length'] = '0';
  res.writeHead(response.status, headers);
  res.end(head || response.status === 204 ? undefined : payload);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Starts an emulator on loopback (or `host`), seeded from an object or a YAML/JSON file. */
export async function startEmulator(opts: EmulatorOptions = {}): Promise<RunningEmulator> {
  const seed = typeof opts.seed === 'string' ? await loadSeedFile(opts.seed) : opts.seed;
  const state = createEmulatorState(seed ?? {}, {
    ...(opts.tier ? { tier: opts.tier } : {}),
    ...(opts.now ? { now: opts.now } : {}),
    settingsCacheSeconds: opts.settingsCacheSeconds ?? 0,
  });
  if (opts.paginationCountLimit !== undefined) {
    if (!(Number.isInteger(opts.paginationCountLimit) && opts.paginationCountLimit >= 0)) {
      throw new TypeError(`paginationCountLimit must be an integer >= 0, got ${String(opts.paginationCountLimit)}`);
    }
    state.paginationCountLimit = opts.paginationCountLimit;
  }
  const faults = new FaultInjector(opts.faults ?? [], opts.faultSeed ?? 1);
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const host = opts.host ?? '127.0.0.1';
  const latencyMs = opts.latencyMs ?? 0;
  if (!(Number.isFinite(latencyMs) && latencyMs >= 0)) throw new TypeError(`latencyMs must be a number of milliseconds >= 0, got ${String(opts.latencyMs)}`);
  let inFlight = 0;
  let maxInFlight = 0;
  // The built-in endpoints first: an extra route module adds endpoints, it never replaces one.
  const routes: readonly Route[] = [...ROUTES, ...(opts.routes ?? [])];

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const receivedMs = performance.now();
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    // 'close' comes once, whether the answer was written or the connection dropped.
    res.once('close', () => inFlight--);
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const fullPath = q < 0 ? url : url.slice(0, q);
    const query = q < 0 ? '' : url.slice(q + 1);
    const method = (req.method ?? 'GET').toUpperCase();
    const inApi = fullPath === API_PREFIX || fullPath.startsWith(`${API_PREFIX}/`);
    const path = inApi ? fullPath.slice(API_PREFIX.length) : fullPath;
    const record = (status: number): void => {
      requests.push({ method, path, query: filterQuery(query), status, at: state.now(), receivedMs, answeredMs: performance.now() });
    };
    const baseUrl = `http://${req.headers.host ?? `${host}:${(server.address() as AddressInfo).port}`}`;

    const decision = faults.decide(method, path, decodeSegment(path));
    if (latencyMs + decision.latencyMs > 0) await sleep(latencyMs + decision.latencyMs);
    const action = decision.action;
    if (action?.kind === 'drop' && action.when === 'before') {
      record(0);
      req.socket.destroy();
      return;
    }
    const cannedStatus = (): void => {
      if (action?.kind !== 'status') return;
      const headers: Record<string, string> = {};
      if (action.retryAfter !== undefined) headers['retry-after'] = String(action.retryAfter);
      const body = action.body ?? { message: `${action.status} ${statusText(action.status)}` };
      const response: ApiResponse =
        typeof body === 'string'
          ? { status: action.status, headers: { ...headers, 'content-type': 'text/plain; charset=utf-8' }, raw: Buffer.from(body) }
          : { status: action.status, headers, body };
      record(action.status);
      write(res, response, method === 'HEAD');
    };
    if (action?.kind === 'status' && !action.after) {
      req.resume();
      cannedStatus();
      return;
    }
    const response = inApi
      ? ((await ciRoute(state, req, path, query, `${baseUrl}${API_PREFIX}${path}`)) ?? (await dispatch(routes, state, req, path, query, baseUrl)))
      : (req.resume(), { status: 404, headers: {}, body: { message: '404 Not Found' } });
    if (action?.kind === 'drop' && action.when === 'after') {
      record(0);
      req.socket.destroy();
      return;
    }
    if (action?.kind === 'status') {
      cannedStatus();
      return;
    }
    record(response.status);
    write(res, response, method === 'HEAD');
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) write(res, { status: 500, headers: {}, body: { message: '500 Internal Server Error' } }, false);
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${urlHost}:${address.port}`;

  return {
    url,
    state,
    requests,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    addFault: (rule) => faults.add(rule),
    clearFaults: () => faults.clear(),
    resetRequests: () => {
      requests.length = 0;
      maxInFlight = inFlight;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
        server.closeAllConnections();
      }),
  };
}

/** The query as recorded: a `private_token` value is replaced by `[FILTERED]`, as the real service logs it. */
function filterQuery(query: string): string {
  return query.replace(/(^|&)(private_token=)[^&]*/g, '$1$2[FILTERED]');
}

function statusText(status: number): string {
  const texts: Record<number, string> = {
    400: 'Bad Request',
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'Not Found',
    409: 'Conflict',
    422: 'Unprocessable Entity',
    429: 'Too Many Requests',
    500: 'Internal Server Error',
    502: 'Bad Gateway',
    503: 'Service Unavailable',
    504: 'Gateway Timeout',
  };
  return texts[status] ?? 'Error';
}
