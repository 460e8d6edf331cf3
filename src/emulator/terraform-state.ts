/**
 * The Terraform-state API (`/projects/:id/terraform/state/:name`), as the real service serves
 * Terraform's (and OpenTofu's) http backend and plumb's `--state https://…`:
 *
 * - `GET …/:name`: 200 with the latest version's bytes; 204 when the state exists (it was locked)
 *   but holds no version yet; 404 when there is no such state. Developer or above.
 * - `POST …/:name[?ID=LOCK][&serial=N]`: stores the body as a new version (an empty body: 204,
 *   nothing stored). The `ID` must match the lock when the state is locked, and must be absent when
 *   it is not: 409 otherwise. Maintainer or above.
 * - `POST …/:name/lock` with the lock info as JSON (`ID` required; `Operation`, `Info`, `Who`,
 *   `Version`, `Path`): 200 with the lock info (ID, Who = the caller's username, Created), or 409
 *   with the holder's lock info when it is locked already (also by the same ID). Creates the state.
 * - `DELETE …/:name/lock` with `ID` (query or JSON body): 200; 409 when the ID is not the
 *   holder's (no ID while locked, or an ID while unlocked).
 * - `GET …/:name/versions/:serial`: that version's bytes, or 404.
 *
 * Every version is kept. Serials: `?serial=N` when given, else one more than the latest.
 * Authentication: PRIVATE-TOKEN, basic auth with a personal access token, or the job token as
 * basic auth user `gitlab-ci-token` (ci.ts). A `read_api` token may read only.
 */
import { ApiError, badRequest, forbidden, insufficientScope, json, notFound, paramErrors, parseBody, unauthorized, type ApiResponse, type Params } from './http.js';
import { ciAccess, registerCiRoutes, type CiRequest } from './ci.js';
import type { EmulatorState } from './state.js';

export interface TerraformStateVersion {
  readonly serial: number;
  readonly data: Buffer;
  readonly createdAt: Date;
  readonly userId: number;
}

export interface TerraformStateLock {
  readonly id: string;
  readonly userId: number;
  readonly username: string;
  readonly created: Date;
  readonly info: Readonly<Record<string, unknown>>;
}

export interface TerraformStateRecord {
  readonly projectId: number;
  readonly name: string;
  readonly versions: TerraformStateVersion[];
  lock: TerraformStateLock | null;
}

const STATES = new WeakMap<EmulatorState, Map<string, TerraformStateRecord>>();

/** The emulator's Terraform states (for tests: what was stored, who holds the lock). */
export function terraformStates(state: EmulatorState): Map<string, TerraformStateRecord> {
  let m = STATES.get(state);
  if (!m) STATES.set(state, (m = new Map()));
  return m;
}

export function terraformState(state: EmulatorState, project: string, name: string): TerraformStateRecord | undefined {
  const p = state.projectByRef(project);
  return p ? terraformStates(state).get(`${p.id}/${name}`) : undefined;
}

const PATH = /^\/projects\/([^/]+)\/terraform\/state\/([^/]+)(\/lock|\/versions\/([^/]+))?$/;
const DEVELOPER = 30;
const MAINTAINER = 40;

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function lockInfo(lock: TerraformStateLock): Record<string, unknown> {
  return { ...lock.info, ID: lock.id, Who: lock.username, Created: lock.created.toISOString() };
}

function handle(r: CiRequest): ApiResponse | undefined {
  const m = PATH.exec(r.path);
  if (!m) return undefined;
  const [, projectRef, rawName, suffix, serial] = m;
  const name = decode(rawName!);
  if (!r.ci) throw unauthorized();
  const project = r.state.projectByRef(decode(projectRef!));
  const access = project ? ciAccess(r.state, r.ci, project) : 0;
  if (!project || (access === 0 && project.visibility !== 'public')) throw notFound('Project');
  const write = !(r.method === 'GET' || r.method === 'HEAD');
  if (write && r.ci.jobProjectId === undefined && !r.ci.caller.token.scopes.includes('api')) throw insufficientScope(['api']);
  if (!write && r.ci.jobProjectId === undefined && !r.ci.caller.token.scopes.some((s) => s === 'api' || s === 'read_api')) throw insufficientScope(['api', 'read_api']);
  if (access < (write ? MAINTAINER : DEVELOPER)) throw forbidden();
  const states = terraformStates(r.state);
  const key = `${project.id}/${name}`;
  const existing = states.get(key);
  const params = (): Params => ({ ...r.query, ...(parseBody(r.body, r.contentType ?? 'application/json') ?? {}) });

  if (suffix === undefined) {
    if (r.method === 'GET') {
      if (!existing) throw notFound();
      const latest = existing.versions.at(-1);
      if (!latest) return { status: 204, headers: {} };
      return { status: 200, headers: { 'content-type': 'application/json' }, raw: latest.data };
    }
    if (r.method === 'POST') {
      if (r.body.length === 0) return { status: 204, headers: {} };
      const id = typeof r.query.ID === 'string' ? r.query.ID : undefined;
      const lock = existing?.lock ?? null;
      if ((lock === null) !== (id === undefined) || (lock && lock.id !== id)) throw new ApiError(409, { message: 'state is locked' });
      const record = existing ?? { projectId: project.id, name, versions: [], lock: null };
      states.set(key, record);
      const given = Number(r.query.serial);
      const next = Number.isInteger(given) && given >= 0 && r.query.serial !== undefined ? given : (record.versions.at(-1)?.serial ?? -1) + 1;
      record.versions.push({ serial: next, data: Buffer.from(r.body), createdAt: r.state.now(), userId: r.ci.caller.user.id });
      return { status: 200, headers: {} };
    }
    return { status: 405, headers: {}, body: { error: '405 Not Allowed' } };
  }

  if (suffix === '/lock') {
    const p = params();
    const id = typeof p.ID === 'string' && p.ID !== '' ? p.ID : undefined;
    if (r.method === 'POST') {
      if (id === undefined) throw paramErrors(['ID is missing']);
      if (id.length > 255) throw badRequest('ID is too long');
      const record = existing ?? { projectId: project.id, name, versions: [], lock: null };
      states.set(key, record);
      if (record.lock) return json(409, lockInfo(record.lock));
      const info: Record<string, unknown> = {};
      for (const k of ['Operation', 'Info', 'Version', 'Path']) if (typeof p[k] === 'string') info[k] = p[k];
      record.lock = { id, userId: r.ci.caller.user.id, username: r.ci.caller.user.username, created: r.state.now(), info };
      return json(200, lockInfo(record.lock));
    }
    if (r.method === 'DELETE') {
      if (!existing) throw notFound();
      const lock = existing.lock;
      if ((lock === null) !== (id === undefined) || (lock && lock.id !== id)) throw new ApiError(409, { message: 'state is locked' });
      existing.lock = null;
      return { status: 200, headers: {} };
    }
    return { status: 405, headers: {}, body: { error: '405 Not Allowed' } };
  }

  if (r.method !== 'GET') return { status: 405, headers: {}, body: { error: '405 Not Allowed' } };
  const version = existing?.versions.find((v) => String(v.serial) === decode(serial!));
  if (!version) throw notFound();
  return { status: 200, headers: { 'content-type': 'application/json' }, raw: version.data };
}

registerCiRoutes(handle);
