// `npm run build:sea`: plumb as one standalone executable (Node's single executable applications),
// for the platform it is built on: dist/sea/plumb-<platform>-<arch>. It needs no Node.js where it
// runs, serves `plumb …`, and is the Terraform provider when started as terraform-provider-plumb
// (a copy or a link of that name) or with `plumb provider` (src/sea.ts).
//
// How: esbuild bundles src/sea.ts with every dependency (a single executable's `require` reaches
// only Node's built-in modules) into one CommonJS script; `node --experimental-sea-config` turns
// it, V8's code cache for it and plumb's data files (assets) into a blob; the blob is injected into
// a copy of this very node binary with postject (a dev dependency: the Node project's injector),
// which also flips the binary's fuse so it runs the blob instead of node's own command line.
//
// `buildSea({ outDir, name })` is exported for other build steps (the Terraform mirror ships this
// executable); it takes a few seconds, most of them postject rewriting the ~100 MB binary.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The fuse every Node binary carries; postject flips it so the binary runs its embedded blob. */
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
/** Must match MANIFEST_ASSET in src/sea.ts. */
const MANIFEST_ASSET = 'plumb-files.json';

/** plumb's data files that it reads at run time (src/util/own-files.ts), by package path. */
export function embeddedFiles() {
  return [
    ...readdirSync(path.join(root, 'proto'))
      .filter((f) => f.endsWith('.proto'))
      .sort()
      .map((f) => `proto/${f}`),
    'schemas/plumb-config.schema.json',
    'schemas/terraform-provider.schema.json',
    'examples/emulator-seed.yaml',
  ];
}

/** postject from the project's node_modules, else from the prefix in PLUMB_POSTJECT_PREFIX. */
function loadPostject() {
  const bases = [path.join(root, 'package.json')];
  if (process.env.PLUMB_POSTJECT_PREFIX) bases.push(path.join(process.env.PLUMB_POSTJECT_PREFIX, 'package.json'));
  for (const base of bases) {
    try {
      return createRequire(base)('postject');
    } catch (err) {
      if (err.code !== 'MODULE_NOT_FOUND') throw err;
    }
  }
  throw new Error('build:sea needs postject (a dev dependency: npm install); or set PLUMB_POSTJECT_PREFIX to a prefix where it is installed');
}

/** `plumb-linux-x64` (`.exe` on Windows). */
export function defaultName() {
  return `plumb-${process.platform}-${process.arch}${process.platform === 'win32' ? '.exe' : ''}`;
}

/**
 * Builds the executable into `outDir` (default dist/sea) as `name`; returns its path. Every
 * intermediate file (the bundle, the blob, the SEA configuration) stays in `outDir/work`. `base`:
 * the node binary to inject into (default this one; the release uses the registry's
 * `node-linux-*` binaries of this node's version, scripts/release.js); the blob is made by this
 * node, so `base` must be the same Node.js version.
 */
export async function buildSea({ outDir = path.join(root, 'dist/sea'), name = defaultName(), base = process.execPath, useCodeCache = true } = {}) {
  const work = path.join(outDir, 'work');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const bundle = path.join(work, 'plumb-sea.cjs');
  // findUp (npm installations) walks up from the executable; it reads its embedded files instead.
  await bundleEverything({ entry: 'src/sea.ts', outfile: bundle, moduleUrl: "require('node:url').pathToFileURL(process.execPath).href" });
  const files = embeddedFiles();
  writeFileSync(path.join(work, MANIFEST_ASSET), JSON.stringify(files));
  const blob = path.join(work, 'plumb.blob');
  const config = path.join(work, 'sea-config.json');
  writeFileSync(
    config,
    JSON.stringify({
      main: bundle,
      output: blob,
      disableExperimentalSEAWarning: true,
      // V8's code cache is made by this node for its own CPU: off when `base` is another architecture's node.
      useCodeCache,
      assets: { [MANIFEST_ASSET]: path.join(work, MANIFEST_ASSET), ...Object.fromEntries(files.map((f) => [f, path.join(root, f)])) },
    }),
  );
  const r = spawnSync(process.execPath, ['--experimental-sea-config', config], { cwd: work, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`node --experimental-sea-config failed (exit ${r.status}):\n${r.stdout}${r.stderr}`);
  const out = path.join(outDir, name);
  rmSync(out, { force: true });
  copyFileSync(base, out);
  chmodSync(out, 0o755);
  const { inject } = loadPostject();
  // postject's ELF library warns about each of node's unnamed note sections it copies as they are.
  const warn = console.warn;
  console.warn = (...args) => {
    if (!/Can't find string offset for section name/.test(String(args[0]))) warn(...args);
  };
  try {
    await inject(out, 'NODE_SEA_BLOB', readFileSync(blob), {
      sentinelFuse: SEA_FUSE,
      ...(process.platform === 'darwin' && { machoSegmentName: 'NODE_SEA' }),
    });
  } finally {
    console.warn = warn;
  }
  return out;
}

/**
 * One CommonJS script holding `entry` (a path under the project) and every dependency it reaches:
 * what the standalone executable runs, and the provider file of the npm package
 * (dist/plumb-provider.cjs, scripts/bundle.js). `moduleUrl` is the expression `import.meta.url`
 * becomes; `banner` is JavaScript put before the bundle. Paths inside the bundle are relative to
 * the project, so the same sources give the same bytes wherever they are checked out.
 */
export async function bundleEverything({ entry, outfile, moduleUrl, banner = '' }) {
  await build({
    entryPoints: [path.join(root, entry)],
    absWorkingDir: root,
    outfile,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
    define: { 'import.meta.url': '__plumb_module_url' },
    banner: { js: `${banner}var __plumb_module_url = ${moduleUrl};` },
    plugins: [requireYamlPlugin],
  });
}

/**
 * src/config/yaml-doc.ts loads `yaml` lazily through createRequire (so that `plumb validate` of a valid
 * configuration never evaluates it), which esbuild cannot follow; in the executable, where nothing
 * can be required from disk, that call becomes a plain `require`, which esbuild bundles and still
 * evaluates only when called.
 */
const requireYamlPlugin = {
  name: 'plumb-require-yaml',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]config[\\/]yaml-doc\.ts$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      const out = text.replace(/requireCjs\((['"])yaml\1\)/g, "require('yaml')");
      if (out === text) throw new Error(`${args.path}: the lazy requireCjs('yaml') this build rewrites is gone; update scripts/sea.js`);
      return { contents: out, loader: 'ts' };
    });
  },
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const t0 = performance.now();
  const out = await buildSea();
  console.log(`build:sea: ${path.relative(root, out)} (${(readFileSync(out).length / 1e6).toFixed(0)} MB) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}
