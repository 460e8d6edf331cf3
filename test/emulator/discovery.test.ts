/**
 * Conformance: what a group holds, as the real v4 API lists it (not in the spec; docs/emulator.md):
 * `GET /groups/:id/projects`, `/subgroups` and `/descendant_groups`, pagination above the count
 * limit, and writes to archived projects.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Api, enc } from './helpers.js';
import { type EmulatorOptions, type EmulatorSeed, type RunningEmulator } from '../../src/emulator/index.js';
import { startTestEmulator } from '../helpers/emulator.js';

const ADMIN = 'discovery-admin-token-01';
const OWNER = 'discovery-owner-token-01';
const DEV = 'discovery-dev-token-0001';
const OUTSIDER = 'discovery-out-token-0001';

const SEED: EmulatorSeed = {
  users: [
    { username: 'root', id: 1, admin: true, personal_access_tokens: [{ name: 'a', token: ADMIN, scopes: ['api'] }] },
    { username: 'olivia', id: 2, personal_access_tokens: [{ name: 'o', token: OWNER, scopes: ['api'] }] },
    { username: 'dev', id: 3, personal_access_tokens: [{ name: 'd', token: DEV, scopes: ['read_api'] }] },
    { username: 'out', id: 4, personal_access_tokens: [{ name: 'x', token: OUTSIDER, scopes: ['api'] }] },
  ],
  groups: [
    { full_path: 'platform', id: 10, members: [{ username: 'olivia', access_level: 50 }] },
    { full_path: 'platform/infra', id: 11, visibility: 'internal' },
    { full_path: 'platform/infra/deep', id: 12 },
    { full_path: 'platform/teams', id: 13, members: [{ username: 'dev', access_level: 30 }] },
    { full_path: 'other', id: 20, members: [{ username: 'out', access_level: 50 }] },
  ],
  projects: [
    { path_with_namespace: 'platform/api', id: 40, files: { 'README.md': 'api\n' } },
    { path_with_namespace: 'platform/web', id: 41, visibility: 'public', files: { 'index.html': 'hi\n' } },
    { path_with_namespace: 'platform/old', id: 42, archived: true, files: { 'README.md': 'old\n' } },
    { path_with_namespace: 'platform/infra/db', id: 43 },
    { path_with_namespace: 'platform/infra/deep/cache', id: 44, archived: true },
    { path_with_namespace: 'platform/teams/tools', id: 45, visibility: 'internal' },
    { path_with_namespace: 'other/shared-lib', id: 50, shared_with_groups: [{ full_path: 'platform', group_access: 20 }] },
    { path_with_namespace: 'other/secret', id: 51 },
  ],
};

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function start(opts: EmulatorOptions = {}): Promise<Api> {
  emulator = await startTestEmulator({ seed: SEED, now: () => new Date('2025-06-15T12:00:00.000Z'), ...opts });
  return new Api(emulator);
}

const projects = (body: unknown): string[] => (body as { path_with_namespace: string }[]).map((p) => p.path_with_namespace);
const groups = (body: unknown): string[] => (body as { full_path: string }[]).map((g) => g.full_path);

describe('GET /groups/:id/projects', () => {
  it("lists the group's own projects and the projects shared with it, newest first, by default", async () => {
    const api = await start();
    const r = await api.get('/groups/platform/projects', { token: ADMIN });
    expect(r.status).toBe(200);
    // created_at desc, the id desc breaking the tie (every seeded project starts at the same time).
    expect(projects(r.body)).toEqual(['other/shared-lib', 'platform/old', 'platform/web', 'platform/api']);
  });

  it('leaves out the shared projects with with_shared=false', async () => {
    const api = await start();
    const r = await api.get('/groups/10/projects?with_shared=false', { token: ADMIN });
    expect(projects(r.body)).toEqual(['platform/old', 'platform/web', 'platform/api']);
  });

  it('includes the projects of every descendant group with include_subgroups=true, but shares only of the group itself', async () => {
    const api = await start();
    const r = await api.get('/groups/platform/projects?include_subgroups=true&order_by=path&sort=asc', { token: ADMIN });
    expect(projects(r.body)).toEqual([
      'platform/api',
      'platform/infra/deep/cache',
      'platform/infra/db',
      'platform/old',
      'other/shared-lib',
      'platform/teams/tools',
      'platform/web',
    ]);
    const infra = await api.get(`/groups/${encodeURIComponent('platform/infra')}/projects?include_subgroups=true&order_by=id&sort=asc`, { token: ADMIN });
    expect(projects(infra.body)).toEqual(['platform/infra/db', 'platform/infra/deep/cache']);
  });

  it('filters on archived=true and archived=false, and lists both when archived is absent', async () => {
    const api = await start();
    const q = 'include_subgroups=true&with_shared=false&order_by=id&sort=asc';
    expect(projects((await api.get(`/groups/platform/projects?${q}&archived=false`, { token: ADMIN })).body)).toEqual([
      'platform/api',
      'platform/web',
      'platform/infra/db',
      'platform/teams/tools',
    ]);
    expect(projects((await api.get(`/groups/platform/projects?${q}&archived=true`, { token: ADMIN })).body)).toEqual([
      'platform/old',
      'platform/infra/deep/cache',
    ]);
    expect((await api.get(`/groups/platform/projects?${q}`, { token: ADMIN })).body).toHaveLength(6);
  });

  it('shows the archived flag in the full entity and the short entity without it with simple=true', async () => {
    const api = await start();
    const full = await api.get('/groups/platform/projects?with_shared=false&order_by=id&sort=asc&per_page=1&page=3', { token: ADMIN });
    expect(full.body[0]).toMatchObject({ id: 42, path_with_namespace: 'platform/old', archived: true, visibility: 'private', default_branch: 'main' });
    const simple = await api.get('/groups/platform/projects?with_shared=false&simple=true&order_by=id&sort=asc&per_page=1', { token: ADMIN });
    expect(Object.keys(simple.body[0]).sort()).toEqual([
      'avatar_url',
      'created_at',
      'default_branch',
      'description',
      'forks_count',
      'http_url_to_repo',
      'id',
      'last_activity_at',
      'name',
      'name_with_namespace',
      'namespace',
      'path',
      'path_with_namespace',
      'readme_url',
      'ssh_url_to_repo',
      'star_count',
      'tag_list',
      'topics',
      'web_url',
    ]);
    expect(simple.body[0]).toMatchObject({ id: 40, path_with_namespace: 'platform/api', default_branch: 'main', web_url: `${emulator!.url}/platform/api` });
  });

  it('lists only the projects the caller can see: members, shares, internal and public projects', async () => {
    const api = await start();
    const q = 'include_subgroups=true&order_by=id&sort=asc';
    // Owner of platform: every project below it, and the one shared with it (Reporter through the share).
    expect(projects((await api.get(`/groups/platform/projects?${q}`, { token: OWNER })).body)).toEqual([
      'platform/api',
      'platform/web',
      'platform/old',
      'platform/infra/db',
      'platform/infra/deep/cache',
      'platform/teams/tools',
      'other/shared-lib',
    ]);
    // A member of platform/teams only: the public and internal projects.
    expect(projects((await api.get(`/groups/platform/projects?${q}`, { token: DEV })).body)).toEqual(['platform/web', 'platform/teams/tools']);
    // A group the caller cannot see is not found, whatever it holds.
    expect(await api.get('/groups/platform/projects', { token: OUTSIDER })).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
    expect(await api.get('/groups/platform/projects')).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
  });

  it('refuses a boolean or an order it does not know, as Grape does', async () => {
    const api = await start();
    expect(await api.get('/groups/platform/projects?archived=maybe&order_by=stars', { token: ADMIN })).toMatchObject({
      status: 400,
      body: { error: 'archived is invalid, order_by does not have a valid value' },
    });
    expect(await api.get('/groups/nope/projects', { token: ADMIN })).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
  });

  it('paginates with the usual headers, 100 at most per page', async () => {
    const api = await start();
    const r = await api.get('/groups/platform/projects?include_subgroups=true&per_page=2&page=2', { token: ADMIN });
    expect(r.body).toHaveLength(2);
    expect([r.headers.get('x-total'), r.headers.get('x-total-pages'), r.headers.get('x-page'), r.headers.get('x-next-page'), r.headers.get('x-prev-page')]).toEqual([
      '7',
      '4',
      '2',
      '3',
      '1',
    ]);
    expect(r.headers.get('link')).toContain('rel="last"');
    const big = await api.get('/groups/platform/projects?per_page=500', { token: ADMIN });
    expect(big.headers.get('x-per-page')).toBe('100');
  });

  it('leaves out X-Total, X-Total-Pages and rel="last" above the count limit, keeping X-Next-Page and rel="next"', async () => {
    const api = await start({ paginationCountLimit: 6 });
    const over = await api.get('/groups/platform/projects?include_subgroups=true&per_page=3', { token: ADMIN });
    expect(over.body).toHaveLength(3);
    expect([over.headers.get('x-total'), over.headers.get('x-total-pages'), over.headers.get('x-next-page'), over.headers.get('x-page')]).toEqual([null, null, '2', '1']);
    expect(over.headers.get('link')).toContain('rel="next"');
    expect(over.headers.get('link')).not.toContain('rel="last"');
    const end = await api.get('/groups/platform/projects?include_subgroups=true&per_page=3&page=3', { token: ADMIN });
    expect([end.body.length, end.headers.get('x-next-page')]).toEqual([1, '']);
    // At the limit the service still counts.
    const at = await api.get('/groups/platform/projects?include_subgroups=true&with_shared=false', { token: ADMIN });
    expect([at.headers.get('x-total'), at.headers.get('x-total-pages')]).toEqual(['6', '1']);
  });
});

describe('GET /groups/:id/subgroups and /descendant_groups', () => {
  it('lists the direct children, then every depth, ordered by name', async () => {
    const api = await start();
    expect(groups((await api.get('/groups/platform/subgroups', { token: ADMIN })).body)).toEqual(['platform/infra', 'platform/teams']);
    expect(groups((await api.get('/groups/platform/descendant_groups', { token: ADMIN })).body)).toEqual([
      'platform/infra/deep',
      'platform/infra',
      'platform/teams',
    ]);
    expect(groups((await api.get(`/groups/${encodeURIComponent('platform/infra')}/subgroups`, { token: ADMIN })).body)).toEqual(['platform/infra/deep']);
  });

  it('takes search, order_by, sort and skip_groups', async () => {
    const api = await start();
    expect(groups((await api.get('/groups/platform/descendant_groups?search=ea', { token: ADMIN })).body)).toEqual(['platform/teams']);
    expect(groups((await api.get('/groups/platform/descendant_groups?order_by=id&sort=desc', { token: ADMIN })).body)).toEqual([
      'platform/teams',
      'platform/infra/deep',
      'platform/infra',
    ]);
    expect(groups((await api.get('/groups/platform/descendant_groups?skip_groups[]=12&skip_groups[]=13', { token: ADMIN })).body)).toEqual(['platform/infra']);
    expect(await api.get('/groups/platform/subgroups?order_by=created_at', { token: ADMIN })).toMatchObject({
      status: 400,
      body: { error: 'order_by does not have a valid value' },
    });
  });

  it('shows a member the groups of their memberships, and every group they can see with all_available=true', async () => {
    const api = await start();
    expect(groups((await api.get('/groups/platform/descendant_groups', { token: DEV })).body)).toEqual(['platform/teams']);
    expect(groups((await api.get('/groups/platform/descendant_groups?all_available=true', { token: DEV })).body)).toEqual(['platform/infra', 'platform/teams']);
    // An administrator sees all by default; with all_available=false only their memberships (none).
    expect(groups((await api.get('/groups/platform/descendant_groups?all_available=false', { token: ADMIN })).body)).toEqual([]);
    expect(await api.get('/groups/platform/subgroups', { token: OUTSIDER })).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
  });

  it('paginates the descendants', async () => {
    const api = await start();
    const r = await api.get('/groups/platform/descendant_groups?per_page=2&page=2', { token: ADMIN });
    expect(groups(r.body)).toEqual(['platform/teams']);
    expect([r.headers.get('x-total'), r.headers.get('x-total-pages'), r.headers.get('x-next-page')]).toEqual(['3', '2', '']);
  });
});

describe('writes to an archived project', () => {
  const file = (path: string) => `/projects/${encodeURIComponent('platform/old')}/repository/files/${enc(path)}`;

  it('refuses file create, update and delete with 403, an administrator too, and changes nothing', async () => {
    const api = await start();
    const before = emulator!.state.projectByRef('platform/old')!.repo.commits.size;
    const body = { branch: 'main', content: 'x\n', commit_message: 'm' };
    for (const [method, path] of [
      ['POST', 'NEW.md'],
      ['PUT', 'README.md'],
      ['DELETE', 'README.md'],
    ] as const) {
      const r = await api.call(method, file(path), { token: ADMIN, json: body });
      expect([method, r.status, r.body]).toEqual([method, 403, { message: '403 Forbidden' }]);
    }
    expect(emulator!.state.projectByRef('platform/old')!.repo.commits.size).toBe(before);
    // Parameters are checked first, as Grape does.
    expect((await api.post(file('NEW.md'), { token: ADMIN, json: { content: 'x' } })).status).toBe(400);
    // The same write to a project that is not archived goes through.
    expect((await api.post(`/projects/${encodeURIComponent('platform/api')}/repository/files/NEW.md`, { token: ADMIN, json: body })).status).toBe(201);
  });

  it("refuses a change of the project's Pages settings with 403 but still shows them", async () => {
    const api = await start();
    const pages = `/projects/${encodeURIComponent('platform/old')}/pages`;
    expect(await api.patch(pages, { token: ADMIN, json: { pages_https_only: true } })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect((await api.get(pages, { token: ADMIN })).status).toBe(200);
  });
});
