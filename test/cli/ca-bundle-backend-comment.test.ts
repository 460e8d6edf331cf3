/**
 * The Terraform-state backend (`--state https://…`) and `plumb comment` trust the same CAs as the API
 * client for their host (issue 24 follow-up): the `ca_bundle` of the configuration's instance at that
 * host, else, in the service's CI, the runner's CI_SERVER_TLS_CA_FILE for CI_SERVER_URL; and no CA
 * for another host. The instance is the emulator behind a loopback HTTPS proxy whose certificate a
 * private CA signed (test/api/fixtures).
 */
import http from 'node:http';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addJobToken, addMergeRequest, mergeRequestNotes, terraformState } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startTestEmulator } from '../helpers/emulator.js';
import { secret, workdir } from '../helpers/cli.js';
import type { Workdir } from '../helpers/cli.js';

const fixtures = path.resolve(import.meta.dirname, '../api/fixtures');
const CA = path.join(fixtures, 'ca.pem');
const ADMIN_TOKEN = secret('admin-token-ca-fetch-0123456789');
const COMMENT_TOKEN = secret('comment-token-ca-fetch-0123456');
const JOB_TOKEN = secret('ci-job-token-ca-fetch-01234567');
const CAPTCHA_KEY = secret('captcha-private-key-ca-fetch-abc');

let emu: RunningEmulator;
let proxy: https.Server;
/** https://localhost:PORT: the instance, behind the private CA's certificate. */
let url: string;
/** The same server under another host name (its certificate names 127.0.0.1 too). */
let otherHost: string;
let projectId: number;
let wd: Workdir;

