/**
 * Interrupted applies (issue 29, item 1): Ctrl-C or a cancelled CI job (SIGTERM, then a kill) must
 * not lose what apply already did. The built CLI runs against the emulator over loopback; each
 * signal is sent at a point the test observes (a token sink that has started, a request answered),
 * with the emulator's latency faults holding a write in flight. docs/plans.md#interrupted-applies.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessByStdio } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/emulator/faults.js';
import { ADMIN_TOKEN, addDays, BASE_DAY, expectNoFamilyRevoked, expectNoRepeatedRotation, harness, seedToken } from '../resources/group-access-tokens/helpers.js';
import type { Harness } from '../resources/group-access-tokens/helpers.js';

const bin = path.resolve(__dirname, '../../bin/plumb.js');
const NODE = JSON.stringify(process.execPath);

let h: Harness | undefined;
let child: ChildProcessByStdio<null, Readable, Readable> | undefined;
afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  child = undefined;
  await h?.close();
  h = undefined;
});

const PROJECT = 'platform/app';

/** The instance: group platform (token "rot" due for rotation), project platform/app. */
async function interruptHarness(opts: { latencyMs?: number } = {}): Promise<Harness> {
  const hh = await harness({
    groups: [{ full_path: 'platform', access_tokens: [seedToken('rot', 'seeded-rot-00000001', { expires_at: addDays(BASE_DAY, 3) })] }],
    // Unprotected: an administrator's commit onto a protected branch is a risk this test does not accept.
    projects: [{ path_with_namespace: PROJECT, default_branch: 'main', protected_branches: [], files: { 'README.md': 'hello\n' } }],
    ...(opts.latencyMs !== undefined && { latencyMs: opts.latencyMs }),
  });
  return hh;
}

/**
 * plumb.yaml: one setting, tokens (raw YAML of each sink), two files in one project and branch (one
 * lane: one commit at a time) with two authors, so they are two commits (the files of one author
 * would be one).
 */
function writeConfig(hh: Harness, tokens: Record<string, string>): void {
  const lines = [
    'version: 1',
    'instances:',
    '  local:',
    `    url: ${hh.emu.url}`,
    '    token_env: PLUMB_TOKEN',
    '    settings:',
    '      deletion_adjourned_period: 21',
    '    groups:',
    '      platform:',
    '        access_tokens:',
  ];
  for (const [name, sink] of Object.entries(tokens)) {
    lines.push(`          ${name}: {scopes: [read_api], access_level: 30, rotation: {lifetime_days: 60, rotate_before_days: 7}, sink: ${sink}}`);
    const file = /^\{file: (.+)\}$/.exec(sink)?.[1];
    if (file) hh.allow(file);
  }
  lines.push('    projects:', `      ${PROJECT}:`, '        files:', '          a.txt: {content: "a\\n"}', '          b.txt: {content: "b\\n", author_name: Second, author_email: second@example.test}');
  hh.wd.write('plumb.yaml', lines.join('\n') + '\n');
}

interface Spawned {
  readonly output: { stdout: string; stderr: string };
  readonly ended: Promise<number | NodeJS.Signals | null>;
}

