/**
 * Extra route modules (`EmulatorOptions.routes`): how a test-only kind brings its own endpoints
 * without the emulator importing it (test/fixtures/kinds/maintenance/emulator.ts). Not from the
 * spec (the service has no such endpoints); listed in docs/emulator.md.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, requireAdmin } from '../../src/emulator/index.js';
import type { EmulatorRoute } from '../../src/emulator/index.js';
import { ADMIN, ADMIN_READ, OUTSIDER, startStandardEmulator } from '../helpers/emulator.js';
import type { Api, TestEmulator } from '../helpers/emulator.js';

const ROUTES: EmulatorRoute[] = [
  { method: 'GET', pattern: /^\/widgets\/([^/]+)$/, handler: (ctx, [name]) => json(200, { name, by: ctx.caller?.user.username }) },
  {
    method: 'PUT',
    pattern: /^\/widgets\/([^/]+)$/,
    handler: (ctx, [name]) => {
      requireAdmin(ctx.caller);
      return json(200, { name, ...ctx.params });
    },
  },
  // Tries to answer an endpoint the emulator already serves.
  { method: 'GET', pattern: /^\/version$/, handler: () => json(200, { version: 'shadowed' }) },
];

let emulator: TestEmulator;
let api: Api;
beforeAll(async () => {
  ({ emulator, api } = await startStandardEmulator({ routes: ROUTES }));
});
afterAll(async () => {
  await emulator?.close();
});

describe('extra route modules', () => {
  it('serve their endpoints under /api/v4, with URL-decoded arguments, and record the requests', async () => {
    const r = await api.get('/widgets/a%2Fb', { token: ADMIN });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ name: 'a/b', by: 'root' });
    expect(emulator.requests.at(-1)).toMatchObject({ method: 'GET', path: '/widgets/a%2Fb', status: 200 });
  });

  it('go through authentication and the scope checks as every endpoint does', async () => {
    expect((await api.get('/widgets/x', { token: 'not-a-token-of-the-seed' })).status).toBe(401);
    // read_api reads, and may not write (the scope check before the handler).
    expect((await api.get('/widgets/x', { token: ADMIN_READ })).status).toBe(200);
    expect((await api.put('/widgets/x', { token: ADMIN_READ, json: { size: 1 } })).status).toBe(403);
    // The route's own rule (administrators only).
    expect((await api.put('/widgets/x', { token: OUTSIDER, json: { size: 1 } })).status).toBe(403);
    const put = await api.put('/widgets/x', { token: ADMIN, json: { size: 1 } });
    expect(put.body).toEqual({ name: 'x', size: 1 });
    expect((await api.delete('/widgets/x', { token: ADMIN })).status).toBe(405);
  });

  it('never replace an endpoint the emulator serves', async () => {
    const r = await api.get('/version', { token: ADMIN });
    expect(r.status).toBe(200);
    expect((r.body as { version: string }).version).not.toBe('shadowed');
  });

  it('exist only on the emulator they were given to', async () => {
    const { emulator: plain, api: other } = await startStandardEmulator();
    try {
      expect((await other.get('/widgets/x', { token: ADMIN })).status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});
