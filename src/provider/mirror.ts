/**
 * `plumb provider mirror DIR` and `plumb provider install`: plumb's provider laid out as a Terraform
 * filesystem mirror, in the "unpacked" layout `terraform providers mirror` and Terraform's implied
 * local mirror directories read:
 *
 *   DIR/plumb.invalid/plumb/plumb/VERSION/OS_ARCH/terraform-provider-plumb_vVERSION
 *
 * so plain `terraform init` (any backend, modules, other providers, CDKTF stacks) installs it and
 * writes `.terraform.lock.hcl`, and `terraform providers lock -fs-mirror=DIR` records its hash.
 *
 * What the file is (docs/terraform.md#installing-the-provider):
 * - the standalone executable (`--executable FILE`, or plumb itself when it runs as one): no
 *   Node.js needed where Terraform runs;
 * - otherwise a small launcher script that runs this installation's `bin/terraform-provider-plumb`
 *   with the Node.js running now (absolute paths: Terraform starts providers with its own
 *   environment and working directory). Reinstall after moving or upgrading plumb or Node.js.
 *
 * Written through a temporary name and renamed, so a Terraform reading the mirror meanwhile never
 * sees half a file; nothing is written outside `DIR`.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { findUp } from '../util/find-up.js';
import { PLUMB_PROVIDER_SOURCE } from '../catalogue/index.js';

/** The provider's source address: `terraform { required_providers { plumb = { source = "plumb.invalid/plumb/plumb" } } }`. */
export const [PROVIDER_HOST, PROVIDER_NAMESPACE, PROVIDER_TYPE] = PLUMB_PROVIDER_SOURCE.split('/') as [string, string, string];

