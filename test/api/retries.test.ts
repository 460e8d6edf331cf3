/** The retry policy, end to end against the emulator over loopback HTTP. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RequestBudget } from '../../src/api/client.js';
import {
  ApiAmbiguousError,
  ApiBudgetExhaustedError,
  createGroupAccessToken,
  getApplicationSettings,
  getPages,
  listGroupAccessTokens,
  revokeGroupAccessToken,
  rotateGroupAccessToken,
  updateApplicationSettings,
  updatePages,
} from '../../src/api/index.js';
import type { ApiError } from '../../src/api/index.js';
import { PROJECT, startHarness } from './emulator-fixture.js';
import type { Harness } from './emulator-fixture.js';
import { recordChannel, rejection } from './helpers.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const seen = (method: string, path: RegExp): { status: number }[] =>
  h.emulator.requests.filter((r) => r.method === method && path.test(r.path));

async function firstTokenId(): Promise<number> {
  const [token] = await listGroupAccessTokens(h.client, 'platform', { state: 'active' });
  if (!token) throw new Error('seed has no token');
  return token.id;
}

describe('retries against the emulator', () => {
  it('retries a GET answered 503 until it succeeds, with jittered backoff', async () => {
    h.emulator.addFault({ method: 'GET', path: '/application/settings', times: 2, action: { kind: 'status', status: 503 } });
    const settings = await getApplicationSettings(h.client);
    expect(settings.id).toBeTypeOf('number');
    expect(seen('GET', /^\/application\/settings$/).map((r) => r.status)).toEqual([503, 503, 200]);
    // random() = 0.5: half of 250 · 2^(attempt-1)
    expect(h.waits).toEqual([125, 250]);
  });

  it('retries a GET whose connection is dropped before the server handles it', async () => {
    h.emulator.addFault({ method: 'GET', path: '/projects/*/pages', times: 1, action: { kind: 'drop', when: 'before' } });
    const pages = await getPages(h.client, PROJECT);
    expect(pages.deployments).toHaveLength(1);
    expect(seen('GET', /\/pages$/).map((r) => r.status)).toEqual([0, 200]);
  });

  it('retries the idempotent settings PUT on 504 and the Pages PATCH on a dropped response', async () => {
    h.emulator.addFault({ method: 'PUT', path: '/application/settings', times: 1, action: { kind: 'status', status: 504 } });
    h.emulator.addFault({ method: 'PATCH', path: '/projects/*/pages', times: 1, action: { kind: 'drop', when: 'after' } });
    const settings = await updateApplicationSettings(h.client, { signup_enabled: false });
    expect(settings['signup_enabled']).toBe(false);
    const pages = await updatePages(h.client, PROJECT, { pages_https_only: false });
    expect(pages.force_https).toBe(false);
    expect(seen('PUT', /settings$/).map((r) => r.status)).toEqual([504, 200]);
    expect(seen('PATCH', /pages$/).map((r) => r.status)).toEqual([0, 200]);
  });

  it('retries a token create answered 429, waiting the Retry-After seconds, and creates it once', async () => {
    h.emulator.addFault({
      method: 'POST',
      path: '/groups/*/access_tokens',
      times: 1,
      action: { kind: 'status', status: 429, retryAfter: 7 },
    });
    const created = await createGroupAccessToken(h.client, 'platform', { name: 'deploy', scopes: ['read_api'] });
    expect(created.token).toBeTypeOf('string');
    expect(h.waits).toEqual([7_000]);
    expect(seen('POST', /access_tokens$/).map((r) => r.status)).toEqual([429, 201]);
    expect(h.emulator.state.tokens.filter((t) => t.name === 'deploy')).toHaveLength(1);
  });

  it('does not repeat a token rotation whose response was lost, and reports it as ambiguous', async () => {
    const id = await firstTokenId();
    h.emulator.addFault({ method: 'POST', path: '/groups/*/access_tokens/*/rotate', action: { kind: 'drop', when: 'after' } });
    const retries = recordChannel('plumb:api:retry');
    const err = await rejection<ApiAmbiguousError>(rotateGroupAccessToken(h.client, 'platform', id));
    retries.stop();

    expect(err).toBeInstanceOf(ApiAmbiguousError);
    expect(err).toMatchObject({ code: 'PLUMB_API_AMBIGUOUS', reason: 'connection-lost', method: 'POST', attempts: 1 });
    expect(err.path).toBe(`/groups/platform/access_tokens/${id}/rotate`);
    expect(seen('POST', /\/rotate$/)).toHaveLength(1);
    expect(retries.messages).toEqual([]);
    // Exactly one rotation happened: the old token revoked, one successor, and the family intact.
    const successors = h.emulator.state.tokens.filter((t) => t.previousId === id);
    expect(successors).toHaveLength(1);
    expect(successors[0]?.revoked).toBe(false);
    expect(h.emulator.state.tokenById(id)?.revoked).toBe(true);
  });

  it('treats a 502 on a token create as ambiguous and does not send it again', async () => {
    h.emulator.addFault({ method: 'POST', path: '/groups/*/access_tokens', action: { kind: 'status', status: 502 } });
    const err = await rejection<ApiAmbiguousError>(
      createGroupAccessToken(h.client, 'platform', { name: 'once', scopes: ['read_api'] }),
    );
    expect(err).toMatchObject({ code: 'PLUMB_API_AMBIGUOUS', reason: 'gateway-status', status: 502 });
    expect(seen('POST', /access_tokens$/)).toHaveLength(1);
  });

  it('does not repeat a revoke whose connection drops, even when the server never saw it', async () => {
    const id = await firstTokenId();
    h.emulator.addFault({ method: 'DELETE', path: '/groups/*/access_tokens/*', action: { kind: 'drop', when: 'before' } });
    const err = await rejection<ApiError>(revokeGroupAccessToken(h.client, 'platform', id));
    expect(err.code).toBe('PLUMB_API_AMBIGUOUS');
    expect(seen('DELETE', /access_tokens/)).toHaveLength(1);
    expect(h.emulator.state.tokenById(id)?.revoked).toBe(false);
  });

  it('stops at maxAttempts and reports the last status', async () => {
    const client = h.clientWith({ maxAttempts: 3 });
    h.emulator.addFault({ method: 'GET', path: '/application/settings', action: { kind: 'status', status: 503 } });
    const err = await rejection<ApiError>(getApplicationSettings(client));
    expect(err).toMatchObject({ code: 'PLUMB_API_SERVER', status: 503, attempts: 3, serverMessage: '503 Service Unavailable' });
    expect(seen('GET', /settings$/)).toHaveLength(3);
  });

  it('gives up on a POST still rate limited after maxAttempts and keeps the Retry-After hint', async () => {
    const client = h.clientWith({ maxAttempts: 2 });
    h.emulator.addFault({
      method: 'POST',
      path: '/groups/*/access_tokens',
      action: { kind: 'status', status: 429, retryAfter: 120 },
    });
    const err = await rejection<ApiError>(createGroupAccessToken(client, 'platform', { name: 'x', scopes: ['api'] }));
    expect(err).toMatchObject({ code: 'PLUMB_API_RATE_LIMITED', status: 429, attempts: 2, retryAfter: 120_000 });
    // 120 s asked, clamped to maxRetryAfterMs (60 s).
    expect(h.waits).toEqual([60_000]);
    expect(seen('POST', /access_tokens$/)).toHaveLength(2);
  });

  it('reports a rotation that times out as ambiguous without sending it twice', async () => {
    const id = await firstTokenId();
    const client = h.clientWith({ requestTimeoutMs: 100 });
    h.emulator.addFault({ method: 'POST', path: '/groups/*/access_tokens/*/rotate', action: { kind: 'latency', ms: 400 } });
    const err = await rejection<ApiAmbiguousError>(rotateGroupAccessToken(client, 'platform', id));
    expect(err).toMatchObject({ code: 'PLUMB_API_AMBIGUOUS', reason: 'timeout' });
    expect(seen('POST', /\/rotate$/)).toHaveLength(0); // the server is still "working" on it
    await vi.waitFor(() => expect(seen('POST', /\/rotate$/)).toHaveLength(1), { timeout: 3_000 });
  });
});

