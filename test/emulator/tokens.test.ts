/** Conformance: group access tokens, spec sections 2.1, 3, 4.1, 5, 7 and 8. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ADMIN,
  DEVELOPER,
  EXPIRED,
  GROUP_API,
  GROUP_READ,
  GROUP_SELF,
  MAINTAINER,
  OTHER_GROUP_TOKEN,
  OUTSIDER,
  OWNER,
  OWNER_READ,
  REVOKED,
  start,
  type Api,
  type Clock,
} from './helpers.js';
import type { RunningEmulator } from '../../src/emulator/index.js';

/** The sorts of the token list (tokens-files-pages.md 4.1, `sort`), written from the spec, not read from the catalogue. */
const SORTS = ['created_asc', 'created_desc', 'expires_asc', 'expires_desc', 'last_used_asc', 'last_used_desc', 'name_asc', 'name_desc'];
/** The access levels a token may have (tokens-files-pages.md 2.1 and 4.1), written from the spec. */
const ACCESS_LEVELS = [10, 15, 20, 30, 40, 50];

let emulator: RunningEmulator;
let api: Api;
let clock: Clock;

beforeEach(async () => {
  ({ emulator, api, clock } = await start());
});
afterEach(() => emulator.close());

const TOKENS = '/groups/platform/access_tokens';
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function create(body: Record<string, unknown> = {}, token = OWNER) {
  return api.post(TOKENS, { token, json: { name: 'new-token', scopes: ['api'], ...body } });
}

