#!/usr/bin/env node
// Launcher. Runs the bundled CLI (dist/plumb.cjs) with V8's code cache when it is there, so a cold
// start does not pay for compiling plumb; otherwise the unbundled build in dist/. Both are made by
// `npm run build` (the prepare script of `npm ci`).
//
// CommonJS (bin/package.json): an ES module entry point makes node start its ES module loader,
// which reads files through node:fs/promises and loads streams and readline, before plumb runs;
// `plumb validate`'s cold start (bench/run.js) does without them.
'use strict';
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');

const bundle = path.join(__dirname, '../dist/plumb.cjs');
const argv = process.argv.slice(2);

function loadMain() {
  if (!existsSync(bundle)) return import('../dist/cli.js').then((m) => m.main);
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
  script.runInThisContext()(mod.exports, require('node:module').createRequire(bundle), mod, bundle, path.dirname(bundle));
  if (process.env.PLUMB_WRITE_CODE_CACHE) {
    // Recorded after the command ran, so the functions it compiled are in the cache.
    process.once('beforeExit', () => writeFileSync(cacheFile, script.createCachedData()));
  }
  return Promise.resolve(mod.exports.main);
}

// `--version` needs none of plumb: answer it straight from package.json.
if (argv.length === 1 && ['--version', '-v', 'version'].includes(argv[0])) {
  const { version } = JSON.parse(readFileSync(path.join(__dirname, '../package.json'), 'utf8'));
  process.stdout.write(`plumb ${version}\n`);
  process.exit(0);
}

loadMain()
  .then((main) => main(argv))
  .then((code) => {
    process.exitCode = code;
  });
