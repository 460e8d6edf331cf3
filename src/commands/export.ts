/**
 * `plumb export`: reads a live instance and writes a configuration in plumb's format, ready to
 * commit (docs/export.md). Each kind contributes its own part (`KindSet.exporters`, src/resources/index.ts);
 * this module only connects, asks each kind, and assembles one YAML document with sorted keys and
 * comments, so the same instance always gives the same text.
 */
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import jsYaml from 'js-yaml';
import path from 'node:path';
import { Document, isMap, isScalar } from 'yaml';
import type { Node, Pair } from 'yaml';
import { ApiClient } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import type { Diagnostic } from '../diagnostics/index.js';
import type { DiagnosticCode } from '../diagnostics/codes.js';
import { PlumbError } from '../diagnostics/error.js';
import type { LoadedSources } from '../config/load.js';
import type { ExportDeclared, ExportEntry, ExportEnv, ExportFile, ExportOutputDir, ResourceExporter } from '../engine/export.js';
import { loadConfiguration } from './config-source.js';
import type { CdktfFlags } from './config-source.js';
import { BUILT_IN_CONFIG_KINDS, builtInKinds } from '../resources/index.js';
import type { ConfigKinds } from '../config/kinds.js';

/** The built-in kinds' parts of `plumb export` (loading their runtime), for the CLI's flags and usage. */
export async function builtInExporters(): Promise<readonly ResourceExporter[]> {
  return (await builtInKinds()).exporters;
}
import { parseNow } from './now.js';
import { literalText } from '../config/interpolate.js';
import { isPlainObject } from '../config/loading.js';
import { checkWritable, errnoText, writeFileAtomic } from '../util/write-file.js';
import { urlPolicy, urlRefusal } from '../engine/connection.js';
import { apiSuggestion } from '../engine/engine.js';
import type { Io } from './output.js';
import { exportView } from './views/export.js';
import type { ExportView } from './views/export.js';

export interface ExportFlags {
  /** Each exporter's options, by kind (`ResourceExporter.parseOptions` of its flags' values). */
  readonly options: ReadonlyMap<string, unknown>;
  /** `-c`: an existing configuration whose instance (url, token_env, CA) to read. */
  readonly config: readonly string[];
  readonly cdktf?: string | CdktfFlags;
  /** With `-c`, which instance; without, the name the exported instance gets (default `main`). */
  readonly instance?: string;
  readonly instanceUrl?: string;
  readonly tokenEnv?: string;
  readonly out: string;
  readonly now?: string;
  readonly json: boolean;
  readonly concurrency?: number;
  /** `--force`: write into a directory that holds files export did not write (plumb.yaml is replaced). */
  readonly force?: boolean;
  /** `--allow-url`: instances the token may be sent to, besides the environment's (engine/connection.ts). */
  readonly allowUrls?: readonly string[];
  /** The kinds' exporters; default the built-in kinds' (`builtInExporters()`). */
  readonly exporters?: readonly ResourceExporter[];
  /** The registry `-c` loads the configuration with; default the built-in kinds. */
  readonly kinds?: ConfigKinds;
}

interface Target {
  readonly name: string;
  readonly url: string;
  readonly tokenEnv: string;
  readonly caBundle?: string;
  readonly allowInsecureHttp: boolean;
  /** With `-c`: the instance as declared, for the exporters that keep what it says (secret settings' variables). */
  readonly declared?: ExportDeclared;
}

export const EXPORT_FILE = 'plumb.yaml';

