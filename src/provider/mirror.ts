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
 * What the package directory (VERSION/OS_ARCH/) holds (docs/terraform.md#installing-the-provider):
 * - the standalone executable (`--executable FILE`, or plumb itself when it runs as one): no
 *   Node.js needed where Terraform runs;
 * - otherwise the provider as one JavaScript file (`plumb-provider.cjs`, the installation's
 *   dist/plumb-provider.cjs) and a launcher script that runs it with the `node` on PATH.
 * Either way the files hold no path of this machine: a given release hashes the same (`h1:`) in
 * every mirror, so a committed `.terraform.lock.hcl` holds everywhere.
 *
 * Written through temporary names and renamed, so a Terraform reading the mirror meanwhile never
 * sees half a file; nothing is written outside `DIR`.
 */
import { accessSync, chmodSync, closeSync, constants, copyFileSync, existsSync, lstatSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { PlumbError } from '../diagnostics/error.js';
import { findUp } from '../util/find-up.js';
import { runsFromEmbeddedFiles } from '../util/own-files.js';
import { PLUMB_PROVIDER_SOURCE } from '../catalogue/index.js';

/** The provider's source address: `terraform { required_providers { plumb = { source = "plumb.invalid/plumb/plumb" } } }`. */
export const [PROVIDER_HOST, PROVIDER_NAMESPACE, PROVIDER_TYPE] = PLUMB_PROVIDER_SOURCE.split('/') as [string, string, string];

/** Terraform's platform name (`linux_amd64`) for a Node platform and architecture. */
export function terraformPlatform(platform: string = process.platform, arch: string = process.arch): string {
  const o = platform === 'win32' ? 'windows' : platform;
  const a = ({ x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm' } as Record<string, string>)[arch] ?? arch;
  return `${o}_${a}`;
}

/** The provider as one JavaScript file, beside the launcher in a mirror (and in dist/ of the npm package). */
export const PROVIDER_FILE = 'plumb-provider.cjs';

export interface MirrorOptions {
  readonly dir: string;
  /** The directory as the user wrote it, for messages; default `dir`. */
  readonly shown?: string;
  readonly version: string;
  /** A standalone executable to copy in; otherwise `script`, the provider file, and a launcher for it. */
  readonly executable?: string;
  readonly script?: string;
  /** Terraform platforms (`linux_amd64`) to write it for; default this machine's. */
  readonly platforms?: readonly string[];
}

export interface MirrorResult {
  /** The provider's executable file in the mirror, per platform. */
  readonly files: readonly string[];
  readonly kind: 'executable' | 'script';
  /** The package's hash as `.terraform.lock.hcl` records it (`h1:…`), per platform. */
  readonly hashes: readonly string[];
  /** The CLI configuration that makes Terraform install plumb from this mirror. */
  readonly cliConfig: string;
}

/** A mirror that cannot be written: what is wrong, where, and how to fix it. */
export class MirrorError extends PlumbError {
  declare readonly code: 'PLUMB_OUTPUT_UNWRITABLE';
  declare readonly suggestion: string;
  constructor(summary: string, suggestion: string) {
    super('PLUMB_OUTPUT_UNWRITABLE', summary, { suggestion });
  }
}

/**
 * The launcher: runs the provider file beside it with the `node` on PATH. It names no path of the
 * machine that wrote it (Terraform runs it from its own copy or link of the package directory).
 */
export function launcherScript(version: string): string {
  return `#!/bin/sh
# plumb's Terraform provider (plumb-gitops ${version}), written by \`plumb provider mirror\`:
# runs ${PROVIDER_FILE} beside this file with the Node.js on PATH (20.16 or newer).
command -v node >/dev/null 2>&1 || { echo "plumb's Terraform provider needs Node.js (20.16 or newer) on the PATH Terraform runs with" >&2; exit 127; }
exec node "$(dirname "$0")/${PROVIDER_FILE}" "$@"
`;
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

/**
 * Terraform's `h1:` hash of an unpacked provider package (what `.terraform.lock.hcl` records): the
 * SHA-256 of one line `HEX_SHA256  NAME\n` per file, by name (byte order, `/`-separated relative
 * paths), base64. Modes and times do not count: equal files, equal hash.
 */
export function packageHashV1(dir: string): string {
  const names: string[] = [];
  const walk = (rel: string): void => {
    for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) walk(r);
      else names.push(r);
    }
  };
  walk('');
  const h = createHash('sha256');
  for (const n of names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) h.update(`${createHash('sha256').update(readFileSync(path.join(dir, n))).digest('hex')}  ${n}\n`);
  return `h1:${h.digest('base64')}`;
}

/** The executable format a platform runs, and what its header must say (ELF e_machine, Mach-O cputype). */
const ELF_MACHINE: Record<string, number> = { amd64: 62, arm64: 183, '386': 3, arm: 40 };
const MACHO_CPU: Record<string, number> = { amd64: 0x01000007, arm64: 0x0100000c };

/** Why `file` cannot be the provider on `platform` (`linux_amd64`), or undefined when it can. */
export function executableProblem(file: string, platform: string): string | undefined {
  let st;
  try {
    st = statSync(file);
  } catch {
    return 'no such file';
  }
  if (!st.isFile()) return st.isDirectory() ? 'it is a directory, not an executable file' : 'it is not a regular file';
  try {
    accessSync(file, constants.X_OK);
  } catch {
    return 'it is not executable (no execute permission)';
  }
  const head = Buffer.alloc(64);
  const fd = openSync(file, 'r');
  let n: number;
  try {
    n = readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  const [os_, arch = ''] = platform.split('_');
  if (os_ === 'windows') return head.subarray(0, 2).toString('latin1') === 'MZ' ? undefined : `it is not a Windows executable (${platform})`;
  if (os_ === 'darwin') {
    const magic = n >= 8 ? head.readUInt32LE(0) : 0;
    if (magic === 0xbebafeca) return undefined; // a universal binary
    if (magic !== 0xfeedfacf) return `it is not a macOS executable (${platform})`;
    return MACHO_CPU[arch] === undefined || head.readUInt32LE(4) === MACHO_CPU[arch] ? undefined : `it is a macOS executable for another architecture than ${arch}`;
  }
  if (n < 20 || head.subarray(0, 4).toString('latin1') !== '\x7fELF') return `it is not an ELF executable, as ${platform} runs (a script or a document?)`;
  const machine = head[5] === 2 ? head.readUInt16BE(18) : head.readUInt16LE(18);
  return ELF_MACHINE[arch] === undefined || machine === ELF_MACHINE[arch] ? undefined : `it is an executable for another architecture than ${arch} (ELF machine ${machine})`;
}

/** `name` written into `at` through a temporary name (created exclusively) and renamed. */
function place(at: string, name: string, write: (tmp: string) => void): void {
  const tmp = path.join(at, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    write(tmp);
    chmodSync(tmp, 0o755);
    renameSync(tmp, path.join(at, name));
  } finally {
    if (existsSync(tmp)) rmSync(tmp, { force: true });
  }
}

/** Creates `dir` (and its parents) below `base` (the directory given as `shown`), or says why it cannot: a file where a directory belongs, no permission. */
function makeDirectory(dir: string, base: string, shown: string): void {
  // The first part of the path that exists must be a directory.
  for (let d = dir; ; d = path.dirname(d)) {
    let st;
    try {
      st = lstatSync(d);
    } catch {
      if (path.dirname(d) === d) break;
      continue;
    }
    const s = st.isSymbolicLink() ? statSync(d, { throwIfNoEntry: false }) : st;
    if (!s?.isDirectory()) {
      const inside = path.relative(base, d);
      const which = d === base ? shown : inside.startsWith('..') ? `${d} (in ${shown})` : `${shown}/${inside.split(path.sep).join('/')}`;
      throw new MirrorError(`${which} is ${s ? 'a file, not a directory' : 'a symbolic link to nothing'}`, 'name a directory: it is created when missing, and plumb writes only below it');
    }
    break;
  }
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new MirrorError(`cannot create ${shown}: ${code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'EROFS' ? 'read-only file system' : (code ?? String(err))}`, 'choose a directory you can write to');
  }
}

export function writeMirror(opts: MirrorOptions): MirrorResult {
  const dir = path.resolve(opts.dir);
  const platforms = opts.platforms && opts.platforms.length > 0 ? opts.platforms : [terraformPlatform()];
  const files: string[] = [];
  const hashes: string[] = [];
  for (const platform of platforms) {
    const at = path.join(dir, PROVIDER_HOST, PROVIDER_NAMESPACE, PROVIDER_TYPE, opts.version, platform);
    makeDirectory(at, dir, opts.shown ?? opts.dir);
    const name = `terraform-provider-${PROVIDER_TYPE}_v${opts.version}${platform.startsWith('windows_') ? '.exe' : ''}`;
    const problem = (e: unknown) => {
      const code = (e as NodeJS.ErrnoException).code;
      return new MirrorError(`cannot write into ${at}: ${code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (code ?? String(e))}`, 'choose a directory you can write to');
    };
    try {
      // The package directory holds exactly the provider's files: one from an earlier mirror of the other kind would change its hash.
      // So would a temporary file an interrupted run left.
      const ours = (e: string) => e === PROVIDER_FILE || e.startsWith(`terraform-provider-${PROVIDER_TYPE}`);
      for (const e of readdirSync(at)) if (e !== name && (ours(e) || (e.startsWith('.') && e.endsWith('.tmp') && ours(e.slice(1))))) rmSync(path.join(at, e), { force: true });
      if (opts.executable) place(at, name, (tmp) => copyFileSync(opts.executable!, tmp, constants.COPYFILE_EXCL));
      else if (opts.script) {
        place(at, PROVIDER_FILE, (tmp) => copyFileSync(opts.script!, tmp, constants.COPYFILE_EXCL));
        place(at, name, (tmp) => writeFileSync(tmp, launcherScript(opts.version), { flag: 'wx' }));
      } else throw new Error('writeMirror needs an executable or the provider file');
    } catch (e) {
      throw e instanceof MirrorError || (e instanceof Error && !('code' in e)) ? e : problem(e);
    }
    files.push(path.join(at, name));
    hashes.push(packageHashV1(at));
  }
  return { files, kind: opts.executable ? 'executable' : 'script', hashes, cliConfig: cliConfigFor(dir) };
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

const PLATFORM = /^(linux|darwin|freebsd|openbsd|windows)_(amd64|arm64|386|arm)$/;

/**
 * `plumb provider mirror DIR` / `plumb provider install`: writes the mirror and says what to do
 * next. Exit codes: 0 written; 1 anything else, said on stderr with where and how to fix it (the
 * directory, `--executable`, `--platform`, an installation without its provider file).
 * `providerFile`: this installation's dist/plumb-provider.cjs (undefined in the standalone
 * executable, which copies itself instead).
 */
export function runMirrorCommand(
  args: { readonly install: boolean; readonly dir?: string; readonly executable?: string; readonly platforms?: readonly string[] },
  io: MirrorCommandIo,
  given: { readonly version: string; readonly providerFile?: string; readonly execPath: string },
): MirrorCommandResult {
  let stdout = '';
  const out = (t: string) => void (stdout += t);
  const fail = (what: string, help: string): MirrorCommandResult => ({ code: 1, stdout: '', stderr: `plumb: ${what}\n  help: ${help}\n` });
  const command = args.install ? 'plumb provider install' : 'plumb provider mirror';
  const platforms = args.platforms && args.platforms.length > 0 ? [...new Set(args.platforms)] : [terraformPlatform()];
  const badPlatform = platforms.find((p) => !PLATFORM.test(p));
  if (badPlatform !== undefined) return fail(`--platform ${badPlatform}: not a Terraform platform`, 'write OS_ARCH as Terraform does, e.g. linux_amd64, linux_arm64, darwin_arm64');
  let executable = args.executable === undefined ? undefined : path.resolve(io.cwd, args.executable);
  // The standalone executable is itself the provider; an npm installation copies its provider file.
  const providerFile = given.providerFile ?? (runsFromEmbeddedFiles() ? undefined : ownProviderFile());
  if (executable === undefined && providerFile === undefined) {
    if (runsFromEmbeddedFiles()) executable = given.execPath;
    else return fail(`this installation has no dist/${PROVIDER_FILE} (the provider file the mirror copies)`, 'build it with `npm run build` in a checkout, reinstall plumb-gitops, or pass --executable with a standalone executable');
  }
  if (executable !== undefined) {
    for (const p of platforms) {
      const problem = executableProblem(executable, p);
      if (problem) return fail(`--executable ${args.executable ?? executable}: ${problem}`, `give the standalone executable for ${p} (\`npm run build:sea\` writes dist/sea/plumb-${process.platform}-${process.arch}; a release ships plumb-linux-x64 and plumb-linux-arm64)`);
    }
  } else {
    const windows = platforms.find((p) => p.startsWith('windows_'));
    if (windows) return fail(`--platform ${windows}: the launcher is a /bin/sh script`, 'give a Windows standalone executable with --executable');
  }
  const dir = args.install ? impliedMirrorDir(io.env) : path.resolve(io.cwd, args.dir!);
  let r: MirrorResult;
  try {
    r = writeMirror({ dir, shown: args.install ? dir : args.dir!, version: given.version, platforms, ...(executable !== undefined ? { executable } : { script: providerFile! }) });
  } catch (e) {
    if (e instanceof MirrorError) return fail(`${command} ${args.install ? dir : args.dir}: ${e.summary}`, e.suggestion);
    throw e;
  }
  const what = r.kind === 'executable' ? 'the standalone provider' : `the provider (${PROVIDER_FILE} and a launcher that runs it with the node on PATH)`;
  out(`Wrote ${what}:\n${r.files.map((f, i) => `  ${f}\n    ${r.hashes[i]}`).join('\n')}\n\n`);
  if (args.install) {
    out(
      `This is Terraform's implied local mirror directory: a plain \`terraform init\` installs ${PLUMB_PROVIDER_SOURCE} from it\n` +
        'when your CLI configuration has no provider_installation block. If it has one, add this mirror to it:\n\n' +
        r.cliConfig,
    );
  } else {
    out(`Use it from a CLI configuration file (~/.terraformrc, or the file TF_CLI_CONFIG_FILE names):\n\n${r.cliConfig}\nthen \`terraform init\`; for a lock file covering other platforms: terraform providers lock -fs-mirror=${dir} ${platforms.map((p) => `-platform=${p}`).join(' ')}\n`);
  }
  out(`\nThe h1: hash above is the same in every mirror of plumb-gitops ${given.version} ${r.kind === 'executable' ? 'made from this executable' : 'from the npm package'}: a committed .terraform.lock.hcl holds on every machine.\n`);
  return { code: 0, stdout, stderr: '' };
}

/** This installation's dist/plumb-provider.cjs; undefined in the standalone executable. */
function ownProviderFile(): string | undefined {
  try {
    return findUp(path.join('dist', PROVIDER_FILE), import.meta.url);
  } catch {
    return undefined; // no module URL: the bundled standalone executable
  }
}
