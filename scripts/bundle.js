// Part of `npm run build`, after tsc: bundles the CLI into one CommonJS file (dist/plumb.cjs) and
// records V8's code cache for it (dist/plumb.cjs.cache) by running `plumb validate` once.
//
// Why: a cold `plumb validate` spent most of its time resolving and compiling ~40 ES modules and
// the large precompiled schema validator. One file whose compiled code comes from a cache starts in
// roughly node's own start-up time plus ~40 ms. bin/plumb.js falls back to dist/cli.js when the
// bundle is missing, and V8 simply ignores a cache made by another Node version.
//
// Then the provider as one JavaScript file (dist/plumb-provider.cjs, src/provider-file.ts): every
// dependency bundled and the data files it reads embedded, so `plumb provider mirror` can copy the
// same bytes into every machine's mirror (docs/terraform.md, "One hash on every machine").
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleEverything, embeddedFiles } from './sea.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outfile = path.join(root, 'dist/plumb.cjs');

await build({
  entryPoints: [path.join(root, 'dist/cli.js')],
  outfile,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  // The provider's gRPC stack stays out of the bundle: required from node_modules only when
  // `plumb provider` runs, so the commands people run by hand do not compile it at start-up.
  external: ['@grpc/grpc-js', '@grpc/proto-loader', '@msgpack/msgpack'],
  target: 'node20',
  minify: true,
  legalComments: 'linked',
  logLevel: 'warning',
  // Modules find plumb's own files (schemas/, examples/) by walking up from their own URL.
  define: { 'import.meta.url': '__plumb_module_url' },
  banner: { js: "var __plumb_module_url = require('node:url').pathToFileURL(__filename).href;" },
});

rmSync(`${outfile}.cache`, { force: true });
const r = spawnSync(process.execPath, [path.join(root, 'bin/plumb.js'), 'validate', path.join(root, 'examples/plumb')], {
  cwd: root,
  env: { ...process.env, PLUMB_WRITE_CODE_CACHE: '1' },
  encoding: 'utf8',
});
if (r.status !== 0) {
  console.error(`bundle: recording the code cache failed (exit ${r.status}):\n${r.stdout}${r.stderr}`);
  process.exit(1);
}

const embedded = Object.fromEntries(embeddedFiles().map((f) => [f, readFileSync(path.join(root, f), 'utf8')]));
await bundleEverything({
  entry: 'src/provider-file.ts',
  outfile: path.join(root, 'dist/plumb-provider.cjs'),
  // Its own files are embedded; nothing is found by walking up from where a mirror puts it.
  moduleUrl: "require('node:url').pathToFileURL(__filename).href",
  banner: `var __plumb_embedded_files = ${JSON.stringify(embedded)};\n`,
});