describe('state table (section 3)', () => {
  it('creates an active token when the caller is the group Owner and returns its value once', async () => {
    const r = await create({ description: 'for CI', access_level: 30 });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ name: 'new-token', description: 'for CI', scopes: ['api'], access_level: 30, active: true, revoked: false, last_used_at: null });
    expect(typeof r.body.token).toBe('string');
    expect(r.body.created_at).toMatch(DATETIME);
    expect(r.body.expires_at).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const got = await api.get(`${TOKENS}/${r.body.id}`, { token: OWNER });
    expect(got.status).toBe(200);
    expect(got.body).not.toHaveProperty('token');
    const listed = await api.get(TOKENS, { token: OWNER });
    expect(listed.body.every((t: Record<string, unknown>) => !('token' in t))).toBe(true);
  });

  it('lets the new token authenticate as its bot user, a member of the group at its access level', async () => {
    const r = await create({ access_level: 20, scopes: ['read_api'] });
    const file = await api.get('/projects/platform%2Finfra%2Fconfig/repository/files/README%2Emd', { token: r.body.token, query: 'ref=main' });
    expect(file.status).toBe(200);
    const bot = emulator.state.userById(r.body.user_id)!;
    expect(bot.bot).toBe(true);
    expect(emulator.state.groupByRef('platform')!.members.get(bot.id)).toBe(20);
  });

  it('revokes an active token with DELETE: 204, then active false and revoked true', async () => {
    const r = await api.delete(`${TOKENS}/100`, { token: OWNER });
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    const got = await api.get(`${TOKENS}/100`, { token: OWNER });
    expect(got.body).toMatchObject({ active: false, revoked: true });
    expect((await api.get('/projects/30/repository/files/README%2Emd', { token: GROUP_API, query: 'ref=main' })).status).toBe(401);
  });

  it('rotating an active token revokes it and returns a new active token with its own value', async () => {
    const r = await api.post(`${TOKENS}/100/rotate`, { token: OWNER });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ name: 'ci', scopes: ['api'], access_level: 40, active: true, revoked: false, last_used_at: null });
    expect(r.body.id).not.toBe(100);
    expect(r.body.token).not.toBe(GROUP_API);
    const old = await api.get(`${TOKENS}/100`, { token: OWNER });
    expect(old.body).toMatchObject({ active: false, revoked: true });
    expect(r.body.user_id).toBe(old.body.user_id);
    expect((await api.get('/projects/30/repository/files/README%2Emd', { token: r.body.token, query: 'ref=main' })).status).toBe(200);
    expect((await api.get('/projects/30/repository/files/README%2Emd', { token: GROUP_API, query: 'ref=main' })).status).toBe(401);
  });

  it('rotating a revoked token is a reuse attempt: 401, it stays revoked and every active token of its family is revoked', async () => {
    const first = await api.post(`${TOKENS}/100/rotate`, { token: OWNER });
    const second = await api.post(`${TOKENS}/${first.body.id}/rotate`, { token: OWNER });
    expect(second.status).toBe(200);
    const reuse = await api.post(`${TOKENS}/100/rotate`, { token: OWNER });
    expect(reuse.status).toBe(401);
    expect(reuse.body).toEqual({ message: '401 Unauthorized' });
    for (const id of [100, first.body.id, second.body.id]) {
      expect((await api.get(`${TOKENS}/${id}`, { token: OWNER })).body.revoked, String(id)).toBe(true);
    }
    // Other families are untouched.
    expect((await api.get(`${TOKENS}/101`, { token: OWNER })).body.revoked).toBe(false);
  });

  it('presenting a revoked group token to self-rotate is a reuse attempt that revokes its family', async () => {
    const rotated = await api.post(`${TOKENS}/self/rotate`, { token: GROUP_SELF });
    expect(rotated.status).toBe(200);
    const reuse = await api.post(`${TOKENS}/self/rotate`, { token: GROUP_SELF });
    expect(reuse.status).toBe(401);
    expect((await api.get(`${TOKENS}/${rotated.body.id}`, { token: OWNER })).body.revoked).toBe(true);
  });

  it('reports an expired token as active false and revoked false, and rejects it for authentication', async () => {
    clock.current = new Date('2025-12-02T00:00:00.000Z'); // token 102 expired 2025-12-01
    const got = await api.get(`${TOKENS}/102`, { token: OWNER });
    expect(got.body).toMatchObject({ active: false, revoked: false, expires_at: '2025-12-01' });
    expect((await api.get('/projects/30/repository/files/README%2Emd', { token: GROUP_READ, query: 'ref=main' })).status).toBe(401);
  });

  it('keeps a token working through the day before its expiry date', async () => {
    clock.current = new Date('2025-11-30T23:59:59.999Z');
    expect((await api.get('/projects/30/repository/files/README%2Emd', { token: GROUP_READ, query: 'ref=main' })).status).toBe(200);
  });

  it('treats a token whose expires_at is today as expired, from 00:00 UTC (expires_at <= now)', async () => {
    clock.current = new Date('2025-12-01T00:00:00.000Z');
    const r = await api.get('/projects/30/repository/files/README%2Emd', { token: GROUP_READ, query: 'ref=main' });
    expect(r).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    const listed = (await api.get(`${TOKENS}/102`, { token: OWNER })).body;
    expect(listed).toMatchObject({ expires_at: '2025-12-01', active: false, revoked: false });
  });
});

