// Shared helpers for the benchmarks: timing child processes and printing one table.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * `PLUMB_BENCH_SMOKE=1` (what .ci/run sets): every row runs once at a small scale, so a row that
 * breaks (a renamed export, a removed field) fails CI instead of waiting for the next full run. The
 * numbers of a smoke run mean nothing: `ok` is not judged (`printTable` shows "smoke"), only that
 * each row ran and printed a measurement.
 */
export const SMOKE = process.env.PLUMB_BENCH_SMOKE === '1';

/** `full` in a real run, `small` in a smoke run. */
export const scale = (full, small) => (SMOKE ? small : full);

/** Runs `node args…` `runs` times; returns the median and best wall time in ms. */
export function timeNode(args, opts = {}) {
  return timeCommand(process.execPath, args, opts);
}

/** Runs `command args…` `runs` times; returns the median and best wall time in ms. */
export function timeCommand(command, args, { runs = scale(20, 1), env = {}, cwd = root } = {}) {
  return timeCommands([{ command, args, env, cwd }], runs)[0];
}

/**
 * Runs each of `commands` once per round, `runs` rounds, in turn (a, b, c, a, b, c, …); returns
 * each one's median, best and p10 wall time in ms (`ok`: the exit statuses a command may end with,
 * 0 and 2 unless said). In turn, so that a machine slowing down or
 * speeding up during the measurement (another tenant, a frequency change) weighs on every command
 * alike: a ratio of two of them (plumb validate to `node -e 0`) then measures plumb, not the drift.
 */
export function timeCommands(commands, runs = scale(20, 1)) {
  const times = commands.map(() => []);
  for (let i = 0; i < runs; i++) {
    commands.forEach(({ command = process.execPath, args, env = {}, cwd = root, ok = [0, 2] }, k) => {
      const t0 = process.hrtime.bigint();
      const r = spawnSync(command, args, { cwd, env: { ...process.env, ...env }, encoding: 'utf8' });
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (!ok.includes(r.status)) throw new Error(`${path.basename(command)} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
      times[k].push(ms);
    });
  }
  return times.map((t) => {
    t.sort((a, b) => a - b);
    return { median: t[Math.floor(t.length / 2)], best: t[0], p10: t[Math.floor(t.length / 10)] };
  });
}

export function printTable(rows) {
  const head = ['benchmark', 'measured', 'target', 'ok'];
  const judged = (r) => (r.error ? 'NO' : r.ok === undefined ? '' : SMOKE ? 'smoke' : r.ok ? 'yes' : 'NO');
  const all = [head, ...rows.map((r) => [r.name, r.measured, r.target, judged(r)])];
  const widths = head.map((_, i) => Math.max(...all.map((r) => String(r[i]).length)));
  const line = (r) => '| ' + r.map((c, i) => String(c).padEnd(widths[i])).join(' | ') + ' |';
  console.log(line(head));
  console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|');
  for (const r of all.slice(1)) console.log(line(r));
}

/**
 * The rows a smoke run could not have printed properly: no name, no measurement, or a measurement
 * that is not a number where one was expected (`NaN`, `undefined`). Empty when every row ran.
 */
export function brokenRows(rows) {
  return rows.filter((r) => typeof r?.name !== 'string' || r.name === '' || typeof r.measured !== 'string' || r.measured === '' || /\b(NaN|undefined|null)\b/.test(r.measured));
}
