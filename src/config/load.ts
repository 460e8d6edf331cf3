import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import jsYaml from 'js-yaml';
import type { Node as YamlNode, Document, LineCounter } from 'yaml';
import type * as YamlLib from 'yaml';
import type { Diagnostic, SourceLocation } from '../diagnostics/index.js';
import { joinPointer, splitPointer } from './pointer.js';
import { SecretRegistry } from './secrets.js';

/** Where a value of the merged configuration was written. */
export interface NodeLocation {
  /** The key that introduced the value (absent for the document root and list items). */
  readonly key?: SourceLocation;
  readonly value: SourceLocation;
}

export interface LoadedSources {
  /** The merged, interpolated configuration as plain data (not yet validated). */
  readonly data: Record<string, unknown>;
  readonly diagnostics: Diagnostic[];
  /** File name → text, for code frames. */
  readonly texts: Map<string, string>;
  /** JSON pointer → where it was written. */
  readonly locations: LocationIndex;
  readonly secrets: SecretRegistry;
  readonly files: readonly string[];
}

export interface LoadOptions {
  /** Environment for `${env:NAME}`; defaults to process.env. */
  readonly env?: NodeJS.ProcessEnv;
  /** Directory file names are shown relative to; defaults to process.cwd(). */
  readonly cwd?: string;
}

/**
 * Maps of these pointers are resources: they are defined in one place only, and two files defining
 * the same one is an error naming both (anything else merges key by key across files).
 */
const RESOURCE_LEVELS: readonly (readonly string[])[] = [
  ['instances', '*', 'groups', '*', 'access_tokens', '*'],
  ['instances', '*', 'projects', '*', 'files', '*'],
  ['instances', '*', 'projects', '*', 'pages'],
];

const DEFAULT_NAMES = ['plumb.yaml', 'plumb.yml', 'plumb'];

/** Expands the paths given on the command line into the YAML files to read, in a stable order. */
export function resolveConfigFiles(paths: readonly string[], cwd = process.cwd()): { files: string[]; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  let inputs = [...paths];
  if (inputs.length === 0) {
    const found = DEFAULT_NAMES.find((n) => exists(path.resolve(cwd, n)));
    if (!found) {
      diagnostics.push({
        severity: 'error',
        code: 'PLUMB_CONFIG_NOT_FOUND',
        summary: 'No configuration given and none found in the current directory',
        detail: `Looked for ${DEFAULT_NAMES.join(', ')} in ${cwd}.`,
        suggestion: 'pass a file or directory, e.g. `plumb validate config/`',
      });
      return { files: [], diagnostics };
    }
    inputs = [found];
  }
  const files: string[] = [];
  for (const p of inputs) {
    const abs = path.resolve(cwd, p);
    let st;
    try {
      st = statSync(abs);
    } catch {
      diagnostics.push({
        severity: 'error',
        code: 'PLUMB_CONFIG_NOT_FOUND',
        summary: `Configuration path "${p}" does not exist`,
        suggestion: 'check the path; plumb reads a YAML file or a directory of YAML files',
      });
      continue;
    }
    if (st.isDirectory()) {
      const found = walkYaml(abs);
      if (found.length === 0) {
        diagnostics.push({
          severity: 'error',
          code: 'PLUMB_CONFIG_NOT_FOUND',
          summary: `Directory "${p}" holds no .yaml or .yml file`,
        });
      }
      files.push(...found);
    } else {
      files.push(abs);
    }
  }
  return { files: [...new Set(files)], diagnostics };
}

function walkYaml(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walkYaml(full));
    else if (/\.ya?ml$/i.test(entry.name)) out.push(full);
  }
  return out;
}

function exists(p: string): boolean {
  try {
    statSync(p);
    return true;
  } catch {
    return false;
  }
}

/** One configuration file, and (built only when a location is asked for) its position index. */
interface SourceFile {
  readonly file: string;
  readonly abs: string;
  readonly text: string;
  positions?: Map<string, RawLocation>;
}

/** Offsets into a file's text; turned into line and column only when a diagnostic needs them. */
interface RawLocation {
  readonly key?: readonly [number, number];
  readonly value: readonly [number, number];
}

/**
 * Where each value of the merged configuration was written. Files are parsed for positions lazily
 * (with `yaml`, which keeps source ranges) the first time one of their locations is asked for, so a
 * valid configuration never pays for it.
 */