export async function runExport(flags: ExportFlags, io: Io): Promise<number> {
  const view = exportView(flags.json, io);
  const fail = (d: Omit<Diagnostic, 'severity'>): number => view.problem([{ severity: 'error', ...d }]);
  const now = parseNow(flags.now, io.env);
  if (!(now instanceof Date)) return fail(now);
  const today = now.toISOString().slice(0, 10);
  // The output directory is checked before the instance is read: a refusal costs nothing.
  const out = path.resolve(io.cwd, flags.out);
  const exporters = flags.exporters ?? (await builtInExporters());
  const dirs = exporters.flatMap((e) => e.outputDirs?.(flags.options.get(e.kind)) ?? []);
  const outProblem = checkExportOut(out, flags, dirs);
  if (outProblem) return fail(outProblem);
  const earlier = earlierExport(out);

  const target = await findTarget(flags, io, view, today);
  if (typeof target === 'number') return target;
  if ('summary' in target) return fail(target);
  // A URL from a configuration (-c) goes where the environment or --allow-url allow; one given with
  // --instance-url is allowed by being given on the command line.
  const policy = urlPolicy(io.env, [...(flags.allowUrls ?? []), ...(flags.instanceUrl !== undefined ? [flags.instanceUrl] : [])]);
  const refusal = urlRefusal(target.url, target.name, policy);
  if (refusal) return fail({ code: 'PLUMB_URL_NOT_ALLOWED', ...refusal });
  const token = io.env[target.tokenEnv];
  if (!token) {
    return fail({
      code: 'PLUMB_TOKEN_ENV_MISSING',
      summary: `The environment variable ${target.tokenEnv} (the token to read ${target.url} with) is not set`,
      suggestion: `export ${target.tokenEnv}=… (an administrator's token with read_api, or api)`,
    });
  }
  let client: ApiClient;
  try {
    client = new ApiClient({
      baseUrl: target.url,
      token,
      caBundle: target.caBundle ? readFileSync(target.caBundle, 'utf8') : undefined,
      allowInsecureHttp: target.allowInsecureHttp,
      onWarning: (m) => view.warning(m),
      ...(flags.concurrency !== undefined && { concurrency: flags.concurrency }),
    });
  } catch (err) {
    return fail({ code: 'PLUMB_CLIENT', summary: err instanceof Error ? err.message : String(err), suggestion: 'check the instance URL (https://…, or http:// on loopback)' });
  }

  const entries: ExportEntry[] = [];
  const counts: Record<string, number> = {};
  const summaries: string[] = [];
  const todo: string[] = [];
  const env: ExportEnv[] = [];
  const files: ExportFile[] = [];
  const directories = new Set<string>();
  try {
    const previous = earlier?.instances?.[target.name];
    const results = await Promise.all(
      exporters.map((e) => e.export({ client, today, options: flags.options.get(e.kind), ...(target.declared && { declared: target.declared }), ...(isPlainObject(previous) && { previous }) })),
    );
    for (const r of results) {
      entries.push(...r.entries);
      Object.assign(counts, r.counts);
      summaries.push(r.summary);
      todo.push(...(r.todo ?? []));
      env.push(...(r.env ?? []));
      files.push(...(r.files ?? []));
      r.directories?.forEach((d) => directories.add(d));
      r.notes?.forEach((n) => view.note(n));
    }
  } catch (err) {
    if (err instanceof ApiError) {
      const missing = err.status === 404 ? notFoundSubject(err.path, exporters) : undefined;
      if (missing) {
        return fail({
          code: err.code,
          summary: `Not found on the instance: ${missing}`,
          suggestion: 'check the name on the command line (paths as the instance shows them, e.g. platform/app), and that the token can see it',
        });
      }
      return fail({
        code: err.code,
        summary: `Reading the instance at ${target.url} failed: ${err.method} ${safeDecode(err.path)}: ${err.message}`,
        suggestion: err.status === 404 ? 'check the group or project named on the command line (and that the token can see it)' : (apiSuggestion(err.code, target) ?? 'check the token (an administrator\'s, with read_api or api) and the instance URL'),
      });
    }
    throw err;
  } finally {
    await client.close();
  }

  env.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  files.sort((a, b) => (a.path < b.path ? -1 : 1));
  const text = stampExport(renderExport(target, entries, env), files);
  // Nothing under --out is written through a symlink: every directory on the way to a file is
  // checked (and made) before the first write, and each file replaces what is there by rename.
  try {
    mkdirSync(out, { recursive: true });
    for (const d of [...directories].sort()) ensureDirectory(out, d, 0o700);
    for (const f of files) ensureDirectory(out, path.dirname(f.path), 0o755);
    for (const f of files) await writeFileAtomic(path.join(out, f.path), f.content);
    await writeFileAtomic(path.join(out, EXPORT_FILE), text);
  } catch (err) {
    return fail({
      code: 'PLUMB_OUTPUT_UNWRITABLE',
      summary: `Writing the export into ${flags.out} failed: ${err instanceof SymlinkRefused ? err.summary : errnoText(err)}`,
      suggestion: 'fix the output directory (no symlinks inside it, writable) and export again',
    });
  }

  view.exported({ url: target.url, file: path.join(flags.out, EXPORT_FILE), summaries, counts, files: files.map((f) => f.path), env: env.map((e) => e.name), todo });
  return 0;
}