describe('GET /groups/:id/access_tokens (list)', () => {
  it('lists the tokens of the group with last_used_at, by numeric id or URL-encoded path', async () => {
    const byPath = await api.get(TOKENS, { token: OWNER });
    const byId = await api.get('/groups/10/access_tokens', { token: OWNER });
    expect(byPath.status).toBe(200);
    expect(byPath.body.map((t: { id: number }) => t.id)).toEqual([100, 101, 102]);
    expect(byId.body).toEqual(byPath.body);
    expect(byPath.body[2]).toMatchObject({ name: 'reader', last_used_at: '2025-06-01T00:00:00.000Z', access_level: 20 });
    expect(Object.keys(byPath.body[0]).sort()).toEqual(
      ['access_level', 'active', 'created_at', 'description', 'expires_at', 'id', 'last_used_at', 'name', 'revoked', 'scopes', 'user_id'].sort(),
    );
  });

  it('does not list tokens of other groups', async () => {
    const r = await api.get('/groups/platform%2Finfra/access_tokens', { token: OWNER });
    expect(r.body).toEqual([]);
  });

  it('filters by state active and inactive', async () => {
    clock.current = new Date('2025-12-02T00:00:00.000Z');
    await api.delete(`${TOKENS}/100`, { token: OWNER });
    const active = await api.get(TOKENS, { token: OWNER, query: 'state=active' });
    const inactive = await api.get(TOKENS, { token: OWNER, query: 'state=inactive' });
    expect(active.body.map((t: { id: number }) => t.id)).toEqual([101]);
    expect(inactive.body.map((t: { id: number }) => t.id)).toEqual([100, 102]);
  });

  it('filters by revoked', async () => {
    await api.delete(`${TOKENS}/101`, { token: OWNER });
    expect((await api.get(TOKENS, { token: OWNER, query: 'revoked=true' })).body.map((t: { id: number }) => t.id)).toEqual([101]);
    expect((await api.get(TOKENS, { token: OWNER, query: 'revoked=false' })).body.map((t: { id: number }) => t.id)).toEqual([100, 102]);
  });

  it('filters by a search on the name', async () => {
    expect((await api.get(TOKENS, { token: OWNER, query: 'search=EL' })).body.map((t: { name: string }) => t.name)).toEqual(['selfie']);
  });

  it('filters by creation, expiry and last-use windows', async () => {
    const ids = async (q: string) => (await api.get(TOKENS, { token: OWNER, query: q })).body.map((t: { id: number }) => t.id);
    expect(await ids('created_after=2025-01-15T00:00:00Z')).toEqual([101, 102]);
    expect(await ids('created_before=2025-02-15T00:00:00.000Z')).toEqual([100, 101]);
    expect(await ids('expires_after=2026-01-01')).toEqual([100, 101]);
    expect(await ids('expires_before=2026-01-01')).toEqual([102]);
    expect(await ids('last_used_after=2025-05-01T00:00:00Z')).toEqual([102]);
    expect(await ids('last_used_before=2025-05-01T00:00:00Z')).toEqual([]);
  });

  it.each(SORTS.map((s) => [s]))('sorts by %s', async (sort) => {
    const r = await api.get(TOKENS, { token: OWNER, query: `sort=${sort}` });
    expect(r.status).toBe(200);
    const expected: Record<string, number[]> = {
      created_asc: [100, 101, 102],
      created_desc: [102, 101, 100],
      expires_asc: [102, 100, 101],
      expires_desc: [101, 100, 102],
      last_used_asc: [102, 101, 100],
      last_used_desc: [101, 100, 102],
      name_asc: [100, 102, 101],
      name_desc: [101, 102, 100],
    };
    expect(r.body.map((t: { id: number }) => t.id)).toEqual(expected[sort]);
  });

  it('takes sort as a free string, as the real API does: an order it does not know (last_used, random) leaves the default, id ascending', async () => {
    for (const sort of ['last_used', 'random', 'LAST_USED_DESC']) {
      const r = await api.get(TOKENS, { token: OWNER, query: `sort=${sort}` });
      expect(r.status, sort).toBe(200);
      expect(r.body.map((t: { id: number }) => t.id), sort).toEqual([100, 101, 102]);
    }
    // The model's other simple sorts: creation by its column name, and id.
    const ids = async (sort: string) => (await api.get(TOKENS, { token: OWNER, query: `sort=${sort}` })).body.map((t: { id: number }) => t.id);
    expect(await ids('created_at_desc')).toEqual([102, 101, 100]);
    expect(await ids('id_desc')).toEqual([102, 101, 100]);
  });

  it('reads an expires_after that is a datetime by its date as written, as Grape\'s Date coercion does', async () => {
    const r = await api.get(TOKENS, { token: OWNER, query: `expires_after=${encodeURIComponent('2026-01-01T23:00:00-05:00')}` });
    expect(r.status).toBe(200);
    expect(r.body.map((t: { id: number }) => t.id)).toEqual([100, 101]);
  });

  it('rejects invalid filter values with Grape parameter errors', async () => {
    expect((await api.get(TOKENS, { token: OWNER, query: 'state=gone' })).body).toEqual({ error: 'state does not have a valid value' });
    const bad = await api.get(TOKENS, { token: OWNER, query: 'created_after=yesterday&expires_before=2025-13-01&revoked=perhaps' });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'created_after is invalid, expires_before is invalid, revoked is invalid' });
  });

  it('paginates with page/per_page and the X-* and Link headers', async () => {
    for (let i = 0; i < 22; i++) emulator.state.tokens.push({ ...emulator.state.tokenById(100)!, id: 1000 + i, name: `bulk-${i}`, digest: `d${i}`, previousId: null });
    const first = await api.get(TOKENS, { token: OWNER });
    expect(first.body).toHaveLength(20);
    expect(first.headers.get('x-total')).toBe('25');
    expect(first.headers.get('x-total-pages')).toBe('2');
    expect(first.headers.get('x-page')).toBe('1');
    expect(first.headers.get('x-per-page')).toBe('20');
    expect(first.headers.get('x-next-page')).toBe('2');
    expect(first.headers.get('x-prev-page')).toBe('');
    const page = await api.get(TOKENS, { token: OWNER, query: 'per_page=10&page=2&state=active' });
    expect(page.body).toHaveLength(10);
    expect(page.headers.get('x-prev-page')).toBe('1');
    expect(page.headers.get('x-next-page')).toBe('3');
    const link = page.headers.get('link')!;
    const base = `${emulator.url}/api/v4/groups/platform/access_tokens`;
    expect(link).toContain(`<${base}?per_page=10&page=1&state=active>; rel="prev"`);
    expect(link).toContain(`<${base}?per_page=10&page=3&state=active>; rel="next"`);
    expect(link).toContain(`<${base}?per_page=10&page=1&state=active>; rel="first"`);
    expect(link).toContain(`<${base}?per_page=10&page=3&state=active>; rel="last"`);
    const last = await api.get(TOKENS, { token: OWNER, query: 'per_page=10&page=3' });
    expect(last.body).toHaveLength(5);
    expect(last.headers.get('x-next-page')).toBe('');
    expect(last.headers.get('link')).not.toContain('rel="next"');
  });

  it('caps per_page at 100', async () => {
    const r = await api.get(TOKENS, { token: OWNER, query: 'per_page=500' });
    expect(r.headers.get('x-per-page')).toBe('100');
  });

  it('is refused with 401 for a member who is not Owner, 404 for a group the caller cannot see', async () => {
    expect((await api.get(TOKENS, { token: MAINTAINER })).status).toBe(401);
    const hidden = await api.get(TOKENS, { token: OUTSIDER });
    expect(hidden).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
    expect((await api.get('/groups/999/access_tokens', { token: ADMIN })).body).toEqual({ message: '404 Group Not Found' });
  });

  it('is allowed for an administrator and with a read_api token', async () => {
    expect((await api.get(TOKENS, { token: ADMIN })).status).toBe(200);
    expect((await api.get(TOKENS, { token: OWNER_READ })).status).toBe(200);
  });

  it('rejects unknown, expired and revoked tokens with 401', async () => {
    expect((await api.get(TOKENS, { token: 'not-a-real-token' })).status).toBe(401);
    expect((await api.get(TOKENS, { token: EXPIRED })).status).toBe(401);
    expect((await api.get(TOKENS, { token: REVOKED })).status).toBe(401);
    expect((await api.get(TOKENS)).status).toBe(401);
  });

  it('updates last_used_at when a token authenticates', async () => {
    clock.current = new Date('2025-06-16T08:00:00.000Z');
    await api.get('/projects/30/repository/files/README%2Emd', { token: GROUP_API, query: 'ref=main' });
    const r = await api.get(TOKENS, { token: OWNER });
    expect(r.body[0].last_used_at).toBe('2025-06-16T08:00:00.000Z');
  });
});

