/**
 * Conformance: the settings that switch behaviour on are enforced on the emulator clock:
 * maintenance_mode, the API throttles and raw_blob_request_limit (issue 9, item 2).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN, DEVELOPER, MAINTAINER, OWNER, REPORTER, enc, start, type Api, type Clock } from './helpers.js';
import type { RunningEmulator } from '../../src/emulator/index.js';

let emulator: RunningEmulator;
let api: Api;
let clock: Clock;

beforeEach(async () => {
  ({ emulator, api, clock } = await start());
});
afterEach(() => emulator.close());

const P = '/projects/platform%2Finfra%2Fconfig';
const file = (path: string, suffix = ''): string => `${P}/repository/files/${enc(path)}${suffix}`;
const TOKENS = '/groups/platform/access_tokens';

async function settings(values: Record<string, unknown>): Promise<void> {
  const r = await api.put('/application/settings', { token: ADMIN, json: values });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

describe('maintenance_mode: non-admins get read-only access', () => {
  beforeEach(() => settings({ maintenance_mode: true }));

  it('refuses a write by a non-administrator with 403 and the read-only message, and does nothing', async () => {
    const r = await api.post(file('new.txt'), { token: MAINTAINER, json: { branch: 'main', commit_message: 'x', content: 'x' } });
    expect(r.status).toBe(403);
    expect(r.headers.get('content-type')).toMatch(/application\/json/);
    expect(r.body).toEqual({ message: 'You cannot perform write operations on a read-only instance' });
    expect((await api.get(file('new.txt'), { token: REPORTER, query: 'ref=main' })).status).toBe(404);
  });

  it('refuses every write method (POST, PUT, PATCH, DELETE) of a non-administrator', async () => {
    const statuses = [
      (await api.post(TOKENS, { token: OWNER, json: { name: 'x', scopes: ['api'] } })).status,
      (await api.put(file('README.md'), { token: MAINTAINER, json: { branch: 'main', commit_message: 'x', content: 'y' } })).status,
      (await api.patch('/projects/platform%2Fsite/pages', { token: OWNER, json: { pages_https_only: false } })).status,
      (await api.delete(`${TOKENS}/100`, { token: OWNER })).status,
    ];
    expect(statuses).toEqual([403, 403, 403, 403]);
    expect((await api.get(`${TOKENS}/100`, { token: OWNER })).body.revoked).toBe(false);
  });

  it('refuses an anonymous write the same way', async () => {
    expect((await api.delete(`${TOKENS}/100`)).body).toEqual({ message: 'You cannot perform write operations on a read-only instance' });
  });

  it('still serves reads to everyone', async () => {
    expect((await api.get(file('README.md'), { token: DEVELOPER, query: 'ref=main' })).status).toBe(200);
    expect((await api.get(TOKENS, { token: OWNER })).status).toBe(200);
  });

  it('lets administrators write, and switch it off', async () => {
    expect((await api.post(TOKENS, { token: ADMIN, json: { name: 'x', scopes: ['api'] } })).status).toBe(201);
    await settings({ maintenance_mode: false });
    expect((await api.delete(`${TOKENS}/100`, { token: OWNER })).status).toBe(204);
  });

  it('is not enforced on the free tier, where the setting does not exist', async () => {
    const { emulator: e, api: a } = await start({ tier: 'free', seed: { ...(await import('./helpers.js')).SEED, settings: { maintenance_mode: true } } });
    try {
      expect((await a.delete(`${TOKENS}/100`, { token: OWNER })).status).toBe(204);
    } finally {
      await e.close();
    }
  });
});

describe('API throttles: 429 with Retry-After and the configured plain-text body', () => {
  it('throttles an authenticated user past throttle_authenticated_api_requests_per_period in the period', async () => {
    clock.current = new Date('2025-06-15T12:00:10.000Z');
    await settings({ throttle_authenticated_api_enabled: true, throttle_authenticated_api_requests_per_period: 3, throttle_authenticated_api_period_in_seconds: 60 });
    // The PUT that switched it on was not counted: the throttle was off when it came in.
    for (let i = 0; i < 3; i++) expect((await api.get(TOKENS, { token: ADMIN })).status).toBe(200);
    const r = await api.get(TOKENS, { token: ADMIN });
    expect(r.status).toBe(429);
    expect(r.headers.get('content-type')).toBe('text/plain');
    expect(r.text).toBe('Retry later\n');
    expect(r.headers.get('retry-after')).toBe('50');
    expect(r.headers.get('ratelimit-name')).toBe('throttle_authenticated_api');
    expect(r.headers.get('ratelimit-limit')).toBe('3');
    expect(r.headers.get('ratelimit-observed')).toBe('4');
    expect(r.headers.get('ratelimit-remaining')).toBe('0');
    expect(r.headers.get('ratelimit-reset')).toBe(String(Date.parse('2025-06-15T12:01:00.000Z') / 1000));
    expect(r.headers.get('ratelimit-resettime')).toBe('Sun, 15 Jun 2025 12:01:00 GMT');
  });

  it('counts per user, not per instance', async () => {
    await settings({ throttle_authenticated_api_enabled: true, throttle_authenticated_api_requests_per_period: 1, throttle_authenticated_api_period_in_seconds: 600 });
    expect((await api.get(TOKENS, { token: ADMIN })).status).toBe(200);
    expect((await api.get(TOKENS, { token: ADMIN })).status).toBe(429);
    expect((await api.get(TOKENS, { token: OWNER })).status).toBe(200);
    expect((await api.get(TOKENS, { token: OWNER })).status).toBe(429);
  });

  it('sends the configured rate_limiting_response_text and does not perform a throttled write', async () => {
    await settings({
      rate_limiting_response_text: 'Slow down, please.',
      throttle_authenticated_api_enabled: true,
      throttle_authenticated_api_requests_per_period: 1,
      throttle_authenticated_api_period_in_seconds: 60,
    });
    expect((await api.delete(`${TOKENS}/100`, { token: OWNER })).status).toBe(204);
    const r = await api.delete(`${TOKENS}/101`, { token: OWNER });
    expect(r).toMatchObject({ status: 429, text: 'Slow down, please.\n' });
    clock.advance(60_000);
    expect((await api.get(`${TOKENS}/101`, { token: OWNER })).body.revoked).toBe(false);
  });

  it('opens a new window when the period has passed on the emulator clock', async () => {
    clock.current = new Date('2025-06-15T12:00:00.000Z');
    await settings({ throttle_authenticated_api_enabled: true, throttle_authenticated_api_requests_per_period: 1, throttle_authenticated_api_period_in_seconds: 60 });
    expect((await api.get(TOKENS, { token: ADMIN })).status).toBe(200);
    const first = await api.get(TOKENS, { token: ADMIN });
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('60');
    clock.advance(59_999);
    expect((await api.get(TOKENS, { token: ADMIN })).headers.get('retry-after')).toBe('1');
    clock.advance(1);
    expect((await api.get(TOKENS, { token: ADMIN })).status).toBe(200);
  });

  it('throttles anonymous requests per IP with throttle_unauthenticated_api_*', async () => {
    await settings({ throttle_unauthenticated_api_enabled: true, throttle_unauthenticated_api_requests_per_period: 2, throttle_unauthenticated_api_period_in_seconds: 3600 });
    const pub = `/projects/platform%2Fsite/repository/files/index%2Ehtml`;
    expect((await api.get(pub, { query: 'ref=main' })).status).toBe(200);
    expect((await api.get(pub, { query: 'ref=main' })).status).toBe(200);
    const r = await api.get(pub, { query: 'ref=main' });
    expect(r.status).toBe(429);
    expect(r.headers.get('ratelimit-name')).toBe('throttle_unauthenticated_api');
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await api.get(TOKENS, { token: OWNER })).status).toBe(200);
  });

  it('is off by default, as in the real service, so plumb is never throttled unasked', async () => {
    const s = (await api.get('/application/settings', { token: ADMIN })).body;
    expect(s.throttle_authenticated_api_enabled).toBe(false);
    expect(s.throttle_unauthenticated_api_enabled).toBe(false);
    expect(s).toMatchObject({ throttle_authenticated_api_requests_per_period: 7200, throttle_authenticated_api_period_in_seconds: 3600 });
    for (let i = 0; i < 50; i++) expect((await api.get(TOKENS, { token: OWNER })).status).toBe(200);
  });
});

describe('raw_blob_request_limit: requests per minute per raw path', () => {
  it('answers 429 with Retry-After past the limit, for that path only, and again after the minute', async () => {
    clock.current = new Date('2025-06-15T12:00:15.000Z');
    await settings({ raw_blob_request_limit: 2 });
    const raw = file('README.md', '/raw');
    expect((await api.get(raw, { token: REPORTER })).status).toBe(200);
    expect((await api.get(raw, { token: OWNER, query: 'ref=feature' })).status).toBe(200);
    const r = await api.get(raw, { token: REPORTER });
    expect(r.status).toBe(429);
    expect(r.body).toEqual({ message: { error: 'This endpoint has been requested too many times. Try again later.' } });
    expect(r.headers.get('retry-after')).toBe('45');
    expect((await api.get(file('scripts/deploy.sh', '/raw'), { token: REPORTER })).status).toBe(200);
    expect((await api.head(raw, { token: REPORTER })).status).toBe(200);
    expect((await api.get(file('README.md'), { token: REPORTER, query: 'ref=main' })).status).toBe(200);
    clock.advance(45_000);
    expect((await api.get(raw, { token: REPORTER })).status).toBe(200);
  });

  it('defaults to 300 and 0 disables it', async () => {
    expect((await api.get('/application/settings', { token: ADMIN })).body.raw_blob_request_limit).toBe(300);
    await settings({ raw_blob_request_limit: 0 });
    for (let i = 0; i < 310; i++) expect((await api.get(file('README.md', '/raw'), { token: REPORTER })).status).toBe(200);
  });
});

describe('GET /version', () => {
  it('answers any signed-in caller with version, revision, kas and enterprise', async () => {
    const r = await api.get('/version', { token: DEVELOPER });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      version: '18.2.0',
      revision: 'emulator',
      kas: { enabled: false, externalUrl: null, externalK8sProxyUrl: null, version: null },
      enterprise: true,
    });
  });

  it('is 401 without a token', async () => {
    expect(await api.get('/version')).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
  });

  it('reports the seeded instance version and enterprise false on the free tier', async () => {
    const { SEED } = await import('./helpers.js');
    const { emulator: e, api: a } = await start({ tier: 'free', seed: { ...SEED, instance: { version: '17.11.3' } } });
    try {
      expect((await a.get('/version', { token: DEVELOPER })).body).toMatchObject({ version: '17.11.3', enterprise: false });
    } finally {
      await e.close();
    }
  });
});

describe('?private_token= credentials', () => {
  it('authenticates with the private_token query parameter, as the real API does', async () => {
    const r = await api.get('/application/settings', { query: `private_token=${ADMIN}` });
    expect(r.status).toBe(200);
    expect((await api.get('/application/settings', { query: 'private_token=wrong-token-value' })).status).toBe(401);
  });

  it('never records the token value: the recorded query shows [FILTERED]', async () => {
    emulator.resetRequests();
    await api.get(TOKENS, { query: `per_page=5&private_token=${OWNER}` });
    expect(emulator.requests[0]!.query).toBe('per_page=5&private_token=[FILTERED]');
    expect(JSON.stringify(emulator.requests)).not.toContain(OWNER);
  });

  it('lets the PRIVATE-TOKEN header win over the query parameter', async () => {
    expect((await api.get('/application/settings', { token: ADMIN, query: `private_token=${OWNER}` })).status).toBe(200);
  });
});
