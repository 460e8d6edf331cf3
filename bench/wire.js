// Whole-process benchmarks: what a user waits for. Each row spawns `node bin/plumb.js …` against an
// emulator answering every request 20 ms after it arrives (`--latency-ms 20`, in a worker thread:
// the instance is another machine), and in the same run times a baseline: bench/baseline.js, a
// minimal undici script with the same concurrency making the same requests. Rows print plumb's wall
// time, the requests the emulator counted, the latency floor (ceil(requests / concurrency) ×
// latency) and the baseline. Imported by bench/run.js; `node bench/wire.js` runs these rows alone.
//
// Targets (issue 10): 1,000 creates ≤ 1,200 requests and ≤ 1.5× floor; a saved plan's apply ≤ 1.1×
// the in-memory apply; 5,000 tokens ≤ 5.5× the time of 1,000; plumb's plan ≤ 1.15× the baseline.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { SETTINGS, SETTING_RULES } from '../dist/catalogue/index.js';
import { createEmulatorState } from '../dist/emulator/index.js';
import { root, scale } from './lib.js';

export const ADMIN = 'bench-admin-token-0123456789';
export const LATENCY_MS = 20;
export const CONCURRENCY = 8; // plumb's default, given explicitly so the floor is known
const RUNS = Number(process.env.PLUMB_BENCH_RUNS ?? scale(3, 1));
/** Rows to run (comma-separated: plan,apply,rotate,saved,settings,large); default all. */
const ONLY = process.env.PLUMB_BENCH_ONLY?.split(',');
/** A directory: plumb's processes write CPU profiles there (node --cpu-prof). */
const PROFILE = process.env.PLUMB_BENCH_PROFILE;
export const TODAY = '2026-03-01';
export const LIFETIME = 60;
export const ROTATE_DAY = addDays(TODAY, LIFETIME - 5); // every token is within rotate_before_days (7)

