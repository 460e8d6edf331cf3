// `plumb export` of a large instance, as a whole process against an emulator answering every
// request 20 ms late (in a worker thread, bench/wire.js): every setting (--all-settings), 200
// groups × 5 tokens, 100 Pages projects. Prints plumb's wall time and the requests the emulator
// counted next to the latency floor, ceil(requests / concurrency) × latency. Imported by
// bench/run.js; `node bench/export.js` runs this row alone.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root, scale } from './lib.js';
import { remoteEmulator, run } from './wire.js';

const ADMIN = 'bench-admin-token-0123456789';
const LATENCY_MS = 20;
const CONCURRENCY = 8;
const TODAY = '2026-03-01';
const GROUPS = scale(200, 3);
const TOKENS = scale(5, 2);
const PAGES = scale(100, 2);

function seed() {
  const owner = [{ username: 'root', access_level: 50 }];
  const groups = Array.from({ length: GROUPS }, (_, g) => {
    const name = `team-${String(g).padStart(4, '0')}`;
    return {
      full_path: name,
      members: owner,
      access_tokens: Array.from({ length: TOKENS }, (_, t) => ({
        name: `tok-${t}`,
        token: `bench-${name}-tok-${t}-secret`,
        scopes: ['read_api'],
        access_level: 30,
        created_at: '2026-01-01T00:00:00.000Z',
        expires_at: '2026-12-01',
      })),
    };
  });
  groups.push({ full_path: 'sites', members: owner });
  const projects = Array.from({ length: PAGES }, (_, p) => ({
    path_with_namespace: `sites/site-${String(p).padStart(3, '0')}`,
    pages: { https_only: false, unique_domain_enabled: p % 2 === 0, deployments: [{ created_at: '2026-02-01T00:00:00.000Z' }] },
  }));
  return { users: [{ username: 'root', admin: true, personal_access_tokens: [{ name: 'bench', token: ADMIN, scopes: ['api'] }] }], groups, projects };
}

export async function exportBenchmarks() {
  const emu = await remoteEmulator();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-export-bench-'));
  try {
    const url = await emu.start(seed(), TODAY);
    const pages = Array.from({ length: PAGES }, (_, p) => ['--pages', `sites/site-${String(p).padStart(3, '0')}`]).flat();
    const args = [path.join(root, 'bin/plumb.js'), 'export', '--instance-url', url, '--out', 'out', '--all-settings', '--sink-dir', 'secrets', ...pages, '--now', TODAY, '--concurrency', String(CONCURRENCY)];
    const { ms } = await run(args, dir);
    const stats = await emu.stats();
    const tokens = (readFileSync(path.join(dir, 'out/plumb.yaml'), 'utf8').match(/^ {10}tok-\d+:$/gm) ?? []).length;
    const floor = Math.ceil(stats.requests / CONCURRENCY) * LATENCY_MS;
    return [
      {
        name: `export: all settings, ${GROUPS} groups × ${TOKENS} tokens, ${PAGES} Pages projects (latency ${LATENCY_MS} ms, concurrency ${CONCURRENCY})`,
        measured: `${ms.toFixed(0)} ms, ${stats.requests} requests (floor ${floor} ms, ${(ms / floor).toFixed(2)}× floor); ${tokens} tokens exported`,
        target: `≤ ${GROUPS + PAGES + 10} requests, ≤ 2× floor + 500 ms`,
        ok: stats.failed === 0 && tokens === GROUPS * TOKENS && stats.requests <= GROUPS + PAGES + 10 && ms <= 2 * floor + 500,
      },
    ];
  } finally {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// `node bench/export.js` runs this row alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  const { printTable } = await import('./lib.js');
  printTable(await exportBenchmarks());
}