/** The header every exported plumb.yaml starts with: how a re-export recognises its own file. */
const EXPORT_HEADER = '# Exported by `plumb export`';

/** The header's last line: the SHA-256 of the file without this line (which lists the other files written). */
const DIGEST_LINE = /^# export digest: sha256:([0-9a-f]{64})\n/m;
/** A header line naming a file export wrote beside plumb.yaml, with the SHA-256 of what it wrote. */
const WRITTEN_LINE = /^#   (.+) sha256:([0-9a-f]{64})$/;

const sha256 = (b: string | Buffer): string => createHash('sha256').update(b).digest('hex');

/**
 * The export's text with what lets a re-export tell whether people changed it (issue 29.15): every
 * file written beside it with its SHA-256, then the digest of the whole text (without the digest line).
 */
export function stampExport(text: string, files: readonly ExportFile[]): string {
  const lines = text.split('\n');
  const headerEnd = lines.findIndex((l) => !l.startsWith('#'));
  const stamp = [
    '# A re-export into this directory refuses to replace this file, or a file below, once changed',
    '# (docs/export.md#exporting-again); --force replaces them.',
    ...(files.length > 0 ? ['# Written with it:', ...files.map((f) => `#   ${f.path} sha256:${sha256(f.content)}`)] : []),
  ];
  const unsigned = [...lines.slice(0, headerEnd), ...stamp, ...lines.slice(headerEnd)].join('\n');
  return [...lines.slice(0, headerEnd), ...stamp, `# export digest: sha256:${sha256(unsigned)}`, ...lines.slice(headerEnd)].join('\n');
}

/**
 * What changed since an earlier export wrote `text` (its plumb.yaml) and the files it lists, as
 * paths relative to `out`; empty when nothing did. An export without a digest (older plumb) cannot
 * tell, and says so.
 */
export function changedSinceExport(out: string, text: string): string[] {
  const digest = DIGEST_LINE.exec(text);
  if (!digest) return [`${EXPORT_FILE} (it carries no digest: written by an older plumb, or edited)`];
  const changed: string[] = [];
  if (sha256(text.slice(0, digest.index) + text.slice(digest.index + digest[0].length)) !== digest[1]) changed.push(EXPORT_FILE);
  for (const line of text.slice(0, digest.index).split('\n')) {
    const m = WRITTEN_LINE.exec(line);
    if (!m) continue;
    const rel = m[1]!;
    const full = path.resolve(out, rel);
    // The list is the directory's own text: it never makes export read outside the directory.
    if (path.isAbsolute(rel) || !full.startsWith(out + path.sep)) {
      changed.push(rel);
      continue;
    }
    let now: string | undefined;
    try {
      now = lstatSync(full).isFile() ? sha256(readFileSync(full)) : undefined;
    } catch {
      now = undefined;
    }
    if (now !== m[2]) changed.push(rel);
  }
  return changed;
}

/** The earlier export in `out` (its plumb.yaml, parsed), for what a re-export keeps; undefined when none. */
function earlierExport(out: string): { instances?: Record<string, unknown> } | undefined {
  let text: string;
  try {
    text = readFileSync(path.join(out, EXPORT_FILE), 'utf8');
  } catch {
    return undefined;
  }
  if (!text.startsWith(EXPORT_HEADER)) return undefined;
  try {
    const doc = jsYaml.load(text, { schema: jsYaml.CORE_SCHEMA });
    return isPlainObject(doc) && isPlainObject(doc.instances) ? { instances: doc.instances } : undefined;
  } catch {
    return undefined;
  }
}

/** A directory on the way to a file under --out is a symlink or not a directory: export does not write there. */
class SymlinkRefused extends PlumbError {
  constructor(summary: string) {
    super('PLUMB_OUTPUT_UNWRITABLE', summary);
  }
}

/**
 * Makes `rel` (a directory under `root`) one segment at a time, refusing a segment that is a
 * symlink or not a directory: export never writes through a symlink under --out.
 */
