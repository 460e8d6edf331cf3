// The test suite's wall time (issue 29.18), one row of the bench table. The suite takes minutes, so
// `npm run bench` does not run it by default: the row reads the last recorded run,
// test-results/vitest.json (what `npm test` and .ci/run write: wall time from the run's start to its
// last file's end) and test-results/machine.json (the cores and the load when .ci/run started it).
// `PLUMB_BENCH_SUITE=1 npm run bench` runs the suite here instead (`vitest run`, the built CLI
// reused) and records the machine the same way. The figure to compare is the one on an idle 2-core
// machine (docs/architecture.md#the-test-suite); the row says how busy the machine was.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root } from './lib.js';

const RESULTS = path.join(root, 'test-results/vitest.json');
const MACHINE = path.join(root, 'test-results/machine.json');

/** The machine as it is now: cores and the one-minute load average. */
export function machineNow() {
  return { cpus: os.availableParallelism?.() ?? os.cpus().length, load1: Number(os.loadavg()[0].toFixed(2)), at: new Date().toISOString() };
}

/** Wall time (ms), tests and failures of a vitest JSON report. */
export function suiteTiming(report) {
  const ends = report.testResults.map((f) => f.endTime).filter((t) => typeof t === 'number');
  if (typeof report.startTime !== 'number' || ends.length === 0) throw new Error('the report has no start time or no file end times');
  return {
    wallMs: Math.max(...ends) - report.startTime,
    files: report.testResults.length,
    passed: report.numPassedTests,
    failed: report.numFailedTests + (report.numRuntimeErrorTestSuites ?? 0),
    startedAt: new Date(report.startTime).toISOString(),
  };
}

function describeMachine(m) {
  if (!m) return 'machine not recorded';
  return `${m.cpus} cores, load ${m.load1} at start`;
}

export async function suiteBenchmarks() {
  const name = 'test suite (npm test after the build): wall time';
  const target = '(reference: idle 2-core machine)';
  if (process.env.PLUMB_BENCH_SUITE === '1') {
    mkdirSync(path.dirname(MACHINE), { recursive: true });
    const machine = machineNow();
    writeFileSync(MACHINE, JSON.stringify(machine) + '\n');
    const r = spawnSync(process.execPath, [path.join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--reporter=dot', '--outputFile.json', RESULTS, '--reporter=json'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    if (!existsSync(RESULTS)) throw new Error(`vitest exited ${r.status} without a report`);
    const t = suiteTiming(JSON.parse(readFileSync(RESULTS, 'utf8')));
    return [{ name: `${name}, run now`, measured: `${(t.wallMs / 60_000).toFixed(1)} min (${t.files} files, ${t.passed} passed, ${t.failed} failed; ${describeMachine(machine)})`, target }];
  }
  if (!existsSync(RESULTS)) return [{ name: `${name}, last recorded run`, measured: 'no recorded run (npm test writes test-results/vitest.json; PLUMB_BENCH_SUITE=1 runs it here)', target }];
  const t = suiteTiming(JSON.parse(readFileSync(RESULTS, 'utf8')));
  const machine = existsSync(MACHINE) ? JSON.parse(readFileSync(MACHINE, 'utf8')) : undefined;
  return [
    {
      name: `${name}, last recorded run (${t.startedAt.slice(0, 16).replace('T', ' ')} UTC)`,
      measured: `${(t.wallMs / 60_000).toFixed(1)} min (${t.files} files, ${t.passed} passed, ${t.failed} failed; ${describeMachine(machine)})`,
      target,
    },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { printTable } = await import('./lib.js');
  printTable(await suiteBenchmarks());
}
