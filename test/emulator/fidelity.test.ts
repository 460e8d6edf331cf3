/**
 * Conformance: the request pairs where the emulator differed from an independent implementation of
 * the spec (issue 22, "Emulator fidelity"). Expected values are literal: the spec's words, or the
 * real service's behaviour where the spec is silent (docs/emulator.md lists each decision).
 */
import { request } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN, DEVELOPER, GROUP_API, MAINTAINER, OWNER, SEED, enc, start, type Api } from './helpers.js';
import type { RunningEmulator } from '../../src/emulator/index.js';

let emulator: RunningEmulator;
let api: Api;

beforeEach(async () => {
  ({ emulator, api } = await start());
});
afterEach(() => emulator.close());

const CONFIG = '/projects/platform%2Finfra%2Fconfig';
const file = (path: string): string => `${CONFIG}/repository/files/${enc(path)}`;

describe('ref: a branch, a tag or a commit, as Git resolves it (spec 4.2)', () => {
  it('reads a file at refs/heads/<branch> and echoes the ref as given', async () => {
    const r = await api.get(file('feature.txt'), { token: OWNER, query: `ref=${encodeURIComponent('refs/heads/feature')}` });
    expect(r.status).toBe(200);
    expect(r.body.ref).toBe('refs/heads/feature');
    expect(Buffer.from(r.body.content, 'base64').toString()).toBe('on feature\n');
  });

  it('reads a file at refs/tags/<tag>, on GET and HEAD', async () => {
    const tag = encodeURIComponent('refs/tags/v1.0');
    const main = await api.get(file('README.md'), { token: OWNER, query: 'ref=main' });
    const r = await api.get(file('README.md'), { token: OWNER, query: `ref=${tag}` });
    expect(r.status).toBe(200);
    expect(r.body.commit_id).toBe(main.body.commit_id);
    const h = await api.head(file('README.md'), { token: OWNER, query: `ref=${tag}` });
    expect(h.status).toBe(200);
    expect(h.headers.get('x-service-ref')).toBe('refs/tags/v1.0');
  });

  it('reads a file at a full commit id and at a short one (4 hex digits, as git rev-parse)', async () => {
    const main = await api.get(file('README.md'), { token: OWNER, query: 'ref=main' });
    const id = main.body.commit_id as string;
    for (const ref of [id, id.slice(0, 12), id.slice(0, 4)]) {
      const r = await api.get(file('README.md'), { token: OWNER, query: `ref=${ref}` });
      expect(r.status, ref).toBe(200);
      expect(r.body.commit_id).toBe(id);
      expect(r.body.ref).toBe(ref);
    }
  });

  it('answers 404 Commit Not Found for refs/heads/ of a branch that does not exist', async () => {
    const r = await api.get(file('README.md'), { token: OWNER, query: `ref=${encodeURIComponent('refs/heads/nope')}` });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ message: '404 Commit Not Found' });
  });
});

describe('creating a file where the tree says no', () => {
  const post = (path: string, content = 'x\n') =>
    api.post(file(path), { token: MAINTAINER, json: { branch: 'main', commit_message: 'add', content } });

  it('refuses a file where a directory exists (400, the Git backend index error)', async () => {
    const r = await post('scripts');
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ message: 'A directory with this name already exists' });
  });

  it('refuses a file under an existing file (400)', async () => {
    const r = await post('README.md/inner.txt');
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ message: 'A file with this name already exists' });
    const deeper = await post('scripts/deploy.sh/a/b.txt');
    expect(deeper.status).toBe(400);
  });

  it('still creates a file beside a directory of a similar name', async () => {
    expect((await post('scripts.txt')).status).toBe(201);
    expect((await post('scripts/other.sh')).status).toBe(201);
  });
});