describe('GET /groups/:id/access_tokens/:token_id', () => {
  it('returns the token without last_used_at', async () => {
    const r = await api.get(`${TOKENS}/102`, { token: OWNER });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: 102, name: 'reader', scopes: ['read_api'], access_level: 20, expires_at: '2025-12-01' });
    expect(r.body).not.toHaveProperty('last_used_at');
  });

  it('returns 404 for an unknown token or a token of another group', async () => {
    for (const id of ['999', '200']) {
      const r = await api.get(`${TOKENS}/${id}`, { token: OWNER });
      expect(r).toMatchObject({ status: 404, body: { message: '404 group Access Token Not Found' } });
    }
  });

  it('returns 404 for a token id that is not an integer (a String parameter of the real API, looked up by id)', async () => {
    expect(await api.get(`${TOKENS}/abc`, { token: OWNER })).toMatchObject({ status: 404, body: { message: '404 group Access Token Not Found' } });
  });

  it('is refused with 401 for a Maintainer', async () => {
    expect((await api.get(`${TOKENS}/100`, { token: MAINTAINER })).status).toBe(401);
  });
});

describe('POST /groups/:id/access_tokens (create)', () => {
  it('requires name and scopes', async () => {
    const r = await api.post(TOKENS, { token: OWNER, json: {} });
    expect(r).toMatchObject({ status: 400, body: { error: 'name is missing, scopes is missing' } });
  });

  it('rejects a scope outside the group token scopes', async () => {
    const r = await create({ scopes: ['api', 'sudo'] });
    expect(r).toMatchObject({ status: 400, body: { error: 'scopes does not have a valid value' } });
  });

  it('rejects a blank name and empty scopes as model errors', async () => {
    const r = await create({ name: '', scopes: [] });
    expect(r).toMatchObject({ status: 400, body: { message: "400 Bad request - Name can't be blank and Scopes can't be blank" } });
  });

  it('defaults access_level to 40 (section 8)', async () => {
    expect((await create()).body.access_level).toBe(40);
  });

  it.each(ACCESS_LEVELS.map((l) => [l]))('accepts access_level %s', async (level) => {
    const r = await create({ access_level: level });
    expect(r.status).toBe(201);
    expect(r.body.access_level).toBe(level);
  });

  it('rejects an access_level that is not one of the six levels', async () => {
    expect((await create({ access_level: 45 })).body).toEqual({ error: 'access_level does not have a valid value' });
    expect((await create({ access_level: 'high' })).body).toEqual({ error: 'access_level is invalid' });
  });

  it('defaults expires_at to today + 365 days when max_personal_access_token_lifetime is blank', async () => {
    expect((await create()).body.expires_at).toBe('2026-06-15');
  });

  it('defaults expires_at to today + max_personal_access_token_lifetime days', async () => {
    emulator.state.settings['max_personal_access_token_lifetime'] = 30;
    expect((await create()).body.expires_at).toBe('2025-07-15');
  });

  it('accepts an explicit expires_at within the maximum', async () => {
    expect((await create({ expires_at: '2025-09-01' })).body.expires_at).toBe('2025-09-01');
    expect((await create({ expires_at: '2026-06-15' })).status).toBe(201);
  });

  it('rejects an expires_at in the past, beyond the maximum, or not a date', async () => {
    expect((await create({ expires_at: '2025-06-14' }))).toMatchObject({ status: 400, body: { message: '400 Bad request - Expires at cannot be in the past' } });
    expect((await create({ expires_at: '2026-06-16' }))).toMatchObject({ status: 400, body: { message: '400 Bad request - Expires at must be before 2026-06-15' } });
    expect((await create({ expires_at: '15/06/2026' })).body).toEqual({ error: 'expires_at is invalid' });
  });

  it('is refused for a Maintainer (Owner required) with 400', async () => {
    const r = await create({}, MAINTAINER);
    expect(r).toMatchObject({ status: 400, body: { message: '400 Bad request - User does not have permission to create group access token' } });
  });

  it('is refused when a group access token is used', async () => {
    expect((await create({}, GROUP_API)).status).toBe(400);
  });

  it('is allowed for an administrator who is not a member', async () => {
    expect((await create({}, ADMIN)).status).toBe(201);
  });

  it('returns 404 for a group the caller cannot see', async () => {
    expect((await create({}, OUTSIDER)).body).toEqual({ message: '404 Group Not Found' });
  });

  it('prefixes the value with personal_access_token_prefix when set, else svc-', async () => {
    expect((await create()).body.token).toMatch(/^svc-[A-Za-z0-9_-]{20}$/);
    emulator.state.settings['personal_access_token_prefix'] = 'local-';
    expect((await create()).body.token).toMatch(/^local-/);
  });

  it('requires the api scope', async () => {
    expect((await create({}, OWNER_READ)).status).toBe(403);
  });

  it('accepts a form body with scopes[]', async () => {
    const r = await api.post(TOKENS, { token: OWNER, form: { name: 'formed', 'scopes[]': ['read_api', 'read_repository'], access_level: '20' } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ scopes: ['read_api', 'read_repository'], access_level: 20 });
  });
});

