// Engine benchmarks against the in-process emulator (imported by bench/run.js; needs `npm run build`).
//
// - Token plan: 200 groups × 5 tokens, 20 ms of latency added to every request. The plan must make
//   exactly one list request per group page and finish within 1.3× of the latency floor
//   (requests ÷ concurrency × latency). The emulator runs in a worker thread (an instance is another
//   machine), and the same 200 requests made by the bare client are timed too, to show how much of
//   the distance to the floor is plumb's and how much the emulator's and the network's.
// - Settings: a plan makes exactly 1 request; an apply the plan's read + 1 write, plus the read-back;
//   a plan declaring every writable setting (a valid value for each, from the catalogue) < 300 ms,
//   and those values applied are accepted by the emulator, which checks the whole record as the spec
//   says a server does (dependency rules included).
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { ApiClient } from '../dist/api/client.js';
import { listGroupAccessTokens } from '../dist/api/group-access-tokens.js';
import { SETTINGS, SETTING_RULES } from '../dist/catalogue/index.js';
import { loadConfig } from '../dist/config/validate.js';
import { startEmulator } from '../dist/emulator/index.js';
import { applyPlan, makePlan, openSession } from '../dist/engine/engine.js';
import { BUILT_IN_CONFIG_KINDS, builtInKinds } from '../dist/resources/index.js';
import { settingsOf } from '../dist/resources/settings/model.js';
import { scale } from './lib.js';

// The benchmark assembles the program: it chooses the built-in kinds, as commands/ does.
const KINDS = (await builtInKinds()).engine;

const ADMIN = 'bench-admin-token-0123456789';
const LATENCY_MS = 20;
const CONCURRENCY = 8; // the client's default, set explicitly so the floor is known
const GROUPS = scale(200, 4);
const TOKENS = scale(5, 2);
/** Timed repetitions of each measured plan. */
const REPEAT = scale(5, 1);
const TODAY = '2026-03-01';
const now = new Date(`${TODAY}T12:00:00Z`);

