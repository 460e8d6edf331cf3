// `npm run bench`: plumb's speed and memory targets, printed as one table. Not part of `npm test`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root, timeNode, printTable } from './lib.js';
import { writeLargeConfig } from './generate-config.js';

const rows = [];
const env = { PLUMB_TOKEN: 'bench-token' };

// The machine's own floor: a Node process that does nothing.
const bare = timeNode(['-e', '0']);
rows.push({ name: 'baseline: node -e 0 (median of 20)', measured: `${bare.median.toFixed(0)} ms (p10 ${bare.p10.toFixed(0)})`, target: '(reference)' });

const version = timeNode(['bin/plumb.js', '--version'], { env });
rows.push({ name: 'cold start: plumb --version (median of 20)', measured: `${version.median.toFixed(0)} ms (p10 ${version.p10.toFixed(0)})`, target: '< 150 ms', ok: version.median < 150 });

const small = timeNode(['bin/plumb.js', 'validate', 'examples/plumb'], { env });
rows.push({ name: 'cold start: plumb validate examples/plumb (median of 20)', measured: `${small.median.toFixed(0)} ms (p10 ${small.p10.toFixed(0)})`, target: '< 150 ms', ok: small.median < 150 });

const dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-bench-'));
const { resources } = writeLargeConfig(dir, 5000);
const r = spawnSync(process.execPath, [path.join(root, 'bench/validate-runner.js'), dir], { cwd: dir, env: { ...process.env, ...env }, encoding: 'utf8' });
const big = JSON.parse(r.stdout.trim().split('\n').pop());
rows.push({ name: `validate ${resources} resources: time (in-process)`, measured: `${big.ms.toFixed(0)} ms`, target: '< 1000 ms', ok: big.ms < 1000 && big.exit === 0 });
rows.push({ name: `validate ${resources} resources: peak RSS`, measured: `${big.maxRssMb.toFixed(0)} MB`, target: '< 150 MB', ok: big.maxRssMb < 150 });

const extra = await import('./engine.js').then((m) => m.engineBenchmarks(), (err) => {
  if (err.code === 'ERR_MODULE_NOT_FOUND') return [];
  throw err;
});
rows.push(...extra);
rows.push(...(await (await import('./cdktf.js')).cdktfBenchmarks()));
rows.push(...(await (await import('./wire.js')).wireBenchmarks()));
rows.push(...(await (await import('./files.js')).filesBenchmarks()));
rows.push(...(await (await import('./export.js')).exportBenchmarks()));
rows.push(...(await (await import('./targets.js')).targetBenchmarks()));
rows.push(...(await (await import('./discovery.js')).discoveryBenchmarks()));
rows.push(...(await (await import('./fleet.js')).fleetBenchmarks()));
rows.push(...(await (await import('./html.js')).htmlBenchmarks()));
rows.push(...(await (await import('./emulator.js')).emulatorBenchmarks()));
rows.push(...(await import('./soak.js')).soakBenchmarks());
rows.push(...(await (await import('./terraform.js')).terraformBenchmarks()));
rows.push(...(await (await import('./install.js')).installBenchmarks()));

printTable(rows);
