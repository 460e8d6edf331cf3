/**
 * The npm package as users get it: `npm pack` of this checkout, installed from the tarball into an
 * empty prefix without dev dependencies, and run from there, in scratch directories outside the
 * checkout. Needs a build (`npm test` builds first) and npm's cache (filled by `npm ci`; the installs
 * prefer it, and reach the registry only for what it lacks).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root, startProvider } from '../provider/harness.js';
import { PLUMB_PROVIDER_SOURCE } from '../../src/catalogue/index.js';
import { packageHashV1, terraformPlatform } from '../../src/provider/mirror.js';
import { ADMIN, examplesAt, expectServingProvider, npmEnv, run, startEmulatorProcess } from './helpers.js';

const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string; devDependencies: Record<string, string> };

/** Every file the tarball may hold, by pattern: what the commands, the provider and the bindings need, and the docs. */
const ALLOWED = [
  /^package\.json$/,
  /^README\.md$/,
  /^LICENSE$/,
  /^bin\/(plumb\.js|terraform-provider-plumb|package\.json)$/,
  /^dist\/plumb\.cjs(\.cache|\.LEGAL\.txt)?$/,
  /^dist\/plumb-validate\.cjs(\.cache)?$/,
  /^dist\/plumb-provider\.cjs$/,
  /^dist\/generated\/cdktf\/([a-z-]+\/)?index\.(js|d\.ts)$/,
  /^schemas\/[a-z-]+\.schema\.json$/,
  /^proto\/[a-z0-9-]+\.proto$/,
  /^docs\/[a-z-]+\.md$/,
  /^examples\/(emulator-seed\.yaml|files-by-merge-request\.yaml|plumb\/[a-z-]+\.yaml|cdktf\/main\.ts|ci\/([a-z-]+\.yml|emulator-seed\.yaml)|terraform\/main\.tf|files\/SECURITY\.md|secrets\/(README\.md|\.gitignore))$/,
];

/** What the runs below read from the installed package. */
const NEEDED = [
  'LICENSE',
  'bin/plumb.js',
  'bin/terraform-provider-plumb',
  'dist/plumb.cjs',
  'dist/plumb-validate.cjs',
  'dist/plumb-provider.cjs',
  'dist/generated/cdktf/index.js',
  'dist/generated/cdktf/index.d.ts',
  'proto/tfplugin6.proto',
  'proto/go-plugin.proto',
  'proto/health.proto',
  'schemas/plumb-config.schema.json',
  'schemas/terraform-provider.schema.json',
  'examples/emulator-seed.yaml',
  'examples/plumb/instance.yaml',
  'examples/cdktf/main.ts',
];

const NPM_INSTALL = ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'];

interface Packed {
  filename: string;
  size: number;
  unpackedSize: number;
  files: { path: string }[];
}

