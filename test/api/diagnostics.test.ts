/** diagnostics_channel events and NODE_DEBUG output: counted, and free of the token. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  API_REQUEST_CHANNEL,
  API_RESPONSE_CHANNEL,
  API_RETRY_CHANNEL,
  getApplicationSettings,
  listGroupAccessTokens,
} from '../../src/api/index.js';
import type { ApiRequestEvent, ApiResponseEvent, ApiRetryEvent } from '../../src/api/index.js';
import { ADMIN_TOKEN, startHarness } from './emulator-fixture.js';
import type { Harness } from './emulator-fixture.js';
import { recordChannel } from './helpers.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness({ tokens: 150 });
});
afterEach(async () => {
  await h.close();
});

describe('observability', () => {
  it('exports the channel names', () => {
    expect([API_REQUEST_CHANNEL, API_RESPONSE_CHANNEL, API_RETRY_CHANNEL]).toEqual([
      'plumb:api:request',
      'plumb:api:response',
      'plumb:api:retry',
    ]);
  });

  it('publishes one request and one response event per attempt and one retry event per retry', async () => {
    const requests = recordChannel<ApiRequestEvent>(API_REQUEST_CHANNEL);
    const responses = recordChannel<ApiResponseEvent>(API_RESPONSE_CHANNEL);
    const retries = recordChannel<ApiRetryEvent>(API_RETRY_CHANNEL);
    try {
      h.emulator.addFault({ method: 'GET', path: '/application/settings', times: 1, action: { kind: 'status', status: 503 } });
      await getApplicationSettings(h.client);
      await listGroupAccessTokens(h.client, 'platform');
    } finally {
      requests.stop();
      responses.stop();
      retries.stop();
    }
    expect(requests.messages).toEqual([
      { method: 'GET', path: '/application/settings', attempt: 1 },
      { method: 'GET', path: '/application/settings', attempt: 2 },
      { method: 'GET', path: '/groups/platform/access_tokens', attempt: 1 },
      { method: 'GET', path: '/groups/platform/access_tokens', attempt: 1 },
    ]);
    expect(responses.messages.map((m) => [m.path, m.status, m.attempt])).toEqual([
      ['/application/settings', 503, 1],
      ['/application/settings', 200, 2],
      ['/groups/platform/access_tokens', 200, 1],
      ['/groups/platform/access_tokens', 200, 1],
    ]);
    expect(responses.messages.every((m) => typeof m.durationMs === 'number' && m.durationMs >= 0)).toBe(true);
    expect(retries.messages).toEqual([
      { method: 'GET', path: '/application/settings', attempt: 1, delayMs: 125, reason: 'status 503', status: 503 },
    ]);
    const all = JSON.stringify([requests.messages, responses.messages, retries.messages]);
    expect(all).not.toContain(ADMIN_TOKEN);
    expect(all).not.toContain('127.0.0.1');
    expect(all).not.toContain('per_page');
  });

  it('writes NODE_DEBUG=plumb:api lines that never contain the token', async () => {
    h.emulator.addFault({ method: 'GET', path: '/application/settings', times: 1, action: { kind: 'status', status: 502 } });
    const script = fileURLToPath(new URL('./fixtures/debug-run.ts', import.meta.url));
    const { stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script], {
      env: { ...process.env, NODE_DEBUG: 'plumb:api', PLUMB_TEST_URL: h.emulator.url, PLUMB_TEST_TOKEN: ADMIN_TOKEN },
      timeout: 20_000,
    });
    expect(stderr).toMatch(/PLUMB:API \d+: GET \/application\/settings -> 502/);
    expect(stderr).toMatch(/PLUMB:API \d+: retry GET \/application\/settings after attempt 1 \(status 502\)/);
    expect(stderr).toMatch(/PLUMB_API_BAD_REQUEST/);
    expect(stderr).toMatch(/PLUMB_API_UNAUTHORIZED/);
    expect(stderr).not.toContain(ADMIN_TOKEN);
  });
});