function ensureDirectory(root: string, rel: string, mode: number): void {
  let dir = root;
  for (const segment of path.normalize(rel).split(path.sep)) {
    if (segment === '' || segment === '.') continue;
    dir = path.join(dir, segment);
    let st;
    try {
      st = lstatSync(dir);
    } catch {
      mkdirSync(dir, { mode });
      continue;
    }
    if (st.isSymbolicLink()) throw new SymlinkRefused(`${path.relative(root, dir)} is a symlink, and export does not write through symlinks`);
    if (!st.isDirectory()) throw new SymlinkRefused(`${path.relative(root, dir)} is not a directory`);
  }
}

/**
 * Whether export may write into `out`, decided before the instance is read (issue 22): it must be
 * a directory, or not exist yet under a writable directory; not a symlink; and it must hold nothing
 * but what an earlier export wrote (its plumb.yaml, the exporters' directories: files/, the sink
 * directory) unless --force. A secrets directory (the sink directory) gets a `.gitignore` that
 * ignores everything in it, so it may not be the output directory itself, nor hold another
 * exporter's directory or anything but its own files.
 */
function checkExportOut(out: string, flags: Pick<ExportFlags, 'out' | 'force'>, dirs: readonly ExportOutputDir[]): Omit<Diagnostic, 'severity'> | undefined {
  const given = flags.out;
  const refuse = (summary: string, suggestion: string, code: DiagnosticCode = 'PLUMB_OUTPUT_UNWRITABLE'): Omit<Diagnostic, 'severity'> => ({ code, summary, suggestion });
  for (const s of dirs.filter((d) => d.secrets)) {
    const sink = path.normalize(s.dir);
    const other = dirs.find((d) => d !== s && (sink === path.normalize(d.dir) || sink.startsWith(path.normalize(d.dir) + path.sep)));
    if (sink === '.' || other) {
      return refuse(
        `${s.flag ?? 'The directory'} ${s.dir} would put a .gitignore that ignores everything into ${sink === '.' ? `${given} itself, hiding plumb.yaml from Git` : `${other!.dir}/, which export writes, hiding it from Git`}`,
        `choose a directory of its own inside the output directory, e.g. ${s.flag ?? ''} secrets`.replace('  ', ' '),
        'PLUMB_USAGE',
      );
    }
  }
  let st;
  try {
    st = lstatSync(out);
  } catch {
    // Not there yet: its nearest existing ancestor must accept a new directory.
    let parent = path.dirname(out);
    while (parent !== path.dirname(parent)) {
      try {
        lstatSync(parent);
        break;
      } catch {
        parent = path.dirname(parent);
      }
    }
    const w = checkWritable(path.join(parent, '.plumb-export-probe'));
    return w ? refuse(`--out ${given} cannot be created: ${w.why}`, w.fix) : undefined;
  }
  if (st.isSymbolicLink()) return refuse(`--out ${given} is a symlink; export does not write through symlinks`, `give the directory it points to (${path.resolve(path.dirname(out), readlinkSafe(out))})`);
  if (!st.isDirectory()) return refuse(`--out ${given} is a file; --out takes a directory (export writes DIR/${EXPORT_FILE}, and files/ beside it)`, `give its directory, e.g. --out ${path.dirname(given) || '.'}`);
  const w = checkWritable(path.join(out, EXPORT_FILE));
  if (w) return refuse(`--out ${given} cannot be written: ${w.why}`, w.fix);
  const tops = new Set(dirs.map((d) => path.normalize(d.dir).split(path.sep)[0]));
  const foreign: string[] = [];
  let handWritten = false;
  let edited: string[] = [];
  for (const entry of readdirSync(out, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name === EXPORT_FILE && entry.isFile()) {
      let text = '';
      try {
        text = readFileSync(path.join(out, entry.name), 'utf8');
      } catch {
        // unreadable: treated as not ours
      }
      if (text.startsWith(EXPORT_HEADER)) {
        edited = changedSinceExport(out, text);
        continue;
      }
      handWritten = true;
      continue;
    }
    if (tops.has(entry.name) && entry.isDirectory()) continue;
    foreign.push(entry.isDirectory() ? `${entry.name}/` : entry.name);
  }
  for (const { dir } of dirs) {
    const link = symlinkOnPath(out, dir);
    if (link) return refuse(`${path.join(given, link)} is a symlink; export does not write through symlinks`, 'remove it (or export into another directory)');
  }
  for (const s of dirs.filter((d) => d.secrets)) {
    const extra = foreignIn(path.join(out, path.normalize(s.dir)), s);
    if (extra.length > 0) {
      return refuse(
        `${s.flag ?? 'The directory'} ${s.dir} holds files that are not ${s.what ?? 'its own'} (${extra.slice(0, 5).join(', ')}${extra.length > 5 ? `, and ${extra.length - 5} more` : ''}): the .gitignore export writes there would hide them from Git`,
        `choose an empty directory, or one that only holds ${s.what ?? 'its own files'}, for ${s.flag ?? 'it'}`,
      );
    }
  }
  if (edited.length > 0 && !flags.force) {
    return {
      code: 'PLUMB_EXPORT_EDITED',
      summary: `--out ${given} holds an earlier export that was changed since it was written: ${edited.slice(0, 5).join(', ')}${edited.length > 5 ? ` and ${edited.length - 5} more` : ''}`,
      detail: 'Exporting again would replace those changes (selectors, files, sinks, rotation policies written by hand) with what the instance says. Nothing was read from the instance.',
      suggestion: 'export into another directory and compare (or commit your changes first and use `git diff` after the export), or pass --force to replace them',
      location: { file: path.join(given, edited[0]!.replace(/ \(.*$/, '')), line: 1, column: 1 },
    };
  }
  if (flags.force || (!handWritten && foreign.length === 0)) return undefined;
  const what = [
    ...(handWritten ? [`${EXPORT_FILE} was not written by export and would be replaced`] : []),
    ...(foreign.length > 0 ? [`it holds ${foreign.slice(0, 5).join(', ')}${foreign.length > 5 ? ` and ${foreign.length - 5} more` : ''}, which ${EXPORT_FILE} would be written beside (a directory of plumb's configuration reads every YAML file in it)`] : []),
  ];
  return refuse(
    `--out ${given} is not empty: ${what.join('; ')}`,
    `export into an empty (or new) directory and compare, or pass --force to write there anyway`,
    'PLUMB_EXPORT_OUT_NOT_EMPTY',
  );
}

/** The first segment of `rel` under `root` that is a symlink (relative), if any. */
function symlinkOnPath(root: string, rel: string): string | undefined {
  let dir = root;
  for (const segment of path.normalize(rel).split(path.sep)) {
    if (segment === '' || segment === '.') continue;
    dir = path.join(dir, segment);
    try {
      if (lstatSync(dir).isSymbolicLink()) return path.relative(root, dir);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function readlinkSafe(p: string): string {
  try {
    return readlinkSync(p);
  } catch {
    return p;
  }
}

/** Entries of a secrets directory that are not its own (none when it does not exist). */
function foreignIn(dir: string, d: ExportOutputDir): string[] {
  try {
    const st = lstatSync(dir);
    if (!st.isDirectory()) return [path.basename(dir)];
    return readdirSync(dir).filter((n) => !(d.holds?.(n) ?? false)).sort();
  } catch {
    return [];
  }
}

/** The instance to read: from `-c` (its url, token_env, CA), or `--instance-url` and `--token-env`. */
async function findTarget(flags: ExportFlags, io: Io, view: ExportView, today: string): Promise<Target | Omit<Diagnostic, 'severity'> | number> {
  const usage = (summary: string, suggestion: string): Omit<Diagnostic, 'severity'> => ({ code: 'PLUMB_USAGE', summary, suggestion });
  if (flags.config.length > 0 || flags.cdktf !== undefined) {
    if (flags.instanceUrl !== undefined) return usage('--instance-url cannot be combined with -c (the configuration names the instance)', 'give either -c PATH [--instance NAME] or --instance-url URL --token-env NAME');
    const loaded = await loadConfiguration(flags.config, flags.cdktf, { env: io.env, cwd: io.cwd, today, kinds: flags.kinds ?? BUILT_IN_CONFIG_KINDS });
    if (!loaded.config) return view.configInvalid(loaded);
    const instances = loaded.config.instances.filter((i) => flags.instance === undefined || i.name === flags.instance);
    if (instances.length !== 1) {
      const names = loaded.config.instances.map((i) => i.name).join(', ');
      return usage(
        instances.length === 0 ? `The configuration has no instance "${flags.instance}" (it has ${names})` : `The configuration has ${instances.length} instances (${names}); export reads one`,
        'choose one with --instance NAME',
      );
    }
    const i = instances[0]!;
    const declared: ExportDeclared = { instance: i, envReference: (pointer) => envReference(loaded.sources, pointer) };
    return { name: i.name, url: i.url, tokenEnv: flags.tokenEnv ?? i.tokenEnv, ...(i.caBundle && { caBundle: i.caBundle }), allowInsecureHttp: i.allowInsecureHttp, declared };
  }
  if (flags.instanceUrl === undefined) return usage('plumb export needs the instance to read', 'give --instance-url URL --token-env NAME, or -c PATH of a configuration that declares it');
  return { name: flags.instance ?? 'main', url: flags.instanceUrl.replace(/\/+$/, '').replace(/\/api\/v4$/, ''), tokenEnv: flags.tokenEnv ?? 'PLUMB_TOKEN', allowInsecureHttp: false };
}

/** NAME when the value at `pointer` is written as exactly `${env:NAME}` (quoted or not). */
function envReference(sources: LoadedSources, pointer: string): string | undefined {
  const at = sources.locations.get(pointer)?.value;
  const text = at && sources.texts.get(at.file);
  if (!at || text === undefined || at.endLine === undefined || at.endLine !== at.line) return undefined;
  const line = text.split('\n')[at.line - 1] ?? '';
  const written = line.slice(at.column - 1, (at.endColumn ?? line.length + 1) - 1).trim().replace(/^(["'])(.*)\1$/, '$2');
  return /^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(written)?.[1];
}

/** `value` with every string in it written as {@link literalText} (keys are never interpolated). */
function literalValue(value: unknown): unknown {
  if (typeof value === 'string') return value.includes('${') ? literalText(value) : value;
  if (Array.isArray(value)) return value.map(literalValue);
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, literalValue(v)]));
  return value;
}

/** Plain data with every map's keys sorted (arrays keep their order: exporters sort sets). */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) {
    const obj = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(obj)
        .sort()
        .map((k) => [k, sorted(obj[k])]),
    );
  }
  return value;
}

/** The YAML text: one document, keys sorted, each entry's comment above its key, env names at the end. */
export function renderExport(target: Pick<Target, 'name' | 'url' | 'tokenEnv'>, entries: readonly ExportEntry[], env: readonly ExportEnv[]): string {
  const tree: Record<string, unknown> = {};
  const comments = new Map<string, string>();
  for (const e of entries) {
    let node = tree;
    for (const k of e.path.slice(0, -1)) node = (node[k] ??= {}) as Record<string, unknown>;
    // Instance text is anybody's (a help text, a token description): a `${` in it stays text.
    node[e.path[e.path.length - 1]!] = e.reference ? e.value : literalValue(e.value);
    if (e.comment) comments.set(JSON.stringify(e.path), e.comment);
  }
  const instance = { url: target.url, token_env: target.tokenEnv, ...(sorted(tree) as Record<string, unknown>) };
  const doc = new Document({ version: 1, instances: { [target.name]: instance } });
  const base = ['instances', target.name];
  for (const [key, comment] of comments) {
    const p = JSON.parse(key) as string[];
    const parent = doc.getIn([...base, ...p.slice(0, -1)], true) as Node | undefined;
    if (!isMap(parent)) continue;
    const pair = parent.items.find((it: Pair) => isScalar(it.key) && it.key.value === p[p.length - 1]);
    if (pair && isScalar(pair.key)) pair.key.commentBefore = comment;
  }
  doc.commentBefore =
    ` Exported by \`plumb export\` from ${target.url}. Review it, fill in every TODO, and commit.\n` +
    ' Keys are sorted and nothing depends on the time of the export: exporting again shows only what\n changed on the instance (docs/export.md).';
  if (env.length > 0) {
    doc.comment =
      ' Environment variables this configuration reads (secrets the instance never returns):\n' + env.map((e) => `   ${e.name}: ${e.why}`).join('\n');
  }
  return doc.toString({ lineWidth: 0 });
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** What a 404 of an export read is about, named as the user wrote it on the command line. */
export function notFoundSubject(apiPath: string, exporters: readonly Pick<ResourceExporter, 'notFound'>[]): string | undefined {
  for (const e of exporters) {
    const subject = e.notFound?.(apiPath);
    if (subject !== undefined) return subject;
  }
  const m = /^\/(projects|groups)\/([^/?]+)/.exec(apiPath);
  return m ? `${m[1] === 'projects' ? 'project' : 'group'} "${safeDecode(m[2]!)}"` : undefined;
}