describe('POST /groups/:id/access_tokens/:token_id/rotate (error table of section 7)', () => {
  it('200: rotated by an Owner with an api personal token', async () => {
    expect((await api.post(`${TOKENS}/101/rotate`, { token: OWNER })).status).toBe(200);
  });

  it('200: rotated by an administrator', async () => {
    expect((await api.post(`${TOKENS}/101/rotate`, { token: ADMIN })).status).toBe(200);
  });

  it('400: not rotated successfully (expires_at in the past), nothing revoked', async () => {
    const r = await api.post(`${TOKENS}/100/rotate`, { token: OWNER, json: { expires_at: '2020-01-01' } });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/^400 Bad request - /);
    expect((await api.get(`${TOKENS}/100`, { token: OWNER })).body.revoked).toBe(false);
  });

  it('401: the token does not exist (caller not an administrator)', async () => {
    expect((await api.post(`${TOKENS}/999/rotate`, { token: OWNER })).body).toEqual({ message: '401 Unauthorized' });
  });

  it('401: the token has expired', async () => {
    clock.current = new Date('2025-12-05T00:00:00.000Z');
    expect((await api.post(`${TOKENS}/102/rotate`, { token: OWNER })).status).toBe(401);
  });

  it('401: the token was revoked', async () => {
    await api.delete(`${TOKENS}/100`, { token: OWNER });
    expect((await api.post(`${TOKENS}/100/rotate`, { token: OWNER })).status).toBe(401);
  });

  it('401: the caller has no access to the token (Maintainer; token of another group)', async () => {
    expect((await api.post(`${TOKENS}/100/rotate`, { token: MAINTAINER })).status).toBe(401);
    expect((await api.post(`${TOKENS}/200/rotate`, { token: OWNER })).status).toBe(401);
  });

  it('401: a group access token is used to rotate another one', async () => {
    expect((await api.post(`${TOKENS}/101/rotate`, { token: GROUP_API })).status).toBe(401);
    expect((await api.get(`${TOKENS}/101`, { token: OWNER })).body.revoked).toBe(false);
  });

  it('403: the token is not allowed to rotate itself (no api or self_rotate scope)', async () => {
    const r = await api.post(`${TOKENS}/self/rotate`, { token: GROUP_READ });
    expect(r.status).toBe(403);
    expect(r.body.error).toBe('insufficient_scope');
  });

  it('404: the caller is an administrator and the token does not exist', async () => {
    expect((await api.post(`${TOKENS}/999/rotate`, { token: ADMIN })).body).toEqual({ message: '404 Not Found' });
  });

  it('405: self-rotation with a token that is not an access token (a personal token)', async () => {
    expect((await api.post(`${TOKENS}/self/rotate`, { token: OWNER })).status).toBe(405);
  });

  it('self-rotates a group token with the self_rotate scope', async () => {
    const r = await api.post(`${TOKENS}/self/rotate`, { token: GROUP_SELF });
    expect(r.status).toBe(200);
    expect(r.body.name).toBe('selfie');
    expect((await api.get(`${TOKENS}/101`, { token: OWNER })).body.revoked).toBe(true);
  });

  it('self-rotates a group token with the api scope', async () => {
    expect((await api.post(`${TOKENS}/self/rotate`, { token: GROUP_API })).status).toBe(200);
  });

  it('refuses self-rotation on a group the token does not belong to with 401', async () => {
    emulator.state.groupByRef('platform')!.visibility = 'public';
    expect((await api.post(`${TOKENS}/self/rotate`, { token: OTHER_GROUP_TOKEN })).status).toBe(401);
  });

  it('401, not 403: a group access token without the api scope rotates another token by id', async () => {
    for (const token of [GROUP_SELF, GROUP_READ]) {
      const r = await api.post(`${TOKENS}/100/rotate`, { token });
      expect(r).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
      expect(r.headers.get('www-authenticate')).toBeNull();
    }
    expect((await api.post(`${TOKENS}/101/rotate`, { token: GROUP_SELF })).status).toBe(401);
    expect((await api.get(`${TOKENS}/100`, { token: OWNER })).body.revoked).toBe(false);
  });

  it('405, not 403: self-rotation with a personal token that has no api or self_rotate scope', async () => {
    const r = await api.post(`${TOKENS}/self/rotate`, { token: OWNER_READ });
    expect(r).toMatchObject({ status: 405, body: { message: '405 Method Not Allowed' } });
  });

  it('requires the api scope of a personal token to rotate another token', async () => {
    expect((await api.post(`${TOKENS}/100/rotate`, { token: OWNER_READ })).status).toBe(403);
  });

  it('defaults expires_at to 1 week after rotation when token expiry is required (section 8)', async () => {
    emulator.state.settings['require_personal_access_token_expiry'] = true;
    expect((await api.post(`${TOKENS}/100/rotate`, { token: OWNER })).body.expires_at).toBe('2025-06-22');
  });

  it('defaults expires_at to the maximum allowed lifetime when expiry is not required', async () => {
    emulator.state.settings['require_personal_access_token_expiry'] = false;
    expect((await api.post(`${TOKENS}/100/rotate`, { token: OWNER })).body.expires_at).toBe('2026-06-15');
    emulator.state.settings['max_personal_access_token_lifetime'] = 90;
    expect((await api.post(`${TOKENS}/101/rotate`, { token: OWNER })).body.expires_at).toBe('2025-09-13');
  });

  it('uses an explicit expires_at', async () => {
    const r = await api.post(`${TOKENS}/100/rotate`, { token: OWNER, json: { expires_at: '2025-08-01' } });
    expect(r.body.expires_at).toBe('2025-08-01');
  });
});

