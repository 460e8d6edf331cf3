// The release's artifacts, built by the release pipeline (.gitlab-ci.yml, on a tag) and by hand:
//
//   node scripts/release.js executables OUT [--arch x64] [--arch arm64]
//     standalone executables OUT/plumb-linux-<arch>, each built from the npm registry's
//     node-linux-<arch> package of this node's version (the SEA blob is made by this node and must
//     match the binary it is injected into), and OUT/SHA256SUMS (`sha256sum -c` reads it).
//   node scripts/release.js mirror EXECUTABLES OUT
//     the provider mirror for Terraform: OUT/plumb.invalid/plumb/plumb/VERSION/linux_{amd64,arm64}/
//     from those executables (`plumb provider mirror --executable … --platform …`), and
//     OUT/h1-hashes.txt, the `h1:` hash of each platform's package for a .terraform.lock.hcl.
//
// The npm package itself is published by `npm publish --provenance` in the pipeline; nothing here
// touches a registry except to fetch the node binaries (`npm pack`, npm's own client and cache).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildSea } from './sea.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TERRAFORM_ARCH = { x64: 'amd64', arm64: 'arm64' };

function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status}):\n${r.stdout ?? ''}${r.stderr ?? ''}`);
  return r.stdout;
}

/** The registry's node-linux-<arch>@<version> binary (bin/node of the package), unpacked into `dir`; returns its path. */
export function registryNode(arch, version, dir) {
  mkdirSync(dir, { recursive: true });
  const packed = JSON.parse(sh('npm', ['pack', `node-linux-${arch}@${version}`, '--json', '--pack-destination', dir, '--loglevel=error'], { cwd: dir }));
  const tarball = path.join(dir, packed[0].filename);
  sh('tar', ['-xzf', tarball, '-C', dir, 'package/bin/node']);
  rmSync(tarball, { force: true });
  const node = path.join(dir, 'package/bin/node');
  if (!existsSync(node)) throw new Error(`node-linux-${arch}@${version} has no bin/node`);
  return node;
}

/** Builds plumb-linux-<arch> for each arch into `out`, and out/SHA256SUMS; returns the executables' paths. */
export async function buildExecutables(out, { arches = ['x64', 'arm64'], version = process.versions.node } = {}) {
  mkdirSync(out, { recursive: true });
  const work = mkdtempSync(path.join(os.tmpdir(), 'plumb-release-'));
  const built = [];
  try {
    for (const arch of arches) {
      if (!TERRAFORM_ARCH[arch]) throw new Error(`no release executable for ${arch} (x64, arm64)`);
      const base = registryNode(arch, version, path.join(work, arch));
      built.push(await buildSea({ outDir: out, name: `plumb-linux-${arch}`, base, useCodeCache: arch === process.arch && process.platform === 'linux' }));
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
    rmSync(path.join(out, 'work'), { recursive: true, force: true });
  }
  writeFileSync(path.join(out, 'SHA256SUMS'), built.map((f) => `${createHash('sha256').update(readFileSync(f)).digest('hex')}  ${path.basename(f)}\n`).join(''));
  return built;
}

/** The provider mirror from the executables in `from` (plumb-linux-x64, plumb-linux-arm64, those present). */
export function buildMirror(from, out) {
  const hashes = [];
  for (const [arch, platform] of Object.entries(TERRAFORM_ARCH)) {
    const exe = path.join(from, `plumb-linux-${arch}`);
    if (!existsSync(exe)) continue;
    const stdout = sh(process.execPath, [path.join(root, 'bin/plumb.js'), 'provider', 'mirror', out, '--executable', exe, '--platform', `linux_${platform}`]);
    hashes.push(`${/\n {4}(h1:\S+)\n/.exec(stdout)[1]}  linux_${platform}\n`);
  }
  if (hashes.length === 0) throw new Error(`no plumb-linux-* executable in ${from}`);
  writeFileSync(path.join(out, 'h1-hashes.txt'), hashes.join(''));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [what, ...rest] = process.argv.slice(2);
  if (what === 'executables' && rest[0]) {
    const arches = rest.flatMap((a, i) => (rest[i - 1] === '--arch' ? [a] : []));
    const built = await buildExecutables(path.resolve(rest[0]), arches.length > 0 ? { arches } : {});
    console.log(`release: ${built.map((f) => path.relative(process.cwd(), f)).join(', ')} and SHA256SUMS`);
  } else if (what === 'mirror' && rest[0] && rest[1]) {
    buildMirror(path.resolve(rest[0]), path.resolve(rest[1]));
    console.log(`release: the provider mirror in ${rest[1]}`);
  } else {
    console.error('usage: node scripts/release.js executables OUT [--arch x64|arm64]… | mirror EXECUTABLES OUT');
    process.exit(2);
  }
}
