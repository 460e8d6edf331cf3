import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { LineCounter, parseDocument, isMap, isSeq, isScalar, isAlias, isPair } from 'yaml';
import type { Node as YamlNode, Document } from 'yaml';
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
  readonly locations: Map<string, NodeLocation>;
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

/** Reads, parses, interpolates and merges configuration files, recording where every value came from. */
export function loadSources(files: readonly string[], opts: LoadOptions = {}): LoadedSources {
  const cwd = opts.cwd ?? process.cwd();
  const env = opts.env ?? process.env;
  const texts = new Map<string, string>();
  const locations = new Map<string, NodeLocation>();
  const diagnostics: Diagnostic[] = [];
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
    const lineCounter = new LineCounter();
    const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true, merge: false });
    const loc = (range: readonly [number, number, number?] | null | undefined): SourceLocation => {
      const start = lineCounter.linePos(range?.[0] ?? 0);
      const end = lineCounter.linePos(range?.[1] ?? range?.[0] ?? 0);
      return { file, line: start.line, column: start.col, endLine: end.line, endColumn: end.col };
    };
    if (doc.errors.length > 0) {
      for (const e of doc.errors) {
        const dup = e.code === 'DUPLICATE_KEY';
        diagnostics.push({
          severity: 'error',
          code: dup ? 'PLUMB_YAML_DUPLICATE_KEY' : 'PLUMB_YAML_SYNTAX',
          summary: dup ? 'The same key appears twice in one mapping' : `YAML syntax error: ${firstLine(e.message)}`,
          detail: dup ? 'YAML keeps only one of them; plumb refuses to guess which you meant.' : undefined,
          suggestion: dup ? 'remove or rename one of the two keys' : 'fix the YAML syntax at this position (check indentation and quoting)',
          location: loc(e.pos as unknown as [number, number]),
        });
      }
      continue;
    }
    const ctx: WalkContext = { file, abs, env, loc, secrets, diagnostics, locations: new Map() };
    const value = toData(doc, doc.contents as YamlNode | null, '', ctx);
    if (value === null || value === undefined) continue; // an empty file contributes nothing
    if (!isPlainObject(value)) {
      diagnostics.push({
        severity: 'error',
        code: 'PLUMB_CONFIG_SHAPE',
        summary: 'A plumb configuration file must be a mapping at the top level',
        suggestion: 'start the file with `version: 1` and an `instances:` mapping',
        location: ctx.locations.get('')?.value,
      });
      continue;
    }
    mergeInto(data, value, '', ctx.locations, locations, diagnostics);
    // First definition wins: a duplicate's own locations stay reachable through its diagnostic.
    for (const [p, l] of ctx.locations) if (!locations.has(p)) locations.set(p, l);
  }
  return { data, diagnostics, texts, locations, secrets, files: shown };
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
  readonly loc: (range: readonly [number, number, number?] | null | undefined) => SourceLocation;
  readonly secrets: SecretRegistry;
  readonly diagnostics: Diagnostic[];
  readonly locations: Map<string, NodeLocation>;
}

function toData(doc: Document, node: YamlNode | null, pointer: string, ctx: WalkContext, keyLoc?: SourceLocation): unknown {
  if (node === null) return null;
  const valueLoc = ctx.loc(node.range);
  ctx.locations.set(pointer, keyLoc ? { key: keyLoc, value: valueLoc } : { value: valueLoc });
  if (isAlias(node)) {
    // The value is the anchor's, but its place is where the alias is used: resolve it without
    // recording the anchor's locations under this pointer.
    const target = node.resolve(doc);
    if (!target) return null;
    const own = new Map<string, NodeLocation>();
    const value = toData(doc, target as YamlNode, pointer, { ...ctx, locations: own }, keyLoc);
    for (const [p, l] of own) if (p !== pointer) ctx.locations.set(p, l);
    return value;
  }
  if (isMap(node)) {
    const out: Record<string, unknown> = {};
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const keyNode = pair.key as YamlNode | null;
      const key = isScalar(keyNode) ? String(keyNode.value) : String(keyNode);
      const kLoc = ctx.loc(keyNode?.range);
      const child = joinPointer(pointer, key);
      out[key] = toData(doc, pair.value as YamlNode | null, child, ctx, kLoc);
      if (pair.value === null) ctx.locations.set(child, { key: kLoc, value: kLoc });
    }
    return out;
  }
  if (isSeq(node)) {
    return node.items.map((item, i) => toData(doc, item as YamlNode | null, joinPointer(pointer, i), ctx));
  }
  if (isScalar(node)) {
    const v = node.value;
    if (typeof v === 'string' && v.includes('${')) return interpolate(v, pointer, valueLoc, ctx);
    if (v instanceof Date) return v.toISOString().slice(0, 10);
    return v;
  }
  return null;
}

