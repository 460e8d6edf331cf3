// Part of `npm run build`, after tsc: bundles the CLI into CommonJS files and records V8's code
// cache for each (FILE.cache) by running `plumb validate` once with it:
// - dist/plumb.cjs: every command;
// - dist/plumb-validate.cjs: the same entry (dist/cli.js) without the bodies of the commands other
//   than validate and without the kinds' runtime parts, which bin/plumb.js runs for `plumb
//   validate` (the cold-start bench row).
//
// Why: a cold `plumb validate` spent most of its time resolving and compiling ~40 ES modules and
// the large precompiled schema validator. One file whose compiled code comes from a cache starts in
// roughly node's own start-up time plus what the command does, and the bytes read, copied and
// mapped at start-up are a good part of what is left: the validate bundle is less than a third of
// the full one (the engine, the kinds' providers, the HTTP client and undici, the emulator, the
// provider, the HTML report stay out). bin/plumb.js falls back to dist/cli.js when the bundles are missing, and V8 simply
// ignores a cache made by another Node version.
//
// Each bundle is written as one function expression taking CommonJS's parameters, in ASCII, so the
// launcher compiles the file's text as it is read (latin1), without decoding or wrapping a copy.
//
// Then the provider as one JavaScript file (dist/plumb-provider.cjs, src/provider-file.ts): every
// dependency bundled and the data files it reads embedded, so `plumb provider mirror` can copy the
// same bytes into every machine's mirror (docs/terraform.md, "One hash on every machine").
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { bundleEverything, embeddedFiles } from './sea.js';

const require = createRequire(import.meta.url);

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const entry = path.join(root, 'dist/cli.js');

/**
 * For the validate bundle: each command's body is imported by dist/cli.js when it runs; all but
 * validate's become a module that says it is not there (bin/plumb.js never runs another command
 * with this bundle). So do the kinds' runtime parts (`KindEntry.load()`, the `./runtime.js` of each
 * kind's index.js: providers, exporters, Terraform parts), which validate never loads
 * (test/resources/lazy-runtime.test.ts).
 */
const onlyValidate = {
  name: 'only-validate',
  setup(b) {
    const kindRuntime = (a) => a.path === './runtime.js' && /[\\/]resources[\\/][^\\/]+[\\/]index\.js$/.test(a.importer);
    b.onResolve({ filter: /.*/ }, (a) => (a.kind === 'dynamic-import' && ((a.importer === entry && a.path !== './commands/validate.js') || kindRuntime(a)) ? { path: a.path, namespace: 'not-bundled' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'not-bundled' }, (a) => ({ contents: `throw new Error(${JSON.stringify(`${a.path} is not in plumb's validate bundle (bin/plumb.js runs dist/plumb.cjs for other commands)`)});`, loader: 'js' }));
  },
};

/**
 * `import path from 'node:path'` as Node's own ES modules read it: the default export is the
 * builtin's module object itself. esbuild's CommonJS interop (`__toESM`) instead copies its ~20
 * exports into a new object of getters for every module that imports it so, eleven on validate's
 * path: ~80 KB built and kept at start-up and ~0.3 ms of a cold `plumb validate` (issue 30). Here
 * all of them share one small module that hands over `require('node:path')`.
 */
const pathAsItself = {
  name: 'path-as-itself',
  setup(b) {
    b.onResolve({ filter: /^node:path$/ }, (a) => (a.namespace === 'path-as-itself' ? undefined : { path: 'node:path', namespace: 'path-as-itself' }));
    b.onLoad({ filter: /.*/, namespace: 'path-as-itself' }, () => {
      const names = Object.keys(require('node:path')).filter((n) => /^[A-Za-z_$][\w$]*$/.test(n));
      const contents = `const m = require('node:path');\nexport default m;\n${names.map((n) => `export const ${n} = m.${n};`).join('\n')}\n`;
      return { contents, loader: 'js', resolveDir: root };
    });
  },
};

async function bundleCli(outfile, plugins) {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    // The provider's gRPC stack stays out of the bundle: required from node_modules only when
    // `plumb provider` runs, so the commands people run by hand do not compile it at start-up.
    external: ['@grpc/grpc-js', '@grpc/proto-loader', '@msgpack/msgpack'],
    target: 'node20',
    minify: true,
    charset: 'ascii',
    legalComments: 'linked',
    logLevel: 'warning',
    plugins: [pathAsItself, ...plugins],
    // Modules find plumb's own files (schemas/, examples/) by walking up from their own URL.
    define: { 'import.meta.url': '__plumb_module_url' },
    banner: { js: "(function (exports, require, module, __filename, __dirname) {var __plumb_module_url = require('node:url').pathToFileURL(__filename).href;" },
    footer: { js: '})' },
  });
  const text = readFileSync(outfile);
  const wide = text.findIndex((byte) => byte > 0x7f);
  if (wide >= 0) {
    console.error(`bundle: ${outfile} is not ASCII (byte ${wide}); bin/plumb.js reads it as latin1`);
    process.exit(1);
  }
  rmSync(`${outfile}.cache`, { force: true });
  const r = spawnSync(process.execPath, [path.join(root, 'bin/plumb.js'), 'validate', path.join(root, 'examples/plumb')], {
    cwd: root,
    env: { ...process.env, PLUMB_WRITE_CODE_CACHE: outfile },
    encoding: 'utf8',
  });
  if (r.status !== 0) {
    console.error(`bundle: recording the code cache of ${outfile} failed (exit ${r.status}):\n${r.stdout}${r.stderr}`);
    process.exit(1);
  }
}

await bundleCli(path.join(root, 'dist/plumb.cjs'), []);
await bundleCli(path.join(root, 'dist/plumb-validate.cjs'), [onlyValidate]);

const embedded = Object.fromEntries(embeddedFiles().map((f) => [f, readFileSync(path.join(root, f), 'utf8')]));
await bundleEverything({
  entry: 'src/provider-file.ts',
  outfile: path.join(root, 'dist/plumb-provider.cjs'),
  // Its own files are embedded; nothing is found by walking up from where a mirror puts it.
  moduleUrl: "require('node:url').pathToFileURL(__filename).href",
  banner: `var __plumb_embedded_files = ${JSON.stringify(embedded)};\n`,
});
