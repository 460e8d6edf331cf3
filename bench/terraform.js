// Terraform through plumb's provider vs `plumb plan`: 200 group access tokens in 40 groups, created
// by `terraform plan -out` + `terraform apply PLANFILE` (the two walks of `terraform apply`, each its
// own provider process, counted apart), then planned in sync both ways. The real terraform runs
// plumb's provider against the in-process emulator over loopback, with LATENCY_MS added to every
// request; requests are counted per route from the emulator's log, next to the floor.
// Skipped (one row saying so) when neither terraform nor tofu is on PATH.
import { spawn } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root, scale } from './lib.js';
import { startEmulator } from '../dist/emulator/index.js';

const ADMIN = 'bench-tf-admin-token-0123456789';
const GROUPS = scale(40, 2);
const PER_GROUP = scale(5, 2);
/** Added to every request, as in the other benches (engine.js, files.js). */
const LATENCY_MS = 20;

/** Requests per route, ids and paths folded (`GET /groups/:group/access_tokens`). */
function routes(requests) {
  const out = new Map();
  for (const r of requests) {
    const route = `${r.method} ${r.path.replace(/^\/groups\/[^/]+/, '/groups/:group').replace(/\/\d+(?=\/|$)/g, '/:id')}`;
    out.set(route, (out.get(route) ?? 0) + 1);
  }
  return out;
}

const LIST = 'GET /groups/:group/access_tokens';
const CREATE = 'POST /groups/:group/access_tokens';

function perRoute(counts) {
  const other = [...counts].filter(([k]) => k !== LIST && k !== CREATE);
  return `${counts.get(LIST) ?? 0} lists, ${counts.get(CREATE) ?? 0} creates, ${other.length === 0 ? '0 other' : other.map(([k, n]) => `${n} ${k}`).join(', ')}`;
}

function onPath(name) {
  for (const d of (process.env.PATH ?? '').split(path.delimiter)) {
    try {
      accessSync(path.join(d, name), constants.X_OK);
      return path.join(d, name);
    } catch {
      // not here
    }
  }
  return undefined;
}

function run(cmd, args, cwd, env) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, ms: performance.now() - t0 }));
  });
}