export class LocationIndex {
  readonly #files: SourceFile[] = [];
  /** pointer → index of the file that defined it first. */
  readonly #owner = new Map<string, number>();

  /** @internal */
  addFile(f: SourceFile): number {
    this.#files.push(f);
    return this.#files.length - 1;
  }

  /** @internal Records that `fileIndex` defines `pointer` (first definition wins). */
  own(pointer: string, fileIndex: number): void {
    if (!this.#owner.has(pointer)) this.#owner.set(pointer, fileIndex);
  }

  /** Name of the file that defined `pointer` (cheap: parses nothing). */
  fileOf(pointer: string): string | undefined {
    const f = this.#owner.get(pointer);
    return f === undefined ? undefined : this.#files[f]?.file;
  }

  /** Index of the file that defined `pointer` first. */
  ownerOf(pointer: string): number | undefined {
    return this.#owner.get(pointer);
  }

  get(pointer: string): NodeLocation | undefined {
    const f = this.#owner.get(pointer);
    return f === undefined ? undefined : this.in(f, pointer);
  }

  /** The location of `pointer` in one particular file (for the second of two definitions). */
  in(fileIndex: number, pointer: string): NodeLocation | undefined {
    const f = this.#files[fileIndex];
    if (!f) return undefined;
    const raw = positionsOf(f).get(pointer);
    if (!raw) return undefined;
    const lc = lineCounterOf(f);
    const at = (r: readonly [number, number]): SourceLocation => {
      const start = lc.linePos(r[0]);
      const end = lc.linePos(r[1]);
      return { file: f.file, line: start.line, column: start.col, endLine: end.line, endColumn: end.col };
    };
    return raw.key ? { key: at(raw.key), value: at(raw.value) } : { value: at(raw.value) };
  }
}

// `yaml` (and its source ranges) is loaded only on the error and location paths.
const requireCjs = createRequire(import.meta.url);
type YamlModule = typeof YamlLib;
let yamlModule: YamlModule | undefined;
function yamlLib(): YamlModule {
  yamlModule ??= requireCjs('yaml') as YamlModule;
  return yamlModule;
}

const lineCounters = new WeakMap<SourceFile, LineCounter>();
function lineCounterOf(f: SourceFile): LineCounter {
  let lc = lineCounters.get(f);
  if (!lc) {
    lc = new (yamlLib().LineCounter)();
    lc.addNewLine(0);
    for (let i = f.text.indexOf('\n'); i >= 0; i = f.text.indexOf('\n', i + 1)) lc.addNewLine(i + 1);
    lineCounters.set(f, lc);
  }
  return lc;
}

function parseWithPositions(f: SourceFile): Document {
  return yamlLib().parseDocument(f.text, { prettyErrors: false, uniqueKeys: true, merge: false });
}

function positionsOf(f: SourceFile): Map<string, RawLocation> {
  if (f.positions) return f.positions;
  const map = new Map<string, RawLocation>();
  const doc = parseWithPositions(f);
  const { isAlias, isMap, isSeq, isScalar, isPair } = yamlLib();
  const range = (n: YamlNode | null | undefined): [number, number] => [n?.range?.[0] ?? 0, n?.range?.[1] ?? n?.range?.[0] ?? 0];
  const walk = (node: YamlNode | null, pointer: string, key: [number, number] | undefined, into: Map<string, RawLocation>): void => {
    if (node === null) return;
    into.set(pointer, key ? { key, value: range(node) } : { value: range(node) });
    if (isAlias(node)) {
      // The value is the anchor's, but its place is where the alias is used.
      const target = node.resolve(doc);
      if (!target) return;
      const own = new Map<string, RawLocation>();
      walk(target as YamlNode, pointer, key, own);
      for (const [p, l] of own) if (p !== pointer) into.set(p, l);
    } else if (isMap(node)) {
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const keyNode = pair.key as YamlNode | null;
        const k = isScalar(keyNode) ? String(keyNode.value) : String(keyNode);
        walk(pair.value as YamlNode | null, joinPointer(pointer, k), range(keyNode), into);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => walk(item as YamlNode | null, joinPointer(pointer, i), undefined, into));
    }
  };
  walk(doc.contents as YamlNode | null, '', undefined, map);
  f.positions = map;
  return map;
}

