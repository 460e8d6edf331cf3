/**
 * Conformance: GET /groups (real v4 behaviour; the spec does not show it). plumb export lists the
 * groups whose tokens it may manage with `min_access_level=50`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN, OUTSIDER, OWNER, MAINTAINER, start, type Api } from './helpers.js';
import type { RunningEmulator } from '../../src/emulator/index.js';

let emulator: RunningEmulator;
let api: Api;

beforeEach(async () => {
  ({ emulator, api } = await start());
});
afterEach(() => emulator.close());

const paths = (body: unknown): string[] => (body as { full_path: string }[]).map((g) => g.full_path);

describe('GET /groups', () => {
  it('with min_access_level=50 lists the groups the caller owns, subgroups with an inherited Owner role included', async () => {
    const r = await api.get('/groups?min_access_level=50&order_by=path', { token: OWNER });
    expect(r.status).toBe(200);
    expect(paths(r.body)).toEqual(['platform', 'platform/infra']);
    expect((r.body as Record<string, unknown>[])[1]).toMatchObject({ id: 11, path: 'infra', full_path: 'platform/infra', parent_id: 10 });
  });

  it('with owned=true lists only the groups the caller is a direct Owner of', async () => {
    const r = await api.get('/groups?owned=true', { token: OWNER });
    expect(paths(r.body)).toEqual(['platform']);
  });

  it('counts only memberships for min_access_level, also for an administrator who sees every group', async () => {
    expect(paths((await api.get('/groups?order_by=id', { token: ADMIN })).body)).toEqual(['platform', 'platform/infra', 'other']);
    expect(paths((await api.get('/groups?min_access_level=50', { token: ADMIN })).body)).toEqual([]);
    expect(paths((await api.get('/groups?min_access_level=50', { token: MAINTAINER })).body)).toEqual([]);
  });

  it('never lists a private group the caller cannot see', async () => {
    expect(paths((await api.get('/groups', { token: OUTSIDER })).body)).toEqual(['other']);
  });

  it('paginates with the usual headers and sorts descending on request', async () => {
    const r = await api.get('/groups?order_by=id&sort=desc&per_page=1&page=2', { token: ADMIN });
    expect(paths(r.body)).toEqual(['platform/infra']);
    expect(r.headers.get('x-total')).toBe('3');
    expect(r.headers.get('x-next-page')).toBe('3');
  });

  it('answers 400 naming a min_access_level that is not a role', async () => {
    const r = await api.get('/groups?min_access_level=45', { token: OWNER });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: 'min_access_level does not have a valid value' });
  });
});
