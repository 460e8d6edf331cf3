/** Fault injection: latency, canned statuses, dropped connections; deterministic selection. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { globToRegExp, mulberry32 } from '../../src/emulator/faults.js';
import { ADMIN, OWNER, start, type Api } from './helpers.js';
import type { FaultRule, RunningEmulator } from '../../src/emulator/index.js';

let emulator: RunningEmulator;
let api: Api;

beforeEach(async () => {
  ({ emulator, api } = await start());
});
afterEach(() => emulator.close());

const SETTINGS = '/application/settings';

describe('latency', () => {
  it('delays matching requests by the given milliseconds', async () => {
    emulator.addFault({ method: 'GET', path: SETTINGS, action: { kind: 'latency', ms: 150 } });
    const t0 = performance.now();
    const r = await api.get(SETTINGS, { token: ADMIN });
    expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
    expect(r.status).toBe(200);
  });

  it('adds up with a status fault on the same request', async () => {
    emulator.addFault({ path: SETTINGS, action: { kind: 'latency', ms: 60 } });
    emulator.addFault({ path: SETTINGS, action: { kind: 'status', status: 502 } });
    const t0 = performance.now();
    expect((await api.get(SETTINGS, { token: ADMIN })).status).toBe(502);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(50);
  });
});

describe('status', () => {
  it('answers with the status, Retry-After and a default body without performing the request', async () => {
    emulator.addFault({ method: 'PUT', path: SETTINGS, action: { kind: 'status', status: 503, retryAfter: 7 } });
    const r = await api.put(SETTINGS, { token: ADMIN, json: { signup_enabled: false } });
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('7');
    expect(r.body).toEqual({ message: '503 Service Unavailable' });
    expect(emulator.state.settings['signup_enabled']).toBe(true);
  });

  it('sends a custom body', async () => {
    emulator.addFault({ path: SETTINGS, action: { kind: 'status', status: 429, body: { message: 'slow down' } } });
    expect((await api.get(SETTINGS, { token: ADMIN })).body).toEqual({ message: 'slow down' });
  });

  it('matches globs with * inside one segment, e.g. the rotate endpoint', async () => {
    emulator.addFault({ method: 'POST', path: '/groups/*/access_tokens/*/rotate', action: { kind: 'status', status: 500 } });
    expect((await api.post('/groups/platform/access_tokens/100/rotate', { token: OWNER })).status).toBe(500);
    expect(emulator.state.tokenById(100)!.revoked).toBe(false);
    expect((await api.get('/groups/platform/access_tokens', { token: OWNER })).status).toBe(200);
  });

  it('matches a RegExp against the path after /api/v4', async () => {
    emulator.addFault({ path: /^\/projects\/.*\/pages$/, action: { kind: 'status', status: 418 } });
    expect((await api.get('/projects/31/pages', { token: ADMIN })).status).toBe(418);
    expect((await api.get(SETTINGS, { token: ADMIN })).status).toBe(200);
  });

  it('matches the decoded path as well as the encoded one', async () => {
    emulator.addFault({ path: '/projects/platform/site/pages', action: { kind: 'status', status: 503 } });
    expect((await api.get('/projects/platform%2Fsite/pages', { token: ADMIN })).status).toBe(503);
  });

  it('filters by method', async () => {
    emulator.addFault({ method: 'put', path: SETTINGS, action: { kind: 'status', status: 503 } });
    expect((await api.get(SETTINGS, { token: ADMIN })).status).toBe(200);
    expect((await api.put(SETTINGS, { token: ADMIN, json: {} })).status).toBe(503);
  });
});

describe('selection', () => {
  it('affects only the nth matching request when nth is set', async () => {
    emulator.addFault({ path: SETTINGS, nth: 2, action: { kind: 'status', status: 503 } });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await api.get(SETTINGS, { token: ADMIN })).status);
    expect(statuses).toEqual([200, 503, 200, 200]);
  });

  it('affects `times` requests from the nth on', async () => {
    emulator.addFault({ path: SETTINGS, nth: 2, times: 2, action: { kind: 'status', status: 503 } });
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await api.get(SETTINGS, { token: ADMIN })).status);
    expect(statuses).toEqual([200, 503, 503, 200, 200]);
  });

  it('affects the first `times` requests without nth', async () => {
    emulator.addFault({ path: SETTINGS, times: 1, action: { kind: 'status', status: 503 } });
    expect((await api.get(SETTINGS, { token: ADMIN })).status).toBe(503);
    expect((await api.get(SETTINGS, { token: ADMIN })).status).toBe(200);
  });

  it('is deterministic with a probability and a fault seed', async () => {
    const rule: FaultRule = { path: SETTINGS, probability: 0.5, action: { kind: 'status', status: 503 } };
    const run = async (seed: number): Promise<number[]> => {
      const { emulator: e, api: a } = await start({ faults: [rule], faultSeed: seed });
      try {
        const out: number[] = [];
        for (let i = 0; i < 16; i++) out.push((await a.get(SETTINGS, { token: ADMIN })).status);
        return out;
      } finally {
        await e.close();
      }
    };
    const a = await run(42);
    expect(await run(42)).toEqual(a);
    expect(a).toContain(503);
    expect(a).toContain(200);
    expect(await run(7)).not.toEqual(a);
  });

  it('clears all faults with clearFaults', async () => {
    emulator.addFault({ action: { kind: 'status', status: 503 } });
    expect((await api.get(SETTINGS, { token: ADMIN })).status).toBe(503);
    emulator.clearFaults();
    expect((await api.get(SETTINGS, { token: ADMIN })).status).toBe(200);
  });

  it('rejects a malformed rule', () => {
    expect(() => emulator.addFault({ probability: 2, action: { kind: 'status', status: 503 } })).toThrow(/probability/);
    expect(() => emulator.addFault({ nth: 0, action: { kind: 'drop', when: 'before' } })).toThrow(/nth/);
  });
});

describe('drop', () => {
  it("'before' destroys the connection without performing the write", async () => {
    emulator.addFault({ method: 'PUT', path: SETTINGS, action: { kind: 'drop', when: 'before' } });
    await expect(api.put(SETTINGS, { token: ADMIN, json: { signup_enabled: false } })).rejects.toThrow();
    expect(emulator.state.settings['signup_enabled']).toBe(true);
    expect(emulator.requests.at(-1)).toMatchObject({ method: 'PUT', path: SETTINGS, status: 0 });
  });

  it("'after' performs the write, then destroys the connection before the response", async () => {
    emulator.addFault({ method: 'POST', path: '/groups/*/access_tokens', action: { kind: 'drop', when: 'after' } });
    const before = emulator.state.tokens.length;
    await expect(api.post('/groups/platform/access_tokens', { token: OWNER, json: { name: 'lost', scopes: ['api'] } })).rejects.toThrow();
    expect(emulator.state.tokens.length).toBe(before + 1);
    expect(emulator.state.tokens.at(-1)!.name).toBe('lost');
  });

  it("'after' on a file write leaves the commit in place", async () => {
    emulator.addFault({ method: 'PUT', path: '/projects/*/repository/files/*', nth: 1, action: { kind: 'drop', when: 'after' } });
    const path = '/projects/30/repository/files/README%2Emd';
    await expect(api.put(path, { token: ADMIN, json: { branch: 'main', commit_message: 'm', content: 'new\n' } })).rejects.toThrow();
    const r = await api.get(path, { token: ADMIN, query: 'ref=main' });
    expect(Buffer.from(r.body.content, 'base64').toString()).toBe('new\n');
  });
});