beforeEach(async () => {
  emu = await startTestEmulator({
    seed: {
      users: [
        { username: 'root', admin: true, personal_access_tokens: [{ name: 'plumb', token: ADMIN_TOKEN, scopes: ['api'] }] },
        { username: 'bot', personal_access_tokens: [{ name: 'comment', token: COMMENT_TOKEN, scopes: ['api'] }] },
      ],
      groups: [{ full_path: 'ops', members: [{ username: 'bot', access_level: 20 }] }],
      projects: [{ path_with_namespace: 'ops/config', default_branch: 'main', files: { 'README.md': 'x\n' } }],
    },
  });
  addJobToken(emu.state, JOB_TOKEN, 'root', 'ops/config');
  addMergeRequest(emu.state, 'ops/config', 3);
  projectId = emu.state.projectByRef('ops/config')!.id;
  const target = new URL(emu.url);
  proxy = https.createServer({ cert: readFileSync(path.join(fixtures, 'server.pem')), key: readFileSync(path.join(fixtures, 'server.key')) }, (req, res) => {
    const up = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const port = (proxy.address() as AddressInfo).port;
  url = `https://localhost:${port}`;
  otherHost = `https://127.0.0.1:${port}`;
  wd = workdir({ PLUMB_TOKEN: ADMIN_TOKEN, CAPTCHA_KEY });
  wd.write('ca.pem', readFileSync(CA, 'utf8'));
});

afterEach(async () => {
  proxy.closeAllConnections();
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  await emu.close();
});

/**
 * The configuration: the instance at `url`, with `ca_bundle: ca.pem` when `withCa`; a write-only
 * secret, so that apply records a fingerprint in the state (a write to the backend).
 */
function configure(withCa: boolean): void {
  wd.write(
    'plumb.yaml',
    `version: 1\ninstances:\n  local:\n    url: ${url}\n    token_env: PLUMB_TOKEN\n${withCa ? '    ca_bundle: ca.pem\n' : ''}    settings:\n      captcha_enabled: true\n      captcha_site_key: site-key\n      captcha_private_key: \${env:CAPTCHA_KEY}\n`,
  );
}

const stateAt = (base: string) => `${base}/api/v4/projects/${projectId}/terraform/state/plumb`;
/** The service's CI for the instance at `url`, whose runner wrote the CA to CI_SERVER_TLS_CA_FILE. */
const ci = () => ({ GITLAB_CI: 'true', CI_SERVER_URL: url, CI_SERVER_TLS_CA_FILE: CA });

describe('the state backend over TLS', () => {
  it("trusts the ca_bundle of the configuration's instance on the backend's host, for reading, locking and writing", async () => {
    configure(true);
    const r = await wd.run(['apply', '--auto-approve', '--state', stateAt(url)]);
    expect(r.code, r.stderr).toBe(0);
    const record = terraformState(emu.state, 'ops/config', 'plumb');
    expect(record?.versions).toHaveLength(1);
    expect(record!.lock).toBeNull();
    expect(emu.requests.filter((q) => q.path.endsWith('/lock'))).toHaveLength(2);
  });

  it("trusts the runner's CI_SERVER_TLS_CA_FILE for CI_SERVER_URL's host when the configuration names no ca_bundle", async () => {
    configure(false);
    const r = await wd.run(['apply', '--auto-approve', '--state', stateAt(url)], { ...ci(), CI_JOB_TOKEN: JOB_TOKEN });
    expect(r.code, r.stderr).toBe(0);
    expect(terraformState(emu.state, 'ops/config', 'plumb')?.versions).toHaveLength(1);
  });

  it('uses neither CA for a backend on another host', async () => {
    configure(true);
    const withBundle = await wd.run(['plan', '--state', stateAt(otherHost)], { PLUMB_STATE_TOKEN: ADMIN_TOKEN });
    expect(withBundle.code).toBe(1);
    expect(withBundle.stderr).toMatch(/PLUMB_STATE_BACKEND/);
    expect(withBundle.stderr).toMatch(/cannot be reached \((SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\)/);
    configure(false);
    const inCi = await wd.run(['plan', '--state', stateAt(otherHost)], { ...ci(), CI_JOB_TOKEN: JOB_TOKEN });
    expect(inCi.code).toBe(1);
    expect(inCi.stderr).toMatch(/cannot be reached \((SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\)/);
  });
});

describe('plumb comment over TLS', () => {
  const notes = () => mergeRequestNotes(emu.state, 'ops/config', 3).filter((n) => n.authorId === emu.state.userByUsername('bot')!.id);
  const mr = (apiBase: string) => ({ CI_API_V4_URL: `${apiBase}/api/v4`, CI_PROJECT_ID: String(projectId), CI_MERGE_REQUEST_IID: '3', PLUMB_COMMENT_TOKEN: COMMENT_TOKEN });

  beforeEach(async () => {
    configure(true);
    const plan = await wd.run(['plan', '--out', 'plan.json']);
    expect(plan.code, plan.stderr).toBe(0);
  });

  it("trusts the ca_bundle of the --config instance at CI_API_V4_URL's host", async () => {
    const r = await wd.run(['comment', 'plan.json', '--config', 'plumb.yaml'], mr(url));
    expect(r.code, r.stderr).toBe(0);
    expect(notes()).toHaveLength(1);
  });

  it("trusts the runner's CI_SERVER_TLS_CA_FILE for CI_SERVER_URL's host", async () => {
    const r = await wd.run(['comment', 'plan.json'], { ...mr(url), ...ci() });
    expect(r.code, r.stderr).toBe(0);
    expect(notes()).toHaveLength(1);
  });

  it('uses neither CA for another host, and posts nothing', async () => {
    const withBundle = await wd.run(['comment', 'plan.json', '--config', 'plumb.yaml'], mr(otherHost));
    expect(withBundle.code).toBe(1);
    expect(withBundle.stderr).toMatch(/PLUMB_COMMENT/);
    expect(withBundle.stderr).toMatch(/SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY/);
    const inCi = await wd.run(['comment', 'plan.json'], { ...mr(otherHost), ...ci() });
    expect(inCi.code).toBe(1);
    expect(inCi.stderr).toMatch(/SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY/);
    expect(notes()).toHaveLength(0);
  });
});
