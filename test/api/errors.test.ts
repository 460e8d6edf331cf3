/** How the client maps the emulator's error answers to typed errors. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiBadRequestError,
  ApiError,
  ApiNotFoundError,
  apiPath,
  createGroupAccessToken,
  getApplicationSettings,
  getFile,
  rotateGroupAccessToken,
  updateApplicationSettings,
} from '../../src/api/index.js';
import { ADMIN_TOKEN, OWNER_TOKEN, PROJECT, startHarness } from './emulator-fixture.js';
import type { Harness } from './emulator-fixture.js';
import { rejection } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

describe('error mapping against the emulator', () => {
  it('maps an unknown token to PLUMB_API_UNAUTHORIZED with the path and the server message', async () => {
    const client = h.clientWith({ token: 'glpat-not-a-real-token-000' });
    const err = await rejection<ApiError>(getApplicationSettings(client));
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({
      code: 'PLUMB_API_UNAUTHORIZED',
      status: 401,
      method: 'GET',
      path: '/application/settings',
      serverMessage: '401 Unauthorized',
      attempts: 1,
    });
    expect(err.message).toBe('GET /application/settings returned 401: 401 Unauthorized');
  });

  it('maps a non-administrator reading settings to PLUMB_API_FORBIDDEN', async () => {
    const err = await rejection<ApiError>(getApplicationSettings(h.clientWith({ token: OWNER_TOKEN })));
    expect(err).toMatchObject({ code: 'PLUMB_API_FORBIDDEN', status: 403 });
  });

  it('maps a missing group and a missing file to PLUMB_API_NOT_FOUND', async () => {
    const group = await rejection<ApiError>(createGroupAccessToken(h.client, 'no/such-group', { name: 'x', scopes: ['api'] }));
    expect(group).toBeInstanceOf(ApiNotFoundError);
    expect(group).toMatchObject({ status: 404, serverMessage: '404 Group Not Found', path: '/groups/no%2Fsuch-group/access_tokens' });
    const file = await rejection<ApiError>(getFile(h.client, PROJECT, 'missing.txt', 'main'));
    expect(file.code).toBe('PLUMB_API_NOT_FOUND');
  });

  it('exposes field-keyed messages of a rejected settings update as fieldErrors', async () => {
    const err = await rejection<ApiBadRequestError>(
      updateApplicationSettings(h.client, { deletion_adjourned_period: 500, asciidoc_max_includes: 1_000 }),
    );
    expect(err).toBeInstanceOf(ApiBadRequestError);
    expect(err.code).toBe('PLUMB_API_BAD_REQUEST');
    expect(Object.keys(err.fieldErrors).sort()).toEqual(['asciidoc_max_includes', 'deletion_adjourned_period']);
    expect(err.fieldErrors['deletion_adjourned_period']?.[0]).toMatch(/90/);
    expect(err.serverMessage).toContain('deletion_adjourned_period');
  });

  it('reads a {"error": "..."} parameter error from a create without scopes', async () => {
    const err = await rejection<ApiBadRequestError>(
      h.client.request({ method: 'POST', path: apiPath`/groups/${'platform'}/access_tokens`, body: { name: 'no-scopes' } }),
    );
    expect(err).toMatchObject({ code: 'PLUMB_API_BAD_REQUEST', status: 400, fieldErrors: {} });
    expect(err.serverMessage).toMatch(/scopes is missing/);
  });

  it('maps self-rotation with a personal token to PLUMB_API_METHOD_NOT_ALLOWED', async () => {
    const err = await rejection<ApiError>(rotateGroupAccessToken(h.client, 'platform', 'self'));
    expect(err).toMatchObject({ code: 'PLUMB_API_METHOD_NOT_ALLOWED', status: 405 });
  });

  it('keeps a plain-text error body as the server message', async () => {
    h.emulator.addFault({ method: 'GET', path: '/projects/*/pages', times: 1, action: { kind: 'status', status: 409, body: 'locked\n  by  a deploy' } });
    const err = await rejection<ApiError>(h.client.request({ method: 'GET', path: apiPath`/projects/${PROJECT}/pages` }));
    expect(err).toMatchObject({ code: 'PLUMB_API_CONFLICT', status: 409, serverMessage: 'locked by a deploy' });
  });

  it('never puts the token in an error message, its JSON form or its stack', async () => {
    const err = await rejection<ApiError>(getApplicationSettings(h.clientWith({ token: OWNER_TOKEN })));
    for (const text of [err.message, err.stack ?? '', JSON.stringify(err), String(err.serverMessage)]) {
      expect(text).not.toContain(OWNER_TOKEN);
      expect(text).not.toContain(ADMIN_TOKEN);
    }
  });
});