export function addDays(date, days) {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
export const floorMs = (requests) => Math.ceil(requests / CONCURRENCY) * LATENCY_MS;
export const adminUser = { username: 'root', admin: true, personal_access_tokens: [{ name: 'bench', token: ADMIN, scopes: ['api'] }] };

/**
 * `groups` groups (team-0000, …) of `tokens` group access tokens each, every one due on ROTATE_DAY:
 * the configuration's YAML (`rotation` given its `overlap` when one is asked for; `sink(name, t)`
 * writes each token's sink) and the tokens the emulator is seeded with (`seedTokens(name)`, each
 * holding the secret `secret(name, t)`). The token rows of this file and bench/overlap.js.
 */
export function tokenFleet(groups, tokens, { overlap, sink }) {
  const names = Array.from({ length: groups }, (_, g) => `team-${String(g).padStart(4, '0')}`);
  const secret = (name, t) => `bench-${name}-tok-${t}-secret`;
  // More changes than --max-changes (100) is the risk large-change-set: accepted, the bench measures speed.
  const lines = ['version: 1', 'instances:', '  bench:', '    url: URL', '    token_env: PLUMB_TOKEN', '    allow_risky: [large-change-set]', '    groups:'];
  for (const name of names) {
    lines.push(`      ${name}:`, '        access_tokens:');
    for (let t = 0; t < tokens; t++) {
      lines.push(
        `          tok-${t}:`,
        '            scopes: [read_api]',
        '            access_level: developer',
        `            rotation: {lifetime_days: ${LIFETIME}, rotate_before_days: 7${overlap ? `, overlap: ${overlap}` : ''}}`,
        `            sink: ${sink(name, t)}`,
      );
    }
  }
  const seedTokens = (name) =>
    Array.from({ length: tokens }, (_, t) => ({ name: `tok-${t}`, token: secret(name, t), scopes: ['read_api'], access_level: 30, expires_at: addDays(TODAY, LIFETIME) }));
  return { names, secret, yaml: lines.join('\n') + '\n', seedTokens };
}

/** The emulator in a worker thread, driven by messages (bench/emulator-worker.js). */
export async function remoteEmulator() {
  const worker = new Worker(new URL('./emulator-worker.js', import.meta.url), {
    workerData: { latencyMs: LATENCY_MS, emulatorUrl: new URL('../dist/emulator/index.js', import.meta.url).href },
  });
  await new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  let next = 0;
  const call = (op, arg) =>
    new Promise((resolve, reject) => {
      const id = next++;
      const onMessage = (m) => {
        if (m.id !== id) return;
        worker.off('message', onMessage);
        if (m.error) reject(new Error(m.error));
        else resolve(m.value);
      };
      worker.on('message', onMessage);
      worker.postMessage({ id, op, arg });
    });
  return {
    start: (seed, now) => call('start', { seed, now: `${now}T12:00:00Z` }),
    stats: () => call('stats'),
    resetRequests: () => call('resetRequests'),
    close: async () => {
      await call('close');
      await worker.terminate();
    },
  };
}

/** Runs `node args…` in `cwd`; resolves with the wall time (ms), the time the process started (epoch ms) and its output (its first MB). */
export function run(args, cwd, { ok = [0] } = {}) {
  return new Promise((resolve, reject) => {
    const startedAt = performance.timeOrigin + performance.now();
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { cwd, env: { PATH: process.env.PATH, PLUMB_TOKEN: ADMIN }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out.length < 1e6 ? (out += d) : undefined));
    child.stderr.on('data', (d) => (out.length < 1e6 ? (out += d) : undefined));
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = performance.now() - t0;
      if (ok.includes(code)) resolve({ ms, startedAt, out });
      else reject(new Error(`node ${args.join(' ')} exited ${code}:\n${out.slice(-3000)}`));
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Workloads

function tokenWorkload(groups, tokens) {
  // Every sink in one directory.
  const { names, yaml, seedTokens } = tokenFleet(groups, tokens, { sink: (name, t) => `{file: secrets/${name}-tok-${t}.token}` });
  const seedGroups = (withTokens) => names.map((name) => ({ full_path: name, ...(withTokens && { access_tokens: seedTokens(name) }) }));
  const count = (groups * tokens).toLocaleString('en');
  return {
    count,
    label: `${count} tokens / ${groups.toLocaleString('en')} groups`,
    yaml,
    seed: (withTokens) => ({ users: [adminUser], groups: seedGroups(withTokens) }),
    groups: names.map((name) => ({ path: name, tokens: Array.from({ length: tokens }, (_, t) => ({ name: `tok-${t}` })) })),
  };
}

/**
 * 60 settings changes a conforming server accepts: booleans off on a fresh instance, turned on, that no
 * dependency rule involves and that do not lock the bench out or change how the instance answers.
 */
function settingsWorkload(count = 60) {
  const ruled = new Set(SETTING_RULES.flatMap((r) => (r.kind === 'not-in-list' ? [r.field, r.list] : [r.kind === 'required-with' ? r.field : r.flag, ...r.requires])));
  const avoid = /admin_mode|maintenance|silent_mode|disable_|signin|signup|password|throttle|two_factor|require|restrict|lock_|deactivate|delete|personal_access|token|sso|saml|ldap|captcha|spam|external|pipl|check_namespace|enforce|dedicated|toolkit/;
  const live = createEmulatorState({}).settings; // what a fresh emulator (the bench's instance) holds
  const picked = SETTINGS.filter(
    (s) => s.type === 'boolean' && live[s.name] === false && !s.secret && !s.readOnly && !s.removed && !s.deprecated && !s.fixed && !ruled.has(s.name) && !avoid.test(s.name),
  ).slice(0, count);
  if (picked.length < count) throw new Error(`only ${picked.length} settings fit the settings workload`);
  const settings = Object.fromEntries(picked.map((s) => [s.name, true]));
  const lines = ['version: 1', 'instances:', '  bench:', '    url: URL', '    token_env: PLUMB_TOKEN', '    settings:'];
  for (const [k, v] of Object.entries(settings)) lines.push(`      ${k}: ${v}`);
  return { yaml: lines.join('\n') + '\n', settings };
}

// ---------------------------------------------------------------------------------------------
// One measurement: a fresh emulator from the seed, a fresh working directory, one process timed.

async function measure(emu, seed, { now = TODAY, yaml, prepare, args, baselineJob }) {
  const url = await emu.start(seed, now);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-wire-'));
  try {
    mkdirSync(path.join(dir, 'secrets'));
    let cmd;
    if (baselineJob) {
      const job = path.join(dir, 'job.json');
      writeFileSync(job, JSON.stringify({ url, token: ADMIN, concurrency: CONCURRENCY, sinkDir: path.join(dir, 'secrets'), ...baselineJob }));
      cmd = [path.join(root, 'bench/baseline.js'), job];
    } else {
      writeFileSync(path.join(dir, 'plumb.yaml'), yaml.replace('URL', url));
      cmd = [...(PROFILE ? ['--cpu-prof', '--cpu-prof-dir', PROFILE] : []), path.join(root, 'bin/plumb.js'), ...args, '--now', now, '--concurrency', String(CONCURRENCY)];
    }
    // Work before the measured process (a saved plan), not counted.
    if (prepare) {
      await prepare(dir);
      await emu.resetRequests();
    }
    const { ms, startedAt } = await run(cmd, dir);
    const stats = await emu.stats();
    return {
      ms,
      requests: stats.requests,
      failed: stats.failed,
      maxInFlight: stats.maxInFlight,
      avgInFlight: stats.avgInFlight,
      // Time from the process's start to its first request (start-up, loading, validation).
      firstMs: stats.firstAt - startedAt,
      // Time from the last answer to the process's exit (rendering, state, shutting down).
      tailMs: startedAt + ms - stats.lastAt,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `RUNS` paired runs: the baseline, then plumb, then each of `also` (other plumb commands compared
 * with the first, interleaved so a busy machine slows all of them alike); medians of each, and the
 * median of each run's ratio `also[i]` / plumb.
 */
async function paired(emu, seed, plumb, baselineJob, { runs = RUNS, also = [] } = {}) {
  const p = [];
  const b = [];
  const a = also.map(() => []);
  for (let i = 0; i < runs; i++) {
    if (baselineJob) b.push(await measure(emu, seed, { ...plumb, baselineJob }));
    p.push(await measure(emu, seed, plumb));
    for (const [j, other] of also.entries()) a[j].push(await measure(emu, seed, other));
  }
  const pick = (xs) =>
    xs.length === 0 ? undefined : { ...xs[0], ms: median(xs.map((x) => x.ms)), firstMs: median(xs.map((x) => x.firstMs)), tailMs: median(xs.map((x) => x.tailMs)) };
  return {
    plumb: pick(p),
    baseline: pick(b),
    vsBaseline: b.length === 0 ? undefined : median(p.map((x, i) => x.ms / b[i].ms)),
    also: a.map((xs) => ({
      plumb: pick(xs),
      ratio: median(xs.map((x, i) => x.ms / p[i].ms)),
      // The same requests as the first command, so the same baseline.
      baseline: pick(b),
      vsBaseline: b.length === 0 ? undefined : median(xs.map((x, i) => x.ms / b[i].ms)),
    })),
  };
}

function describe({ plumb, baseline, vsBaseline }, floor = floorMs(plumb.requests)) {
  const parts = [
    `${plumb.ms.toFixed(0)} ms`,
    `${plumb.requests} req${plumb.failed ? ` (${plumb.failed} failed)` : ''}`,
    `floor ${floor} ms (${(plumb.ms / floor).toFixed(2)}×)`,
  ];
  parts.push(`1st req at ${plumb.firstMs.toFixed(0)} ms, exit ${plumb.tailMs.toFixed(0)} ms after the last, in flight max ${plumb.maxInFlight} avg ${plumb.avgInFlight.toFixed(1)}`);
  if (baseline) {
    parts.push(
      `baseline ${baseline.ms.toFixed(0)} ms, ${baseline.requests} req, 1st at ${baseline.firstMs.toFixed(0)} ms, exit +${baseline.tailMs.toFixed(0)} ms, avg ${baseline.avgInFlight.toFixed(1)} in flight (plumb ${vsBaseline.toFixed(2)}×, median of paired runs)`,
    );
  }
  return parts.join('; ');
}

export async function wireBenchmarks() {
  const emu = await remoteEmulator();
  const rows = [];
  const label = `${LATENCY_MS} ms latency, concurrency ${CONCURRENCY}, whole process, median of ${RUNS}`;
  try {
    const small = tokenWorkload(scale(200, 4), scale(5, 2));
    const job = (mode, w, expiresAt = addDays(TODAY, LIFETIME)) => ({ mode, groups: w.groups, scopes: ['read_api'], accessLevel: 30, expiresAt });
    const want = (row) => !ONLY || ONLY.includes(row);

    // 1. Plan of 1,000 tokens in 200 groups, from scratch.
    if (want('plan')) {
      const plan = await paired(emu, small.seed(false), { yaml: small.yaml, args: ['plan'] }, job('plan', small));
      rows.push({
        name: `plan ${small.label} from scratch (${label})`,
        measured: describe(plan),
        target: '≤ 1.15× baseline',
        ok: plan.vsBaseline <= 1.15 && plan.plumb.failed === 0,
      });
    }

    // 2. Apply of the same: 1,000 creates (the reference of rows 4 and 6 too).
    // 4. (measured with 2, interleaved with it) Apply of a saved plan of the same creates: `plan --out`
    // first (not timed), then `apply plan.json`.
    const savedRun = {
      yaml: small.yaml,
      prepare: (dir) => run([path.join(root, 'bin/plumb.js'), 'plan', '--out', 'plan.json', '--now', TODAY, '--concurrency', String(CONCURRENCY)], dir),
      args: ['apply', 'plan.json'],
    };
    const apply =
      want('apply') || want('saved') || want('large')
        ? await paired(emu, small.seed(false), { yaml: small.yaml, args: ['apply', '--auto-approve'] }, job('create', small), { also: want('saved') ? [savedRun] : [] })
        : undefined;
    if (want('apply')) {
      const applyFloor = floorMs(apply.plumb.requests);
      rows.push({
        name: `apply ${small.label} as creates (${label})`,
        measured: describe(apply),
        target: '≤ 1,200 req, ≤ 1.5× floor',
        ok: apply.plumb.requests <= 1200 && apply.plumb.ms <= 1.5 * applyFloor && apply.plumb.failed === 0,
      });
    }

    // 3. Rotation of the same 1,000, all due: plumb's --now and the emulator's clock moved together.
    if (want('rotate')) {
      const rotate = await paired(
        emu,
        small.seed(true),
        { yaml: small.yaml, args: ['apply', '--auto-approve'], now: ROTATE_DAY },
        job('rotate', small, addDays(ROTATE_DAY, LIFETIME)),
      );
      rows.push({
        name: `apply ${small.label} as rotations (${label})`,
        measured: describe(rotate),
        target: '≤ 1.5× floor (as creates; no issue target)',
        ok: rotate.plumb.ms <= 1.5 * floorMs(rotate.plumb.requests) && rotate.plumb.failed === 0,
      });
    }

    // 4. Apply of a saved plan of the 1,000 creates, measured with row 2.
    if (want('saved')) {
      const saved = apply.also[0];
      rows.push({
        name: `apply a saved plan of the ${small.count} creates (${label})`,
        measured: `${describe(saved)}; ${saved.ratio.toFixed(2)}× the in-memory apply (median of paired runs)`,
        target: '≤ 1.1× in-memory apply',
        ok: saved.ratio <= 1.1 && saved.plumb.failed === 0,
      });
    }

    // 5. Settings apply of 60 changes: a read, a write, a read-back, one after the other.
    if (want('settings')) {
      const s = settingsWorkload(scale(60, 3));
      const settings = await paired(emu, { users: [adminUser] }, { yaml: s.yaml, args: ['apply', '--auto-approve'] }, { mode: 'settings', settings: s.settings });
      rows.push({
        name: `settings apply of ${Object.keys(s.settings).length} changes (${label}; floor = requests × latency, they are sequential)`,
        measured: describe(settings, settings.plumb.requests * LATENCY_MS),
        target: '(reference)',
        ok: settings.plumb.failed === 0,
      });
    }

    // 6. 5,000 tokens in 1,000 groups, every sink in one directory: time must grow linearly.
    if (want('large')) {
      const big = tokenWorkload(scale(1000, 20), scale(5, 2));
      const large = await paired(emu, big.seed(false), { yaml: big.yaml, args: ['apply', '--auto-approve'] }, job('create', big));
      const growth = large.plumb.ms / apply.plumb.ms;
      rows.push({
        name: `apply ${big.label} as creates, one sink directory (${label})`,
        measured: `${describe(large)}; ${growth.toFixed(2)}× the ${small.count} row`,
        target: `≤ 5.5× the ${small.count} row`,
        ok: growth <= 5.5 && large.plumb.failed === 0,
      });
    }
  } finally {
    await emu.close();
  }
  return rows;
}

// `node bench/wire.js` runs these rows alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  const { printTable } = await import('./lib.js');
  printTable(await wireBenchmarks());
}
