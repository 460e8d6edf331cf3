// Emulator throughput: small authenticated GETs from plumb's client at concurrency 16, with the
// emulator in its own process (as `plumb emulator`), so the two do not share one event loop.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { root, scale } from './lib.js';
import { ApiClient, apiPath } from '../dist/api/index.js';

const TOKEN = 'local-admin-token-change-me'; // the admin token of examples/emulator-seed.yaml

/** Start-up of an in-process emulator from the example seed (what every test pays). */
async function startupRow() {
  const { startEmulator } = await import('../dist/emulator/index.js');
  const times = [];
  const runs = scale(5, 1);
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const emu = await startEmulator({ seed: path.join(root, 'examples/emulator-seed.yaml') });
    times.push(performance.now() - t0);
    await emu.close();
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(runs / 2)];
  return { name: `emulator start-up from the example seed (median of ${runs}, in-process)`, measured: `${median.toFixed(0)} ms`, target: '< 1000 ms', ok: median < 1000 };
}

export async function emulatorBenchmarks({ requests = scale(6000, 200), concurrency = 16 } = {}) {
  const startup = await startupRow();
  const child = spawn(process.execPath, [path.join(root, 'bin/plumb.js'), 'emulator', '--port', '0', '--seed', path.join(root, 'examples/emulator-seed.yaml')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`emulator exited ${code}`)));
  });
  const client = new ApiClient({ baseUrl: url, token: TOKEN, concurrency });
  const path1 = apiPath`/groups/${'platform'}/access_tokens/${100}`;
  try {
    // warm-up
    await Promise.all(Array.from({ length: scale(200, 20) }, () => client.request({ method: 'GET', path: apiPath`/application/settings` }).catch(() => undefined)));
    const t0 = performance.now();
    let failed = 0;
    await Promise.all(
      Array.from({ length: requests }, () =>
        client.request({ method: 'GET', path: path1 }).catch(() => {
          failed++;
        }),
      ),
    );
    const seconds = (performance.now() - t0) / 1000;
    const rps = (requests - failed) / seconds;
    return [
      startup,
      {
        name: `emulator throughput: ${requests} small GETs, client concurrency ${concurrency}`,
        measured: `${rps.toFixed(0)} req/s (${failed} failed)`,
        target: '≥ 2000 req/s',
        ok: rps >= 2000 && failed === 0,
      },
    ];
  } finally {
    await client.close();
    child.kill('SIGTERM');
  }
}