describe('encoding: base64 (spec 4.2)', () => {
  it('refuses content that is not Base64 on POST (400) and changes nothing', async () => {
    const before = await api.get(`${CONFIG}/repository/files/${enc('README.md')}`, { token: OWNER, query: 'ref=main' });
    const r = await api.post(file('bad.bin'), { token: MAINTAINER, json: { branch: 'main', commit_message: 'add', content: 'not base64!', encoding: 'base64' } });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ message: 'illegal base64 data at input byte 3' });
    const after = await api.get(`${CONFIG}/repository/files/${enc('README.md')}`, { token: OWNER, query: 'ref=main' });
    expect(after.body.commit_id).toBe(before.body.commit_id);
  });

  it('refuses unpadded or truncated Base64, and a failed update answers the spec\'s non-specific 400', async () => {
    const post = await api.post(file('bad.bin'), { token: MAINTAINER, json: { branch: 'main', commit_message: 'add', content: 'YWJj=', encoding: 'base64' } });
    expect(post.status).toBe(400);
    const put = await api.put(file('README.md'), { token: MAINTAINER, json: { branch: 'main', commit_message: 'up', content: 'YWJjZA', encoding: 'base64' } });
    expect(put.status).toBe(400);
    expect(put.body).toEqual({ message: 'The file could not be updated' });
  });

  it('accepts valid Base64, line breaks included', async () => {
    const r = await api.post(file('ok.bin'), { token: MAINTAINER, json: { branch: 'main', commit_message: 'add', content: 'YWJj\nZGVm\n', encoding: 'base64' } });
    expect(r.status).toBe(201);
    const got = await api.get(file('ok.bin'), { token: OWNER, query: 'ref=main' });
    expect(Buffer.from(got.body.content, 'base64').toString()).toBe('abcdef');
  });
});

describe('group access tokens: revoke and token ids (spec 4.1, 7)', () => {
  it('answers 400 to revoking a token that is already revoked ("400 when not revoked successfully")', async () => {
    expect((await api.delete('/groups/platform/access_tokens/100', { token: OWNER })).status).toBe(204);
    const again = await api.delete('/groups/platform/access_tokens/100', { token: OWNER });
    expect(again.status).toBe(400);
    expect(again.body.message).toMatch(/^400 Bad request - /);
  });

  it('answers 404 to a token id that is not an integer, on get and revoke: token_id is a String parameter of the real API, looked up by id', async () => {
    for (const method of ['GET', 'DELETE']) {
      const r = await api.call(method, '/groups/platform/access_tokens/abc', { token: OWNER });
      expect(r.status, method).toBe(404);
      expect(r.body).toEqual({ message: '404 group Access Token Not Found' });
    }
    // `self` is a keyword of rotate only: on GET it is an id that names no token.
    const self = await api.get('/groups/platform/access_tokens/self', { token: OWNER });
    expect(self.status).toBe(404);
    expect(self.body).toEqual({ message: '404 group Access Token Not Found' });
    // Still after the role check: a caller who may not read the group's tokens learns nothing.
    expect((await api.get('/groups/platform/access_tokens/abc', { token: DEVELOPER })).status).toBe(401);
    // An integer that names no token is still a 404.
    expect((await api.delete('/groups/platform/access_tokens/99999', { token: OWNER })).status).toBe(404);
  });

  it('takes an expires_at datetime string on create and rotate by its date as written (Grape\'s Date coercion)', async () => {
    const created = await api.post('/groups/platform/access_tokens', { token: OWNER, json: { name: 'dt', scopes: ['api'], expires_at: '2025-09-01T23:30:00-05:00' } });
    expect(created.status).toBe(201);
    expect(created.body.expires_at).toBe('2025-09-01');
    const rotated = await api.post(`/groups/platform/access_tokens/${created.body.id}/rotate`, { token: OWNER, json: { expires_at: '2025-10-01T00:00:00.000Z' } });
    expect(rotated.status).toBe(200);
    expect(rotated.body.expires_at).toBe('2025-10-01');
    expect((await api.post('/groups/platform/access_tokens', { token: OWNER, json: { name: 'x', scopes: ['api'], expires_at: '2025-09-01Tnoon' } })).status).toBe(400);
  });

  it('refuses an expires_at of today on create and rotate (it must be in the future)', async () => {
    const today = '2025-06-15';
    const created = await api.post('/groups/platform/access_tokens', { token: OWNER, json: { name: 'x', scopes: ['api'], expires_at: today } });
    expect(created.status).toBe(400);
    expect(created.body).toEqual({ message: '400 Bad request - Expires at cannot be in the past' });
    const rotated = await api.post('/groups/platform/access_tokens/100/rotate', { token: OWNER, json: { expires_at: today } });
    expect(rotated.status).toBe(400);
    // Nothing was rotated: the token still works.
    expect((await api.get('/groups/platform/access_tokens/100', { token: OWNER })).body.active).toBe(true);
    // Tomorrow is fine.
    const tomorrow = await api.post('/groups/platform/access_tokens', { token: OWNER, json: { name: 'x', scopes: ['api'], expires_at: '2025-06-16' } });
    expect(tomorrow.status).toBe(201);
  });
});

