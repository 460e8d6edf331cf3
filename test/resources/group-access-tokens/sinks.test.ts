/**
 * Secret delivery: file, command and stdout sinks, checked at plan time before any request, and
 * what apply does when delivery fails after the instance issued a token.
 */
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, BASE_DAY, ISSUED, addDays, harness, seedToken } from './helpers.js';
import type { Harness } from './helpers.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const NODE = JSON.stringify(process.execPath);

/** A node script in the working directory used as a command sink. */
function script(name: string, body: string): string {
  h.wd.write(name, body);
  return `{command: [${NODE}, ${name}]}`;
}

describe('file sinks', () => {
  it('shows the sink file relative to the working directory, never the runner\'s absolute path', async () => {
    h = await harness();
    h.config({ platform: { tokens: { ci: {} } } });
    const plan = await h.run(['plan']);
    expect(plan.stdout).toContain('file secrets/ci.token');
    expect(plan.stdout).not.toContain(h.wd.dir);
    const apply = await h.run(['apply', '--auto-approve']);
    expect(apply.code).toBe(0);
    expect(apply.stdout + apply.stderr).toContain('secret written to secrets/ci.token');
    expect(apply.stdout + apply.stderr).not.toContain(h.wd.dir);
  });

  it('replaces the file atomically with mode 0600: a new inode, no temp file left, and a reader never sees a partial secret', async () => {
    h = await harness({ groups: [{ full_path: 'platform', access_tokens: [seedToken('ci', 'seeded-ci-000000101', { expires_at: addDays(BASE_DAY, 2) })] }] });
    h.config({ platform: { tokens: { ci: {} } } });
    const file = path.join(h.wd.dir, 'secrets/ci.token');
    const old = 'svc-OLDOLDOLDOLDOLDOLD';
    writeFileSync(file, old, { mode: 0o644 });
    const inode = statSync(file).ino;
    // A reader polls the file from another thread for the whole apply.
    const reader = new Worker(
      `const { readFileSync } = require('node:fs'); const { parentPort, workerData } = require('node:worker_threads');
       const seen = new Set(); let stop = false; parentPort.on('message', () => { stop = true; });
       (function loop() { for (let i = 0; i < 200; i++) { try { seen.add(readFileSync(workerData, 'utf8')); } catch (e) { seen.add('ERR ' + e.code); } }
         if (stop) parentPort.postMessage([...seen]); else setImmediate(loop); })();`,
      { eval: true, workerData: file },
    );
    const r = await h.run(['apply', '--auto-approve']);
    const seen = await new Promise<string[]>((resolve) => {
      reader.once('message', resolve);
      reader.postMessage('stop');
    });
    await reader.terminate();
    expect(r.code).toBe(0);
    const now = h.sinkValue('ci')!;
    expect(now).toMatch(/^svc-[A-Za-z0-9_-]{20}$/);
    for (const s of seen) expect([old, now]).toContain(s);
    const st = statSync(file);
    expect(st.mode & 0o777).toBe(0o600);
    expect(st.ino).not.toBe(inode);
    expect(readdirSync(path.dirname(file)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('refuses a sink whose directory does not exist at plan time, at the sink line, with no request made', async () => {
    h = await harness();
    h.config({ platform: { tokens: { ci: { sink: '{file: missing-dir/ci.token}' } } } });
    h.emu.resetRequests();
    const r = await h.run(['plan']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('PLUMB_TOKEN_SINK_UNUSABLE');
    expect(r.stdout).toContain('missing-dir does not exist');
    const line = h.wd.read('plumb.yaml').split('\n').findIndex((l) => l.includes('missing-dir')) + 1;
    expect(r.stdout).toMatch(new RegExp(`plumb\\.yaml:${line}:\\d+`));
    expect(h.emu.requests).toHaveLength(0);
    const a = await h.run(['apply', '--auto-approve']);
    expect(a.code).toBe(1);
    expect(h.emu.requests).toHaveLength(0);
  });

  it('refuses a sink whose parent is a file rather than a directory, with no request made', async () => {
    h = await harness();
    h.wd.write('not-a-dir', 'x');
    h.config({ platform: { tokens: { ci: { sink: '{file: not-a-dir/ci.token}' } } } });
    h.emu.resetRequests();
    const r = await h.run(['plan']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('PLUMB_TOKEN_SINK_UNUSABLE');
    expect(r.stdout).toContain('is not a directory');
    expect(h.emu.requests).toHaveLength(0);
  });
});

describe('command sinks', () => {
  it('hands the secret to the program on standard input, with the token facts in its environment and never in argv or env', async () => {
    h = await harness();
    const sink = script(
      'store.mjs',
      `import { writeFileSync } from 'node:fs';
let s = ''; for await (const c of process.stdin) s += c;
writeFileSync('secrets/ci.token', s, { mode: 0o600 });
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('PLUMB_')));
writeFileSync('seen.json', JSON.stringify({ argv: process.argv.slice(2), env }));
`,
    );
    h.allow('secrets/ci.token');
    h.config({ platform: { tokens: { ci: { sink: sink.replace(']}', ', --flag]}') } } } });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('secret handed to');
    const t = h.tokenInSink('ci')!;
    expect(t).toBeDefined();
    const seen = h.wd.read('seen.json');
    expect(seen.match(ISSUED)).toBeNull();
    const { argv, env } = JSON.parse(seen);
    expect(argv).toEqual(['--flag']);
    expect(env).toMatchObject({ PLUMB_TOKEN_NAME: 'ci', PLUMB_TOKEN_GROUP: 'platform', PLUMB_TOKEN_ID: String(t.id), PLUMB_TOKEN_EXPIRES_AT: addDays(BASE_DAY, 60) });
    // plumb's own credential is not passed on.
    expect(env.PLUMB_TOKEN).toBeUndefined();
    expect(seen).not.toContain(ADMIN_TOKEN);
  });

  it('refuses a program that is not on PATH at plan time, before any request', async () => {
    h = await harness();
    h.config({ platform: { tokens: { ci: { sink: '{command: [no-such-program-xyz, put]}' } } } });
    h.emu.resetRequests();
    const r = await h.run(['plan']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('"no-such-program-xyz" is not on PATH');
    expect(h.emu.requests).toHaveLength(0);
  });

  it('revokes the new token and says so when the program fails after a create', async () => {
    h = await harness();
    // The failing program echoes what it read: plumb must not repeat it.
    const sink = script('fail.mjs', `let s = ''; for await (const c of process.stdin) s += c; console.error('vault says no to ' + s); process.exit(3);\n`);
    h.config({ platform: { tokens: { ci: { sink } } } });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_SINK_FAILED');
    expect(r.stderr).toContain('exited with 3: vault says no to (sensitive value)');
    expect(r.stderr).toContain('PLUMB_TOKEN_SECRET_NOT_DELIVERED');
    expect(r.stderr).toMatch(/id \d+ is revoked/);
    const created = h.emu.state.tokens.filter((t) => t.name === 'ci');
    expect(created).toHaveLength(1);
    expect(created[0]!.revoked).toBe(true);
    expect(h.emu.requests.filter((x) => x.method === 'DELETE').map((x) => x.path)).toEqual([`/groups/platform/access_tokens/${created[0]!.id}`]);
    // Fixed sink: the next run creates it again.
    h.config({ platform: { tokens: { ci: {} } } });
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(h.emu.state.isActive(h.tokenInSink('ci')!)).toBe(true);
  });

  it('kills a program that does not finish within the timeout and revokes the new token', async () => {
    h = await harness();
    const sink = script('slow.mjs', `setTimeout(() => {}, 60_000);\n`);
    h.config({ platform: { tokens: { ci: { sink } } } });
    const r = await h.run(['apply', '--auto-approve'], { PLUMB_SINK_TIMEOUT_SECONDS: '0.3' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('did not finish within');
    expect(h.active('platform', 'ci')).toHaveLength(0);
  });

  it('keeps the rotated token when delivery fails, notes it in the state file, and the next plan rotates it', async () => {
    h = await harness({ groups: [{ full_path: 'platform', access_tokens: [seedToken('ci', 'seeded-ci-000000102', { id: 50, expires_at: addDays(BASE_DAY, 2) })] }] });
    const sink = script('fail.mjs', `process.exit(1);\n`);
    h.config({ platform: { tokens: { ci: { sink } } } });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    const fresh = h.active('platform', 'ci');
    expect(fresh).toHaveLength(1);
    expect(fresh[0]!.id).not.toBe(50);
    expect(h.emu.state.tokenById(50)!.revoked).toBe(true);
    expect(h.emu.requests.filter((x) => x.method === 'DELETE')).toHaveLength(0);
    expect(r.stderr).toContain(`id 50 is revoked; id ${fresh[0]!.id} is active and its secret is lost`);
    const state = JSON.parse(h.wd.read('.plumb/state.json'));
    expect(Object.values(state.instances)[0]).toMatchObject({ tokens: { [fresh[0]!.id]: { kind: 'secret-not-received', name: 'ci' } } });

    h.config({ platform: { tokens: { ci: {} } } });
    const plan = JSON.parse((await h.run(['plan', '--json'])).stdout);
    expect(plan.changes[0]).toMatchObject({ action: 'rotate', reasons: ['secret-not-received'] });
    expect((await h.run(['drift'])).code).toBe(2);
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(h.tokenInSink('ci')!.previousId).toBe(fresh[0]!.id);
    expect(JSON.parse(h.wd.read('.plumb/state.json')).instances[h.emu.url].tokens).toEqual({});
    expect((await h.run(['plan', '--detailed-exitcode'])).code).toBe(0);
  });

  it('keeps the old token and revokes the undeliverable new one when a replacement cannot be delivered', async () => {
    h = await harness({ groups: [{ full_path: 'platform', access_tokens: [seedToken('ci', 'seeded-ci-000000103', { id: 60 })] }] });
    const sink = script('fail.mjs', `process.exit(2);\n`);
    h.config({ platform: { tokens: { ci: { scopes: ['api'], sink } } } });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the old token was kept');
    expect(h.active('platform', 'ci').map((t) => t.id)).toEqual([60]);
    expect(h.emu.state.tokens.filter((t) => t.name === 'ci' && t.id !== 60).every((t) => t.revoked)).toBe(true);
  });
});

describe('stdout sinks', () => {
  it('prints one JSON line per secret on stdout and sends the human report to stderr', async () => {
    h = await harness();
    h.config({ platform: { tokens: { a: { sink: '{stdout: true}' }, b: { sink: '{stdout: true}' } } } });
    const r = await h.run(['apply', '--auto-approve'], {}, { stdoutMaySecrets: true });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.name)).toEqual(['a', 'b']);
    for (const l of lines) {
      expect(Object.keys(l).sort()).toEqual(['expires_at', 'group', 'id', 'name', 'token']);
      expect(l.group).toBe('platform');
      expect(h.emu.state.tokenByValue(l.token)!.id).toBe(l.id);
    }
    expect(r.stderr).toContain('Apply complete');
    expect(r.stderr).toContain('plumb will perform the following actions');
    // The plan alone prints no secret and keeps its human view on stdout.
    const p = await h.run(['plan']);
    expect(p.stdout).toContain('No changes');
  });
});
