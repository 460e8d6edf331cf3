/** Conformance: GET /groups/:id and GET /projects/:id (real v4 behaviour; the spec does not show them). */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN, OUTSIDER, OWNER, start, type Api } from './helpers.js';
import type { RunningEmulator } from '../../src/emulator/index.js';

let emulator: RunningEmulator;
let api: Api;

beforeEach(async () => {
  ({ emulator, api } = await start());
});
afterEach(() => emulator.close());

describe('GET /groups/:id', () => {
  it('finds one group by numeric id, by full path and by full path in another case', async () => {
    const byId = await api.get('/groups/11', { token: OWNER });
    const byPath = await api.get('/groups/platform%2Finfra', { token: OWNER });
    const byCase = await api.get('/groups/Platform%2FInfra', { token: ADMIN });
    for (const r of [byId, byPath, byCase]) {
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ id: 11, path: 'infra', full_path: 'platform/infra', parent_id: 10 });
    }
  });

  it('answers 404 for a group the caller cannot see, never 403', async () => {
    const r = await api.get('/groups/platform', { token: OUTSIDER });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ message: '404 Group Not Found' });
  });
});

describe('GET /projects/:id', () => {
  it('finds one project by numeric id and by path with namespace', async () => {
    for (const ref of ['30', 'platform%2Finfra%2Fconfig']) {
      const r = await api.get(`/projects/${ref}`, { token: ADMIN });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ id: 30, path_with_namespace: 'platform/infra/config', default_branch: 'main', namespace: { id: 11, full_path: 'platform/infra' } });
    }
  });

  it('answers 404 for a private project the caller cannot see', async () => {
    expect((await api.get('/projects/30', { token: OUTSIDER })).status).toBe(404);
  });
});
