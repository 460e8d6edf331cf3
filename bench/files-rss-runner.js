// Plans ten 20 MB local source files against an in-process emulator and prints the peak RSS as JSON
// (bench/files.js). The sources are hashed streaming, so memory must not grow with their size.
import { mkdtempSync, openSync, writeSync, closeSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmulator } from '../dist/emulator/index.js';
import { makePlan } from '../dist/engine/engine.js';
import { adminSeed, engineOptions, load } from './engine.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-bench-rss-'));
const megabytes = Number(process.argv[2] ?? 20);
const chunk = Buffer.alloc(1024 * 1024, 'x');
const files = {};
for (let i = 0; i < 10; i++) {
  const rel = `big-${i}.txt`;
  const fd = openSync(path.join(dir, rel), 'w');
  for (let m = 0; m < megabytes; m++) writeSync(fd, chunk);
  closeSync(fd);
  files[rel] = { source: rel, branches: ['main'] };
}
const emu = await startEmulator({ seed: { users: [adminSeed], groups: [{ full_path: 'bench' }], projects: [{ path_with_namespace: 'bench/app', default_branch: 'main', files: { 'README.md': 'x\n' } }] } });
try {
  const doc = { version: 1, instances: { bench: { url: emu.url, token_env: 'PLUMB_TOKEN', projects: { 'bench/app': { files } } } } };
  const loaded = load(dir, JSON.stringify(doc));
  const plan = await makePlan(loaded, loaded.config, engineOptions(dir));
  const creates = plan.changes.filter((c) => c.action === 'create').length;
  console.log(JSON.stringify({ maxRssMb: process.resourceUsage().maxRSS / 1024, creates }));
} finally {
  await emu.close();
  rmSync(dir, { recursive: true, force: true });
}
