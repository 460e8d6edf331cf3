/**
 * Conformance of `GET /user` and `GET /personal_access_tokens/self`: not in the spec, so they follow
 * the real v4 API (docs/emulator.md). plumb reads them to know its own credential.
 */
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { ADMIN, ADMIN_READ, EXPIRED, GROUP_API, GROUP_SELF, OWNER, OWNER_READ_REPO, REVOKED, start } from './helpers.js';
import type { Api } from './helpers.js';

let emulator: RunningEmulator;
let api: Api;

beforeEach(async () => {
  ({ emulator, api } = await start());
});
afterEach(() => emulator.close());

describe('GET /personal_access_tokens/self', () => {
  it('describes the token the request authenticated with, without its secret', async () => {
    const r = await api.get('/personal_access_tokens/self', { token: ADMIN });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ name: 'admin-api', scopes: ['api'], user_id: 1, active: true, revoked: false, expires_at: null });
    expect(typeof r.body.id).toBe('number');
    expect(Object.keys(r.body).sort()).toEqual(['active', 'created_at', 'description', 'expires_at', 'id', 'last_used_at', 'name', 'revoked', 'scopes', 'user_id']);
    expect(r.text).not.toContain(ADMIN);
  });

  it('answers a token of any scope, a group access token included', async () => {
    expect((await api.get('/personal_access_tokens/self', { token: OWNER_READ_REPO })).body.scopes).toEqual(['read_repository']);
    const self = await api.get('/personal_access_tokens/self', { token: GROUP_SELF });
    expect(self.status).toBe(200);
    expect(self.body).toMatchObject({ id: 101, name: 'selfie', scopes: ['self_rotate'], expires_at: '2026-02-01' });
  });

  it('answers 401 without a token, or with an expired or revoked one', async () => {
    expect((await api.get('/personal_access_tokens/self')).status).toBe(401);
    expect((await api.get('/personal_access_tokens/self', { token: EXPIRED })).status).toBe(401);
    expect((await api.get('/personal_access_tokens/self', { token: REVOKED })).status).toBe(401);
  });

  it('keeps answering an administrator token without admin_mode once admin mode is on', async () => {
    emulator.state.settings['admin_mode'] = true;
    expect((await api.get('/application/settings', { token: ADMIN })).status).toBe(403);
    expect((await api.get('/personal_access_tokens/self', { token: ADMIN })).status).toBe(200);
  });
});

describe('GET /user', () => {
  it('describes an administrator, with is_admin and bot false', async () => {
    const r = await api.get('/user', { token: ADMIN_READ });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: 1, username: 'root', bot: false, is_admin: true, state: 'active' });
  });

  it('leaves is_admin out for other users', async () => {
    const r = await api.get('/user', { token: OWNER });
    expect(r.body).toMatchObject({ id: 2, username: 'olivia', bot: false });
    expect(r.body).not.toHaveProperty('is_admin');
  });

  it('has avatar_url and created_at, which real clients read (issue 29.13)', async () => {
    const r = await api.get('/user', { token: OWNER });
    // The Gravatar URL of the account's email (SHA-256 of it trimmed and lowercased), as the real default.
    const digest = createHash('sha256').update('olivia@example.test').digest('hex');
    expect(r.body.avatar_url).toBe(`https://www.gravatar.com/avatar/${digest}?s=80&d=identicon`);
    // The instance's start (the standard clock) for a seeded user without created_at.
    expect(r.body.created_at).toBe('2025-06-15T12:00:00.000Z');
    const bot = await api.get('/user', { token: GROUP_API });
    expect(bot.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(bot.body.avatar_url).toMatch(/^https:\/\/www\.gravatar\.com\/avatar\/[0-9a-f]{64}\?s=80&d=identicon$/);
  });

  it("describes a group access token's bot user with bot true and a group_<id>_bot_ name", async () => {
    const r = await api.get('/user', { token: GROUP_API });
    expect(r.status).toBe(200);
    expect(r.body.bot).toBe(true);
    expect(r.body.username).toMatch(/^group_10_bot_/);
  });

  it('needs api, read_api or read_user: 403 insufficient_scope for other scopes, 401 without a token', async () => {
    const r = await api.get('/user', { token: OWNER_READ_REPO });
    expect(r.status).toBe(403);
    expect(r.body.error).toBe('insufficient_scope');
    expect((await api.get('/user', { token: GROUP_SELF })).status).toBe(403);
    expect((await api.get('/user')).status).toBe(401);
  });
});
