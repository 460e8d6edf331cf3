/**
 * Hostile configurations, part "where the token may go" (issue 18): a merge request writes the
 * configuration that CI plans with an administrator's token. Nothing in it may choose the host the
 * token is sent to, route a variable or a file into a request, or get a secret past the masking.
 * The attacker's host is a loopback server that records every request: the loopback exemption is
 * turned off (PLUMB_LOOPBACK_IS_TRUSTED=0) so it stands for any other host.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestEmulator } from '../helpers/emulator.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { runEmulatorCommand } from '../../src/emulator/cli.js';
import { MASK, SecretRegistry } from '../../src/config/secrets.js';
import { urlPolicy, urlRefusal } from '../../src/engine/connection.js';
import { secret, workdir } from '../helpers/cli.js';
import { MAGIC, PROVIDER_BIN, ensureBuilt, root } from '../provider/harness.js';

const TOKEN = secret('admin-token-security-0123456789');
const CI_SECRET = secret('ci-variable-value-Xq81Lm');
const UNTRUSTED = { PLUMB_TOKEN: TOKEN, PLUMB_LOOPBACK_IS_TRUSTED: '0' };

interface Recorder {
  readonly url: string;
  readonly requests: { method: string; url: string; token: string | undefined }[];
  close(): Promise<void>;
}

/** The attacker's host: answers 404 to everything and records what it was sent. */
async function recorder(): Promise<Recorder> {
  const requests: Recorder['requests'] = [];
  const server: Server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', token: req.headers['private-token'] as string | undefined });
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"404 Not Found"}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

let attacker: Recorder | undefined;
let emu: RunningEmulator | undefined;
afterEach(async () => {
  await attacker?.close();
  await emu?.close();
  attacker = undefined;
  emu = undefined;
});

function instanceYaml(url: string, extra = ''): string {
  return `version: 1\ninstances:\n  prod:\n    url: ${url}\n    token_env: PLUMB_TOKEN\n    settings_verify_seconds: 0\n${extra}    settings:\n      signup_enabled: false\n`;
}

const codes = (stdout: string): string[] => (JSON.parse(stdout) as { diagnostics: { code: string }[] }).diagnostics.map((d) => d.code);