describe('the first write to an empty repository', () => {
  it('makes its branch the default branch (HEAD and the project follow)', async () => {
    const r = await api.post('/projects/platform%2Fempty/repository/files/a.txt', {
      token: MAINTAINER,
      json: { branch: 'develop', commit_message: 'first', content: 'a\n' },
    });
    expect(r.status).toBe(201);
    expect((await api.get('/projects/platform%2Fempty', { token: MAINTAINER })).body.default_branch).toBe('develop');
    const head = await api.get('/projects/platform%2Fempty/repository/files/a.txt', { token: MAINTAINER, query: 'ref=HEAD' });
    expect(head.status).toBe(200);
    const raw = await api.get('/projects/platform%2Fempty/repository/files/a.txt/raw', { token: MAINTAINER });
    expect(raw.text).toBe('a\n');
    // The default branch is protected, as the first one was: a Developer cannot push there.
    const dev = await api.put('/projects/platform%2Fempty/repository/files/a.txt', {
      token: DEVELOPER,
      json: { branch: 'develop', commit_message: 'x', content: 'b\n' },
    });
    expect(dev.status).toBe(400);
  });

  it('leaves the default branch alone once the repository has commits', async () => {
    const r = await api.post(file('new.txt'), { token: MAINTAINER, json: { branch: 'other', start_branch: 'main', commit_message: 'x', content: 'x' } });
    expect(r.status).toBe(201);
    expect((await api.get(CONFIG, { token: MAINTAINER })).body.default_branch).toBe('main');
  });
});

describe('settings bounds the real service enforces', () => {
  const put = (body: Record<string, unknown>) => api.put('/application/settings', { token: ADMIN, json: body });

  it('refuses a token or SSH key lifetime of 0 (lifetimes are at least 1 day)', async () => {
    const r = await put({ max_personal_access_token_lifetime: 0 });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ message: { max_personal_access_token_lifetime: ['must be greater than 0'] } });
    const ssh = await put({ max_ssh_key_lifetime: 0 });
    expect(ssh.body).toEqual({ message: { max_ssh_key_lifetime: ['must be greater than 0'] } });
    expect((await put({ max_personal_access_token_lifetime: 1, max_ssh_key_lifetime: 1 })).status).toBe(200);
  });

  it('refuses a repository storage weight outside 0-100', async () => {
    const r = await put({ repository_storages_weighted: { default: 101 } });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ message: { repository_storages_weighted: ["value for 'default' must be between 0 and 100"] } });
    expect((await put({ repository_storages_weighted: { default: -1 } })).status).toBe(400);
    expect((await put({ repository_storages_weighted: { default: 0 } })).status).toBe(200);
    expect((await put({ repository_storages_weighted: { default: 100 } })).status).toBe(200);
  });

  it('refuses a default_branch_protection outside 0-4 as a parameter error', async () => {
    const r = await put({ default_branch_protection: 5 });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: 'default_branch_protection does not have a valid value' });
    expect((await put({ default_branch_protection: 4 })).status).toBe(200);
    expect((await put({ default_branch_protection: 0 })).status).toBe(200);
  });

  it('refuses an email_restrictions that is not a valid regular expression while the restriction is on', async () => {
    const r = await put({ email_restrictions_enabled: true, email_restrictions: '(abc' });
    expect(r.status).toBe(400);
    expect(Object.keys(r.body.message)).toEqual(['email_restrictions']);
    expect(r.body.message.email_restrictions[0]).toMatch(/^not valid RE2 syntax: /);
    expect((await put({ email_restrictions_enabled: true, email_restrictions: '\\+' })).status).toBe(200);
  });

  it('refuses archive_builds_in_human_readable below one day', async () => {
    const r = await put({ archive_builds_in_human_readable: '12 hours' });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ message: { archive_builds_in_human_readable: ['must be at least 1 day'] } });
    expect((await put({ archive_builds_in_human_readable: '1 day' })).status).toBe(200);
  });

  it('refuses domain_denylist_enabled with an empty domain_denylist (spec 2.2: it requires the list)', async () => {
    const r = await put({ domain_denylist_enabled: true, domain_denylist: [] });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ message: { domain_denylist: ["can't be blank"] } });
    expect((await put({ domain_denylist_enabled: true, domain_denylist: ['spam.test'] })).status).toBe(200);
  });
});

