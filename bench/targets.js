// Targeting benchmark (imported by bench/run.js; needs `npm run build`): a configuration of 1,000
// groups with one token each (and settings), planned with --target on one group, must make
// requests for that group only (one token list), never for the other 999 nor for the settings.
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makePlan } from '../dist/engine/engine.js';
import { adminSeed, engineOptions, load, remoteEmulator } from './engine.js';
import { scale } from './lib.js';

const GROUPS = scale(1000, 50);

export async function targetBenchmarks() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-bench-targets-'));
  mkdirSync(path.join(dir, 'secrets'));
  const groups = [];
  const lines = ['version: 1', 'instances:', '  bench:', '    url: URL', '    token_env: PLUMB_TOKEN', '    settings:', '      signup_enabled: false', '    groups:'];
  for (let g = 0; g < GROUPS; g++) {
    const name = `team-${String(g).padStart(4, '0')}`;
    groups.push({ full_path: name });
    lines.push(
      `      ${name}:`,
      '        access_tokens:',
      '          deploy:',
      '            scopes: [read_api]',
      '            rotation: {lifetime_days: 60}',
      `            sink: {file: secrets/${name}.token}`,
    );
  }
  const emu = await remoteEmulator({ users: [adminSeed], groups });
  try {
    const loaded = load(dir, lines.join('\n').replace('URL', emu.url) + '\n');
    const target = 'bench.group["team-0042"]';
    const t0 = performance.now();
    const plan = await makePlan(loaded, loaded.config, engineOptions(dir, { targets: [target] }));
    const ms = performance.now() - t0;
    const recorded = await emu.requests();
    const paths = [...new Set(recorded.map((r) => `${r.method} ${r.path}`))];
    const onlyThatGroup = recorded.length > 0 && recorded.every((r) => r.path.startsWith('/groups/team-0042/'));
    const planned = plan.changes.map((c) => c.address);
    return [
      {
        name: `plan --target '${target}' of ${GROUPS} groups: requests`,
        measured: `${recorded.length} (${paths.join(', ')}; ${planned.length} change planned, ${ms.toFixed(0)} ms)`,
        target: "1, all for that group's tokens",
        ok: onlyThatGroup && recorded.length === 1 && planned.length === 1 && planned[0] === `${target}.access_token["deploy"]`,
      },
    ];
  } finally {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
