// The fault soak (test/soak/soak.ts) at full length: at least 1,000 injected faults, seeded
// (PLUMB_SOAK_SEED, default 20261123; PLUMB_SOAK_FAULTS, default 1000). Imported by bench/run.js;
// `node bench/soak.js` runs it alone. Rows: faults by kind, runs, and each invariant's violations.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { root, printTable, scale } from './lib.js';

export function soakBenchmarks() {
  const seed = process.env.PLUMB_SOAK_SEED ?? '20261123';
  const faults = process.env.PLUMB_SOAK_FAULTS ?? scale('1000', '5');
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'test/soak/run.ts', '--faults', faults, '--seed', seed], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`fault soak failed: ${r.stderr}`);
  const s = JSON.parse(r.stdout.trim().split('\n').pop());
  const kinds = Object.entries(s.byKind).map(([k, n]) => `${k}: ${n}`).join(', ');
  const rows = [
    { name: `fault soak (seed ${seed}): faults injected`, measured: `${s.faults} (${kinds})`, target: `>= ${faults}`, ok: s.faults >= Number(faults) },
    { name: 'fault soak: runs', measured: `${s.faultedRuns} faulted, ${s.cleanRuns} clean, ${s.episodes} emulators, ${s.selfLostRecoveries} credentials recovered by hand, ${s.commitsChecked} commits checked, ${s.concurrentRuns} second applies at once (${s.lockRefusals} turned away by the instance lock), ${(s.ms / 1000).toFixed(0)} s`, target: '(reference)' },
    { name: 'fault soak: token lifetime limit lowered below live tokens', measured: `${s.lifetimeRounds} round(s): refused offline, gated, accepted; ${s.reissuedBeforeLimit} declared token(s) re-issued within the limit before it went out; ${s.revokedByLimit} revoked by the instance for it (a fault stopped their re-issue), reported, re-issued after`, target: '>= 1 round', ok: s.lifetimeRounds >= 1 },
  ];
  for (const [inv, list] of Object.entries(s.violations)) {
    rows.push({ name: `fault soak: violations of ${inv}`, measured: list.length ? `${list.length}: ${list.slice(0, 2).join('; ')}` : '0', target: '0', ok: list.length === 0 });
  }
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) printTable(soakBenchmarks());
