// Rotation with an overlap window, delivered to CI/CD variables (issue 31; imported by bench/run.js;
// needs `npm run build`): whole process, the emulator in a worker thread answering every request
// 20 ms after it arrives, concurrency 8, next to the latency floor and a plain undici script making
// the same requests (bench/baseline.js, mode `overlap`).
//
// - Apply of 1,000 tokens (200 groups × 5), every one due, each under `rotation: {…, overlap: 2d}`
//   with one `ci_variable` sink (a variable of its own group, which already holds the predecessor's
//   secret): per token the successor's create, the variable's PUT and the GET that reads it back;
//   per group the token list and the variable list (the check of the sinks before any write that
//   issue 31 item 3 requires). The predecessors stay active. Target: ≤ 1.3× the floor of these
//   minimal requests, ceil((2 × 200 + 3 × 1,000) ÷ 8) × 20 ms; the row shows the floor without the
//   variable lists too.
//
// `PLUMB_BENCH_SMOKE=1` (bench/lib.js): 4 groups × 2 tokens, once. `node bench/overlap.js` runs
// this row alone; PLUMB_BENCH_PROFILE=DIR writes plumb's CPU profiles, PLUMB_BENCH_GROUPS=N scales it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root, scale } from './lib.js';
import { ADMIN, CONCURRENCY, LATENCY_MS, LIFETIME, ROTATE_DAY, addDays, adminUser, floorMs, median, remoteEmulator, run, tokenFleet } from './wire.js';

const RUNS = Number(process.env.PLUMB_BENCH_RUNS ?? scale(3, 1));
/** A directory: plumb's processes write CPU profiles there (node --cpu-prof). */
const PROFILE = process.env.PLUMB_BENCH_PROFILE;
/** Scale for a quick look: PLUMB_BENCH_GROUPS groups (of 5 tokens). */
const GROUPS = Number(process.env.PLUMB_BENCH_GROUPS ?? scale(200, 4));

function workload(groups, tokens) {
  // Each token's sink is a variable of its own group, which already holds the predecessor's secret.
  const { names, secret, yaml, seedTokens } = tokenFleet(groups, tokens, { overlap: '2d', sink: (name, t) => `{ci_variable: {group: ${name}, key: TOK_${t}}}` });
  return {
    count: groups * tokens,
    yaml,
    seed: {
      users: [adminUser],
      groups: names.map((name) => ({
        full_path: name,
        access_tokens: seedTokens(name),
        variables: Array.from({ length: tokens }, (_, t) => ({ key: `TOK_${t}`, value: secret(name, t), protected: true, masked: true, raw: true })),
      })),
    },
    job: {
      mode: 'overlap',
      groups: names.map((name) => ({ path: name, tokens: Array.from({ length: tokens }, (_, t) => ({ name: `tok-${t}`, key: `TOK_${t}` })) })),
      scopes: ['read_api'],
      accessLevel: 30,
      expiresAt: addDays(ROTATE_DAY, LIFETIME),
    },
    groups,
  };
}

async function measure(emu, w, baseline) {
  const url = await emu.start(w.seed, ROTATE_DAY);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-overlap-'));
  try {
    let cmd;
    if (baseline) {
      writeFileSync(path.join(dir, 'job.json'), JSON.stringify({ url, token: ADMIN, concurrency: CONCURRENCY, ...w.job }));
      cmd = [path.join(root, 'bench/baseline.js'), path.join(dir, 'job.json')];
    } else {
      writeFileSync(path.join(dir, 'plumb.yaml'), w.yaml.replace('URL', url));
      cmd = [...(PROFILE ? ['--cpu-prof', '--cpu-prof-dir', PROFILE] : []), path.join(root, 'bin/plumb.js'), 'apply', '--auto-approve', '--now', ROTATE_DAY, '--concurrency', String(CONCURRENCY)];
    }
    await emu.resetRequests();
    const r = await run(cmd, dir);
    const stats = await emu.stats();
    return { ...r, requests: stats.requests, byMethod: stats.byMethod, failed: stats.failed, avgInFlight: stats.avgInFlight };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function overlapBenchmarks() {
  const emu = await remoteEmulator();
  try {
    const w = workload(GROUPS, scale(5, 2));
    const p = [];
    const b = [];
    for (let i = 0; i < RUNS; i++) {
      b.push(await measure(emu, w, true));
      p.push(await measure(emu, w, false));
    }
    const plumb = { ...p[0], ms: median(p.map((x) => x.ms)) };
    const baseline = { ...b[0], ms: median(b.map((x) => x.ms)) };
    const vsBaseline = median(p.map((x, i) => x.ms / b[i].ms));
    // Per group its token list and its variable list (the sink check), per token create, PUT and GET.
    const minimal = 2 * w.groups + 3 * w.count;
    const floor = floorMs(minimal);
    const bare = floorMs(w.groups + 3 * w.count);
    const methods = Object.entries(plumb.byMethod).map(([m, n]) => `${n} ${m}`).join(', ');
    // Exit 0 (run rejects otherwise), one create and one variable write per token, nothing refused.
    const applied = plumb.byMethod.POST === w.count && plumb.byMethod.PUT === w.count && plumb.failed === 0;
    const N = w.count.toLocaleString('en');
    return [
      {
        name: `apply ${N} tokens rotated with overlap (2d), each delivered to one CI/CD variable and read back (${LATENCY_MS} ms latency, concurrency ${CONCURRENCY}, whole process, median of ${RUNS})`,
        measured:
          `${plumb.ms.toFixed(0)} ms (runs ${p.map((x) => (x.ms / floor).toFixed(2)).join(', ')}× floor); ${plumb.requests} req (${methods})${plumb.failed ? `, ${plumb.failed} failed` : ''}; ` +
          `floor of the ${minimal.toLocaleString('en')} minimal requests ${floor} ms (${(plumb.ms / floor).toFixed(2)}×; without the ${w.groups} variable lists ${bare} ms, ${(plumb.ms / bare).toFixed(2)}×); avg ${plumb.avgInFlight.toFixed(1)} in flight; ` +
          `baseline ${baseline.ms.toFixed(0)} ms, ${baseline.requests} req (${(baseline.ms / floor).toFixed(2)}× floor; plumb ${vsBaseline.toFixed(2)}× baseline); one create and one variable write per token, none refused: ${applied ? 'yes' : 'NO'}`,
        target: `≤ 1.3× floor (${w.groups} token lists + ${w.groups} variable lists + ${N} creates + ${N} PUT + ${N} GET)`,
        ok: plumb.ms <= 1.3 * floor && baseline.failed === 0 && applied,
      },
    ];
  } finally {
    await emu.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { printTable } = await import('./lib.js');
  printTable(await overlapBenchmarks());
}