describe('a request budget (plumb report --max-requests)', () => {
  it('counts every attempt, retries included, and refuses the request past it without sending it', async () => {
    const budget = new RequestBudget(3);
    const client = h.clientWith({ budget });
    h.emulator.addFault({ method: 'GET', path: '/application/settings', times: 1, action: { kind: 'status', status: 503 } });
    await getApplicationSettings(client);
    expect(budget.used).toBe(2);
    await getPages(client, PROJECT);
    expect(budget).toMatchObject({ used: 3, exhausted: false });
    const before = h.emulator.requests.length;
    const err = await rejection(getPages(client, PROJECT));
    expect(err).toBeInstanceOf(ApiBudgetExhaustedError);
    expect(err).toMatchObject({ code: 'PLUMB_API_BUDGET_EXHAUSTED', message: `GET /projects/${encodeURIComponent(PROJECT)}/pages was not sent: the budget of 3 request(s) (--max-requests) is spent` });
    expect(h.emulator.requests.length).toBe(before);
    expect(budget).toMatchObject({ used: 3, exhausted: true });
  });

  it('is shared by the clients of a run', async () => {
    const budget = new RequestBudget(2);
    await getApplicationSettings(h.clientWith({ budget }));
    await getApplicationSettings(h.clientWith({ budget }));
    await expect(getApplicationSettings(h.clientWith({ budget }))).rejects.toBeInstanceOf(ApiBudgetExhaustedError);
  });
});