function spawnPlumb(hh: Harness, args: readonly string[], env: Record<string, string> = {}): Spawned {
  expect(existsSync(path.resolve(__dirname, '../../dist/cli.js')), 'npm run build first').toBe(true);
  const c = spawn(process.execPath, [bin, ...args], {
    cwd: hh.wd.dir,
    env: { PATH: process.env.PATH ?? '', PLUMB_TOKEN: ADMIN_TOKEN, PLUMB_NOW: hh.today, PLUMB_SINK_TIMEOUT_SECONDS: '60', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = c;
  const output = { stdout: '', stderr: '' };
  c.stdout.on('data', (d: Buffer) => (output.stdout += d.toString()));
  c.stderr.on('data', (d: Buffer) => (output.stderr += d.toString()));
  const ended = new Promise<number | NodeJS.Signals | null>((r) => c.on('close', (code, signal) => r(signal ?? code)));
  return { output, ended };
}

/** Waits (bounded) for `ready`, polling; fails with what the process printed. */
async function until(ready: () => boolean, what: string, s: Spawned, ms = 60_000): Promise<void> {
  const start = Date.now();
  while (!ready()) {
    if (Date.now() - start > ms) throw new Error(`${what} never happened: ${s.output.stderr}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

interface JsonPlan {
  changes: { address: string; action: string }[];
}

const pending = (p: JsonPlan) => p.changes.filter((c) => c.action !== 'no-op').map((c) => `${c.action} ${c.address}`);
const commits = (hh: Harness, file: string) => hh.emu.requests.filter((r) => r.method === 'POST' && r.path.endsWith(`/repository/files/${file.replace('.', '%2E')}`) && r.status === 201).length;

describe('SIGTERM during apply', () => {
  it('lets the changes in flight finish, starts none after it, records every outcome and reports the apply as interrupted (exit 143)', async () => {
    h = await interruptHarness();
    // The sink says it started, then takes a moment: it is in flight when the signal comes.
    h.wd.write('slow-sink.js', "const fs = require('fs'); fs.writeFileSync('sink-started', ''); let s = ''; process.stdin.on('data', (d) => (s += d)).on('end', () => setTimeout(() => fs.writeFileSync('secrets/ci.token', s, { mode: 0o600 }), 500));\n");
    h.allow('secrets/ci.token');
    writeConfig(h, { ci: `{command: [${NODE}, slow-sink.js]}` });
    // The first commit of the project's lane is held in flight for 8 s, so the second has not started.
    h.addFault({ method: 'POST', path: '/projects/*/repository/files/*', nth: 1, action: { kind: 'latency', ms: 8_000 } });
    const s = spawnPlumb(h, ['apply', '--auto-approve']);
    await until(() => existsSync(path.join(h!.wd.dir, 'sink-started')), 'the sink starting', s);
    child!.kill('SIGTERM');
    expect(await s.ended, s.output.stderr).toBe(143);
    const out = s.output.stdout + s.output.stderr;
    expect(out).toContain('SIGTERM received: starting no new change');
    expect(out).toMatch(/✓ local\.group\["platform"\]\.access_token\["ci"\]: create applied/);
    expect(out).toMatch(/✓ local\.project\["platform\/app"\]\.branch\["main"\]\.file\["a\.txt"\]: create applied/);
    expect(out).toMatch(/· local\.project\["platform\/app"\]\.branch\["main"\]\.file\["b\.txt"\]: create not-attempted/);
    expect(out).toContain('error[PLUMB_APPLY_INTERRUPTED]: Apply was interrupted by SIGTERM: 1 change(s) not started');
    expect(out).toMatch(/Apply interrupted by SIGTERM: \d applied, 0 failed, 0 skipped, 1 not attempted\./);
    expect(commits(h, 'b.txt'), 'no change starts after the signal').toBe(0);
    // Recorded: the token's slot (its sink holds it) and the file plumb wrote.
    const state = readFileSync(path.join(h.wd.dir, '.plumb/state.json'), 'utf8');
    const ci = h.active('platform', 'ci');
    expect(ci).toHaveLength(1);
    expect(state).toContain(`"held": ${ci[0]!.id}`);
    expect(state).toContain('platform/app|main|a.txt');
    expect(h.tokenInSink('ci')?.id).toBe(ci[0]!.id);
    // The next plan is correct: only what did not happen is left.
    const next = await h.run(['plan', '--json']);
    expect(pending(JSON.parse(next.stdout) as JsonPlan)).toEqual(['create local.project["platform/app"].branch["main"].file["b.txt"]']);
  }, 120_000);

  it('stops at once on a second signal, still writes the state, and a token issued meanwhile is never adopted unseen', async () => {
    h = await interruptHarness();
    // A sink that never finishes: the token is issued, its secret never reaches anyone.
    h.wd.write('stuck-sink.js', "require('fs').writeFileSync('sink-started', ''); setInterval(() => {}, 1000);\n");
    writeConfig(h, { ci: `{command: [${NODE}, stuck-sink.js]}` });
    const s = spawnPlumb(h, ['apply', '--auto-approve']);
    await until(() => existsSync(path.join(h!.wd.dir, 'sink-started')), 'the sink starting', s);
    child!.kill('SIGTERM');
    await until(() => s.output.stderr.includes('SIGTERM received'), 'the first signal being answered', s);
    child!.kill('SIGTERM');
    expect(await s.ended, s.output.stderr).toBe(143);
    expect(s.output.stderr).toContain('stopped at once by a second SIGTERM');
    const ci = h.active('platform', 'ci');
    expect(ci, 'the instance issued the token').toHaveLength(1);
    expect(h.sinkValue('ci'), 'nobody holds its secret').toBeUndefined();
    // The state says an issue of "ci" has no known outcome: the next plan rotates the token and
    // delivers a fresh secret instead of taking the unknown one as the declared token.
    const next = JSON.parse((await h.run(['plan', '--json'])).stdout) as JsonPlan;
    expect(pending(next)).toContain('rotate local.group["platform"].access_token["ci"]');
    writeConfig(h, { ci: '{file: secrets/ci.token}' });
    const again = await h.run(['apply', '--auto-approve']);
    expect(again.code, again.stderr).toBe(0);
    expect(h.emu.state.isActive(h.tokenInSink('ci')!)).toBe(true);
    expect(h.active('platform', 'ci')).toHaveLength(1);
  }, 120_000);
});

describe('SIGINT during planning', () => {
  it('says plan was interrupted while reading, changes nothing and exits 130', async () => {
    h = await interruptHarness();
    writeConfig(h, { ci: '{file: secrets/ci.token}' });
    h.addFault({ method: 'GET', path: '/groups/*/access_tokens', action: { kind: 'latency', ms: 5_000 } });
    for (const command of [['plan'], ['apply', '--auto-approve'], ['drift', '--json']]) {
      const s = spawnPlumb(h, command);
      await until(() => h!.emu.requests.length > 0 && h!.emu.inFlight > 0, 'a read in flight', s);
      child!.kill('SIGINT');
      expect(await s.ended, s.output.stderr).toBe(130);
      expect(s.output.stderr).toContain(`error[PLUMB_INTERRUPTED]: plumb ${command[0]} was interrupted by SIGINT while reading the instance; nothing was changed`);
      if (command.includes('--json')) expect(JSON.parse(s.output.stdout).error, 'with --json, stdout is one JSON document').toBe('PLUMB_INTERRUPTED');
      expect(h.emu.requests.filter((r) => !['GET', 'HEAD'].includes(r.method))).toEqual([]);
      expect(existsSync(path.join(h.wd.dir, '.plumb/state.json.lock')), 'the state lock was given back').toBe(false);
      h.emu.resetRequests();
    }
  }, 120_000);
});

describe('apply killed at random points', () => {
  it('leaves a state from which the next plan is correct and no secret is lost (seeded, bounded)', async () => {
    const random = mulberry32(20261128);
    for (let round = 0; round < 8; round++) {
      h = await interruptHarness({ latencyMs: 15 });
      // Two tokens with a sink that takes a moment (the secret is written 300 ms after it arrived), one with a file sink.
      // It writes only while plumb still runs: a sink orphaned by the kill must not write a secret later, behind the next apply's back.
      h.wd.write('slow-sink.js', "const fs = require('fs'); const parent = process.ppid; let s = ''; process.stdin.on('data', (d) => (s += d)).on('end', () => setTimeout(() => { if (process.ppid === parent) fs.writeFileSync(`secrets/${process.env.PLUMB_TOKEN_NAME}.token`, s, { mode: 0o600 }); }, 300));\n");
      for (const name of ['ci', 'deploy']) h.allow(`secrets/${name}.token`);
      writeConfig(h, { ci: `{command: [${NODE}, slow-sink.js]}`, deploy: `{command: [${NODE}, slow-sink.js]}`, rot: '{file: secrets/rot.token}' });
      // Killed after a random number of answered requests (the whole apply makes about 15), and a random moment more.
      const after = 1 + Math.floor(random() * 14);
      const more = Math.floor(random() * 400);
      const s = spawnPlumb(h, ['apply', '--auto-approve']);
      await until(() => h!.emu.requests.length >= after || child!.exitCode !== null, `request ${after}`, s);
      await new Promise((r) => setTimeout(r, more));
      child!.kill('SIGKILL');
      await s.ended;
      await new Promise((r) => setTimeout(r, 400)); // an orphaned sink sees it and ends without writing
      const at = `round ${round} (killed ${more} ms after request ${after})`;
      // A kill during a sink's write leaves its temp file (0600, beside the sink): the next apply that delivers into the directory removes it.
      const temps = readdirSync(path.join(h.wd.dir, 'secrets')).filter((f) => /\.plumb-\d+-[0-9a-f]+\.tmp$/.test(f));
      for (const t of temps) h.allow(`secrets/${t}`);
      const plan = JSON.parse((await h.run(['plan', '--json'])).stdout) as JsonPlan;
      for (const name of ['ci', 'deploy', 'rot']) {
        const change = plan.changes.find((c) => c.address === `local.group["platform"].access_token["${name}"]`);
        expect(change, `${at}: ${name} is planned`).toBeDefined();
        if (change!.action === 'no-op') {
          // Planned as in sync only when its sink holds the secret of the one active token of its name.
          const inSink = h.tokenInSink(name);
          expect(inSink && h.emu.state.isActive(inSink), `${at}: "${name}" is planned in sync but its sink does not hold the active token`).toBe(true);
          expect(h.active('platform', name).map((t) => t.id), `${at}: "${name}"`).toEqual([inSink!.id]);
        }
      }
      writeConfig(h, { ci: '{file: secrets/ci.token}', deploy: '{file: secrets/deploy.token}', rot: '{file: secrets/rot.token}' });
      const again = await h.run(['apply', '--auto-approve']);
      expect(again.code, `${at}: ${again.stderr}`).toBe(0);
      const last = JSON.parse((await h.run(['plan', '--json'])).stdout) as JsonPlan;
      expect(pending(last), `${at}: converged`).toEqual([]);
      for (const name of ['ci', 'deploy', 'rot']) {
        const inSink = h.tokenInSink(name);
        expect(inSink && h.emu.state.isActive(inSink), `${at}: the sink of "${name}" holds the active token`).toBe(true);
      }
      for (const t of temps) expect(existsSync(path.join(h.wd.dir, 'secrets', t)), `${at}: ${t} was removed by the next apply`).toBe(false);
      expectNoRepeatedRotation(h.emu);
      expectNoFamilyRevoked(h.emu);
      await h.close();
      h = undefined;
    }
  }, 300_000);
});