/** A problem found while loading, located once all files are read. */
interface PendingDiagnostic extends Omit<Diagnostic, 'location'> {
  readonly fileIndex: number;
  readonly pointer: string;
  readonly on?: 'key' | 'value';
}

/** Reads, parses, interpolates and merges configuration files, recording where every value came from. */
export function loadSources(files: readonly string[], opts: LoadOptions = {}): LoadedSources {
  const cwd = opts.cwd ?? process.cwd();
  const env = opts.env ?? process.env;
  const texts = new Map<string, string>();
  const locations = new LocationIndex();
  const diagnostics: Diagnostic[] = [];
  const pending: PendingDiagnostic[] = [];
  const secrets = new SecretRegistry();
  const data: Record<string, unknown> = {};
  const shown: string[] = [];

  for (const abs of files) {
    const file = displayName(abs, cwd);
    shown.push(file);
    let text: string;
    try {
      text = readFileSync(abs, 'utf8');
    } catch (err) {
      diagnostics.push({
        severity: 'error',
        code: 'PLUMB_CONFIG_UNREADABLE',
        summary: `Cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
      });
      continue;
    }
    // A byte order mark is not content: dropping it keeps line 1's columns right.
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    texts.set(file, text);
    const source: SourceFile = { file, abs, text };
    const fileIndex = locations.addFile(source);
    let parsed: unknown;
    try {
      // The fast path: js-yaml (YAML 1.2 core schema; duplicate keys are errors).
      parsed = jsYaml.load(text, { schema: jsYaml.CORE_SCHEMA, filename: file });
    } catch (err) {
      diagnostics.push(...syntaxDiagnostics(source, err));
      continue;
    }
    const pointers: string[] = [];
    const ctx: WalkContext = { file, abs, env, secrets, pending, fileIndex, pointers };
    const value = fromYaml(parsed, '', ctx);
    if (value === null || value === undefined) continue; // an empty file contributes nothing
    if (!isPlainObject(value)) {
      pending.push({
        severity: 'error',
        code: 'PLUMB_CONFIG_SHAPE',
        summary: 'A plumb configuration file must be a mapping at the top level',
        suggestion: 'start the file with `version: 1` and an `instances:` mapping',
        fileIndex,
        pointer: '',
      });
      continue;
    }
    mergeInto(data, value, '', fileIndex, locations, pending);
    // First definition wins: a duplicate's own locations stay reachable through its diagnostic.
    for (const p of pointers) locations.own(p, fileIndex);
  }
  for (const { fileIndex, pointer, on, ...d } of pending) {
    const l = locations.in(fileIndex, pointer);
    diagnostics.push({ ...d, pointer, location: on === 'key' ? (l?.key ?? l?.value) : l?.value });
  }
  return { data, diagnostics, texts, locations, secrets, files: shown };
}

/** Precise syntax diagnostics from `yaml` (every error, not just the first), for a file js-yaml refused. */
function syntaxDiagnostics(f: SourceFile, fastError: unknown): Diagnostic[] {
  const doc = parseWithPositions(f);
  const lc = lineCounterOf(f);
  const at = (pos: readonly [number, number]): SourceLocation => {
    const start = lc.linePos(pos[0]);
    const end = lc.linePos(pos[1]);
    return { file: f.file, line: start.line, column: start.col, endLine: end.line, endColumn: end.col };
  };
  if (doc.errors.length === 0) {
    // The two parsers disagree; js-yaml's word stands, at its position.
    const mark = (fastError as { mark?: { line: number; column: number } }).mark;
    const reason = (fastError as { reason?: string }).reason ?? String(fastError);
    return [
      {
        severity: 'error',
        code: /duplicated mapping key/.test(reason) ? 'PLUMB_YAML_DUPLICATE_KEY' : 'PLUMB_YAML_SYNTAX',
        summary: `YAML syntax error: ${reason}`,
        suggestion: 'fix the YAML syntax at this position (check indentation and quoting)',
        location: mark ? { file: f.file, line: mark.line + 1, column: mark.column + 1 } : undefined,
      },
    ];
  }
  return doc.errors.map((e) => {
    const dup = e.code === 'DUPLICATE_KEY';
    return {
      severity: 'error' as const,
      code: dup ? 'PLUMB_YAML_DUPLICATE_KEY' : 'PLUMB_YAML_SYNTAX',
      summary: dup ? 'The same key appears twice in one mapping' : `YAML syntax error: ${firstLine(e.message)}`,
      detail: dup ? 'YAML keeps only one of them; plumb refuses to guess which you meant.' : undefined,
      suggestion: dup ? 'remove or rename one of the two keys' : 'fix the YAML syntax at this position (check indentation and quoting)',
      location: at(e.pos),
    };
  });
}

function displayName(abs: string, cwd: string): string {
  const rel = path.relative(cwd, abs);
  return rel.startsWith('..') || path.isAbsolute(rel) ? abs : rel.split(path.sep).join('/');
}

function firstLine(s: string): string {
  return s.split('\n')[0] ?? s;
}

interface WalkContext {
  readonly file: string;
  readonly abs: string;
  readonly env: NodeJS.ProcessEnv;
  readonly secrets: SecretRegistry;
  readonly pending: PendingDiagnostic[];
  readonly fileIndex: number;
  /** Every pointer this file defines. */
  readonly pointers: string[];
}

/** Copies js-yaml's output into fresh plain data, interpolating strings and noting every pointer. */
function fromYaml(v: unknown, pointer: string, ctx: WalkContext): unknown {
  ctx.pointers.push(pointer);
  if (v === undefined || v === null) return null;
  if (Array.isArray(v)) return v.map((item, i) => fromYaml(item, joinPointer(pointer, i), ctx));
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  if (typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = fromYaml(x, joinPointer(pointer, k), ctx);
    return out;
  }
  if (typeof v === 'string' && v.includes('${')) return interpolate(v, pointer, ctx);
  return v;
}

const REFERENCE = /^\$\{(env|file):([^}]*)\}/;

/**
 * `${env:NAME}` and `${file:path}` (relative to the file that says it); `$${` writes a literal `${`.
 * Any other `${` is an error rather than text, so a typo never ships a literal placeholder.
 * Anything interpolated is a secret from here on: it is masked in every output.
 */
function interpolate(raw: string, pointer: string, ctx: WalkContext): string {
  let secret = false;
  let failed = false;
  let out = '';
  let i = 0;
  while (i < raw.length) {
    const at = raw.indexOf('${', i);
    if (at < 0) {
      out += raw.slice(i);
      break;
    }
    if (at > 0 && raw[at - 1] === '$') {
      out += raw.slice(i, at - 1) + '${';
      i = at + 2;
      continue;
    }
    out += raw.slice(i, at);
    const m = REFERENCE.exec(raw.slice(at));
    if (!m) {
      const shown = raw.slice(at, raw.indexOf('}', at) >= 0 ? raw.indexOf('}', at) + 1 : undefined);
      ctx.pending.push({
        severity: 'error',
        code: 'PLUMB_INTERPOLATION_SYNTAX',
        summary: `"${shown.length > 40 ? shown.slice(0, 40) + '…' : shown}" is not a valid reference`,
        detail: 'plumb interpolates ${env:NAME} and ${file:path} only.',
        suggestion: 'write ${env:NAME} or ${file:path}, or $${ for a literal "${"',
        pointer,
        fileIndex: ctx.fileIndex,
      });
      return '';
    }
    const kind = m[1]!;
    const name = m[2]!.trim();
    i = at + m[0].length;
    const value = kind === 'env' ? readEnv(name, m[0], pointer, ctx) : readFileRef(name, pointer, ctx);
    if (value === undefined) {
      failed = true; // keep going: every missing reference is reported
      continue;
    }
    secret = true;
    ctx.secrets.add(value);
    out += value;
  }
  if (secret) ctx.secrets.markPointer(pointer);
  return failed ? '' : out;
}

function readEnv(name: string, match: string, pointer: string, ctx: WalkContext): string | undefined {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    ctx.pending.push({
      severity: 'error',
      code: 'PLUMB_INTERPOLATION_SYNTAX',
      summary: `"${match}" is not a valid environment reference`,
      suggestion: 'write ${env:NAME} with a variable name made of letters, digits and underscores',
      pointer,
      fileIndex: ctx.fileIndex,
    });
    return undefined;
  }
  const value = ctx.env[name];
  if (value === undefined) {
    ctx.pending.push({
      severity: 'error',
      code: 'PLUMB_ENV_MISSING',
      summary: `Environment variable ${name} is not set`,
      detail: `This value is read from \${env:${name}}.`,
      suggestion: `export ${name} before running plumb (in CI, define it as a masked variable)`,
      pointer,
      fileIndex: ctx.fileIndex,
    });
  }
  return value;
}

function readFileRef(name: string, pointer: string, ctx: WalkContext): string | undefined {
  const target = path.resolve(path.dirname(ctx.abs), name);
  try {
    return readFileSync(target, 'utf8').replace(/\r?\n$/, '');
  } catch (err) {
    ctx.pending.push({
      severity: 'error',
      code: 'PLUMB_FILE_MISSING',
      summary: `Cannot read "${name}" for \${file:${name}}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
      detail: `Paths are relative to the file that references them (${path.dirname(ctx.file) || '.'}).`,
      suggestion: 'check the path, or create the file',
      pointer,
      fileIndex: ctx.fileIndex,
    });
    return undefined;
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isResourceLevel(pointer: string): boolean {
  const segs = splitPointer(pointer);
  return RESOURCE_LEVELS.some((pattern) => pattern.length === segs.length && pattern.every((p, i) => p === '*' || p === segs[i]));
}

/** Deep-merges one file's data into the merged configuration; a value defined twice is an error naming both places. */
function mergeInto(
  target: Record<string, unknown>,
  source: Record<string, unknown>,
  pointer: string,
  fileIndex: number,
  locations: LocationIndex,
  pending: PendingDiagnostic[],
): void {
  for (const [key, value] of Object.entries(source)) {
    const child = joinPointer(pointer, key);
    if (!(key in target)) {
      target[key] = value;
      continue;
    }
    const existing = target[key];
    if (isPlainObject(existing) && isPlainObject(value) && !isResourceLevel(child)) {
      mergeInto(existing, value, child, fileIndex, locations, pending);
      continue;
    }
    // An empty block (`settings:` with nothing under it) next to a real one: not a second
    // definition. The empty one is still wrong where it is written.
    if (!isResourceLevel(child) && (existing === null) !== (value === null) && (isPlainObject(existing) || isPlainObject(value))) {
      if (existing === null) target[key] = value;
      pending.push({
        severity: 'error',
        code: 'PLUMB_TYPE_MISMATCH',
        summary: `${describePointer(child)} is empty here`,
        detail: 'An empty block is null in YAML, not a mapping; the definition in another file is used.',
        suggestion: 'remove the empty key, or indent its content under it',
        pointer: child,
        fileIndex: existing === null ? (locations.ownerOf(child) ?? fileIndex) : fileIndex,
      });
      continue;
    }
    if (key === 'version' && pointer === '' && existing === value) continue;
    const first = locations.get(child);
    pending.push({
      severity: 'error',
      code: 'PLUMB_DUPLICATE_RESOURCE',
      summary: `${describePointer(child)} is defined twice`,
      detail: 'Each setting, token, file and Pages block may be declared in one place only; plumb does not guess which definition wins.',
      suggestion: 'keep one of the two definitions',
      pointer: child,
      fileIndex,
      on: 'key',
      related: [{ message: 'first defined here', location: first?.key ?? first?.value }],
    });
  }
}

/** A readable name for a place in the configuration, for messages. */
export function describePointer(pointer: string): string {
  const s = splitPointer(pointer);
  if (s[0] === 'instances' && s.length >= 2) {
    const inst = `instance "${s[1]}"`;
    if (s[2] === 'settings' && s[3] !== undefined) return `setting "${s[3]}" of ${inst}`;
    if (s[2] === 'groups' && s[4] === 'access_tokens' && s[5] !== undefined) return `access token "${s[5]}" of group "${s[3]}"`;
    if (s[2] === 'projects' && s[4] === 'files' && s[5] !== undefined) return `file "${s[5]}" of project "${s[3]}"`;
    if (s[2] === 'projects' && s[4] === 'pages') return `Pages of project "${s[3]}"`;
    if (s.length === 3) return `"${s[2]}" of ${inst}`;
  }
  return `"${pointer}"`;
}