/** Terraform's platform name (`linux_amd64`) for a Node platform and architecture. */
export function terraformPlatform(platform: string = process.platform, arch: string = process.arch): string {
  const o = platform === 'win32' ? 'windows' : platform;
  const a = ({ x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm' } as Record<string, string>)[arch] ?? arch;
  return `${o}_${a}`;
}

export interface MirrorOptions {
  readonly dir: string;
  readonly version: string;
  /** A standalone executable to copy in; otherwise a launcher for `node` and `script`. */
  readonly executable?: string;
  readonly launcher?: { readonly node: string; readonly script: string };
  readonly platform?: string;
}

export interface MirrorResult {
  /** The provider's file in the mirror. */
  readonly file: string;
  readonly kind: 'executable' | 'launcher';
  /** The CLI configuration that makes Terraform install plumb from this mirror. */
  readonly cliConfig: string;
}

const shellQuote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** The launcher script: runs the provider's bin script with the given Node.js, passing everything through. */
export function launcherScript(version: string, node: string, script: string): string {
  return `#!/bin/sh\n# plumb's Terraform provider (plumb-gitops ${version}), written by \`plumb provider mirror\`.\nexec ${shellQuote(node)} ${shellQuote(script)} "$@"\n`;
}

export function cliConfigFor(dir: string): string {
  const source = `${PROVIDER_HOST}/${PROVIDER_NAMESPACE}/${PROVIDER_TYPE}`;
  return `provider_installation {
  filesystem_mirror {
    path    = ${JSON.stringify(dir)}
    include = [${JSON.stringify(source)}]
  }
  direct {
    exclude = [${JSON.stringify(source)}]
  }
}
`;
}

export function writeMirror(opts: MirrorOptions): MirrorResult {
  const platform = opts.platform ?? terraformPlatform();
  const dir = path.resolve(opts.dir);
  const at = path.join(dir, PROVIDER_HOST, PROVIDER_NAMESPACE, PROVIDER_TYPE, opts.version, platform);
  const name = `terraform-provider-${PROVIDER_TYPE}_v${opts.version}${platform.startsWith('windows_') ? '.exe' : ''}`;
  mkdirSync(at, { recursive: true });
  const file = path.join(at, name);
  const tmp = path.join(at, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    if (opts.executable) copyFileSync(opts.executable, tmp);
    else if (opts.launcher) writeFileSync(tmp, launcherScript(opts.version, opts.launcher.node, opts.launcher.script), { flag: 'wx' });
    else throw new Error('writeMirror needs an executable or a launcher');
    chmodSync(tmp, 0o755);
    renameSync(tmp, file);
  } finally {
    if (existsSync(tmp)) rmSync(tmp, { force: true });
  }
  return { file, kind: opts.executable ? 'executable' : 'launcher', cliConfig: cliConfigFor(dir) };
}

/**
 * Terraform's implied local mirror directory for the user (no CLI configuration needed): a
 * provider found there is installed from there by a plain `terraform init`.
 */
export function impliedMirrorDir(env: NodeJS.ProcessEnv, platform: string = process.platform): string {
  if (platform === 'win32') return path.join(env.APPDATA ?? path.join(os.homedir(), 'AppData', 'Roaming'), 'terraform.d', 'plugins');
  return path.join(env.HOME ?? os.homedir(), '.terraform.d', 'plugins');
}

export interface MirrorCommandIo {
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
}

/** What the command shows (cli.ts writes it: src/ writes standard output only from its views). */
export interface MirrorCommandResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * `plumb provider mirror DIR` / `plumb provider install`: writes the mirror and says what to do
 * next. `binScript`: this installation's bin/terraform-provider-plumb (undefined in the standalone
 * executable, which copies itself instead).
 */
export function runMirrorCommand(
  args: { readonly install: boolean; readonly dir?: string; readonly executable?: string },
  io: MirrorCommandIo,
  given: { readonly version: string; readonly binScript?: string; readonly execPath: string },
): MirrorCommandResult {
  let stdout = '';
  let stderr = '';
  const out = (t: string) => void (stdout += t);
  const err = (t: string) => void (stderr += t);
  const installation = { ...given, binScript: given.binScript ?? ownBinScript() };
  const dir = args.install ? impliedMirrorDir(io.env) : path.resolve(io.cwd, args.dir!);
  let executable = args.executable === undefined ? undefined : path.resolve(io.cwd, args.executable);
  if (executable !== undefined && !existsSync(executable)) {
    err(`plumb: --executable ${args.executable}: no such file\n  help: build it with \`npm run build:sea\` (dist/sea/plumb-${process.platform}-${process.arch})\n`);
    return { code: 2, stdout, stderr };
  }
  if (executable === undefined && installation.binScript === undefined) {
    // The standalone executable carries no bin/ script: it is itself the provider.
    if (/^(plumb|terraform-provider-plumb)/.test(path.basename(installation.execPath))) executable = installation.execPath;
    else {
      err('plumb: cannot find bin/terraform-provider-plumb in this installation\n  help: reinstall plumb-gitops, or pass --executable with a standalone executable\n');
      return { code: 1, stdout, stderr };
    }
  }
  const r = writeMirror({
    dir,
    version: installation.version,
    ...(executable !== undefined ? { executable } : { launcher: { node: installation.execPath, script: installation.binScript! } }),
  });
  out(`Wrote ${r.kind === 'executable' ? 'the standalone provider' : 'a launcher for this installation\'s provider'}: ${r.file}\n\n`);
  if (args.install) {
    out(
      'This is Terraform\'s implied local mirror directory: a plain `terraform init` installs plumb.invalid/plumb/plumb from it\n' +
        'when your CLI configuration has no provider_installation block. If it has one, add this mirror to it:\n\n' +
        r.cliConfig,
    );
  } else {
    out(`Use it from a CLI configuration file (~/.terraformrc, or the file TF_CLI_CONFIG_FILE names):\n\n${r.cliConfig}\nthen \`terraform init\`; for a lock file covering other platforms: terraform providers lock -fs-mirror=${dir} -platform=${terraformPlatform()}\n`);
  }
  if (r.kind === 'launcher') out(`\nThe launcher runs ${installation.binScript} with ${installation.execPath}: run this again after moving or upgrading either.\n`);
  return { code: 0, stdout, stderr };
}

/** This installation's bin/terraform-provider-plumb; undefined in the standalone executable. */
function ownBinScript(): string | undefined {
  try {
    return findUp(path.join('bin', 'terraform-provider-plumb'), import.meta.url);
  } catch {
    return undefined; // no module URL: the bundled standalone executable
  }
}