describe('the large-blob rate limit (spec 8: 5 requests per minute)', () => {
  it('counts per user across projects, not per project', async () => {
    const big = Buffer.alloc(10 * 1024 * 1024 + 1, 'a');
    emulator.state.pushFile('platform/infra/config', { path: 'big1.bin', content: big });
    emulator.state.pushFile('platform/site', { path: 'big2.bin', content: big });
    const get = (project: string, path: string, token = OWNER) =>
      api.get(`/projects/${encodeURIComponent(project)}/repository/files/${enc(path)}`, { token, query: 'ref=main' });
    for (let i = 0; i < 3; i++) expect((await get('platform/infra/config', 'big1.bin')).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await get('platform/site', 'big2.bin')).status).toBe(200);
    const sixth = await get('platform/site', 'big2.bin');
    expect(sixth.status).toBe(429);
    expect(sixth.headers.get('retry-after')).not.toBeNull();
    // Another user has a budget of their own.
    expect((await get('platform/site', 'big2.bin', GROUP_API)).status).toBe(200);
  });
});

describe('fields real clients read (python-gitlab 3.12, @gitbeaker/rest 43)', () => {
  const named = async () => {
    const seed = {
      ...SEED,
      groups: SEED.groups!.map((g) =>
        g.full_path === 'platform' ? { ...g, name: 'Platform', description: 'Everything platform' } : g.full_path === 'platform/infra' ? { ...g, name: 'Infrastructure' } : g,
      ),
      projects: SEED.projects!.map((p) => (p.id === 30 ? { ...p, name: 'Config', description: 'The config' } : p)),
    };
    return start({ seed });
  };

  it('GET /projects/:id has web_url, name_with_namespace, created_at, repository URLs, empty_repo, archived and the namespace name and web_url', async () => {
    const { emulator: e, api: a } = await named();
    try {
      const base = e.url;
      const host = new URL(base).hostname;
      const r = await a.get('/projects/platform%2Finfra%2Fconfig', { token: MAINTAINER });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        id: 30,
        name: 'Config',
        description: 'The config',
        name_with_namespace: 'Platform / Infrastructure / Config',
        path_with_namespace: 'platform/infra/config',
        created_at: '2025-06-15T12:00:00.000Z',
        web_url: `${base}/platform/infra/config`,
        http_url_to_repo: `${base}/platform/infra/config.git`,
        ssh_url_to_repo: `git@${host}:platform/infra/config.git`,
        empty_repo: false,
        archived: false,
        default_branch: 'main',
        namespace: { id: 11, name: 'Infrastructure', path: 'infra', full_path: 'platform/infra', kind: 'group', web_url: `${base}/groups/platform/infra` },
      });
      expect((await a.get('/projects/33', { token: MAINTAINER })).body.empty_repo).toBe(true);
    } finally {
      await e.close();
    }
  });

  it('GET /groups/:id and GET /groups have web_url, description, created_at and full_name joined from names', async () => {
    const { emulator: e, api: a } = await named();
    try {
      const one = await a.get('/groups/platform%2Finfra', { token: OWNER });
      expect(one.body).toMatchObject({
        id: 11,
        name: 'Infrastructure',
        full_name: 'Platform / Infrastructure',
        full_path: 'platform/infra',
        description: '',
        web_url: `${e.url}/groups/platform/infra`,
        created_at: '2025-06-15T12:00:00.000Z',
      });
      const list = await a.get('/groups', { token: ADMIN });
      const platform = (list.body as Record<string, unknown>[]).find((g) => g['id'] === 10);
      expect(platform).toMatchObject({ full_name: 'Platform', description: 'Everything platform', web_url: `${e.url}/groups/platform`, created_at: '2025-06-15T12:00:00.000Z' });
    } finally {
      await e.close();
    }
  });

  it('derives every web_url from the address the request was sent to (Host header), GET /user included', async () => {
    const user = await api.get('/user', { token: OWNER });
    expect(user.body.web_url).toBe(`${emulator.url}/olivia`);
    // Another name for the same server (a proxy, a container name): the URLs follow it.
    const port = new URL(emulator.url).port;
    // fetch may not set Host: a plain node:http request does.
    const body = await new Promise<Record<string, unknown>>((resolve, reject) => {
      const req = request(`${emulator.url}/api/v4/projects/30`, { headers: { 'PRIVATE-TOKEN': OWNER, host: `gitlab.internal:${port}` } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve(JSON.parse(text) as Record<string, unknown>));
      });
      req.on('error', reject);
      req.end();
    });
    expect(body['web_url']).toBe(`http://gitlab.internal:${port}/platform/infra/config`);
    expect(body['ssh_url_to_repo']).toBe('git@gitlab.internal:platform/infra/config.git');
  });
});