describe('a status answered after the request was carried out', () => {
  it("'status' with after: true commits the file write, then answers 500", async () => {
    emulator.addFault({ method: 'PUT', path: '/projects/*/repository/files/*', nth: 1, action: { kind: 'status', status: 500, after: true } });
    const path = '/projects/30/repository/files/README%2Emd';
    const res = await api.put(path, { token: ADMIN, json: { branch: 'main', commit_message: 'm', content: 'after 500\n' } });
    expect(res.status).toBe(500);
    const r = await api.get(path, { token: ADMIN, query: 'ref=main' });
    expect(Buffer.from(r.body.content, 'base64').toString()).toBe('after 500\n');
    expect(emulator.requests.find((q) => q.method === 'PUT')).toMatchObject({ status: 500 });
  });
});

describe('recorded requests', () => {
  it('records method, path, query, status and time of every request', async () => {
    emulator.resetRequests();
    await api.get('/groups/platform/access_tokens', { token: OWNER, query: 'per_page=5' });
    await api.get('/nowhere', { token: OWNER });
    expect(emulator.requests).toHaveLength(2);
    expect(emulator.requests[0]).toMatchObject({ method: 'GET', path: '/groups/platform/access_tokens', query: 'per_page=5', status: 200 });
    expect(emulator.requests[0]!.at).toBeInstanceOf(Date);
    expect(emulator.requests[1]).toMatchObject({ path: '/nowhere', status: 404 });
    emulator.resetRequests();
    expect(emulator.requests).toHaveLength(0);
  });
});

describe('helpers', () => {
  it('mulberry32 is a deterministic PRNG in [0, 1)', () => {
    const a = mulberry32(1);
    const b = mulberry32(1);
    const xs = Array.from({ length: 100 }, () => a());
    expect(xs).toEqual(Array.from({ length: 100 }, () => b()));
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
  });

  it('globToRegExp keeps * within a segment and lets ** cross segments', () => {
    expect(globToRegExp('/groups/*/access_tokens').test('/groups/platform%2Finfra/access_tokens')).toBe(true);
    expect(globToRegExp('/groups/*/access_tokens').test('/groups/a/b/access_tokens')).toBe(false);
    expect(globToRegExp('/projects/**').test('/projects/1/repository/files/a')).toBe(true);
    expect(globToRegExp('/a.b').test('/aXb')).toBe(false);
  });
});
