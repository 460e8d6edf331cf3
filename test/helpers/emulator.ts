/**
 * The one emulator harness of the tests: every suite that needs the service starts it here, over
 * loopback HTTP, in this process (test/lint/test-tree.test.ts fails on any other file importing
 * `startEmulator`). Suites keep their conveniences (a seed of their own, a working directory, a
 * config writer) as thin wrappers over `startTestEmulator` (test/api/emulator-fixture.ts,
 * test/resources/group-access-tokens/helpers.ts, test/resources/repository-files/helpers.ts).
 *
 * Also here: the standard seed of the emulator's conformance suite with its tokens, a controllable
 * clock, and a small HTTP helper over global fetch (`Api`).
 */
import { startEmulator, type EmulatorOptions, type EmulatorSeed, type RunningEmulator } from '../../src/emulator/index.js';

/** A running emulator with an HTTP helper bound to it. */
export interface TestEmulator extends RunningEmulator {
  /** Calls `/api/v4…` of this emulator over fetch. */
  readonly api: Api;
}

/**
 * Starts an emulator on loopback with exactly `opts` (no seed or clock added: the emulator's own
 * defaults apply, as with `startEmulator`). Close it with `close()`.
 */
export async function startTestEmulator(opts: EmulatorOptions = {}): Promise<TestEmulator> {
  const emulator = await startEmulator(opts);
  return Object.assign(emulator, { api: new Api(emulator) });
}

export const ADMIN = 'admin-token-0000000001';
export const ADMIN_READ = 'admin-read-token-00001';
export const OWNER = 'owner-token-0000000001';
export const MAINTAINER = 'maint-token-0000000001';
export const DEVELOPER = 'dev-token-000000000001';
export const REPORTER = 'reporter-token-0000001';
export const GUEST = 'guest-token-0000000001';
export const OUTSIDER = 'outsider-token-000001';
export const OWNER_READ = 'owner-read-token-00001';
export const OWNER_READ_REPO = 'owner-repo-token-00001';
export const EXPIRED = 'expired-token-00000001';
export const REVOKED = 'revoked-token-00000001';
export const GROUP_API = 'group-api-token-000001';
export const GROUP_SELF = 'group-self-token-00001';
export const GROUP_READ = 'group-read-token-00001';
export const OTHER_GROUP_TOKEN = 'other-group-token-0001';

