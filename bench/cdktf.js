// Bench rows for the CDKTF front-end: `plumb plan` of the bundled CDKTF example (synth + plan, wall
// time of the whole command) and the part of it spent in the app's own synth (running its `app`
// command: tsx compiling main.ts, cdktf and plumb's constructs loading, cdk.tf.json written).
// The example runs in a scratch copy set up like a user's app (node_modules linking cdktf,
// constructs, tsx and plumb), pointed at an emulator seeded from examples/emulator-seed.yaml.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root, scale } from './lib.js';
import { startEmulator } from '../dist/emulator/index.js';
import { loadCdktfConfig } from '../dist/cdktf/load.js';
import { BUILT_IN_CONFIG_KINDS } from '../dist/resources/index.js';

const RUNS = scale(5, 1);
const TODAY = '2026-06-01';

function scratchApp(url) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-bench-cdktf-'));
  mkdirSync(path.join(dir, 'node_modules/.bin'), { recursive: true });
  for (const name of ['cdktf', 'constructs', 'tsx']) symlinkSync(path.join(root, 'node_modules', name), path.join(dir, 'node_modules', name), 'dir');
  symlinkSync(root, path.join(dir, 'node_modules/plumb-gitops'), 'dir');
  symlinkSync(path.join(root, 'node_modules/.bin/tsx'), path.join(dir, 'node_modules/.bin/tsx'));
  for (const rel of ['cdktf.json', 'examples/cdktf/main.ts', 'examples/files']) cpSync(path.join(root, rel), path.join(dir, rel), { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
  mkdirSync(path.join(dir, 'examples/secrets'), { recursive: true });
  const main = path.join(dir, 'examples/cdktf/main.ts');
  writeFileSync(main, readFileSync(main, 'utf8').replace('http://127.0.0.1:8929', url));
  return dir;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function cdktfBenchmarks() {
  const emu = await startEmulator({ seed: path.join(root, 'examples/emulator-seed.yaml') });
  const dir = scratchApp(emu.url);
  const env = { ...process.env, PLUMB_TOKEN: 'local-admin-token-change-me', CHECKPOINT_DISABLE: '1' };
  try {
    const { spawn } = await import('node:child_process');
    const run = () =>
      new Promise((resolve, reject) => {
        const t0 = performance.now();
        const child = spawn(process.execPath, [path.join(root, 'bin/plumb.js'), 'plan', '--cdktf', '.', '--now', TODAY], { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] });
        let err = '';
        child.stderr.on('data', (d) => (err += d));
        child.on('exit', (code) => (code === 0 ? resolve(performance.now() - t0) : reject(new Error(`plumb plan --cdktf exited ${code}: ${err}`))));
      });
    const walls = [];
    for (let i = 0; i < RUNS; i++) walls.push(await run());
    const synths = [];
    for (let i = 0; i < RUNS; i++) {
      const r = await loadCdktfConfig('.', { cwd: dir, env, today: TODAY, kinds: BUILT_IN_CONFIG_KINDS });
      if (!r.config) throw new Error(`the CDKTF example did not load: ${JSON.stringify(r.diagnostics)}`);
      synths.push(r.synthMs);
    }
    const wall = median(walls);
    const synth = median(synths);
    return [
      { name: `plumb plan of the CDKTF example, synth + plan: wall time (median of ${RUNS})`, measured: `${wall.toFixed(0)} ms`, target: '< 2000 ms', ok: wall < 2000 },
      { name: `  of which the app's own synth (its \`app\` command, median of ${RUNS})`, measured: `${synth.toFixed(0)} ms (${((100 * synth) / wall).toFixed(0)}%)`, target: '(reference)' },
    ];
  } finally {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