describe('file_path as the real validator checks it (issue 29.12; lib/api/validations/validators/file_path.rb)', () => {
  const at = (encoded: string) => `${CONFIG}/repository/files/${encoded}`;
  const refused = { status: 400, body: { error: 'file_path should be a valid file path' } };

  it('refuses a double-encoded path: decoding it once more would still change it', async () => {
    // %252e%252e%252f: routing leaves %2e%2e%2f, which decodes to ../
    expect(await api.get(at('%252e%252e%252fREADME.md'), { token: OWNER, query: 'ref=main' })).toMatchObject(refused);
    // Triple-encoded: still encoded after two decodings.
    expect(await api.get(at('docs%25252Fguide.md'), { token: OWNER, query: 'ref=main' })).toMatchObject(refused);
  });

  it('refuses a backslash traversal, . and .. alone, and a line feed', async () => {
    for (const p of ['scripts%5C..%5CREADME.md', '..%5CREADME.md', 'a%0Ab']) {
      expect(await api.get(at(p), { token: OWNER, query: 'ref=main' }), p).toMatchObject(refused);
    }
    // `.` and `..` alone: sent as written (fetch would resolve them as dot segments).
    for (const p of ['%2E', '%2E%2E']) {
      const status = await new Promise<number>((resolve, reject) => {
        const { hostname, port } = new URL(emulator.url);
        const req = request({ hostname, port, path: `/api/v4${at(p)}?ref=main`, headers: { 'PRIVATE-TOKEN': OWNER } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end();
      });
      expect(status, p).toBe(400);
    }
    // A name that merely contains two dots is a name.
    expect((await api.get(at('a..b'), { token: OWNER, query: 'ref=main' })).body).toEqual({ message: '404 File Not Found' });
  });

  it('refuses a plain leading slash on raw as on every file endpoint; an encoded one passes the check and names no file', async () => {
    expect(await api.get(at(`${enc('/README.md')}/raw`), { token: OWNER, query: 'ref=main' })).toMatchObject(refused);
    expect(await api.get(at(enc('/README.md')), { token: OWNER, query: 'ref=main' })).toMatchObject(refused);
    // %252F: the value keeps %2F, the validator allows its first directory, and the blob lookup takes it as written.
    const encoded = await api.get(at('%252Fdocs%252Fguide.md/raw'), { token: OWNER, query: 'ref=main' });
    expect(encoded.status).toBe(404);
    expect(encoded.body).toEqual({ message: '404 File Not Found' });
  });
});

describe('settings edge cases as lib/api/settings.rb and the model answer them (issue 29.12)', () => {
  const put = (body: Record<string, unknown>) => api.put('/application/settings', { token: ADMIN, json: body });
  const get = async (name: string) => (await api.get('/application/settings', { token: ADMIN })).body[name];

  it('takes numeric visibility levels in restricted_visibility_levels (the model reads 0, 10, 20) and answers names', async () => {
    expect((await put({ restricted_visibility_levels: '20' })).status).toBe(200);
    expect(await get('restricted_visibility_levels')).toEqual(['public']);
    expect((await put({ restricted_visibility_levels: ['10', 'public'] })).status).toBe(200);
    expect(await get('restricted_visibility_levels')).toEqual(['internal', 'public']);
  });

  it('refuses a numeric default visibility: the parameter takes the level names only', async () => {
    const r = await put({ default_project_visibility: '10' });
    expect(r).toMatchObject({ status: 400, body: { error: 'default_project_visibility does not have a valid value' } });
  });

  it('splits a list string at commas only: a ;-separated string is one item (CommaSeparatedToArray)', async () => {
    expect((await put({ domain_denylist: 'a.example;b.example' })).status).toBe(200);
    expect(await get('domain_denylist')).toEqual(['a.example;b.example']);
    expect((await put({ import_sources: 'github;gitea' })).body).toEqual({ error: 'import_sources does not have a valid value' });
  });

  it('refuses the web password flag with a legacy name of it in one request (mutually_exclusive)', async () => {
    const r = await put({ signin_enabled: false, password_authentication_enabled_for_web: true });
    expect(r).toMatchObject({ status: 400, body: { error: 'password_authentication_enabled_for_web, signin_enabled are mutually exclusive' } });
    expect(await get('password_authentication_enabled_for_web')).toBe(true);
  });

  it('lets throttle_unauthenticated_web_* win over its legacy name (the API copies the current one over it); other legacy names win', async () => {
    expect((await put({ throttle_unauthenticated_enabled: true, throttle_unauthenticated_web_enabled: false })).status).toBe(200);
    expect(await get('throttle_unauthenticated_web_enabled')).toBe(false);
    expect((await put({ admin_notification_email: 'legacy@example.test', abuse_notification_email: 'current@example.test' })).status).toBe(200);
    expect(await get('abuse_notification_email')).toBe('legacy@example.test');
  });

  it('drops an unknown key of default_branch_protection_defaults (declared_params keeps the declared ones)', async () => {
    const r = await put({ default_branch_protection_defaults: { allow_force_push: true, surprise: 1 } });
    expect(r.status).toBe(200);
    expect(r.body.default_branch_protection_defaults).toEqual({ allowed_to_push: [{ access_level: 40 }], allow_force_push: true, allowed_to_merge: [{ access_level: 40 }] });
  });
});

describe('the personal access token lifetime limit (issue 29.12)', () => {
  const lifetime = (v: number | null) => api.put('/application/settings', { token: ADMIN, json: { max_personal_access_token_lifetime: v } });
  const token = (name: string) => emulator.state.tokens.find((t) => t.name === name)!;

  it('revokes the tokens that never expire once a limit is set where it was blank, although 365 lowers nothing (the model acts on any change)', async () => {
    expect(token('owner-read').expiresAt).toBeNull();
    expect((await lifetime(365)).status).toBe(200);
    expect(token('owner-read').revoked).toBe(true);
  });

  it('revokes the tokens beyond a raised limit too, and nothing when the value is sent unchanged', async () => {
    Object.assign(token('admin-api'), { expiresAt: '2025-07-01' }); // within every limit here: the test's own credential
    expect((await lifetime(30)).status).toBe(200);
    // A token made past the limit since (seeded as an older instance's would be), active again.
    Object.assign(token('owner-api'), { revoked: false, revokedAt: null, expiresAt: '2026-12-31' });
    expect((await lifetime(30)).status).toBe(200);
    expect(token('owner-api').revoked).toBe(false);
    expect((await lifetime(60)).status).toBe(200);
    expect(token('owner-api').revoked).toBe(true);
  });

  it('revokes nothing when the limit is made blank again', async () => {
    Object.assign(token('admin-api'), { expiresAt: '2025-07-01' });
    expect((await lifetime(30)).status).toBe(200);
    Object.assign(token('owner-api'), { revoked: false, revokedAt: null, expiresAt: '2026-12-31' });
    expect((await lifetime(null)).status).toBe(200);
    expect(token('owner-api').revoked).toBe(false);
  });
});