/** 2025-06-15T12:00:00.000Z unless moved. */
export class Clock {
  current = new Date('2025-06-15T12:00:00.000Z');
  now = (): Date => new Date(this.current.getTime());
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

export const SEED: EmulatorSeed = {
  users: [
    {
      username: 'root',
      id: 1,
      name: 'Administrator',
      email: 'admin@example.test',
      admin: true,
      personal_access_tokens: [
        { name: 'admin-api', token: ADMIN, scopes: ['api'] },
        { name: 'admin-read', token: ADMIN_READ, scopes: ['read_api'] },
      ],
    },
    {
      username: 'olivia',
      id: 2,
      name: 'Olivia Owner',
      personal_access_tokens: [
        { name: 'owner-api', token: OWNER, scopes: ['api'] },
        { name: 'owner-read', token: OWNER_READ, scopes: ['read_api'] },
        { name: 'owner-repo', token: OWNER_READ_REPO, scopes: ['read_repository'] },
        { name: 'old', token: EXPIRED, scopes: ['api'], expires_at: '2025-06-14' },
        { name: 'gone', token: REVOKED, scopes: ['api'], revoked: true },
      ],
    },
    { username: 'max', id: 3, name: 'Max Maintainer', personal_access_tokens: [{ name: 'm', token: MAINTAINER, scopes: ['api'] }] },
    { username: 'dev', id: 4, name: 'Dee Developer', personal_access_tokens: [{ name: 'd', token: DEVELOPER, scopes: ['api'] }] },
    { username: 'rep', id: 5, name: 'Rey Reporter', personal_access_tokens: [{ name: 'r', token: REPORTER, scopes: ['api'] }] },
    { username: 'guest', id: 6, name: 'Gus Guest', personal_access_tokens: [{ name: 'g', token: GUEST, scopes: ['api'] }] },
    { username: 'out', id: 7, name: 'Otto Outsider', personal_access_tokens: [{ name: 'o', token: OUTSIDER, scopes: ['api'] }] },
  ],
  groups: [
    {
      full_path: 'platform',
      id: 10,
      members: [
        { username: 'olivia', access_level: 50 },
        { username: 'max', access_level: 40 },
        { username: 'dev', access_level: 30 },
        { username: 'rep', access_level: 20 },
        { username: 'guest', access_level: 10 },
      ],
      access_tokens: [
        { id: 100, name: 'ci', token: GROUP_API, scopes: ['api'], access_level: 40, expires_at: '2026-01-01', created_at: '2025-01-01T00:00:00.000Z' },
        { id: 101, name: 'selfie', token: GROUP_SELF, scopes: ['self_rotate'], access_level: 30, expires_at: '2026-02-01', created_at: '2025-02-01T00:00:00.000Z' },
        { id: 102, name: 'reader', token: GROUP_READ, scopes: ['read_api'], access_level: 20, expires_at: '2025-12-01', created_at: '2025-03-01T00:00:00.000Z', last_used_at: '2025-06-01T00:00:00.000Z' },
      ],
    },
    { full_path: 'platform/infra', id: 11 },
    {
      full_path: 'other',
      id: 20,
      members: [{ username: 'out', access_level: 50 }],
      access_tokens: [{ id: 200, name: 'elsewhere', token: OTHER_GROUP_TOKEN, scopes: ['api'], expires_at: '2026-01-01' }],
    },
  ],
  projects: [
    {
      path_with_namespace: 'platform/infra/config',
      id: 30,
      visibility: 'private',
      default_branch: 'main',
      files: {
        'README.md': 'line one\nline two\nline three\n',
        'scripts/deploy.sh': { content: '#!/bin/sh\necho deploy\n', execute: true },
        'assets/big.bin': { lfs_content: 'the real large content' },
        'bin/data.bin': { content_base64: Buffer.from([0, 1, 2, 255]).toString('base64') },
      },
      branches: { feature: { from: 'main', files: { 'feature.txt': 'on feature\n' } } },
      tags: { 'v1.0': 'main' },
    },
    {
      path_with_namespace: 'platform/site',
      id: 31,
      visibility: 'public',
      files: { 'index.html': '<h1>hi</h1>\n' },
      pages: {
        https_only: false,
        unique_domain_enabled: false,
        domains: ['docs.example.test', { domain: 'nocert.example.test', certificate: false }],
        deployments: [{ created_at: '2025-06-01T10:00:00.000Z' }, { path_prefix: 'staging', root_directory: 'dist', created_at: '2025-06-02T10:00:00.000Z' }],
      },
    },
    { path_with_namespace: 'platform/nopages', id: 32, visibility: 'internal', files: { 'a.txt': 'a\n' } },
    { path_with_namespace: 'platform/empty', id: 33, visibility: 'private' },
  ],
};

export interface Call {
  token?: string;
  json?: unknown;
  form?: Record<string, string | string[]>;
  /** Raw query string appended to the path (with or without '?'). */
  query?: string;
  headers?: Record<string, string>;
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON of any shape
}

export class Api {
  constructor(readonly emulator: RunningEmulator) {}

  async call(method: string, path: string, opts: Call = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.token) headers['PRIVATE-TOKEN'] = opts.token;
    let body: string | undefined;
    if (opts.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.json);
    } else if (opts.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      const p = new URLSearchParams();
      for (const [k, v] of Object.entries(opts.form)) for (const x of Array.isArray(v) ? v : [v]) p.append(k, x);
      body = p.toString();
    }
    const q = opts.query ? (opts.query.startsWith('?') ? opts.query : `?${opts.query}`) : '';
    const res = await fetch(`${this.emulator.url}/api/v4${path}${q}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, text, body: parsed };
  }

  get = (path: string, opts?: Call) => this.call('GET', path, opts);
  head = (path: string, opts?: Call) => this.call('HEAD', path, opts);
  post = (path: string, opts?: Call) => this.call('POST', path, opts);
  put = (path: string, opts?: Call) => this.call('PUT', path, opts);
  patch = (path: string, opts?: Call) => this.call('PATCH', path, opts);
  delete = (path: string, opts?: Call) => this.call('DELETE', path, opts);
}

/** The standard seed (`SEED`) on a clock of its own (`Clock`), unless `opts` says otherwise. */
export async function startStandardEmulator(opts: EmulatorOptions = {}): Promise<{ emulator: TestEmulator; api: Api; clock: Clock }> {
  const clock = new Clock();
  const emulator = await startTestEmulator({ seed: SEED, now: clock.now, ...opts });
  return { emulator, api: emulator.api, clock };
}

/** URL-encodes a file path the way the API wants it (slashes and dots encoded). */
export function enc(path: string): string {
  return encodeURIComponent(path).replace(/\./g, '%2E');
}
