#!/usr/bin/env node
// Launcher. Runs the bundled CLI (dist/plumb.cjs) with V8's code cache when it is there, so a cold
// start does not pay for compiling plumb; otherwise the unbundled build in dist/. Both are made by
// `npm run build` (the prepare script of `npm ci`).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const bundle = fileURLToPath(new URL('../dist/plumb.cjs', import.meta.url));
const argv = process.argv.slice(2);

async function loadMain() {
  if (!existsSync(bundle)) return (await import('../dist/cli.js')).main;
  const cacheFile = `${bundle}.cache`;
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // no cache: compile as usual
  }
  const source = `(function (exports, require, module, __filename, __dirname) {${readFileSync(bundle, 'utf8')}\n})`;
  const script = new vm.Script(source, { filename: bundle, cachedData });
  const mod = { exports: {} };
  script.runInThisContext()(mod.exports, createRequire(bundle), mod, bundle, path.dirname(bundle));
  if (process.env.PLUMB_WRITE_CODE_CACHE) {
    // Recorded after the command ran, so the functions it compiled are in the cache.
    process.once('beforeExit', () => writeFileSync(cacheFile, script.createCachedData()));
  }
  return mod.exports.main;
}

// `--version` needs none of plumb: answer it straight from package.json.
if (argv.length === 1 && ['--version', '-v', 'version'].includes(argv[0])) {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`plumb ${version}\n`);
  process.exit(0);
}

const main = await loadMain();
process.exitCode = await main(argv);
// An interrupted command (130 SIGINT, 143 SIGTERM) has reported and written its state: what is
// still running (a change past its grace period) does not keep the process alive.
if (process.exitCode === 130 || process.exitCode === 143) process.exit();
