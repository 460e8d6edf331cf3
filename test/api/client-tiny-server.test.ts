/**
 * Client behaviour against a tiny `node:http` server, for what the emulator does not produce:
 * OAuth-style and plain-text error bodies, a server echoing the token, hostile pagination links,
 * concurrency measured at the server, and base-URL handling.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { inspect } from 'node:util';
import { ApiClient, apiPath } from '../../src/api/index.js';
import type { ApiError } from '../../src/api/index.js';
import { fastSleep, rejection, sendJson, startTinyServer } from './helpers.js';
import type { TinyServer } from './helpers.js';

const TOKEN = 'glpat-tiny-server-secret-0123456789';
let server: TinyServer | undefined;
let client: ApiClient | undefined;

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

async function setup(handler: Parameters<typeof startTinyServer>[0], extra: Partial<ConstructorParameters<typeof ApiClient>[0]> = {}) {
  server = await startTinyServer(handler);
  client = new ApiClient({ baseUrl: server.url, token: TOKEN, sleep: fastSleep().sleep, ...extra });
  return { server, client };
}

const failure = (p: Promise<unknown>): Promise<ApiError> => rejection<ApiError>(p);

describe('ApiClient against a tiny server', () => {
  it('sends the token in PRIVATE-TOKEN under /api/v4 and a JSON body with its content type', async () => {
    const { server: s, client: c } = await setup((_req, res) => sendJson(res, 200, { ok: true }));
    const res = await c.request<{ ok: boolean }>({
      method: 'PUT',
      path: apiPath`/application/settings`,
      body: { signup_enabled: false },
      idempotent: true,
    });
    expect(res.body).toEqual({ ok: true });
    expect(s.requests[0]).toMatchObject({ method: 'PUT', url: '/api/v4/application/settings', body: '{"signup_enabled":false}' });
    expect(s.requests[0]?.headers['private-token']).toBe(TOKEN);
    expect(s.requests[0]?.headers['content-type']).toBe('application/json');
  });

  it('keeps a relative URL root and does not double an /api/v4 already in the base URL', async () => {
    server = await startTinyServer((_req, res) => sendJson(res, 200, {}));
    const rooted = new ApiClient({ baseUrl: `${server.url}/gitlab/`, token: TOKEN });
    const suffixed = new ApiClient({ baseUrl: `${server.url}/api/v4`, token: TOKEN });
    await rooted.request({ method: 'GET', path: apiPath`/version` });
    await suffixed.request({ method: 'GET', path: apiPath`/version` });
    await Promise.all([rooted.close(), suffixed.close()]);
    expect(server.requests.map((r) => r.url)).toEqual(['/gitlab/api/v4/version', '/api/v4/version']);
  });

  it('reads an OAuth-style {"error", "error_description"} body into serverMessage', async () => {
    const { client: c } = await setup((_req, res) =>
      sendJson(res, 401, { error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize.' }),
    );
    const err = await failure(c.request({ method: 'GET', path: apiPath`/application/settings` }));
    expect(err).toMatchObject({
      code: 'PLUMB_API_UNAUTHORIZED',
      status: 401,
      method: 'GET',
      path: '/application/settings',
      serverMessage: 'invalid_token: Token was revoked. You have to re-authorize.',
    });
  });

  it('reads a plain-text 500 body, collapses whitespace and truncates it', async () => {
    const { client: c } = await setup((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`Internal   Server\n\nError ${'x'.repeat(2_000)}`);
    });
    const err = await failure(c.request({ method: 'GET', path: apiPath`/application/settings` }));
    expect(err.code).toBe('PLUMB_API_SERVER');
    expect(err.serverMessage?.startsWith('Internal Server Error xxx')).toBe(true);
    expect(err.serverMessage?.length).toBeLessThanOrEqual(500);
    expect(server?.requests).toHaveLength(1); // 500 is not in the retryable list
  });

  it('joins a {"message": [..]} list and maps 409 to a conflict', async () => {
    const { client: c } = await setup((_req, res) => sendJson(res, 409, { message: ['Branch already exists', 'try again'] }));
    const err = await failure(c.request({ method: 'POST', path: apiPath`/projects/${1}/repository/branches` }));
    expect(err).toMatchObject({ code: 'PLUMB_API_CONFLICT', serverMessage: 'Branch already exists; try again' });
  });

  it('redacts the token when the server echoes it in an error body', async () => {
    const { client: c } = await setup((req, res) =>
      sendJson(res, 403, { message: `403 Forbidden - token ${String(req.headers['private-token'])} lacks scope api` }),
    );
    const err = await failure(c.request({ method: 'GET', path: apiPath`/application/settings` }));
    expect(err.code).toBe('PLUMB_API_FORBIDDEN');
    expect(err.serverMessage).toBe('403 Forbidden - token [REDACTED] lacks scope api');
    for (const text of [err.message, err.stack ?? '', inspect(err, { depth: 10 }), JSON.stringify(err)]) {
      expect(text).not.toContain(TOKEN);
    }
  });

  it('raises PLUMB_API_INVALID_RESPONSE for a success body that is not JSON', async () => {
    const { client: c } = await setup((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>sign in</html>');
    });
    const err = await failure(c.request({ method: 'GET', path: apiPath`/application/settings` }));
    expect(err).toMatchObject({ code: 'PLUMB_API_INVALID_RESPONSE', status: 200 });
  });

  it('follows X-Next-Page when there is no Link header', async () => {
    const { server: s, client: c } = await setup((req, res) => {
      const page = Number(new URL(req.url, 'http://x').searchParams.get('page') ?? '1');
      sendJson(res, 200, [{ page }], { 'x-next-page': page < 3 ? String(page + 1) : '' });
    });
    const result = await c.listAll<{ page: number }>({ path: apiPath`/groups/${'a b'}/access_tokens`, query: { state: 'active' } });
    expect(result).toEqual({ items: [{ page: 1 }, { page: 2 }, { page: 3 }], pages: 3 });
    expect(s.requests.map((r) => r.url)).toEqual([
      '/api/v4/groups/a%20b/access_tokens?per_page=100&state=active',
      '/api/v4/groups/a%20b/access_tokens?per_page=100&state=active&page=2',
      '/api/v4/groups/a%20b/access_tokens?per_page=100&state=active&page=3',
    ]);
  });

  it('refuses a pagination link to another origin so the token never follows it', async () => {
    const { server: s, client: c } = await setup((_req, res) =>
      sendJson(res, 200, [1], { link: '<https://evil.example/api/v4/groups/1/access_tokens?page=2>; rel="next"' }),
    );
    const err = await failure(c.listAll({ path: apiPath`/groups/${1}/access_tokens` }));
    expect(err.code).toBe('PLUMB_API_INVALID_RESPONSE');
    expect(s.requests).toHaveLength(1);
  });

  it('stops when a Link rel="next" points back to a page already fetched', async () => {
    const { client: c } = await setup((req, res) =>
      sendJson(res, 200, [1], { link: `<http://${req.headers.host ?? ''}${req.url}>; rel="next"` }),
    );
    const err = await failure(c.listAll({ path: apiPath`/groups/${1}/access_tokens` }));
    expect(err.message).toMatch(/already fetched/);
  });

  it('keeps at most `concurrency` requests in flight', async () => {
    let inFlight = 0;
    let peak = 0;
    const { client: c } = await setup(
      (_req, res) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        setTimeout(() => {
          inFlight--;
          sendJson(res, 200, {});
        }, 30);
      },
      { concurrency: 3 },
    );
    await Promise.all(Array.from({ length: 12 }, () => c.request({ method: 'GET', path: apiPath`/version` })));
    expect(peak).toBe(3);
  });

  it('times out a request whose response never comes, as PLUMB_API_TIMEOUT after every attempt', async () => {
    const { server: s, client: c } = await setup(() => undefined, { requestTimeoutMs: 100, maxAttempts: 2 });
    const err = await failure(c.request({ method: 'GET', path: apiPath`/version` }));
    expect(err).toMatchObject({ code: 'PLUMB_API_TIMEOUT', attempts: 2 });
    expect(s.requests).toHaveLength(2);
  });

  it('times out a response body that trickles in past the deadline', async () => {
    const { client: c } = await setup(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('[');
        const drip = setInterval(() => res.write('1,'), 20);
        res.on('close', () => clearInterval(drip));
      },
      { requestTimeoutMs: 150, maxAttempts: 1 },
    );
    const started = Date.now();
    const err = await failure(c.request({ method: 'GET', path: apiPath`/version` }));
    expect(err.code).toBe('PLUMB_API_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
