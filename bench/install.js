// The package as users get it: the tarball's size and the installed size (`npm pack` of this
// checkout installed into an empty prefix without dev dependencies, from npm's cache where it can),
// and the cold start of that installation next to the standalone executable's (`npm run
// build:sea`, built here into a scratch directory).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root, scale, SMOKE, timeCommand, timeNode } from './lib.js';

/** Bytes of the files under `dir` (what `du --apparent-size` says). */
function sizeOf(dir) {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) total += sizeOf(p);
    else if (e.isFile()) total += statSync(p).size;
  }
  return total;
}

const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
const ms = (t) => `${t.median.toFixed(0)} ms (p10 ${t.p10.toFixed(0)})`;

function npm(args, cwd) {
  const r = spawnSync('npm', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`npm ${args.join(' ')} failed:\n${r.stderr}`);
  return r.stdout;
}

/** Builds the standalone executable into `tmp` and times its cold start; `{error}` when it cannot be built here. */
async function timedSea(tmp, opts) {
  try {
    const { buildSea } = await import('../scripts/sea.js');
    const t0 = performance.now();
    const exe = await buildSea({ outDir: path.join(tmp, 'sea') });
    const buildMs = performance.now() - t0;
    return { exe, buildMs, version: timeCommand(exe, ['--version'], opts), validate: timeCommand(exe, ['validate', 'plumb'], opts) };
  } catch (err) {
    return { error: err.message.split('\n')[0] };
  }
}

export async function installBenchmarks() {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'plumb-bench-install-'));
  try {
    const [packed] = JSON.parse(npm(['pack', '--ignore-scripts', '--json', '--pack-destination', tmp], root));
    const prefix = path.join(tmp, 'prefix');
    mkdirSync(prefix);
    npm(['install', '--prefer-offline', '--omit=dev', '--no-audit', '--no-fund', '--prefix', prefix, path.join(tmp, packed.filename)], tmp);
    const installed = path.join(prefix, 'node_modules/plumb-gitops');
    const rows = [
      { name: `npm package: tarball (${packed.files.length} files) / unpacked`, measured: `${mb(packed.size)} / ${mb(packed.unpackedSize)}`, target: '(reference)' },
      { name: 'npm package installed: plumb-gitops / with its dependencies', measured: `${mb(sizeOf(installed))} / ${mb(sizeOf(path.join(prefix, 'node_modules')))}`, target: '(reference)' },
    ];
    const work = path.join(tmp, 'work');
    cpSync(path.join(root, 'examples'), work, { recursive: true });
    const bin = path.join(installed, 'bin/plumb.js');
    const opts = { cwd: work, env: { PLUMB_TOKEN: 'bench-token' } };
    const npmVersion = timeNode([bin, '--version'], opts);
    const npmValidate = timeNode([bin, 'validate', 'plumb'], opts);
    // The executable's build takes most of a minute: a smoke run leaves it to test/install/.
    const sea = SMOKE ? { error: 'not built in a smoke run (PLUMB_BENCH_SMOKE)' } : await timedSea(tmp, opts);
    rows.push(
      { name: `cold plumb --version: npm-installed / standalone executable (median of ${scale(20, 1)})`, measured: sea.error ? `${ms(npmVersion)} / skipped: ${sea.error}` : `${ms(npmVersion)} / ${ms(sea.version)}`, target: '(compare)' },
      { name: `cold plumb validate examples/plumb: npm-installed / standalone (median of ${scale(20, 1)})`, measured: sea.error ? `${ms(npmValidate)} / skipped` : `${ms(npmValidate)} / ${ms(sea.validate)}`, target: '(compare)' },
    );
    if (!sea.error) rows.push({ name: 'standalone executable: size / build time', measured: `${mb(statSync(sea.exe).size)} / ${(sea.buildMs / 1000).toFixed(1)} s`, target: '(reference)' });
    return rows;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
