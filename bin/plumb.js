#!/usr/bin/env node
// Launcher. Runs the bundled CLI with V8's code cache when it is there, so a cold start does not
// pay for compiling plumb; otherwise the unbundled build in dist/. Both are made by `npm run build`
// (the prepare script of `npm ci`; scripts/bundle.js says how).
//
// Two bundles: `plumb validate` runs dist/plumb-validate.cjs, the same CLI without the other
// commands' bodies and the kinds' runtime parts (no engine, providers, HTTP client, emulator or
// Terraform provider), a third of the size to read and start; every other command runs
// dist/plumb.cjs. Each bundle is one function
// expression with CommonJS's parameters, in ASCII (the build checks it), so its text is read as
// latin1 and compiled as it is: no copy of ~1 MB made to decode or wrap it.
//
// CommonJS (bin/package.json): an ES module entry point makes node start its ES module loader,
// which reads files through node:fs/promises and loads streams and readline, before plumb runs;
// `plumb validate`'s cold start (bench/run.js) does without them.
'use strict';
const { closeSync, existsSync, openSync, readFileSync, readSync, statSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const argv = process.argv.slice(2);
const dist = path.join(__dirname, '../dist');

const BUNDLES = { validate: path.join(dist, 'plumb-validate.cjs'), full: path.join(dist, 'plumb.cjs') };

/** The bundle for this command line: validate's own when it is built. */
function bundleFor(command) {
  if (command === 'validate' && existsSync(BUNDLES.validate)) return BUNDLES.validate;
  return existsSync(BUNDLES.full) ? BUNDLES.full : undefined;
}

/**
 * Reads files one after the other through one buffer, as large as the largest of them. Each page
 * of memory a process touches for the first time costs it a page fault, and on a virtual machine
 * a fault can cost 10 µs and more: reading the bundle (~0.5 MB) and its code cache (~0.7 MB)
 * through one buffer instead of a fresh one each saves a cold `plumb validate` ~130 of them
 * (issue 30). A file's bytes are valid until the next read.
 */
class Reader {
  constructor(files) {
    const sizes = files.map((f) => {
      try {
        return statSync(f).size;
      } catch {
        return 0;
      }
    });
    this.buf = Buffer.allocUnsafeSlow(Math.max(...sizes) + 1);
  }

  read(file) {
    const fd = openSync(file, 'r');
    try {
      let n = 0;
      for (let r; n < this.buf.length && (r = readSync(fd, this.buf, n, this.buf.length - n, null)) > 0; ) n += r;
      if (n === this.buf.length) throw new Error(`${file} grew while plumb read it`);
      return this.buf.subarray(0, n);
    } finally {
      closeSync(fd);
    }
  }
}

function loadMain() {
  // `PLUMB_WRITE_CODE_CACHE=FILE` (scripts/bundle.js): run bundle FILE, one of the two above, and
  // record its code cache.
  const record = process.env.PLUMB_WRITE_CODE_CACHE;
  if (record && !Object.values(BUNDLES).includes(path.resolve(record))) throw new Error(`PLUMB_WRITE_CODE_CACHE names ${record}, not one of plumb's bundles (${Object.values(BUNDLES).join(', ')})`);
  const bundle = record ? path.resolve(record) : bundleFor(argv[0]);
  if (!bundle) return import('../dist/cli.js').then((m) => m.main);
  const vm = require('node:vm');
  const cacheFile = `${bundle}.cache`;
  const reader = new Reader(record ? [bundle] : [bundle, cacheFile]);
  const source = reader.read(bundle).latin1Slice();
  let cachedData;
  try {
    // Into the buffer the source was read through: V8 reads the cache while it compiles.
    cachedData = record ? undefined : reader.read(cacheFile);
  } catch {
    // no cache: compile as usual
  }
  const script = new vm.Script(source, { filename: bundle, cachedData });
  const mod = { exports: {} };
  // The launcher's own require: the bundles ask it for node's modules and, from plumb provider,
  // for packages in node_modules, which it finds from bin/ as from dist/ (createRequire(bundle)
  // would cost every start its own module-path walk).
  script.runInThisContext()(mod.exports, require, mod, bundle, path.dirname(bundle));
  // Recorded after the command ran, so the functions it compiled are in the cache.
  if (record) process.once('beforeExit', () => writeFileSync(cacheFile, script.createCachedData()));
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
    // An interrupted command (130 SIGINT, 143 SIGTERM) has reported and written its state: what is
    // still in flight (a hung sink) must not keep the process alive past the signal.
    if (code === 130 || code === 143) process.exit();
  });
