// `npm run bench`: plumb's speed and memory targets, printed as one table. Not part of `npm test`.
//
// `PLUMB_BENCH_SMOKE=1 node bench/run.js` (.ci/run, after the suite) runs every row once at a small
// scale: a section that throws, or a row that prints no measurement, fails it (exit 1). A section
// that throws in a full run is a row of its own too ("ERROR: …"), so the rest of the table still
// prints, and the run exits 1.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root, timeCommands, printTable, brokenRows, scale, SMOKE } from './lib.js';
import { writeLargeConfig } from './generate-config.js';

const env = { PLUMB_TOKEN: 'bench-token' };

/**
 * examples/plumb with two mistakes a merge request often brings (a misspelt setting, a value of
 * the wrong type), copied with examples/files (its files' sources) into a temporary directory:
 * what a user's first `plumb validate` of an edited configuration meets. The code cache holds only
 * what a valid configuration runs, so the error path (diagnostics, locations through the yaml
 * library) compiles as it goes.
 */
function mistakenExamples() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-bench-mistakes-'));
  cpSync(path.join(root, 'examples/plumb'), path.join(dir, 'plumb'), { recursive: true });
  cpSync(path.join(root, 'examples/files'), path.join(dir, 'files'), { recursive: true });
  const settings = path.join(dir, 'plumb/settings.yaml');
  const text = readFileSync(settings, 'utf8').replace('signup_enabled: false', 'signup_enabeld: false').replace('max_login_attempts: 10', 'max_login_attempts: ten');
  writeFileSync(settings, text);
  return dir;
}

function startRows() {
  const rows = [];
  const runs = scale(20, 1);
  const mistakes = mistakenExamples();
  // The machine's own floor: a Node process that does nothing. Timed in turn with the plumb
  // commands (timeCommands), so that the ratio below does not measure the machine's drift.
  let bare, version, small, mistaken;
  try {
    [bare, version, small, mistaken] = timeCommands(
      [
        { args: ['-e', '0'] },
        { args: ['bin/plumb.js', '--version'], env },
        { args: ['bin/plumb.js', 'validate', 'examples/plumb'], env },
        { args: [path.join(root, 'bin/plumb.js'), 'validate', 'plumb'], env, cwd: mistakes, ok: [1] },
      ],
      runs,
    );
  } finally {
    rmSync(mistakes, { recursive: true, force: true });
  }
  rows.push({ name: `baseline: node -e 0 (median of ${runs})`, measured: `${bare.median.toFixed(0)} ms (p10 ${bare.p10.toFixed(0)})`, target: '(reference)' });
  rows.push({ name: `cold start: plumb --version (median of ${runs})`, measured: `${version.median.toFixed(0)} ms (p10 ${version.p10.toFixed(0)})`, target: '< 150 ms', ok: version.median < 150 });
  // Issue 30's measure: within 1.3x the machine's own floor (compare on an idle machine).
  const ratio = small.median / bare.median;
  rows.push({ name: `cold start: plumb validate examples/plumb (median of ${runs})`, measured: `${small.median.toFixed(0)} ms (p10 ${small.p10.toFixed(0)}), ${ratio.toFixed(2)}x node -e 0`, target: '< 150 ms, < 1.3x node -e 0', ok: small.median < 150 && ratio < 1.3 });
  rows.push({
    name: `cold start: plumb validate of it with two mistakes, exit 1 (median of ${runs})`,
    measured: `${mistaken.median.toFixed(0)} ms (p10 ${mistaken.p10.toFixed(0)}), ${(mistaken.median / bare.median).toFixed(2)}x node -e 0`,
    target: '< 150 ms',
    ok: mistaken.median < 150,
  });
  return rows;
}

function validateRows() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-bench-'));
  try {
    const { resources } = writeLargeConfig(dir, scale(5000, 200));
    const r = spawnSync(process.execPath, [path.join(root, 'bench/validate-runner.js'), dir], { cwd: dir, env: { ...process.env, ...env }, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`bench/validate-runner.js exited ${r.status}: ${r.stderr}`);
    const big = JSON.parse(r.stdout.trim().split('\n').pop());
    return [
      { name: `validate ${resources} resources: time (in-process)`, measured: `${big.ms.toFixed(0)} ms`, target: '< 1000 ms', ok: big.ms < 1000 && big.exit === 0 },
      { name: `validate ${resources} resources: peak RSS`, measured: `${big.maxRssMb.toFixed(0)} MB`, target: '< 150 MB', ok: big.maxRssMb < 150 },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const sections = [
  ['start-up', startRows],
  ['validate', validateRows],
  ['engine', async () => (await import('./engine.js')).engineBenchmarks()],
  ['cdktf', async () => (await import('./cdktf.js')).cdktfBenchmarks()],
  ['wire', async () => (await import('./wire.js')).wireBenchmarks()],
  ['files', async () => (await import('./files.js')).filesBenchmarks()],
  ['export', async () => (await import('./export.js')).exportBenchmarks()],
  ['targets', async () => (await import('./targets.js')).targetBenchmarks()],
  ['discovery', async () => (await import('./discovery.js')).discoveryBenchmarks()],
  ['fleet', async () => (await import('./fleet.js')).fleetBenchmarks()],
  ['overlap', async () => (await import('./overlap.js')).overlapBenchmarks()],
  ['html', async () => (await import('./html.js')).htmlBenchmarks()],
  ['emulator', async () => (await import('./emulator.js')).emulatorBenchmarks()],
  ['soak', async () => (await import('./soak.js')).soakBenchmarks()],
  ['terraform', async () => (await import('./terraform.js')).terraformBenchmarks()],
  ['install', async () => (await import('./install.js')).installBenchmarks()],
  ['suite', async () => (await import('./suite.js')).suiteBenchmarks()],
];

// `PLUMB_BENCH_SECTIONS=start-up,validate` runs only the sections named (an unknown name is an error).
const only = process.env.PLUMB_BENCH_SECTIONS?.split(',').map((s) => s.trim()).filter(Boolean);
const unknown = (only ?? []).filter((n) => !sections.some(([name]) => name === n));
if (unknown.length > 0) throw new Error(`PLUMB_BENCH_SECTIONS names no section ${unknown.join(', ')} (sections: ${sections.map(([n]) => n).join(', ')})`);

const rows = [];
const failures = [];
for (const [name, section] of sections.filter(([n]) => !only || only.includes(n))) {
  const t0 = performance.now();
  try {
    const got = await section();
    if (got.length === 0) throw new Error('printed no row');
    const broken = brokenRows(got);
    if (broken.length > 0) throw new Error(`rows without a measurement: ${broken.map((r) => JSON.stringify(r.name ?? r)).join(', ')}`);
    rows.push(...got);
  } catch (err) {
    failures.push(name);
    rows.push({ name: `${name}: ERROR`, measured: String(err?.message ?? err).split('\n')[0].slice(0, 300), target: 'runs', ok: false, error: true });
    console.error(`bench section ${name} failed:`, err);
  }
  if (SMOKE) console.error(`bench smoke: ${name} ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

printTable(rows);
if (failures.length > 0) {
  console.error(`bench: ${failures.length} section(s) failed: ${failures.join(', ')}`);
  process.exitCode = 1;
}