describe('DELETE /groups/:id/access_tokens/:token_id (revoke)', () => {
  it('204: revoked', async () => {
    expect((await api.delete(`${TOKENS}/102`, { token: OWNER })).status).toBe(204);
  });

  it('answers 400 for an already revoked token (spec 7: "400 when not revoked successfully")', async () => {
    expect((await api.delete(`${TOKENS}/102`, { token: OWNER })).status).toBe(204);
    const again = await api.delete(`${TOKENS}/102`, { token: OWNER });
    expect(again).toMatchObject({ status: 400, body: { message: '400 Bad request - Access token reader is already revoked' } });
    expect((await api.get(`${TOKENS}/102`, { token: OWNER })).body).toMatchObject({ revoked: true, active: false });
  });

  it('404: the token does not exist', async () => {
    expect((await api.delete(`${TOKENS}/999`, { token: OWNER })).body).toEqual({ message: '404 group Access Token Not Found' });
  });

  it('400: not revoked successfully (the caller may not delete it)', async () => {
    const r = await api.delete(`${TOKENS}/100`, { token: DEVELOPER });
    expect(r).toMatchObject({ status: 400, body: { message: '400 Bad request - Dee Developer cannot delete ci' } });
    expect((await api.get(`${TOKENS}/100`, { token: OWNER })).body.revoked).toBe(false);
  });
});

