/**
 * In the service's CI, the runner writes the instance's CA to CI_SERVER_TLS_CA_FILE: plumb trusts it
 * for the pipeline's own instance (CI_SERVER_URL) when the configuration names no ca_bundle, and for
 * no other host.
 */
import https from 'node:https';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPlan } from '../../src/commands/reconcile.js';
import type { Io } from '../../src/commands/output.js';

const fixtures = path.resolve(import.meta.dirname, '../api/fixtures');
const TOKEN = 'glpat-ci-ca-bundle-0123456789';

let server: https.Server;
let url: string;
let dir: string;

beforeAll(async () => {
  server = https.createServer({ cert: readFileSync(path.join(fixtures, 'server.pem')), key: readFileSync(path.join(fixtures, 'server.key')) }, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://localhost:${(server.address() as AddressInfo).port}`;
  dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-ci-ca-'));
  writeFileSync(path.join(dir, 'plumb.yaml'), `version: 1\ninstances:\n  ci:\n    url: ${url}\n    token_env: PLUMB_TOKEN\n    settings:\n      signup_enabled: false\n`);
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

async function plan(env: NodeJS.ProcessEnv): Promise<{ code: number; out: string }> {
  let out = '';
  const io: Io = { stdout: (s) => void (out += s), stderr: (s) => void (out += s), isTTY: false, env: { PATH: process.env.PATH ?? '', PLUMB_TOKEN: TOKEN, ...env }, cwd: dir };
  const code = await runPlan({ config: ['plumb.yaml'], state: path.join(dir, 'state.json'), detailedExitcode: false, json: false }, io, { client: { maxAttempts: 1 } });
  return { code, out };
}

describe("the runner's CA file in the service's CI", () => {
  it("is trusted for the pipeline's own instance when the configuration names no ca_bundle", async () => {
    const r = await plan({ GITLAB_CI: 'true', CI_SERVER_URL: url, CI_SERVER_TLS_CA_FILE: path.join(fixtures, 'ca.pem') });
    expect(r.out).not.toMatch(/TLS verification failed/);
    expect(r.code, r.out).toBe(0);
  });

  it('is not used outside GitLab CI, nor for another instance than CI_SERVER_URL', async () => {
    const outside = await plan({ CI_SERVER_URL: url, CI_SERVER_TLS_CA_FILE: path.join(fixtures, 'ca.pem') });
    expect(outside.code).toBe(1);
    expect(outside.out).toMatch(/TLS verification failed/);
    const other = await plan({ GITLAB_CI: 'true', CI_SERVER_URL: 'https://code.example.com', CI_SERVER_TLS_CA_FILE: path.join(fixtures, 'ca.pem'), PLUMB_ALLOWED_URLS: url });
    expect(other.code).toBe(1);
    expect(other.out).toMatch(/TLS verification failed/);
    expect(outside.out + other.out).not.toContain(TOKEN);
  });
});
