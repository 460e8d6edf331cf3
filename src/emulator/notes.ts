/**
 * Merge-request notes, the part `plumb comment` uses (docs/emulator.md):
 *
 * - `GET /projects/:id/merge_requests/:iid/notes` (`sort` asc|desc, default desc; `order_by`
 *   created_at|updated_at; offset pagination);
 * - `GET …/notes/:note_id`;
 * - `POST …/notes` with `body` (201; 400 when it is missing or longer than 1,000,000 characters);
 * - `PUT …/notes/:note_id` with `body` (200; only its author or an administrator: 403 otherwise).
 *
 * Anyone who can see the project and is signed in (Guest or above on a private project) may read
 * and post; a `read_api` token may only read. Quick actions in a note are not run; the emulator
 * records them as text (plumb never writes a line that starts with `/`).
 */
import { ApiError, forbidden, insufficientScope, json, notFound, parseBody, unauthorized, validationErrors, type ApiResponse } from './http.js';
import { ciAccess, ciState, registerCiRoutes, type CiRequest } from './ci.js';
import { paginate } from './pagination.js';
import type { EmulatorState } from './state.js';

/** The service's limit on a note's length, in characters. */
export const NOTE_LIMIT = 1_000_000;

export interface NoteRecord {
  readonly id: number;
  readonly projectId: number;
  readonly iid: number;
  body: string;
  readonly authorId: number;
  readonly createdAt: Date;
  updatedAt: Date;
}

const NOTES = new WeakMap<EmulatorState, { next: number; notes: NoteRecord[] }>();

export function mergeRequestNotes(state: EmulatorState, project?: string, iid?: number): NoteRecord[] {
  let s = NOTES.get(state);
  if (!s) NOTES.set(state, (s = { next: 1, notes: [] }));
  const p = project === undefined ? undefined : state.projectByRef(project);
  return s.notes.filter((n) => (p === undefined || n.projectId === p.id) && (iid === undefined || n.iid === iid));
}

function store(state: EmulatorState) {
  mergeRequestNotes(state);
  return NOTES.get(state)!;
}

const PATH = /^\/projects\/([^/]+)\/merge_requests\/([^/]+)\/notes(?:\/([^/]+))?$/;

function view(state: EmulatorState, n: NoteRecord): Record<string, unknown> {
  const author = state.userById(n.authorId);
  return {
    id: n.id,
    type: null,
    body: n.body,
    author: author ? { id: author.id, username: author.username, name: author.name, state: 'active' } : null,
    created_at: n.createdAt.toISOString(),
    updated_at: n.updatedAt.toISOString(),
    system: false,
    noteable_id: n.projectId * 1000 + n.iid,
    noteable_type: 'MergeRequest',
    noteable_iid: n.iid,
    resolvable: false,
    confidential: false,
    internal: false,
  };
}

function noteBody(r: CiRequest): string {
  const params = { ...r.query, ...(parseBody(r.body, r.contentType) ?? {}) };
  const body = params.body;
  if (typeof body !== 'string' || body === '') throw new ApiError(400, { error: 'body is missing' });
  if ([...body].length > NOTE_LIMIT) throw validationErrors({ note: [`is too long (maximum is ${NOTE_LIMIT} characters)`] });
  return body;
}

function handle(r: CiRequest): ApiResponse | undefined {
  const m = PATH.exec(r.path);
  if (!m) return undefined;
  if (!r.ci) throw unauthorized();
  const project = r.state.projectByRef(decodeURIComponent(m[1]!));
  const access = project ? ciAccess(r.state, r.ci, project) : 0;
  if (!project || (access === 0 && project.visibility === 'private')) throw notFound('Project');
  const iid = Number(m[2]);
  if (!ciState(r.state).mergeRequests.some((mr) => mr.projectId === project.id && mr.iid === iid)) throw notFound('Merge Request');
  const write = r.method !== 'GET' && r.method !== 'HEAD';
  const scopes = r.ci.caller.token.scopes;
  if (write && !scopes.includes('api')) throw insufficientScope(['api']);
  if (!write && !scopes.some((s) => s === 'api' || s === 'read_api')) throw insufficientScope(['api', 'read_api']);
  const s = store(r.state);
  const notes = s.notes.filter((n) => n.projectId === project.id && n.iid === iid);
  if (m[3] === undefined) {
    if (r.method === 'GET') {
      const by = r.query.order_by === 'updated_at' ? 'updatedAt' : 'createdAt';
      const asc = r.query.sort === 'asc';
      const sorted = [...notes].sort((a, b) => (a[by].getTime() - b[by].getTime() || a.id - b.id) * (asc ? 1 : -1));
      const page = paginate(sorted, { url: r.endpointUrl, query: r.rawQuery });
      return json(200, page.items.map((n) => view(r.state, n)), page.headers);
    }
    if (r.method === 'POST') {
      const body = noteBody(r);
      const now = r.state.now();
      const note: NoteRecord = { id: s.next++, projectId: project.id, iid, body, authorId: r.ci.caller.user.id, createdAt: now, updatedAt: now };
      s.notes.push(note);
      return json(201, view(r.state, note));
    }
    return { status: 405, headers: {}, body: { error: '405 Not Allowed' } };
  }
  const note = notes.find((n) => String(n.id) === m[3]);
  if (!note) throw notFound('Note');
  if (r.method === 'GET') return json(200, view(r.state, note));
  if (r.method === 'PUT') {
    if (note.authorId !== r.ci.caller.user.id && !r.ci.caller.admin) throw forbidden();
    note.body = noteBody(r);
    note.updatedAt = r.state.now();
    return json(200, view(r.state, note));
  }
  return { status: 405, headers: {}, body: { error: '405 Not Allowed' } };
}

registerCiRoutes(handle);