describe('instance token policy', () => {
  it('lowering max_personal_access_token_lifetime revokes active tokens beyond the new limit', async () => {
    const r = await api.put('/application/settings', { token: ADMIN, json: { max_personal_access_token_lifetime: 180 } });
    expect(r.status).toBe(200);
    const revoked = (id: number): boolean => emulator.state.tokenById(id)!.revoked;
    // 100 (2026-01-01) and 101 (2026-02-01) are beyond 2025-12-12; 102 (2025-12-01) is not.
    expect([100, 101, 102].map(revoked)).toEqual([true, true, false]);
    // Tokens that never expire are beyond any limit, the administrator's own included.
    expect(emulator.state.tokens.find((t) => t.name === 'admin-api')!.revoked).toBe(true);
    expect((await api.get('/application/settings', { token: ADMIN })).status).toBe(401);
  });

  it('raising the maximum lifetime revokes only the tokens beyond the new limit (any change of it runs the real policy worker)', async () => {
    emulator.state.settings['max_personal_access_token_lifetime'] = 100;
    await api.put('/application/settings', { token: ADMIN, json: { max_personal_access_token_lifetime: 365 } });
    const limit = '2026-06-15'; // the test clock's today + 365 days
    for (const t of emulator.state.tokens) {
      const beyond = t.expiresAt === null || t.expiresAt > limit;
      expect(t.revoked, t.name).toBe(t.name === 'gone' || beyond);
    }
  });

  it('never stores or records token values', async () => {
    const r = await create();
    const dump = JSON.stringify({ tokens: emulator.state.tokens, requests: emulator.requests });
    expect(dump).not.toContain(r.body.token);
    expect(dump).not.toContain(OWNER);
  });
});