describe('the npm package, packed and installed as users get it', () => {
  let tmp: string;
  let packed: Packed;
  let tarball: string;
  let prefix: string;
  let installed: string;
  let work: string;
  let app: string;
  let appInstall: Promise<Awaited<ReturnType<typeof run>>>;
  const env = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH ?? '', HOME: work });

  beforeAll(async () => {
    if (!existsSync(path.join(root, 'dist/plumb.cjs')) || !existsSync(path.join(root, 'dist/generated/cdktf/index.js'))) {
      const b = spawnSync('npm', ['run', 'build'], { cwd: root, encoding: 'utf8' });
      if (b.status !== 0) throw new Error(`npm run build failed:\n${b.stdout}${b.stderr}`);
    }
    tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'plumb-install-')));
    // The build is done: packing runs no `prepare` (it would rebuild everything).
    const p = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', tmp], { cwd: root, env: npmEnv() });
    if (p.code !== 0) throw new Error(`npm pack failed:\n${p.stderr}`);
    packed = (JSON.parse(p.stdout) as Packed[])[0]!;
    tarball = path.join(tmp, packed.filename);
    prefix = path.join(tmp, 'prefix');
    work = path.join(tmp, 'work');
    app = path.join(tmp, 'app');
    for (const d of [prefix, work, app]) mkdirSync(d);
    // A fresh ESM TypeScript app, as docs/cdktf.md sets one up: plumb and its peers, and tsc.
    writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    const dev = (name: string) => `${name}@${pkg.devDependencies[name]}`;
    appInstall = run('npm', [...NPM_INSTALL, '--save-dev', tarball, dev('cdktf'), dev('constructs'), dev('typescript'), dev('@types/node')], { cwd: app, env: npmEnv(), timeoutMs: 150_000 });
    const i = await run('npm', [...NPM_INSTALL, '--omit=dev', '--prefix', prefix, tarball], { cwd: work, env: npmEnv(), timeoutMs: 150_000 });
    if (i.code !== 0) throw new Error(`npm install of the tarball failed:\n${i.stderr}`);
    installed = path.join(prefix, 'node_modules/plumb-gitops');
  }, 180_000);

  afterAll(async () => {
    await appInstall?.catch(() => undefined);
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('holds what the commands, the provider and the CDKTF bindings need, and nothing else', () => {
    const files = packed.files.map((f) => f.path).sort();
    expect(files.filter((f) => !ALLOWED.some((re) => re.test(f)))).toEqual([]);
    expect(NEEDED.filter((f) => !files.includes(f))).toEqual([]);
    expect(files.filter((f) => f.endsWith('.map') || /(^|\/)(test|src|fixtures)\//.test(f))).toEqual([]);
    // The installation holds what the tarball held, and no dev dependency came along.
    for (const f of NEEDED) expect(existsSync(path.join(installed, f)), f).toBe(true);
    for (const dev of ['typescript', 'vitest', 'esbuild', 'cdktf']) expect(existsSync(path.join(prefix, 'node_modules', dev)), dev).toBe(false);
  });

  it('answers plumb --version from the installed command', async () => {
    const r = await run(path.join(prefix, 'node_modules/.bin/plumb'), ['--version'], { cwd: work, env: env() });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`plumb ${pkg.version}\n`);
    expect(r.code).toBe(0);
  });

  it('validates the shipped examples and plans them against the emulator it starts itself', async () => {
    const plumb = path.join(prefix, 'node_modules/.bin/plumb');
    const emu = await startEmulatorProcess([plumb], { cwd: work, env: env() });
    try {
      const config = examplesAt(path.join(installed, 'examples'), work, emu.url);
      const v = await run(plumb, ['validate', config], { cwd: work, env: env() });
      expect(v.stdout + v.stderr).toContain('Configuration is valid: 7 file(s), 1 instance(s).');
      expect(v.code).toBe(0);
      const p = await run(plumb, ['plan', config, '--detailed-exitcode'], { cwd: work, env: { ...env(), PLUMB_TOKEN: ADMIN } });
      expect(p.stderr).toBe('');
      expect(p.stdout).toMatch(/Plan: [1-9]\d* to add, [1-9]\d* to change, 0 to destroy\./);
      expect(p.stdout).not.toContain(ADMIN);
      expect(p.code).toBe(2);
    } finally {
      await emu.stop();
    }
  }, 60_000);

  it('starts the installed provider executable, which completes go-plugin\'s handshake and serves its schema', async () => {
    const provider = await startProvider({ command: [path.join(prefix, 'node_modules/.bin/terraform-provider-plumb')], cwd: work });
    try {
      await expectServingProvider(provider);
    } finally {
      provider.kill();
    }
  }, 30_000);

  it('mirrors the provider from two installations in different places into the same files and h1: hash, which serves (issue 28 item 15)', async () => {
    const other = path.join(tmp, 'elsewhere/prefix');
    cpSync(prefix, other, { recursive: true, verbatimSymlinks: true });
    const mirrors = [path.join(tmp, 'mirror-1'), path.join(tmp, 'mirror-2')];
    const printed: string[] = [];
    for (const [i, from] of [prefix, other].entries()) {
      const m = await run(path.join(from, 'node_modules/.bin/plumb'), ['provider', 'mirror', mirrors[i]!], { cwd: work, env: env() });
      expect(m.stderr).toBe('');
      expect(m.code).toBe(0);
      printed.push(/\n {4}(h1:\S+)\n/.exec(m.stdout)![1]!);
    }
    const at = (m: string) => path.join(m, PLUMB_PROVIDER_SOURCE, pkg.version, terraformPlatform());
    const names = readdirSync(at(mirrors[0]!)).sort();
    expect(names).toEqual(['plumb-provider.cjs', `terraform-provider-plumb_v${pkg.version}`]);
    for (const n of names) expect(readFileSync(path.join(at(mirrors[1]!), n)).equals(readFileSync(path.join(at(mirrors[0]!), n))), n).toBe(true);
    expect(printed[1]).toBe(printed[0]);
    expect(packageHashV1(at(mirrors[1]!))).toBe(printed[0]);
    // The mirror no longer needs the installations: it serves from itself.
    rmSync(other, { recursive: true, force: true });
    const provider = await startProvider({ command: [path.join(at(mirrors[1]!), `terraform-provider-plumb_v${pkg.version}`)], cwd: work });
    try {
      await expectServingProvider(provider);
    } finally {
      provider.kill();
    }
  }, 60_000);

  it("runs docs/cdktf.md's recipe for a new app as written (the tarball for plumb-gitops) to a valid configuration", async () => {
    const doc = readFileSync(path.join(root, 'docs/cdktf.md'), 'utf8');
    const recipe = /<!-- new-app recipe:[^\n]*-->\n```sh\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(recipe, 'docs/cdktf.md has no new-app recipe block').toBeDefined();
    const install = 'npm install --save-dev plumb-gitops ';
    expect(recipe).toContain(install);
    const fresh = path.join(tmp, 'fresh');
    mkdirSync(fresh);
    const r = await run('bash', ['-e', '-c', recipe!.replace(install, `npm install --save-dev ${tarball} `)], {
      cwd: fresh,
      env: { ...npmEnv(), npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false' },
      timeoutMs: 150_000,
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const said = /It prints `([^`]*)`/.exec(doc)?.[1];
    expect(r.stdout).toContain(said);
    expect(said).toBe('Configuration is valid: the CDKTF app in ., 2 construct(s), 1 instance(s).');
  }, 180_000);

  it('gives a fresh ESM TypeScript app typed constructs from plumb-gitops/cdktf that tsc checks', async () => {
    const i = await appInstall;
    expect(i.code, i.stderr).toBe(0);
    // The shipped example app, unchanged, and a file that gets a prop's type wrong.
    writeFileSync(path.join(app, 'main.ts'), readFileSync(path.join(app, 'node_modules/plumb-gitops/examples/cdktf/main.ts')));
    writeFileSync(
      path.join(app, 'wrong.ts'),
      "import { App, TerraformStack } from 'cdktf';\nimport { provider } from 'plumb-gitops/cdktf';\n" +
        "new provider.PlumbProvider(new TerraformStack(new App(), 's'), 'p', { url: 8929, tokenEnv: 'PLUMB_TOKEN' });\n",
    );
    writeFileSync(
      path.join(app, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, types: ['node'] }, include: ['*.ts'] }),
    );
    const tsc = await run(path.join(app, 'node_modules/.bin/tsc'), ['-p', '.'], { cwd: app, env: env() });
    const errors = tsc.stdout.split('\n').filter((l) => /error TS\d+/.test(l));
    expect(errors, tsc.stdout).toHaveLength(1);
    expect(errors[0]).toMatch(/^wrong\.ts\(3,\d+\): error TS2322: Type 'number' is not assignable to type 'string'/);
  }, 150_000);
});
