/** Discovery against the emulator: a group's projects and subgroups, pages fetched at once. */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient, ApiInvalidResponseError, listDescendantGroups, listGroupProjects, listSubgroups } from '../../src/api/index.js';
import type { ApiClientOptions } from '../../src/api/index.js';
import { startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorOptions, EmulatorSeed, RecordedRequest, RunningEmulator, SeedProject } from '../../src/emulator/index.js';
import { fastSleep, rejection, sendJson, startTinyServer } from './helpers.js';

const TOKEN = 'glpat-discovery-admin-01';
const LATENCY_MS = 30;

/** 230 projects in fleet (every tenth archived), 20 in fleet/sub, 1 archived in fleet/sub/deeper, 1 shared with fleet. */
function seed(): EmulatorSeed {
  const projects: SeedProject[] = [
    ...Array.from({ length: 230 }, (_, i) => ({ path_with_namespace: `fleet/app-${String(i).padStart(3, '0')}`, id: 1000 + i, archived: i % 10 === 9 })),
    ...Array.from({ length: 20 }, (_, i) => ({ path_with_namespace: `fleet/sub/svc-${i}`, id: 2000 + i, files: { 'README.md': 'x\n' } })),
    { path_with_namespace: 'fleet/sub/deeper/x', id: 3000, archived: true },
    { path_with_namespace: 'elsewhere/shared', id: 4000, shared_with_groups: [{ full_path: 'fleet' }] },
  ];
  return {
    users: [{ username: 'root', admin: true, personal_access_tokens: [{ name: 'a', token: TOKEN, scopes: ['api'] }] }],
    groups: [{ full_path: 'fleet', id: 1 }, { full_path: 'fleet/sub', id: 2 }, { full_path: 'fleet/sub/deeper', id: 3 }, { full_path: 'elsewhere', id: 4 }],
    projects,
  };
}

const clients: ApiClient[] = [];
function clientFor(emulator: { url: string }, extra: Partial<ApiClientOptions> = {}): ApiClient {
  const c = new ApiClient({ baseUrl: emulator.url, token: TOKEN, sleep: fastSleep().sleep, random: () => 0.5, ...extra });
  clients.push(c);
  return c;
}
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

async function emulatorWith(opts: EmulatorOptions = {}): Promise<RunningEmulator> {
  return startTestEmulator({ seed: seed(), latencyMs: LATENCY_MS, ...opts });
}

const lists = (emu: RunningEmulator, suffix = '/projects'): RecordedRequest[] => emu.requests.filter((r) => r.path.endsWith(suffix));
const page = (r: RecordedRequest): string | null => new URLSearchParams(r.query).get('page');

describe('listGroupProjects', () => {
  let emu: RunningEmulator;
  beforeAll(async () => {
    emu = await emulatorWith();
  });
  afterAll(() => emu.close());
  beforeEach(() => {
    emu.clearFaults();
    emu.resetRequests();
  });

  it('lists the non-archived projects of a group and its subgroups over three pages: the first alone, then the other two at once', async () => {
    const refs = await listGroupProjects(clientFor(emu), 'fleet', { includeSubgroups: true });
    expect(refs).toHaveLength(227);
    expect(refs.every((r) => !r.archived)).toBe(true);
    expect(refs.map((r) => r.id)).toEqual([...refs.map((r) => r.id)].sort((a, b) => a - b));
    expect(refs.find((r) => r.path_with_namespace === 'fleet/sub/svc-0')).toEqual({ id: 2000, path_with_namespace: 'fleet/sub/svc-0', archived: false, default_branch: 'main', namespace_id: 2, name: 'svc-0', web_url: `${emu.url}/fleet/sub/svc-0` });
    expect(refs.some((r) => r.path_with_namespace === 'elsewhere/shared' || r.path_with_namespace === 'fleet/app-009')).toBe(false);

    const [first, second, third, ...more] = lists(emu);
    expect(more).toEqual([]);
    expect([first, second, third].map(page).sort()).toEqual(['2', '3', null].sort());
    expect(Object.fromEntries(new URLSearchParams(first!.query))).toEqual({
      per_page: '100',
      include_subgroups: 'true',
      with_shared: 'false',
      order_by: 'id',
      sort: 'asc',
      archived: 'false',
      simple: 'true',
    });
    // Page 1 is answered before the others are asked for; pages 2 and 3 are in flight together.
    expect(page(first!)).toBe(null);
    expect(second!.receivedMs).toBeGreaterThanOrEqual(first!.answeredMs);
    expect(third!.receivedMs).toBeLessThan(second!.answeredMs);
    expect(emu.maxInFlight).toBe(2);
  });

  it("keeps at most the client's concurrency of pages in flight", async () => {
    const refs = await listGroupProjects(clientFor(emu, { concurrency: 3, perPage: 20 }), 'fleet', { includeSubgroups: true });
    expect(refs).toHaveLength(227);
    expect(new Set(refs.map((r) => r.id)).size).toBe(227);
    expect(lists(emu)).toHaveLength(12);
    expect(emu.maxInFlight).toBe(3);
  });

  it('lists only the archived projects with archived: only, and both with archived: include (the flag read from each project)', async () => {
    const client = clientFor(emu);
    const only = await listGroupProjects(client, 'fleet', { includeSubgroups: true, archived: 'only' });
    expect(only.map((r) => r.path_with_namespace)).toEqual([...Array.from({ length: 23 }, (_, i) => `fleet/app-${String(i * 10 + 9).padStart(3, '0')}`), 'fleet/sub/deeper/x']);
    expect(only.every((r) => r.archived)).toBe(true);
    emu.resetRequests();
    const both = await listGroupProjects(client, 'fleet', { includeSubgroups: true, archived: 'include' });
    expect([both.length, both.filter((r) => r.archived).length]).toEqual([251, 24]);
    const q = new URLSearchParams(lists(emu)[0]!.query);
    expect([q.has('archived'), q.has('simple')]).toEqual([false, false]);
  });

  it("lists only the group's own projects without includeSubgroups", async () => {
    const refs = await listGroupProjects(clientFor(emu), 'fleet');
    expect(refs).toHaveLength(207);
    expect(refs.every((r) => r.path_with_namespace.startsWith('fleet/app-'))).toBe(true);
  });

  it('retries a page that fails and still returns every project once', async () => {
    emu.addFault({ method: 'GET', path: '/groups/fleet/projects', nth: 2, action: { kind: 'status', status: 503 } });
    const refs = await listGroupProjects(clientFor(emu), 'fleet', { includeSubgroups: true });
    expect(new Set(refs.map((r) => r.id)).size).toBe(227);
    expect(lists(emu).map((r) => r.status).sort()).toEqual([200, 200, 200, 503]);
  });

  it('is a not-found error for a group the credential cannot see', async () => {
    const err = await rejection(listGroupProjects(clientFor(emu), 'nope'));
    expect(err).toMatchObject({ code: 'PLUMB_API_NOT_FOUND', status: 404 });
  });
});

