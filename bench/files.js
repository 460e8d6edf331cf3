// Repository file benchmarks (imported by bench/run.js; needs `npm run build`). The emulator runs in
// a worker thread with 20 ms of latency injected on every request (the fault `latency` rule).
//
// - Plan over 1,000 files in 100 projects: exactly 1,000 HEAD requests (every file names its
//   branch, so no project GET), within 1.3× of the floor ceil(requests ÷ concurrency) × latency.
// - Apply of 200 changed files across 20 projects: one PUT per file and nothing else; the writes to
//   one branch run one at a time, so the floor is the larger of ceil(200 ÷ concurrency) × latency and
//   the longest lane (10 files) × latency. Reported with its ratio.
// - Peak RSS while planning ten 20 MB local files (a child process, emulator included): < 200 MB,
//   and no more with ten 60 MB files.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyPlan, makePlan, openSession } from '../dist/engine/engine.js';
import { adminSeed, engineOptions, load, median, remoteEmulator, timed } from './engine.js';
import { scale } from './lib.js';

const LATENCY_MS = 20;
const CONCURRENCY = 8;
/** Projects and files per project of the plan rows (100 × 10), and of the apply rows (20 × 10). */
const PLAN_PROJECTS = scale(100, 3);
const APPLY_PROJECTS = scale(20, 2);
const FILES = scale(10, 2);

function projectsSeed(projects, files, content) {
  return Array.from({ length: projects }, (_, p) => ({
    path_with_namespace: `bench/app-${String(p).padStart(3, '0')}`,
    default_branch: 'main',
    files: Object.fromEntries(Array.from({ length: files }, (_, f) => [`config/file-${f}.txt`, content(p, f)])),
  }));
}

function filesConfig(url, projects, files, content) {
  const doc = { version: 1, instances: { bench: { url, token_env: 'PLUMB_TOKEN', projects: {} } } };
  for (let p = 0; p < projects; p++) {
    const entry = {};
    for (let f = 0; f < files; f++) entry[`config/file-${f}.txt`] = { content: content(p, f), branches: ['main'] };
    doc.instances.bench.projects[`bench/app-${String(p).padStart(3, '0')}`] = { files: entry };
  }
  return JSON.stringify(doc);
}

const text = (tag) => (p, f) => `${tag} ${p}/${f}\n`;

async function planRows() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-bench-files-'));
  const emu = await remoteEmulator({ users: [adminSeed], groups: [{ full_path: 'bench' }], projects: projectsSeed(PLAN_PROJECTS, FILES, text('same')) });
  try {
    const loaded = load(dir, filesConfig(emu.url, PLAN_PROJECTS, FILES, text('same')));
    const opts = engineOptions(dir);
    await makePlan(loaded, loaded.config, opts); // warm-up
    await emu.resetRequests();
    await emu.addFault({ action: { kind: 'latency', ms: LATENCY_MS } });
    const plan = await makePlan(loaded, loaded.config, opts);
    const recorded = await emu.requests();
    const heads = recorded.filter((r) => r.method === 'HEAD').length;
    const ms = median(await timed(scale(3, 1), () => makePlan(loaded, loaded.config, opts)));
    const floor = Math.ceil(recorded.length / CONCURRENCY) * LATENCY_MS;
    const ratio = ms / floor;
    const planned = PLAN_PROJECTS * FILES;
    const noChanges = plan.changes.length === planned && plan.changes.every((c) => c.action === 'no-op') && plan.applicable;
    return [
      {
        name: `file plan ${planned.toLocaleString('en')} files in ${PLAN_PROJECTS} projects: requests`,
        measured: `${recorded.length} (${heads} HEAD, ${plan.changes.length} files planned)`,
        target: `${planned} HEAD, nothing else`,
        ok: heads === planned && recorded.length === planned && noChanges,
      },
      {
        name: `file plan with ${LATENCY_MS} ms latency, concurrency ${CONCURRENCY}: wall time (median of ${scale(3, 1)})`,
        measured: `${ms.toFixed(0)} ms (floor ${floor} ms, ratio ${ratio.toFixed(2)})`,
        target: '≤ 1.3× floor',
        ok: ratio <= 1.3,
      },
    ];
  } finally {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function applyRows() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-bench-files-apply-'));
  const emu = await remoteEmulator({ users: [adminSeed], groups: [{ full_path: 'bench' }], projects: projectsSeed(APPLY_PROJECTS, FILES, text('old')) });
  try {
    const loaded = load(dir, filesConfig(emu.url, APPLY_PROJECTS, FILES, text('new')));
    const opts = engineOptions(dir);
    const session = openSession(loaded, loaded.config, opts);
    try {
      await emu.addFault({ action: { kind: 'latency', ms: LATENCY_MS } });
      const plan = await makePlan(loaded, loaded.config, opts, session);
      await emu.resetRequests();
      const t0 = performance.now();
      const report = await applyPlan(plan, loaded, loaded.config, { ...opts, fromFile: false, allowRisky: true }, session);
      const ms = performance.now() - t0;
      const recorded = await emu.requests();
      const puts = recorded.filter((r) => r.method === 'PUT' && r.status === 200).length;
      const writes = APPLY_PROJECTS * FILES;
      const floor = Math.max(Math.ceil(writes / CONCURRENCY), FILES) * LATENCY_MS;
      return [
        {
          name: `file apply ${writes} changed files in ${APPLY_PROJECTS} projects: requests`,
          measured: `${recorded.length} (${puts} PUT)`,
          target: `${writes} (1 per file)`,
          ok: report.ok && puts === writes && recorded.length === writes,
        },
        {
          name: `file apply with ${LATENCY_MS} ms latency, one lane per branch: wall time`,
          measured: `${ms.toFixed(0)} ms (floor ${floor} ms, ratio ${(ms / floor).toFixed(2)})`,
          target: '(reported)',
        },
      ];
    } finally {
      await session.close();
    }
  } finally {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function rssOf(megabytes) {
  const r = spawnSync(process.execPath, [fileURLToPath(new URL('./files-rss-runner.js', import.meta.url)), String(megabytes)], { encoding: 'utf8' });
  return { status: r.status, ...JSON.parse(r.stdout.trim().split('\n').pop() || '{}') };
}

function rssRow() {
  const big = rssOf(scale(20, 1));
  // The same plan over files three times as large: memory must not follow (garbage read buffers
  // wait for the collector, up to a bound, whatever the files' size).
  const larger = rssOf(scale(60, 2));
  return {
    name: 'file plan of ten 20 MB local files: peak RSS (emulator included)',
    measured: `${(big.maxRssMb ?? NaN).toFixed(0)} MB (ten 60 MB files: ${(larger.maxRssMb ?? NaN).toFixed(0)} MB; ${big.creates ?? '?'} creates planned)`,
    target: '< 200 MB',
    ok: big.status === 0 && big.maxRssMb < 200 && big.creates === 10 && larger.maxRssMb < 200,
  };
}

export async function filesBenchmarks() {
  return [...(await planRows()), ...(await applyRows()), rssRow()];
}

// `node bench/files.js` runs these rows alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  const { printTable } = await import('./lib.js');
  printTable(await filesBenchmarks());
}