describe('the instances a token may be sent to are pinned outside the configuration', () => {
  it.each([
    ['plan', ['plan', '--json']],
    ['drift', ['drift', '--json']],
    ['apply', ['apply', '--auto-approve', '--json']],
    ['export -c', ['export', '-c', 'plumb.yaml', '--out', 'exported']],
  ])('%s refuses a URL nobody allowed, naming it and how to allow it, and sends it nothing', async (_name, args) => {
    attacker = await recorder();
    const wd = workdir(UNTRUSTED);
    wd.write('plumb.yaml', instanceYaml(attacker.url, '    allow_insecure_http: true\n'));
    const r = await wd.run(args);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain('PLUMB_URL_NOT_ALLOWED');
    expect(r.stdout + r.stderr).toContain(attacker.url);
    expect(r.stdout + r.stderr).toContain('--allow-url');
    expect(attacker.requests).toEqual([]);
  });

  it('lets through a URL allowed by --allow-url, PLUMB_ALLOWED_URLS or PLUMB_URL, spelled differently', async () => {
    attacker = await recorder();
    const wd = workdir(UNTRUSTED);
    wd.write('plumb.yaml', instanceYaml(attacker.url));
    const respelled = `${attacker.url.toUpperCase().replace('HTTP://', 'http://')}/api/v4/`;
    for (const [args, env] of [
      [['plan', '--json', '--allow-url', respelled], {}],
      [['plan', '--json'], { PLUMB_ALLOWED_URLS: `https://other.example.test, ${attacker.url}/` }],
      [['plan', '--json'], { PLUMB_URL: attacker.url }],
    ] as const) {
      const before = attacker.requests.length;
      const r = await wd.run([...args], { ...env });
      expect(codes(r.stdout)).not.toContain('PLUMB_URL_NOT_ALLOWED');
      expect(attacker.requests.length).toBeGreaterThan(before);
    }
  });

  it('trusts CI_SERVER_URL only inside GitLab CI (GITLAB_CI=true)', async () => {
    attacker = await recorder();
    const wd = workdir(UNTRUSTED);
    wd.write('plumb.yaml', instanceYaml(attacker.url));
    const outside = await wd.run(['plan', '--json'], { CI_SERVER_URL: attacker.url });
    expect(codes(outside.stdout)).toContain('PLUMB_URL_NOT_ALLOWED');
    expect(attacker.requests).toEqual([]);
    const inside = await wd.run(['plan', '--json'], { CI_SERVER_URL: attacker.url, GITLAB_CI: 'true' });
    expect(codes(inside.stdout)).not.toContain('PLUMB_URL_NOT_ALLOWED');
    expect(attacker.requests.length).toBeGreaterThan(0);
  });

  it('compares canonical URLs: a trailing slash or /api/v4 matches, a longer host, user info or another scheme does not', () => {
    const policy = urlPolicy({ PLUMB_ALLOWED_URLS: 'https://code.example.com/' });
    for (const ok of ['https://code.example.com', 'https://CODE.example.com:443/', 'https://code.example.com/api/v4']) expect(urlRefusal(ok, 'prod', policy)).toBeUndefined();
    for (const bad of ['https://code.example.com.evil.test', 'https://code.example.com@evil.test', 'http://code.example.com', 'https://code.example.com:8443', 'https://code.example.com/other']) {
      expect(urlRefusal(bad, 'prod', policy)?.summary).toContain('not an instance plumb may send its token to');
    }
    // Loopback (the emulator, npm start) needs no listing unless the exemption is turned off.
    expect(urlRefusal('http://127.0.0.1:8929', 'local', urlPolicy({}))).toBeUndefined();
    expect(urlRefusal('http://127.0.0.1:8929', 'local', urlPolicy({ PLUMB_LOOPBACK_IS_TRUSTED: '0' }))).toBeDefined();
  });

  it('refuses a saved plan whose instance URL was rewritten, and sends nothing to either host', async () => {
    emu = await startTestEmulator({ seed: { users: [{ username: 'root', admin: true, personal_access_tokens: [{ name: 'plumb', token: TOKEN, scopes: ['api'] }] }] } });
    attacker = await recorder();
    const wd = workdir({ PLUMB_TOKEN: TOKEN });
    wd.write('plumb.yaml', instanceYaml(emu.url));
    expect((await wd.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    const file = path.join(wd.dir, 'plan.json');
    const plan = JSON.parse(readFileSync(file, 'utf8')) as { instances: { url: string }[] };
    plan.instances[0]!.url = attacker.url;
    writeFileSync(file, JSON.stringify(plan));
    const requestsBefore = emu.requests.length;
    const r = await wd.run(['apply', 'plan.json', '-c', 'plumb.yaml']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_PLAN_INSTANCE_MISMATCH');
    expect(r.stderr).toContain(attacker.url);
    expect(r.stderr).toContain(emu.url);
    expect(attacker.requests).toEqual([]);
    expect(emu.requests.length).toBe(requestsBefore);
  });
});

describe('interpolation only where a secret value belongs', () => {
  const cases: [string, string][] = [
    ['url', `version: 1\ninstances:\n  prod:\n    url: https://\${env:CI_SECRET}.example.test\n    token_env: PLUMB_TOKEN\n`],
    ['token_env', `version: 1\ninstances:\n  prod:\n    url: https://code.example.test\n    token_env: \${env:CI_SECRET}\n`],
    ['ca_bundle', `version: 1\ninstances:\n  prod:\n    url: https://code.example.test\n    token_env: PLUMB_TOKEN\n    ca_bundle: \${env:CI_SECRET}\n`],
    [
      'branches',
      `version: 1\ninstances:\n  prod:\n    url: https://code.example.test\n    token_env: PLUMB_TOKEN\n    projects:\n      platform/app:\n        files:\n          README.md:\n            content: hello\n            branches: ["\${env:CI_SECRET}"]\n`,
    ],
    [
      'start_branch',
      `version: 1\ninstances:\n  prod:\n    url: https://code.example.test\n    token_env: PLUMB_TOKEN\n    projects:\n      platform/app:\n        files:\n          README.md:\n            content: hello\n            branches: [next]\n            start_branch: \${env:CI_SECRET}\n`,
    ],
    [
      'source',
      `version: 1\ninstances:\n  prod:\n    url: https://code.example.test\n    token_env: PLUMB_TOKEN\n    projects:\n      platform/app:\n        files:\n          README.md:\n            source: \${file:/etc/hostname}\n`,
    ],
    [
      'description',
      `version: 1\ninstances:\n  prod:\n    url: https://code.example.test\n    token_env: PLUMB_TOKEN\n    groups:\n      platform:\n        access_tokens:\n          ci:\n            description: \${env:CI_SECRET}\n            scopes: [read_api]\n            expires_at: 2030-01-01\n            sink: {file: ci.token}\n`,
    ],
  ];

  it.each(cases)('refuses ${env:…} in %s at its line, without reading the variable', async (key, yaml) => {
    const wd = workdir();
    wd.write('plumb.yaml', yaml);
    const r = await wd.run(['validate', '--json'], { CI_SECRET });
    expect(r.code).toBe(1);
    const diagnostics = (JSON.parse(r.stdout) as { diagnostics: { code: string; line?: number; summary: string }[] }).diagnostics;
    const refused = diagnostics.find((d) => d.code === 'PLUMB_INTERPOLATION_NOT_ALLOWED');
    expect(refused?.line).toBe(yaml.split('\n').findIndex((l) => l.trimStart().startsWith(`${key}:`)) + 1);
    expect(refused?.summary).toContain(`"${key}"`);
  });

  it('never interpolates a group or file path (keys): the reference stays text and is refused as a path', async () => {
    const wd = workdir();
    wd.write('plumb.yaml', `version: 1\ninstances:\n  prod:\n    url: https://code.example.test\n    token_env: PLUMB_TOKEN\n    groups:\n      "\${env:CI_SECRET}":\n        prune_access_tokens: false\n`);
    const r = await wd.run(['validate', '--json'], { CI_SECRET });
    expect(r.code).toBe(1);
  });

  it('still interpolates secret settings and file content', async () => {
    const wd = workdir();
    wd.write(
      'plumb.yaml',
      `version: 1\ninstances:\n  prod:\n    url: https://code.example.test\n    token_env: PLUMB_TOKEN\n    settings:\n      spam_check_api_key: \${env:CI_SECRET}\n    projects:\n      platform/app:\n        files:\n          secret.txt:\n            content: \${env:CI_SECRET}\n`,
    );
    expect((await wd.run(['validate'], { CI_SECRET })).code).toBe(0);
  });

  it('refuses a secret shorter than 4 characters at its line: it could not be masked', async () => {
    const wd = workdir();
    const yaml = `version: 1\ninstances:\n  prod:\n    url: https://code.example.test\n    token_env: PLUMB_TOKEN\n    settings:\n      spam_check_api_key: \${env:SHORT}\n`;
    wd.write('plumb.yaml', yaml);
    const r = await wd.run(['validate', '--json'], { SHORT: 'k9' });
    expect(r.code).toBe(1);
    expect((JSON.parse(r.stdout) as { diagnostics: unknown[] }).diagnostics).toEqual([expect.objectContaining({ code: 'PLUMB_SECRET_TOO_SHORT', line: 7 })]);
  });
});

describe('masking is not defeated by transforming the secret', () => {
  const value = 'Sup3r/Secret+Value 42&x=y';
  const r = new SecretRegistry();
  r.add(value);
  const forms: [string, string][] = [
    ['lower-cased', value.toLowerCase()],
    ['upper-cased', value.toUpperCase()],
    ['URL-encoded (encodeURIComponent)', encodeURIComponent(value)],
    ['form-encoded', new URLSearchParams({ q: value }).toString().slice(2)],
    ['JSON-escaped twice', JSON.stringify(JSON.stringify(value))],
    ['base64', Buffer.from(value).toString('base64')],
    ['base64 inside a longer text, one byte in', Buffer.from(`x${value}tail`).toString('base64')],
    ['base64 inside a longer text, two bytes in', Buffer.from(`xy${value}tail`).toString('base64')],
    ['base64url', Buffer.from(`${value}`).toString('base64url')],
    ['split across lines', `${value.slice(0, 9)}\n      ${value.slice(9)}`],
  ];
  it.each(forms)('masks the secret %s', (_how, leaked) => {
    const out = r.redact(`before ${leaked} after`);
    expect(out).toContain(MASK);
    for (const part of [value.slice(0, 9), value.slice(9, 18), value.toLowerCase().slice(0, 9), Buffer.from(value).toString('base64').slice(2, 14)]) expect(out).not.toContain(part);
    expect(out.startsWith('before ')).toBe(true);
  });

  it('leaves ordinary text, words and hex digests alone', () => {
    const text = 'sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 ConfigurationFile\n  and more';
    expect(r.redact(text)).toBe(text);
  });
});

describe('local servers are not exposed', () => {
  const quiet = { stdout: () => {}, waitForStop: () => Promise.resolve('test') };

  it('the emulator refuses a non-loopback host while the seed holds the published example tokens', async () => {
    let err = '';
    const code = await runEmulatorCommand(['--host', '0.0.0.0', '--port', '0'], { ...quiet, stderr: (t) => void (err += t) });
    expect(code).toBe(1);
    expect(err).toContain('refusing to listen on 0.0.0.0');
    expect(err).toContain('--allow-remote');
  });

  it("the emulator refuses a non-loopback host with the CI walkthrough's published seed too, its job token included", async () => {
    let err = '';
    const code = await runEmulatorCommand(['--host', '0.0.0.0', '--port', '0', '--seed', path.join(root, 'examples/ci/emulator-seed.yaml')], { ...quiet, stderr: (t) => void (err += t) });
    expect(code).toBe(1);
    expect(err).toContain('refusing to listen on 0.0.0.0');
    expect(err).toContain('"ops/config job token"');
  });

  it('the emulator still listens on loopback with the example seed', async () => {
    let out = '';
    const code = await runEmulatorCommand(['--host', 'localhost', '--port', '0'], { stdout: (t) => void (out += t), stderr: () => {}, waitForStop: () => Promise.resolve('test') });
    expect(code).toBe(0);
    expect(out).toContain('listening on');
  });

  it('the provider refuses to serve plaintext gRPC without Terraform\'s client certificate, unless started for debugging', async () => {
    ensureBuilt();
    const run = (env: Record<string, string>) =>
      new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
        const child = spawn(process.execPath, [PROVIDER_BIN], { cwd: root, env: { PATH: process.env.PATH ?? '', ...MAGIC, PLUGIN_PROTOCOL_VERSIONS: '6', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        const timer = setTimeout(() => child.kill(), 10_000);
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('\n')) child.kill(); // a handshake: it serves
        });
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        child.on('exit', (code) => {
          clearTimeout(timer);
          resolve({ code, out, err });
        });
      });
    const refused = await run({});
    expect(refused.code).toBe(1);
    expect(refused.out).toBe('');
    expect(refused.err).toContain('PLUGIN_CLIENT_CERT');
    const debugging = await run({ PLUMB_PROVIDER_INSECURE_DEBUG: '1' });
    expect(debugging.out).toMatch(/^1\|6\|tcp\|127\.0\.0\.1:\d+\|grpc\|\n/);
  }, 30_000);
});

describe('the CA bundle', () => {
  it('refuses a ca_bundle that holds no PEM certificate, offline and at its line', async () => {
    const wd = workdir();
    wd.write('ca.der', '0\x82\x01\x0a not a PEM file');
    wd.write('plumb.yaml', `version: 1\ninstances:\n  prod:\n    url: https://code.example.test\n    token_env: PLUMB_TOKEN\n    ca_bundle: ca.der\n`);
    const r = await wd.run(['validate', '--json']);
    expect(r.code).toBe(1);
    expect((JSON.parse(r.stdout) as { diagnostics: unknown[] }).diagnostics).toEqual([expect.objectContaining({ code: 'PLUMB_CA_BUNDLE_NOT_PEM', line: 6 })]);
  });
});