describe('listGroupProjects above the count limit', () => {
  it('follows X-Next-Page one page at a time when the first page does not say how many there are', async () => {
    const emu = await emulatorWith({ paginationCountLimit: 100 });
    try {
      const refs = await listGroupProjects(clientFor(emu), 'fleet', { includeSubgroups: true });
      expect(refs).toHaveLength(227);
      const requests = lists(emu);
      expect(requests.map(page)).toEqual([null, '2', '3']);
      expect(requests[1]!.receivedMs).toBeGreaterThanOrEqual(requests[0]!.answeredMs);
      expect(requests[2]!.receivedMs).toBeGreaterThanOrEqual(requests[1]!.answeredMs);
      expect(emu.maxInFlight).toBe(1);
    } finally {
      await emu.close();
    }
  });
});

describe('listSubgroups and listDescendantGroups', () => {
  it('list the direct children, then every depth, by id, with every group the credential can see', async () => {
    const emu = await emulatorWith({ latencyMs: 0 });
    try {
      const client = clientFor(emu);
      const sub = { id: 2, full_path: 'fleet/sub', parent_id: 1, name: 'sub', web_url: `${emu.url}/groups/fleet/sub` };
      expect(await listSubgroups(client, 'fleet')).toEqual([sub]);
      expect(await listDescendantGroups(client, 'fleet')).toEqual([sub, { id: 3, full_path: 'fleet/sub/deeper', parent_id: 2, name: 'deeper', web_url: `${emu.url}/groups/fleet/sub/deeper` }]);
      expect(lists(emu, '/descendant_groups').map((r) => Object.fromEntries(new URLSearchParams(r.query)))).toEqual([
        { per_page: '100', all_available: 'true', order_by: 'id', sort: 'asc' },
      ]);
    } finally {
      await emu.close();
    }
  });
});

describe('defensive reading of the lists', () => {
  it('reads past the counted last page when it still points to a next one, keeps a project listed twice once and ignores unknown fields', async () => {
    const project = (id: number) => ({ id, path_with_namespace: `g/p${id}`, default_branch: 'main', novel_field: { x: 1 } });
    const server = await startTinyServer((req, res) => {
      const p = new URL(req.url, 'http://x').searchParams.get('page') ?? '1';
      // The list grew after page 1 was counted: page 2 repeats project 2 and points to page 3.
      const pages: Record<string, [unknown[], Record<string, string>]> = {
        '1': [[project(1), project(2)], { 'x-total-pages': '2', 'x-next-page': '2' }],
        '2': [[project(2), project(3)], { 'x-total-pages': '2', 'x-next-page': '3' }],
        '3': [[project(4)], { 'x-next-page': '' }],
      };
      const [body, headers] = pages[p]!;
      sendJson(res, 200, body, headers);
    });
    try {
      const refs = await listGroupProjects(clientFor(server), 'g');
      expect(refs).toEqual([1, 2, 3, 4].map((id) => ({ id, path_with_namespace: `g/p${id}`, archived: false, default_branch: 'main' })));
      expect(server.requests.map((r) => new URL(r.url, 'http://x').searchParams.get('page'))).toEqual([null, '2', '3']);
    } finally {
      await server.close();
    }
  });

  it('refuses a project without its path rather than leaving it out of a selector', async () => {
    const server = await startTinyServer((_req, res) => sendJson(res, 200, [{ id: 1 }], { 'x-total-pages': '1' }));
    try {
      const err = await rejection(listGroupProjects(clientFor(server), 'g'));
      expect(err).toBeInstanceOf(ApiInvalidResponseError);
      expect((err as Error).message).toBe("GET /groups/g/projects returned 200 without each project's id and path_with_namespace");
    } finally {
      await server.close();
    }
  });
});
