/** HTTPS enforcement, the custom CA bundle, and keeping the token out of everything printable. */
import { afterEach, describe, expect, it } from 'vitest';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import type { AddressInfo } from 'node:net';
import { ApiClient, ApiInsecureUrlError, apiPath, isLoopbackHost } from '../../src/api/index.js';
import type { ApiError } from '../../src/api/index.js';

const TOKEN = 'glpat-transport-secret-abcdef';
const fixture = (name: string): string => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()?.();
});

function thrown(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    return err as ApiError;
  }
  throw new Error('expected a throw');
}

function client(opts: Partial<ConstructorParameters<typeof ApiClient>[0]> & { baseUrl: string }): ApiClient {
  const c = new ApiClient({ token: TOKEN, ...opts });
  closers.push(() => c.close());
  return c;
}

describe('HTTPS enforcement', () => {
  it('refuses plain HTTP to a non-loopback host without allowInsecureHttp', () => {
    expect(() => new ApiClient({ baseUrl: 'http://code.example.com', token: TOKEN })).toThrow(ApiInsecureUrlError);
    const err = thrown(() => new ApiClient({ baseUrl: 'http://10.1.2.3:8080', token: TOKEN }));
    expect(err.code).toBe('PLUMB_API_INSECURE_URL');
    expect(err.message).toMatch(/10\.1\.2\.3/);
    expect(err.message).not.toContain(TOKEN);
  });

  it('allows plain HTTP elsewhere with allowInsecureHttp and warns through onWarning', () => {
    const warnings: string[] = [];
    client({ baseUrl: 'http://code.example.com', allowInsecureHttp: true, onWarning: (m) => warnings.push(m) });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/code\.example\.com.*unencrypted/);
  });

  it('allows plain HTTP to loopback hosts without a warning', () => {
    const warnings: string[] = [];
    for (const baseUrl of ['http://127.0.0.1:3000', 'http://127.9.8.7', 'http://localhost:8080', 'http://[::1]:9000']) {
      client({ baseUrl, onWarning: (m) => warnings.push(m) });
    }
    expect(warnings).toEqual([]);
  });

  it('recognises loopback addresses and nothing that merely looks like them', () => {
    expect(isLoopbackHost('[::ffff:7f00:1]')).toBe(true);
    expect(isLoopbackHost('localhost')).toBe(true);
    expect(isLoopbackHost('127.0.0.1.nip.io')).toBe(false);
    expect(isLoopbackHost('localhost.example.com')).toBe(false);
    expect(isLoopbackHost('128.0.0.1')).toBe(false);
    expect(isLoopbackHost('[::2]')).toBe(false);
  });

  it('rejects a base URL with credentials or another scheme', () => {
    expect(() => new ApiClient({ baseUrl: 'https://user:pw@code.example.com', token: TOKEN })).toThrow(/credentials/);
    expect(() => new ApiClient({ baseUrl: 'ftp://code.example.com', token: TOKEN })).toThrow(ApiInsecureUrlError);
  });
});

describe('custom CA bundle', () => {
  async function tlsServer(): Promise<string> {
    const server = https.createServer({ cert: fixture('server.pem'), key: fixture('server.key') }, (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"version":"17.9.0"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    return `https://localhost:${(server.address() as AddressInfo).port}`;
  }

  it('trusts a private CA passed as a PEM string', async () => {
    const baseUrl = await tlsServer();
    const res = await client({ baseUrl, caBundle: fixture('ca.pem') }).request({ method: 'GET', path: apiPath`/version` });
    expect(res.body).toEqual({ version: '17.9.0' });
  });

  it('fails certificate verification without it, once, as a network error that names the cause', async () => {
    const baseUrl = await tlsServer();
    let err: ApiError | undefined;
    try {
      await client({ baseUrl }).request({ method: 'GET', path: apiPath`/version` });
    } catch (e) {
      err = e as ApiError;
    }
    expect(err).toMatchObject({ code: 'PLUMB_API_NETWORK', attempts: 1 });
    // The key users write is ca_bundle (the client option caBundle is not in the configuration).
    expect(err?.message).toMatch(/ca_bundle/);
    expect(err?.message).not.toMatch(/caBundle/);
  });
});

describe('token confidentiality', () => {
  it('never shows the token when the client is inspected, stringified or logged', () => {
    const c = client({ baseUrl: 'https://code.example.com' });
    for (const text of [inspect(c, { depth: 10, showHidden: true }), JSON.stringify(c), String(c), `${inspect({ c })}`]) {
      expect(text).not.toContain(TOKEN);
    }
    expect(inspect(c)).toContain('https://code.example.com/api/v4');
  });

  it('does not echo a malformed token in the constructor error', () => {
    expect(() => new ApiClient({ baseUrl: 'https://x.example', token: `${TOKEN}\r\nX-Evil: 1` })).toThrow(
      /^token must be a non-empty string/,
    );
  });
});