const REFERENCE = /^\$\{(env|file):([^}]*)\}/;

/**
 * `${env:NAME}` and `${file:path}` (relative to the file that says it); `$${` writes a literal `${`.
 * Any other `${` is an error rather than text, so a typo never ships a literal placeholder.
 * Anything interpolated is a secret from here on: it is masked in every output.
 */
function interpolate(raw: string, pointer: string, loc: SourceLocation, ctx: WalkContext): string {
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
      ctx.diagnostics.push({
        severity: 'error',
        code: 'PLUMB_INTERPOLATION_SYNTAX',
        summary: `"${shown.length > 40 ? shown.slice(0, 40) + '…' : shown}" is not a valid reference`,
        detail: 'plumb interpolates ${env:NAME} and ${file:path} only.',
        suggestion: 'write ${env:NAME} or ${file:path}, or $${ for a literal "${"',
        pointer,
        location: loc,
      });
      return '';
    }
    const kind = m[1]!;
    const name = m[2]!.trim();
    i = at + m[0].length;
    const value = kind === 'env' ? readEnv(name, m[0], pointer, loc, ctx) : readFileRef(name, pointer, loc, ctx);
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

function readEnv(name: string, match: string, pointer: string, loc: SourceLocation, ctx: WalkContext): string | undefined {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    ctx.diagnostics.push({
      severity: 'error',
      code: 'PLUMB_INTERPOLATION_SYNTAX',
      summary: `"${match}" is not a valid environment reference`,
      suggestion: 'write ${env:NAME} with a variable name made of letters, digits and underscores',
      pointer,
      location: loc,
    });
    return undefined;
  }
  const value = ctx.env[name];
  if (value === undefined) {
    ctx.diagnostics.push({
      severity: 'error',
      code: 'PLUMB_ENV_MISSING',
      summary: `Environment variable ${name} is not set`,
      detail: `This value is read from \${env:${name}}.`,
      suggestion: `export ${name} before running plumb (in CI, define it as a masked variable)`,
      pointer,
      location: loc,
    });
  }
  return value;
}

function readFileRef(name: string, pointer: string, loc: SourceLocation, ctx: WalkContext): string | undefined {
  const target = path.resolve(path.dirname(ctx.abs), name);
  try {
    return readFileSync(target, 'utf8').replace(/\r?\n$/, '');
  } catch (err) {
    ctx.diagnostics.push({
      severity: 'error',
      code: 'PLUMB_FILE_MISSING',
      summary: `Cannot read "${name}" for \${file:${name}}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
      detail: `Paths are relative to the file that references them (${path.dirname(ctx.file) || '.'}).`,
      suggestion: 'check the path, or create the file',
      pointer,
      location: loc,
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
  sourceLocs: Map<string, NodeLocation>,
  targetLocs: Map<string, NodeLocation>,
  diagnostics: Diagnostic[],
): void {
  for (const [key, value] of Object.entries(source)) {
    const child = joinPointer(pointer, key);
    if (!(key in target)) {
      target[key] = value;
      continue;
    }
    const existing = target[key];
    if (isPlainObject(existing) && isPlainObject(value) && !isResourceLevel(child)) {
      mergeInto(existing, value, child, sourceLocs, targetLocs, diagnostics);
      continue;
    }
    // An empty block (`settings:` with nothing under it) next to a real one: not a second
    // definition. The empty one is still wrong where it is written.
    if (!isResourceLevel(child) && (existing === null) !== (value === null) && (isPlainObject(existing) || isPlainObject(value))) {
      const empty = existing === null ? targetLocs.get(child) : sourceLocs.get(child);
      if (existing === null) target[key] = value;
      diagnostics.push({
        severity: 'error',
        code: 'PLUMB_TYPE_MISMATCH',
        summary: `${describePointer(child)} is empty here`,
        detail: 'An empty block is null in YAML, not a mapping; the definition in another file is used.',
        suggestion: 'remove the empty key, or indent its content under it',
        pointer: child,
        location: empty?.value,
      });
      continue;
    }
    if (key === 'version' && pointer === '' && existing === value) continue;
    const first = targetLocs.get(child);
    const second = sourceLocs.get(child);
    diagnostics.push({
      severity: 'error',
      code: 'PLUMB_DUPLICATE_RESOURCE',
      summary: `${describePointer(child)} is defined twice`,
      detail: 'Each setting, token, file and Pages block may be declared in one place only; plumb does not guess which definition wins.',
      suggestion: 'keep one of the two definitions',
      pointer: child,
      location: second?.key ?? second?.value,
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