export async function timed(runs, fn) {
  const out = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out;
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function addDays(date, days) {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

export function engineOptions(dir, extra = {}) {
  return {
    env: { PLUMB_TOKEN: ADMIN, PATH: process.env.PATH },
    now,
    kinds: KINDS,
    stateFile: path.join(dir, 'state.json'),
    log: () => {},
    sleep: async () => {},
    concurrency: CONCURRENCY,
    ...extra,
  };
}

export function load(dir, yaml) {
  const file = path.join(dir, 'plumb.yaml');
  writeFileSync(file, yaml);
  const loaded = loadConfig([file], { cwd: dir, env: { PLUMB_TOKEN: ADMIN }, today: TODAY, kinds: BUILT_IN_CONFIG_KINDS });
  const errors = loaded.diagnostics.filter((d) => d.severity === 'error');
  if (!loaded.config) throw new Error(`benchmark configuration is invalid: ${errors.map((d) => `${d.code} ${d.summary}`).join('; ')}`);
  return loaded;
}

/**
 * The emulator in a worker thread: the instance is another machine in real life, so its CPU must not
 * share plumb's event loop (in-process, each emulated request would eat into the overlap the
 * benchmark measures). Same API as the parts of RunningEmulator used here, asynchronously.
 */
export async function remoteEmulator(seed) {
  const emulatorUrl = new URL('../dist/emulator/index.js', import.meta.url).href;
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     import(workerData.emulatorUrl).then(async ({ startEmulator }) => {
       const emu = await startEmulator({ seed: workerData.seed, now: () => new Date(workerData.now) });
       parentPort.on('message', async ({ id, op, arg }) => {
         let value;
         if (op === 'requests') value = emu.requests.map((r) => ({ method: r.method, path: r.path, status: r.status }));
         else if (op === 'resetRequests') emu.resetRequests();
         else if (op === 'addFault') emu.addFault(arg);
         else if (op === 'close') await emu.close();
         parentPort.postMessage({ id, value });
       });
       parentPort.postMessage({ url: emu.url });
     });`,
    { eval: true, workerData: { seed, emulatorUrl, now: now.toISOString() } },
  );
  const url = await new Promise((resolve, reject) => {
    worker.once('message', (m) => resolve(m.url));
    worker.once('error', reject);
  });
  let next = 0;
  const call = (op, arg) =>
    new Promise((resolve) => {
      const id = next++;
      const onMessage = (m) => {
        if (m.id !== id) return;
        worker.off('message', onMessage);
        resolve(m.value);
      };
      worker.on('message', onMessage);
      worker.postMessage({ id, op, arg });
    });
  return {
    url,
    requests: () => call('requests'),
    resetRequests: () => call('resetRequests'),
    addFault: (rule) => call('addFault', rule),
    close: async () => {
      await call('close');
      await worker.terminate();
    },
  };
}

export const adminSeed = { username: 'root', admin: true, personal_access_tokens: [{ name: 'bench', token: ADMIN, scopes: ['api'] }] };

async function tokenPlan() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-bench-tokens-'));
  mkdirSync(path.join(dir, 'secrets'));
  const groups = [];
  const lines = ['version: 1', 'instances:', '  bench:', '    url: URL', '    token_env: PLUMB_TOKEN', '    groups:'];
  for (let g = 0; g < GROUPS; g++) {
    const name = `team-${String(g).padStart(3, '0')}`;
    groups.push({
      full_path: name,
      access_tokens: Array.from({ length: TOKENS }, (_, t) => ({
        name: `tok-${t}`,
        token: `bench-${name}-tok-${t}-secret`,
        scopes: ['read_api'],
        access_level: 30,
        expires_at: addDays(TODAY, 60),
      })),
    });
    lines.push(`      ${name}:`, '        access_tokens:');
    for (let t = 0; t < TOKENS; t++) {
      lines.push(
        `          tok-${t}:`,
        '            scopes: [read_api]',
        '            access_level: developer',
        '            rotation: {lifetime_days: 60, rotate_before_days: 7}',
        `            sink: {file: secrets/${name}-tok-${t}.token}`,
      );
    }
  }
  const emu = await remoteEmulator({ users: [adminSeed], groups });
  try {
    const loaded = load(dir, lines.join('\n').replace('URL', emu.url) + '\n');
    const opts = engineOptions(dir);
    await makePlan(loaded, loaded.config, opts); // warm-up: JIT, connections
    await emu.resetRequests();
    await emu.addFault({ action: { kind: 'latency', ms: LATENCY_MS } });
    // One measured plan for the request count, then the median of five for the time.
    const plan = await makePlan(loaded, loaded.config, opts);
    const recorded = await emu.requests();
    const requests = recorded.length;
    const lists = recorded.filter((r) => r.method === 'GET' && /^\/groups\/[^/]+\/access_tokens$/.test(r.path)).length;
    const ms = median(await timed(REPEAT, () => makePlan(loaded, loaded.config, opts)));
    // The same requests made by the bare client: what the emulator and the network allow at all.
    const client = new ApiClient({ baseUrl: emu.url, token: ADMIN, concurrency: CONCURRENCY });
    const bare = median(await timed(scale(3, 1), () => Promise.all(groups.map((g) => listGroupAccessTokens(client, g.full_path)))));
    await client.close();
    const changes = plan.changes.filter((c) => c.action !== 'no-op').length;
    const planned = plan.changes.length === GROUPS * TOKENS && changes === 0 && plan.applicable;
    const floor = Math.ceil(requests / CONCURRENCY) * LATENCY_MS;
    const ratio = ms / floor;
    return [
      {
        name: `token plan ${GROUPS} groups × ${TOKENS} tokens: requests`,
        measured: `${requests} (${lists} lists, ${plan.changes.length} tokens planned, ${changes} changes)`,
        target: `${GROUPS} (1 list per group page)`,
        ok: requests === GROUPS && lists === GROUPS && planned,
      },
      {
        name: `token plan with ${LATENCY_MS} ms latency, concurrency ${CONCURRENCY}: wall time (median of ${REPEAT})`,
        measured: `${ms.toFixed(0)} ms (floor ${floor} ms, ratio ${ratio.toFixed(2)}; bare client ${bare.toFixed(0)} ms, ${(bare / floor).toFixed(2)})`,
        target: '≤ 1.3× floor',
        ok: ratio <= 1.3,
      },
    ];
  } finally {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A value for every writable setting (replacements, not their deprecated aliases), valid for plumb's validator: defaults where given, else derived from the type and bounds. */
export function settingValues() {
  const out = {};
  for (const s of SETTINGS) {
    // A deprecated alias may not be declared beside its replacement (PLUMB_ALIAS_CONFLICT).
    if (s.removed || s.readOnly || s.deprecated?.replacement) continue;
    out[s.name] = valueFor(s);
  }
  // The whole record must satisfy the spec's dependency rules (section 2.2), as a conforming server
  // checks them: a master flag that is on needs its partners non-blank, and the values derived
  // above leave strings without a default blank. Such a flag is declared off (a value like any
  // other), so every partner may stay blank.
  const blank = (v) => v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);
  for (const r of SETTING_RULES) {
    if (r.kind === 'required-when-enabled' && out[r.flag] === true && r.requires.some((p) => blank(out[p]))) out[r.flag] = false;
    if (r.kind === 'required-with' && !blank(out[r.field]) && r.requires.some((p) => blank(out[p]))) out[r.field] = '';
    if (r.kind === 'not-in-list' && Array.isArray(out[r.list]) && out[r.list].includes(out[r.field])) out[r.list] = [];
  }
  return out;
}

function valueFor(s) {
  const d = s.default;
  const nullableType = ['string', 'text', 'string[]', 'integer[]', 'hash', 'object'].includes(s.type);
  if (s.secret) return d === undefined || d === null ? '' : d;
  if (d !== undefined && (d !== null || nullableType)) return d;
  switch (s.type) {
    case 'boolean':
      return false;
    case 'integer':
    case 'float': {
      if (s.enum) return s.enum[0];
      const v = s.minimum ?? (s.maximum !== undefined ? Math.min(0, s.maximum) : 0);
      return s.type === 'integer' ? Math.ceil(v) : v;
    }
    case 'string':
    case 'text':
      if (s.enum) return s.enum[0];
      if (s.minLength) return 'a'.repeat(s.minLength);
      return '';
    case 'string[]':
    case 'integer[]':
    case 'string|string[]':
      return [];
    default:
      return {};
  }
}

function settingsYaml(url, settings) {
  const lines = ['version: 1', 'instances:', '  bench:', `    url: ${url}`, '    token_env: PLUMB_TOKEN', '    settings_verify_seconds: 0', '    settings:'];
  for (const [k, v] of Object.entries(settings)) lines.push(`      ${k}: ${JSON.stringify(v)}`);
  return lines.join('\n') + '\n';
}

async function settingsRows() {
  const rows = [];
  const dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-bench-settings-'));
  const emu = await startEmulator({ seed: { users: [adminSeed] }, now: () => now });
  try {
    // 1. A plan: one request.
    const small = load(dir, settingsYaml(emu.url, { signup_enabled: false, deletion_adjourned_period: 14, max_login_attempts: 7 }));
    emu.resetRequests();
    await makePlan(small, small.config, engineOptions(dir));
    rows.push({ name: 'settings plan: requests', measured: String(emu.requests.length), target: '1', ok: emu.requests.length === 1 });

    // 2. An apply (plan and apply in one session, as `plumb apply` does).
    emu.resetRequests();
    const opts = engineOptions(dir);
    const session = openSession(small, small.config, opts);
    try {
      const plan = await makePlan(small, small.config, opts, session);
      const report = await applyPlan(plan, small, small.config, { ...opts, fromFile: false, allowRisky: true }, session);
      const gets = emu.requests.filter((r) => r.method === 'GET').length;
      const puts = emu.requests.filter((r) => r.method === 'PUT').length;
      rows.push({
        name: 'settings apply: requests',
        measured: `${gets + puts} (GET ${1} + PUT ${puts} + read-back GET ${gets - 1})`,
        target: '2 + read-back',
        ok: report.ok && puts === 1 && gets === 2,
      });
    } finally {
      await session.close();
    }

    // 3. A plan declaring every writable setting.
    const all = settingValues();
    const big = load(dir, settingsYaml(emu.url, all));
    const declared = settingsOf(big.config.instances[0]).size;
    await makePlan(big, big.config, engineOptions(dir)); // warm-up
    const check = await makePlan(big, big.config, engineOptions(dir));
    const errors = check.diagnostics.filter((d) => d.severity === 'error');
    if (errors.length > 0) throw new Error(`the all-settings plan has errors: ${errors.map((d) => d.code).join(', ')}`);
    const ms = median(await timed(REPEAT, () => makePlan(big, big.config, engineOptions(dir))));
    rows.push({
      name: `settings plan declaring all ${declared} writable settings (median of ${REPEAT})`,
      measured: `${ms.toFixed(0)} ms`,
      target: '< 300 ms',
      ok: ms < 300,
    });

    // 4. The same values applied: the emulator checks the whole record as a conforming server does
    // (types, bounds and the dependency rules of spec section 2.2), so they must be accepted.
    const applyOpts = engineOptions(dir);
    const applySession = openSession(big, big.config, applyOpts);
    try {
      const plan = await makePlan(big, big.config, applyOpts, applySession);
      const report = await applyPlan(plan, big, big.config, { ...applyOpts, fromFile: false, allowRisky: true }, applySession);
      const refused = report.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.code} ${d.summary}`);
      rows.push({
        name: `settings apply of all ${declared} writable settings: accepted by the emulator`,
        measured: report.ok ? `yes (${plan.summary.update} update)` : `no: ${refused.join('; ').slice(0, 200)}`,
        target: 'accepted',
        ok: report.ok,
      });
    } finally {
      await applySession.close();
    }
  } finally {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

export async function engineBenchmarks() {
  return [...(await tokenPlan()), ...(await settingsRows())];
}

// `node bench/engine.js` runs these rows alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  const { printTable } = await import('./lib.js');
  printTable(await engineBenchmarks());
}