describe('list sort tie-breaks', () => {
  let b = 0;
  let a = 0;
  let B = 0;
  beforeEach(async () => {
    const made: number[] = [];
    for (const name of ['b', 'a', 'B']) {
      const r = await api.post(TOKENS, { token: OWNER, json: { name, scopes: ['api'], expires_at: '2026-01-01' } });
      expect(r.status).toBe(201);
      made.push(r.body.id);
    }
    [b, a, B] = made as [number, number, number];
  });
  const ids = async (sort: string): Promise<number[]> =>
    (await api.get(TOKENS, { token: OWNER, query: `sort=${sort}&per_page=100` })).body.map((t: { id: number }) => t.id);

  it('breaks expires_at ties by id descending, as the real scope does', async () => {
    // 100 and the three new tokens expire 2026-01-01; 102 earlier, 101 later.
    expect(await ids('expires_asc')).toEqual([102, B, a, b, 100, 101]);
    expect(await ids('expires_desc')).toEqual([101, B, a, b, 100, 102]);
  });

  it('breaks created_at and name ties by id ascending (no tie-break in the real scope: insertion order)', async () => {
    expect((await ids('created_asc')).slice(-3)).toEqual([b, a, B]);
    expect((await ids('created_desc')).slice(0, 3)).toEqual([b, a, B]);
    expect((await ids('name_asc')).slice(0, 3)).toEqual([a, b, B]);
  });

  it('puts never-used tokens last ascending and first descending, as PostgreSQL orders nulls', async () => {
    expect((await ids('last_used_asc'))[0]).toBe(102);
    expect((await ids('last_used_desc')).at(-1)).toBe(102);
  });
});

describe('purging inactive tokens (inactive_resource_access_tokens_delete_after_days)', () => {
  const listed = async (): Promise<number[]> => (await api.get(TOKENS, { token: OWNER })).body.map((t: { id: number }) => t.id);

  it('keeps a revoked token for 30 days, then removes it and its bot user', async () => {
    await api.delete(`${TOKENS}/100`, { token: OWNER });
    const bot = emulator.state.tokenById(100)!.userId;
    clock.advance(30 * 86_400_000);
    expect(await listed()).toContain(100);
    clock.advance(1);
    expect(await listed()).not.toContain(100);
    expect((await api.get(`${TOKENS}/100`, { token: OWNER })).status).toBe(404);
    expect(emulator.state.userById(bot)).toBeUndefined();
    expect(emulator.state.groupByRef('platform')!.members.has(bot)).toBe(false);
  });

  it('removes an expired token the configured number of days after its expiry day', async () => {
    emulator.state.settings['inactive_resource_access_tokens_delete_after_days'] = 7;
    clock.current = new Date('2025-12-08T00:00:00.000Z');
    expect(await listed()).toContain(102);
    clock.advance(1);
    expect(await listed()).not.toContain(102);
  });

  it('never removes an active token', async () => {
    clock.current = new Date('2025-11-30T00:00:00.000Z');
    expect(await listed()).toEqual([100, 101, 102]);
  });
});

describe('GET /groups/:id/access_tokens/self', () => {
  it('is not a keyword on GET: an id that names no token, 404 for an Owner', async () => {
    const r = await api.get(`${TOKENS}/self`, { token: OWNER });
    expect(r).toMatchObject({ status: 404, body: { message: '404 group Access Token Not Found' } });
  });

  it('is 401 for the group token itself: the role check comes before the lookup, as in the real API', async () => {
    expect((await api.get(`${TOKENS}/self`, { token: GROUP_API })).status).toBe(401);
  });
});