export async function terraformBenchmarks() {
  const cli = onPath('terraform') ?? onPath('tofu');
  const name = `plan of ${GROUPS * PER_GROUP} tokens in ${GROUPS} groups, in sync, ${LATENCY_MS} ms latency`;
  if (!cli) return [{ name: `terraform ${name}`, measured: 'skipped: no terraform or tofu on PATH', target: '(reference)' }];
  const groups = Array.from({ length: GROUPS }, (_, g) => `team-${String(g).padStart(2, '0')}`);
  const emu = await startEmulator({
    latencyMs: LATENCY_MS,
    seed: {
      users: [{ username: 'root', admin: true, personal_access_tokens: [{ name: 'bench', token: ADMIN, scopes: ['api'], expires_at: null }] }],
      groups: groups.map((g, i) => ({ full_path: g, id: 100 + i, name: g, visibility: 'private', members: [{ username: 'root', access_level: 50 }] })),
    },
  });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-bench-tf-'));
  try {
    mkdirSync(path.join(dir, 'secrets'));
    const expires = new Date(Date.now() + 200 * 86_400_000).toISOString().slice(0, 10);
    const tokens = groups.flatMap((g) => Array.from({ length: PER_GROUP }, (_, i) => ({ group: g, name: `bot-${i}` })));
    writeFileSync(
      path.join(dir, 'main.tf'),
      `terraform {\n  required_providers {\n    plumb = { source = "plumb.invalid/plumb/plumb" }\n  }\n}\nprovider "plumb" {\n  url = ${JSON.stringify(emu.url)}\n}\n` +
        tokens
          .map(
            (t) =>
              `resource "plumb_group_access_token" "${t.group}_${t.name}" {\n  group = "${t.group}"\n  name = "${t.name}"\n  scopes = ["read_api"]\n  expires_at = "${expires}"\n  sink {\n    file = "secrets/${t.group}-${t.name}"\n  }\n}\n`,
          )
          .join(''),
    );
    writeFileSync(
      path.join(dir, 'plumb.yaml'),
      `version: 1\ninstances:\n  bench:\n    url: ${emu.url}\n    token_env: PLUMB_TOKEN\n    groups:\n` +
        groups
          .map((g) => `      ${g}:\n        access_tokens:\n` + Array.from({ length: PER_GROUP }, (_, i) => `          bot-${i}: {scopes: [read_api], expires_at: "${expires}", sink: {file: secrets/${g}-bot-${i}}}\n`).join(''))
          .join(''),
    );
    const rc = path.join(dir, 'cli.tfrc');
    writeFileSync(rc, `provider_installation {\n  dev_overrides {\n    "plumb.invalid/plumb/plumb" = ${JSON.stringify(path.join(root, 'bin'))}\n  }\n  direct {}\n}\n`);
    const env = { PATH: process.env.PATH, HOME: dir, TF_CLI_CONFIG_FILE: rc, PLUMB_TOKEN: ADMIN, TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1' };
    emu.resetRequests();
    const planned = await run(cli, ['plan', '-input=false', '-no-color', '-out=tfplan'], dir, env);
    if (planned.code !== 0) throw new Error(`terraform plan failed:\n${planned.out.slice(-2000)}`);
    const planWalk = routes(emu.requests);
    emu.resetRequests();
    const created = await run(cli, ['apply', '-input=false', '-no-color', 'tfplan'], dir, env);
    if (created.code !== 0) throw new Error(`terraform apply failed:\n${created.out.slice(-2000)}`);
    const applyWalk = routes(emu.requests);
    const applyOther = [...applyWalk].filter(([k]) => k !== LIST && k !== CREATE).length;
    // The provider applies one resource at a time: the creates alone take this long.
    const floorMs = GROUPS * PER_GROUP * LATENCY_MS;
    emu.resetRequests();
    const tf = await run(cli, ['plan', '-input=false', '-no-color', '-detailed-exitcode'], dir, env);
    const tfRequests = emu.requests.length;
    emu.resetRequests();
    const plumb = await run(process.execPath, [path.join(root, 'bin/plumb.js'), 'plan', '--detailed-exitcode', '--state', path.join(dir, '.plumb/state.json')], dir, env);
    const plumbRequests = emu.requests.length;
    return [
      // Issue 21: plumb's own apply lists each group once; the provider's apply walk does too.
      {
        name: `terraform apply PLANFILE of ${GROUPS * PER_GROUP} new tokens in ${GROUPS} groups, ${LATENCY_MS} ms latency (plumb provider): the apply walk`,
        measured: `${perRoute(applyWalk)}; ${created.ms.toFixed(0)} ms`,
        target: `floor ${GROUPS} lists + ${GROUPS * PER_GROUP} creates, ${floorMs} ms of creates in sequence`,
        ok: (applyWalk.get(LIST) ?? 0) <= GROUPS && applyWalk.get(CREATE) === GROUPS * PER_GROUP && applyOther === 0,
      },
      {
        name: `terraform plan -out of the same (plumb provider): the plan walk (with the apply walk: terraform apply)`,
        measured: `${perRoute(planWalk)}; ${planned.ms.toFixed(0)} ms`,
        target: `floor ${GROUPS} lists (the existence check at plan), nothing written`,
        ok: (planWalk.get(LIST) ?? 0) <= GROUPS && planWalk.size === 1,
      },
      { name: `terraform ${name} (plumb provider)`, measured: `${tfRequests} requests, ${tf.ms.toFixed(0)} ms (exit ${tf.code})`, target: '(compare)', ok: tf.code === 0 },
      { name: `plumb ${name}`, measured: `${plumbRequests} requests, ${plumb.ms.toFixed(0)} ms (exit ${plumb.code})`, target: '(compare)', ok: plumb.code === 0 },
    ];
  } finally {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
