import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import jsYaml from 'js-yaml';
import type { Node as YamlNode, Document, LineCounter } from 'yaml';
import type * as YamlLib from 'yaml';
import type { Diagnostic, SourceLocation } from '../diagnostics/index.js';
import { joinPointer, matchesPattern, splitPointer } from './pointer.js';
import { KIND_POINTERS } from '../resources/config.js';
import { SecretRegistry, UNAVAILABLE_SECRET } from './secrets.js';
import { configRoot, isShowableText, LocalFileError, readLocalFile, secretRootsFrom } from './files.js';
import type { FileRoots } from './files.js';
import { fileErrorSentence } from '../util/file-error.js';
import { extractSelectors } from './selectors.js';
import type { Expansion, SelectorSet } from './selectors.js';

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
  /** Shown file name → where that document may read local files from (docs/config.md#local-files). */
  readonly roots: Map<string, FileRoots>;
  /**
   * Pointers the loader already reported a problem for (a number that cannot be sent, an empty or
   * missing interpolated value, a key with an invisible character): later checks stay silent at
   * and beneath them, so one problem gives one error. Incomplete mappings (one that used a merge
   * key) silence only the checks of the mapping itself (its missing keys).
   */
  readonly reported: ReportedPointers;
  /** What each instance inherits from or overrides in `defaults:` (docs/config.md#shared-defaults). */
  readonly defaults: DefaultsOrigins;
  /** The selector entries of `projects:` and `groups:` (src/config/selectors.ts), when there are any. */
  readonly selectors?: SelectorSet;
  /** After discovery expanded the selectors (engine/selectors.ts): origins and match counts. */
  readonly expansion?: Pick<Expansion, 'origins' | 'counts'>;
}

/**
 * Where an instance's value came from when `defaults:` declares it: `inherited` (the instance does
 * not declare it: the value and its location are the default's) or `overridden` (the instance
 * declares it too: its value wins). Keyed by the instance's pointer at the granularity values are
 * inherited: a setting, a token, a file, a Pages field, a group's or project's own key.
 */
export class DefaultsOrigins {
  readonly #origins = new Map<string, { readonly defaults: string; readonly how: 'inherited' | 'overridden' }>();

  /** @internal */
  record(pointer: string, defaults: string, how: 'inherited' | 'overridden'): void {
    this.#origins.set(pointer, { defaults, how });
  }

  /** The origin recorded exactly at `pointer`. */
  at(pointer: string): { readonly defaults: string; readonly how: 'inherited' | 'overridden' } | undefined {
    return this.#origins.get(pointer);
  }

  /** The override at or above `pointer` (a diagnostic inside an overriding token names the default too). */
  overrideOver(pointer: string): { readonly pointer: string; readonly defaults: string } | undefined {
    if (this.#origins.size === 0) return undefined;
    for (let p = pointer; ; p = p.slice(0, p.lastIndexOf('/'))) {
      const o = this.#origins.get(p);
      if (o?.how === 'overridden') return { pointer: p, defaults: o.defaults };
      if (p === '' || p.split('/').length <= 3) return undefined;
    }
  }

  get size(): number {
    return this.#origins.size;
  }
}

/** See {@link LoadedSources.reported}. */
export class ReportedPointers {
  readonly #subtrees = new Set<string>();
  readonly #exact = new Set<string>();

  /** @internal */
  addSubtree(pointer: string): void {
    this.#subtrees.add(pointer);
  }

  /** @internal */
  addExact(pointer: string): void {
    this.#exact.add(pointer);
  }

  /** Whether a later diagnostic about `pointer` repeats a problem already reported. */
  covers(pointer: string): boolean {
    if (this.#exact.has(pointer)) return true;
    for (let p = pointer; ; p = p.slice(0, p.lastIndexOf('/'))) {
      if (this.#subtrees.has(p)) return true;
      if (p === '') return false;
    }
  }
}

export interface LoadOptions {
  /** Environment for `${env:NAME}`; defaults to process.env. */
  readonly env?: NodeJS.ProcessEnv;
  /** Directory file names are shown relative to; defaults to process.cwd(). */
  readonly cwd?: string;
  /**
   * The configuration root of every document (a real path), when the caller knows it better than
   * the documents' own paths do (the Terraform provider's temporary document); see src/config/files.ts.
   */
  readonly root?: string;
  /**
   * `--unavailable-secrets skip`: an application setting's `${env:NAME}` that is not set stands
   * for a secret this pipeline is not given (a protected variable in a merge-request pipeline): it
   * becomes {@link UNAVAILABLE_SECRET}, an information, and plan does not compare it. Never for apply.
   */
  readonly unavailableSecrets?: boolean;
}

const DEFAULT_NAMES = ['plumb.yaml', 'plumb.yml', 'plumb'];

/** Expands the paths given on the command line into the YAML files to read, in a stable order. */
export function resolveConfigFiles(paths: readonly string[], cwd = process.cwd()): { files: string[]; diagnostics: Diagnostic[]; roots: Map<string, string> } {
  const diagnostics: Diagnostic[] = [];
  const roots = new Map<string, string>();
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
      return { files: [], diagnostics, roots };
    }
    // Both plumb.yaml and plumb.yml: reading one would silently ignore the other.
    const both = DEFAULT_NAMES.slice(0, 2).filter((n) => exists(path.resolve(cwd, n)));
    if (both.length > 1) {
      diagnostics.push({ severity: 'error', code: 'PLUMB_CONFIG_AMBIGUOUS', summary: `Both ${both.join(' and ')} exist in ${cwd}; plumb would read one and ignore the other`, suggestion: 'merge them into one file (or a plumb/ directory), or name the one to read: `plumb validate plumb.yaml`' });
      return { files: [], diagnostics, roots };
    }
    inputs = [found];
  }
  const files: string[] = [];
  for (const p of inputs) {
    const abs = path.resolve(cwd, p);
    let st;
    try {
      st = statSync(abs);
    } catch (err) {
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
      diagnostics.push({
        severity: 'error',
        code: missing ? 'PLUMB_CONFIG_NOT_FOUND' : 'PLUMB_CONFIG_UNREADABLE',
        summary: missing ? `Configuration path "${p}" does not exist` : `Cannot read configuration path "${p}": ${fileErrorSentence(err)}`,
        suggestion: 'check the path; plumb reads a YAML file or a directory of YAML files',
      });
      continue;
    }
    if (st.isDirectory()) {
      let found: string[];
      try {
        found = walkYaml(abs);
      } catch (err) {
        diagnostics.push({
          severity: 'error',
          code: 'PLUMB_CONFIG_UNREADABLE',
          summary: `Cannot read directory "${p}": ${fileErrorSentence(err)}`,
          suggestion: 'check the permissions of the directory and the ones inside it',
        });
        continue;
      }
      if (found.length === 0) {
        diagnostics.push({
          severity: 'error',
          code: 'PLUMB_CONFIG_NOT_FOUND',
          summary: `Directory "${p}" holds no .yaml or .yml file`,
        });
      }
      const root = configRoot(abs, cwd);
      for (const f of found) if (!roots.has(f)) roots.set(f, root);
      files.push(...found);
    } else {
      if (!roots.has(abs)) roots.set(abs, configRoot(abs, cwd));
      files.push(abs);
    }
  }
  return { files: [...new Set(files)], diagnostics, roots };
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
  /** An instance's value inherited from `defaults:` → the default's pointer (a whole subtree). */
  readonly #aliases = new Map<string, string>();

  /** @internal `pointer` and everything beneath it were written at `source` (an inherited default). */
  alias(pointer: string, source: string): void {
    this.#aliases.set(pointer, source);
  }

  /** The pointer where the value at `pointer` was written: itself, or its default's. */
  written(pointer: string): string {
    if (this.#aliases.size === 0) return pointer;
    for (let p = pointer; ; p = p.slice(0, p.lastIndexOf('/'))) {
      const source = this.#aliases.get(p);
      if (source !== undefined) return source + pointer.slice(p.length);
      if (p === '') return pointer;
    }
  }

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
    const f = this.#owner.get(this.written(pointer));
    return f === undefined ? undefined : this.#files[f]?.file;
  }

  /** Index of the file that defined `pointer` first. */
  ownerOf(pointer: string): number | undefined {
    return this.#owner.get(this.written(pointer));
  }

  get(pointer: string): NodeLocation | undefined {
    const at = this.written(pointer);
    const f = this.#owner.get(at);
    return f === undefined ? undefined : this.in(f, at);
  }

  /** The location of `pointer` in one particular file (for the second of two definitions). */
  in(fileIndex: number, pointer: string): NodeLocation | undefined {
    const f = this.#files[fileIndex];
    if (!f) return undefined;
    const raw = positionsOf(f).get(this.written(pointer));
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
  // The same bounds as the fast path: a file is only located here once js-yaml's copy stayed
  // within them, but this walk must not be the one that expands a bomb either.
  let aliases = 0;
  let expanded = 0;
  let inAlias = 0;
  const walk = (node: YamlNode | null, pointer: string, key: [number, number] | undefined, into: Map<string, RawLocation>): void => {
    if (node === null) return;
    if (inAlias > 0 && ++expanded > ALIAS_LIMITS.nodes) return;
    into.set(pointer, key ? { key, value: range(node) } : { value: range(node) });
    if (isAlias(node)) {
      // The value is the anchor's, but its place is where the alias is used.
      const target = node.resolve(doc);
      if (!target || ++aliases > ALIAS_LIMITS.aliases) return;
      const own = new Map<string, RawLocation>();
      inAlias++;
      walk(target as YamlNode, pointer, key, own);
      inAlias--;
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
export function loadSources(files: readonly string[], opts: LoadOptions = {}, roots?: ReadonlyMap<string, string>): LoadedSources {
  return loadDocuments(files.map((abs) => ({ abs, root: roots?.get(abs) })), opts);
}

/**
 * A configuration document: a file to read, or text another front-end produced (a CDKTF app's
 * resources), shown as `file` and resolving relative paths against the directory of `abs`.
 */
export interface ConfigDocument {
  readonly abs: string;
  readonly file?: string;
  readonly text?: string;
  /** Its configuration root (a real path); default: {@link LoadOptions.root}, else found from `abs`. */
  readonly root?: string;
}

/** {@link loadSources} for documents that may already be in memory. */
export function loadDocuments(docs: readonly ConfigDocument[], opts: LoadOptions = {}): LoadedSources {
  const cwd = opts.cwd ?? process.cwd();
  const env = opts.env ?? process.env;
  const texts = new Map<string, string>();
  const locations = new LocationIndex();
  const diagnostics: Diagnostic[] = [];
  const pending: PendingDiagnostic[] = [];
  const secrets = new SecretRegistry();
  const reported = new ReportedPointers();
  const defaults = new DefaultsOrigins();
  const data: Record<string, unknown> = {};
  const shown: string[] = [];
  const roots = new Map<string, FileRoots>();
  const secretRoots = secretRootsFrom(env);

  for (const doc of docs) {
    const abs = doc.abs;
    const file = doc.file ?? displayName(abs, cwd);
    shown.push(file);
    const fileRoots: FileRoots = { root: doc.root ?? opts.root ?? configRoot(abs, cwd), secretRoots };
    roots.set(file, fileRoots);
    let bytes: Buffer;
    try {
      bytes = doc.text === undefined ? readLocalFile(abs, 'config', fileRoots) : Buffer.from(doc.text, 'utf8');
    } catch (err) {
      const refused = err instanceof LocalFileError && err.code !== 'EISDIR';
      diagnostics.push({
        severity: 'error',
        code: refused ? 'PLUMB_LOCAL_FILE_REFUSED' : 'PLUMB_CONFIG_UNREADABLE',
        summary: `${refused ? 'Refused to read' : 'Cannot read'} ${file}: ${fileErrorSentence(err)}`,
        suggestion: refused ? 'keep configuration files inside the configuration root, as regular files (docs/config.md#local-files)' : 'check the path and its permissions',
        location: { file, line: 1, column: 1 },
      });
      continue;
    }
    const encoding = foreignEncoding(bytes);
    if (encoding) {
      diagnostics.push({
        severity: 'error',
        code: 'PLUMB_CONFIG_ENCODING',
        summary: `${file} is encoded as ${encoding}; plumb reads configuration files as UTF-8`,
        suggestion: `save the file as UTF-8, e.g. \`iconv -f ${encoding.replace(/ .*/, '')} -t UTF-8\``,
        location: { file, line: 1, column: 1 },
      });
      continue;
    }
    if (!isShowableText(bytes)) {
      // Not text: none of its bytes may reach a code frame (nor a terminal).
      diagnostics.push({
        severity: 'error',
        code: 'PLUMB_CONFIG_ENCODING',
        summary: `${file} is not UTF-8 text (it holds invalid UTF-8 or control characters); plumb reads configuration files as UTF-8 text`,
        suggestion: 'check that the file is the YAML file you meant; save it as UTF-8 text',
        location: { file, line: 1, column: 1 },
      });
      continue;
    }
    let text = bytes.toString('utf8');
    // A byte order mark is not content: dropping it keeps line 1's columns right.
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    texts.set(file, text);
    const source: SourceFile = { file, abs, text };
    const fileIndex = locations.addFile(source);
    // Anchors are rare in configurations; a file that has one is measured before it is expanded.
    const expansion = ANCHOR.test(text) ? aliasExpansionDiagnostic(source) : undefined;
    if (expansion) {
      diagnostics.push(expansion);
      continue;
    }
    let parsed: unknown;
    try {
      // The fast path: js-yaml (YAML 1.2 core schema; duplicate keys are errors).
      parsed = jsYaml.load(text, { schema: jsYaml.CORE_SCHEMA, filename: file });
    } catch (err) {
      diagnostics.push(...syntaxDiagnostics(source, err));
      continue;
    }
    const pointers: string[] = [];
    const ctx: WalkContext = { file, abs, env, secrets, pending, fileIndex, pointers, reported, aliases: newAliasBudget(), roots: fileRoots, unavailableSecrets: opts.unavailableSecrets === true };
    let value: unknown;
    try {
      value = fromYaml(parsed, '', ctx);
    } catch (err) {
      if (!(err instanceof AliasLimitExceeded)) throw err;
      // Nothing of this file is used: its pending diagnostics would point into the expansion.
      pending.splice(0, pending.length, ...pending.filter((d) => d.fileIndex !== fileIndex));
      diagnostics.push(aliasExpansionDiagnostic(source, true)!);
      continue;
    }
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
  inheritDefaults(data, locations, secrets, defaults, pending);
  registerTokenSecrets(data, env, secrets);
  const selectors = extractSelectors(data, locations, diagnostics);
  for (const { fileIndex, pointer, on, ...d } of pending) {
    const l = locations.in(fileIndex, pointer);
    diagnostics.push({ ...d, pointer, location: on === 'key' ? (l?.key ?? l?.value) : l?.value });
  }
  return { data, diagnostics, texts, locations, secrets, files: shown, roots, reported, defaults, ...(selectors.size > 0 && { selectors }) };
}

/**
 * The instance tokens are secrets though the configuration never holds them: the value of every
 * variable a `token_env` names, and PLUMB_TOKEN, are masked in every output like interpolated values.
 */
function registerTokenSecrets(data: Record<string, unknown>, env: NodeJS.ProcessEnv, secrets: SecretRegistry): void {
  const names = new Set(['PLUMB_TOKEN']);
  if (isPlainObject(data.instances)) {
    for (const inst of Object.values(data.instances)) if (isPlainObject(inst) && typeof inst.token_env === 'string') names.add(inst.token_env);
  }
  for (const name of names) {
    const value = env[name];
    if (typeof value === 'string' && value !== '') secrets.add(value);
  }
}

/**
 * Syntax diagnostics for a file js-yaml refused, one per problem: an unclosed quote or bracket is
 * reported once, where it opens (the parser only notices at the end of the file); otherwise the
 * first error `yaml` finds (the ones after it are mostly the same problem seen again), plus every
 * duplicate key (each is a problem of its own). Messages are plumb's sentences, not the parsers'.
 */
function syntaxDiagnostics(f: SourceFile, fastError: unknown): Diagnostic[] {
  const doc = parseWithPositions(f);
  const lc = lineCounterOf(f);
  const at = (pos: readonly [number, number]): SourceLocation => {
    const start = lc.linePos(pos[0]);
    const end = lc.linePos(pos[1]);
    return { file: f.file, line: start.line, column: start.col, endLine: end.line, endColumn: end.col };
  };
  const unclosed = doc.errors.length > 0 || /end of the stream|unexpected end/.test(String((fastError as { reason?: string }).reason)) ? findUnclosed(f.text) : undefined;
  if (unclosed) {
    const what = UNCLOSED[unclosed.char]!;
    return [
      {
        severity: 'error',
        code: 'PLUMB_YAML_SYNTAX',
        summary: `This ${what.name} is never closed`,
        detail: `Everything after it, to the end of the file, is read as part of it.`,
        suggestion: `add the closing ${what.close}`,
        location: at([unclosed.offset, unclosed.offset + 1]),
      },
    ];
  }
  if (doc.errors.length === 0) {
    // The two parsers disagree; js-yaml's word stands, at its position.
    const mark = (fastError as { mark?: { line: number; column: number } }).mark;
    const reason = (fastError as { reason?: string }).reason ?? String(fastError);
    const dup = /duplicated mapping key/.test(reason);
    const alias = /unidentified alias "([^"]*)"/.exec(reason);
    if (alias) {
      return [
        {
          severity: 'error',
          code: 'PLUMB_YAML_SYNTAX',
          summary: `The alias *${alias[1]} refers to no anchor &${alias[1]} defined before it`,
          suggestion: 'define the anchor first, or write the value out',
          location: mark ? { file: f.file, line: mark.line + 1, column: mark.column + 1 } : undefined,
        },
      ];
    }
    return [
      {
        severity: 'error',
        code: dup ? 'PLUMB_YAML_DUPLICATE_KEY' : 'PLUMB_YAML_SYNTAX',
        summary: dup ? 'The same key appears twice in one mapping' : `This is not valid YAML: ${reason}`,
        suggestion: dup ? 'remove or rename one of the two keys' : 'check the indentation and quoting at this position',
        location: mark ? { file: f.file, line: mark.line + 1, column: mark.column + 1 } : undefined,
      },
    ];
  }
  const dups = doc.errors.filter((e) => e.code === 'DUPLICATE_KEY');
  const other = doc.errors.find((e) => e.code !== 'DUPLICATE_KEY');
  return [...(other ? [other] : []), ...dups].map((e) => {
    const dup = e.code === 'DUPLICATE_KEY';
    const own = SYNTAX_SENTENCES[e.code];
    return {
      severity: 'error' as const,
      code: dup ? 'PLUMB_YAML_DUPLICATE_KEY' : 'PLUMB_YAML_SYNTAX',
      summary: dup ? 'The same key appears twice in one mapping' : (own?.[0] ?? `This is not valid YAML: ${firstSentence(e.message)}`),
      detail: dup ? 'YAML keeps only one of them; plumb refuses to guess which you meant.' : undefined,
      suggestion: dup ? 'remove or rename one of the two keys' : (own?.[1] ?? 'check the indentation and quoting at this position'),
      location: at(e.pos),
    };
  });
}

/** plumb's sentence and fix for the syntax errors people make, by `yaml`'s error code. */
const SYNTAX_SENTENCES: Partial<Record<string, readonly [string, string]>> = {
  TAB_AS_INDENT: ['A tab is used for indentation; YAML indents with spaces only', 'replace the tab with spaces'],
  BAD_INDENT: ['This line is not indented like the lines around it', 'indent it like its siblings (the keys of one mapping start in the same column)'],
  MULTILINE_IMPLICIT_KEY: ['A key runs over more than one line; a ":" or a closing quote is probably missing', 'put the key and its colon on one line'],
  BLOCK_AS_IMPLICIT_KEY: ['A mapping cannot start on the same line as its key ("a: b: c")', 'put the inner key on its own, more indented line, or quote the value if it contains ": "'],
  BAD_DQ_ESCAPE: ['This double-quoted text has an escape sequence YAML does not know', 'write a backslash as \\\\, or use single quotes'],
  BAD_ALIAS: ['This alias (*name) refers to no anchor (&name) defined before it', 'define the anchor first, or write the value out'],
  MULTIPLE_DOCS: ['This file holds more than one YAML document (---)', 'split it into one file per document'],
  UNEXPECTED_TOKEN: ['This character cannot start a value here', 'quote the value'],
  BAD_SCALAR_START: ['A plain value cannot start with this character', 'quote the value'],
  MISSING_CHAR: ['A closing character is missing before this point', 'close the quote, ] or } that is still open'],
};

const UNCLOSED: Record<string, { name: string; close: string }> = {
  '"': { name: 'double quote', close: '"' },
  "'": { name: 'single quote', close: "'" },
  '[': { name: 'list ([)', close: ']' },
  '{': { name: 'mapping ({)', close: '}' },
};

/**
 * The opening quote or bracket that is never closed, if any. A small scanner over the text that
 * knows just enough YAML for this: comments, quoted and block scalars, flow collections, and
 * where a value can start (a quote inside a plain word like `it's` opens nothing).
 */
export function findUnclosed(text: string): { char: string; offset: number } | undefined {
  const stack: { char: string; offset: number }[] = [];
  let i = 0;
  let atValueStart = true;
  let lineIndent = 0;
  let blockIndent = -1; // inside a block scalar: its parent's indentation
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\n') {
      i++;
      let n = 0;
      while (text[i + n] === ' ') n++;
      const blank = text[i + n] === '\n' || text[i + n] === '\r' || i + n >= text.length;
      if (blockIndent >= 0) {
        if (blank || n > blockIndent) {
          i += n;
          while (i < text.length && text[i] !== '\n') i++;
          continue;
        }
        blockIndent = -1;
      }
      lineIndent = n;
      atValueStart = true;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    if (c === '#' && (i === 0 || /\s/.test(text[i - 1]!))) {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if ((c === '"' || c === "'") && atValueStart) {
      const open = i++;
      let closed = false;
      while (i < text.length) {
        if (c === '"' && text[i] === '\\') i += 2;
        else if (text[i] === c && c === "'" && text[i + 1] === "'") i += 2;
        else if (text[i] === c) {
          closed = true;
          i++;
          break;
        } else i++;
      }
      if (!closed) return { char: c, offset: open };
      atValueStart = false;
      continue;
    }
    if ((c === '[' || c === '{') && (atValueStart || stack.length > 0)) {
      stack.push({ char: c, offset: i++ });
      atValueStart = true;
      continue;
    }
    if ((c === ']' || c === '}') && stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if ((top.char === '[') !== (c === ']')) return top;
      stack.pop();
      i++;
      atValueStart = false;
      continue;
    }
    if ((c === '|' || c === '>') && atValueStart && stack.length === 0) {
      blockIndent = lineIndent;
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if (c === ',' && stack.length > 0) {
      atValueStart = true;
      i++;
      continue;
    }
    if ((c === ':' || c === '-' || c === '?') && (i + 1 >= text.length || /[\s,\]\}]/.test(text[i + 1]!))) {
      atValueStart = true;
      i++;
      continue;
    }
    atValueStart = false;
    i++;
  }
  return stack.at(-1);
}

function firstSentence(s: string): string {
  const line = s.split('\n')[0] ?? s;
  return line.replace(/ at line \d+, column \d+.*$/, '');
}

function displayName(abs: string, cwd: string): string {
  const rel = path.relative(cwd, abs);
  return rel.startsWith('..') || path.isAbsolute(rel) ? abs : rel.split(path.sep).join('/');
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
  readonly reported: ReportedPointers;
  readonly aliases: AliasBudget;
  readonly roots: FileRoots;
  readonly unavailableSecrets: boolean;
}

/**
 * Copies js-yaml's output into fresh plain data, interpolating strings and noting every pointer.
 * js-yaml returns an aliased value as the same object, so the copy is where aliases get expanded:
 * it counts the expansion and stops at the bounds (see {@link ALIAS_LIMITS}).
 */
function fromYaml(v: unknown, pointer: string, ctx: WalkContext): unknown {
  ctx.pointers.push(pointer);
  const budget = ctx.aliases;
  if (budget.depth > 0 && ++budget.nodes > ALIAS_LIMITS.nodes) throw new AliasLimitExceeded();
  if (v === undefined || v === null) return null;
  if (typeof v === 'object' && !(v instanceof Date)) {
    const again = budget.seen.has(v);
    if (again && ++budget.aliases > ALIAS_LIMITS.aliases) throw new AliasLimitExceeded();
    budget.seen.add(v);
    if (again) budget.depth++;
    try {
      if (Array.isArray(v)) return v.map((item, i) => fromYaml(item, joinPointer(pointer, i), ctx));
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        const child = joinPointer(pointer, k);
        if (k === '<<') {
          mergeKey(child, pointer, ctx);
          continue;
        }
        if (k.length > MAX_KEY_LENGTH) {
          longKey(k, child, ctx);
          continue;
        }
        if (invisibleIn(k)) {
          invisibleKey(k, child, ctx);
          continue;
        }
        out[k] = fromYaml(x, child, ctx);
      }
      return out;
    } finally {
      if (again) budget.depth--;
    }
  }
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  if (typeof v === 'number') checkNumber(v, pointer, ctx);
  if (typeof v === 'string' && v.includes('${')) return interpolate(v, pointer, ctx, interpolationAllowed(pointer));
  return v;
}

/** One error for a problem found while reading a value; later checks stay silent about it. */
function reportAt(ctx: WalkContext, d: Omit<PendingDiagnostic, 'fileIndex'>): void {
  ctx.pending.push({ ...d, fileIndex: ctx.fileIndex });
  ctx.reported.addSubtree(d.pointer);
}

/**
 * Merge keys (`<<: *defaults`) are not part of YAML 1.2 and plumb does not support them: a merged
 * key would have no place of its own in the file to report problems at, and which of two values
 * wins would be a rule to learn. Write the keys out, or alias a whole value.
 */
function mergeKey(pointer: string, mapping: string, ctx: WalkContext): void {
  reportAt(ctx, {
    severity: 'error',
    code: 'PLUMB_YAML_MERGE_KEY',
    summary: 'YAML merge keys (<<) are not supported',
    detail: 'plumb reads YAML 1.2, where "<<" is an ordinary key; merged keys would have no place in the file of their own to report problems at.',
    suggestion: 'write the keys out here, or use an alias for a whole value (key: *anchor)',
    pointer,
    on: 'key',
  });
  // The mapping lacks what the merge would have brought: do not also report it as incomplete.
  ctx.reported.addExact(mapping);
}

/**
 * No key plumb knows is longer than this (a setting name, a group path, a file path in a
 * repository); a longer key is refused at once, before any check compares it with the known
 * names (a 1 MB key made the did-you-mean search take minutes).
 */
export const MAX_KEY_LENGTH = 256;

function longKey(key: string, pointer: string, ctx: WalkContext): void {
  reportAt(ctx, {
    severity: 'error',
    code: 'PLUMB_KEY_TOO_LONG',
    summary: `A key of ${key.length.toLocaleString('en')} characters ("${key.slice(0, 40)}…") is longer than the ${MAX_KEY_LENGTH} plumb reads`,
    detail: 'No setting, group, project or file path plumb manages has a longer name; the key and its value were not read.',
    suggestion: 'check that this key is what you meant (a value written as a key, a missing colon or line break)',
    pointer,
    on: 'key',
  });
}

/** Characters that do not show, or look like a plain space, in an editor. */
const INVISIBLE = /[\u00A0\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180E\u2000-\u200F\u202A-\u202F\u205F-\u2064\u2066-\u206F\u3000\u3164\uFEFF]/;
const INVISIBLE_NAMES: Record<number, string> = {
  0x00a0: 'NO-BREAK SPACE',
  0x00ad: 'SOFT HYPHEN',
  0x200b: 'ZERO WIDTH SPACE',
  0x200c: 'ZERO WIDTH NON-JOINER',
  0x200d: 'ZERO WIDTH JOINER',
  0x200e: 'LEFT-TO-RIGHT MARK',
  0x200f: 'RIGHT-TO-LEFT MARK',
  0x2060: 'WORD JOINER',
  0x202f: 'NARROW NO-BREAK SPACE',
  0x3000: 'IDEOGRAPHIC SPACE',
  0xfeff: 'BYTE ORDER MARK',
};

/** The first invisible character of `s`, as `U+200B (ZERO WIDTH SPACE)`, if any. */
export function invisibleIn(s: string): string | undefined {
  const m = INVISIBLE.exec(s);
  if (!m) return undefined;
  const cp = m[0].codePointAt(0)!;
  const name = INVISIBLE_NAMES[cp];
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}${name ? ` (${name})` : ''}`;
}

function invisibleKey(key: string, pointer: string, ctx: WalkContext): void {
  const which = invisibleIn(key)!;
  const shown = key.replace(new RegExp(INVISIBLE.source, 'g'), (c) => `<U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`);
  reportAt(ctx, {
    severity: 'error',
    code: 'PLUMB_INVISIBLE_CHARACTER',
    summary: `The key "${shown}" contains an invisible character ${which}`,
    detail: 'It looks like a key plumb knows but is a different key. Such characters come from copying text out of web pages, chats or word processors; YAML indents with plain spaces only.',
    suggestion: 'delete the key and the spaces before it, and type them again',
    pointer,
    on: 'key',
  });
}

/**
 * A number must reach the instance as written: YAML's .inf and .nan have no JSON form, and an
 * integer beyond 2^53 - 1 has already been rounded when it was read.
 */
function checkNumber(v: number, pointer: string, ctx: WalkContext): void {
  if (!Number.isFinite(v)) {
    const written = Number.isNaN(v) ? '.nan (not a number)' : v > 0 ? '.inf (infinity)' : '-.inf (minus infinity)';
    reportAt(ctx, {
      severity: 'error',
      code: 'PLUMB_NUMBER_NOT_FINITE',
      summary: `${written} is not a value the instance accepts`,
      detail: 'YAML reads .inf and .nan as special numbers; the interface takes finite numbers only.',
      suggestion: 'write a finite number (for "no limit", see the setting in docs/settings.md: often 0)',
      pointer,
    });
  } else if (Math.abs(v) > Number.MAX_SAFE_INTEGER) {
    reportAt(ctx, {
      severity: 'error',
      code: 'PLUMB_NUMBER_UNSAFE',
      summary: 'This number is too large to be sent exactly',
      detail: `Numbers beyond ±${Number.MAX_SAFE_INTEGER} (2^53 - 1) are rounded when read; plumb refuses to send a value other than the one written.`,
      suggestion: `use a number between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`,
      pointer,
    });
  }
}

/**
 * Bounds on alias expansion per file, against "billion laughs" documents (a few lines of nested
 * aliases that expand to billions of nodes). Counted as the aliases would expand: an alias of a
 * list that itself holds ten aliases counts eleven. A hand-written configuration stays far below.
 */
export const ALIAS_LIMITS = { aliases: 10_000, nodes: 100_000, chars: 1_000_000 } as const;

interface AliasBudget {
  /** Objects already copied once: meeting one again is an alias being expanded. */
  readonly seen: Set<object>;
  aliases: number;
  /** Nodes copied inside alias expansions. */
  nodes: number;
  /** How many alias expansions the copy is inside of. */
  depth: number;
}

function newAliasBudget(): AliasBudget {
  return { seen: new Set(), aliases: 0, nodes: 0, depth: 0 };
}

class AliasLimitExceeded extends Error {}

/**
 * The error for a file whose aliases expand beyond the bounds, located at the first alias (in the
 * order of the file) at which the expansion crosses them; `undefined` when it stays within them
 * (unless `always`). Found on `yaml`'s unexpanded document: each anchored node's expanded size is
 * computed once, so this costs the size of the file. Counts what js-yaml's copy cannot see: an
 * alias of a long string repeated many times.
 */
function aliasExpansionDiagnostic(f: SourceFile, always = false): Diagnostic | undefined {
  const doc = parseWithPositions(f);
  const { isAlias, isMap, isSeq, isPair, isScalar } = yamlLib();
  interface Size {
    nodes: number;
    aliases: number;
    chars: number;
  }
  const memo = new Map<unknown, Size>();
  const sizeOf = (node: unknown): Size => {
    const known = memo.get(node);
    if (known) return known;
    memo.set(node, { nodes: 1, aliases: 0, chars: 0 }); // a cycle counts as one node
    let out: Size = { nodes: 1, aliases: 0, chars: isScalar(node) ? String(node.value).length : 0 };
    if (isAlias(node)) {
      const t = sizeOf(node.resolve(doc));
      out = { nodes: t.nodes, aliases: 1 + t.aliases, chars: t.chars };
    } else if (isMap(node) || isSeq(node)) {
      for (const item of node.items) {
        for (const part of isPair(item) ? [item.key, item.value] : [item]) {
          if (part === null || typeof part !== 'object') continue;
          const s = sizeOf(part);
          out.nodes += s.nodes;
          out.aliases += s.aliases;
          out.chars += s.chars;
        }
      }
    }
    memo.set(node, out);
    return out;
  };
  const total: Size = { nodes: 0, aliases: 0, chars: 0 };
  let at: YamlNode | undefined;
  const walk = (node: unknown): void => {
    if (at || node === null || typeof node !== 'object') return;
    if (isAlias(node)) {
      const s = sizeOf(node);
      total.aliases += s.aliases;
      total.nodes += s.nodes;
      total.chars += s.chars;
      if (total.aliases > ALIAS_LIMITS.aliases || total.nodes > ALIAS_LIMITS.nodes || total.chars > ALIAS_LIMITS.chars) at = node;
    } else if (isMap(node) || isSeq(node)) {
      for (const item of node.items) {
        if (isPair(item)) {
          walk(item.key);
          walk(item.value);
        } else walk(item);
      }
    }
  };
  walk(doc.contents);
  if (!at && !always) return undefined;
  const lc = lineCounterOf(f);
  const start = at?.range ? lc.linePos(at.range[0]) : { line: 1, col: 1 };
  const end = at?.range ? lc.linePos(at.range[1]) : undefined;
  const n = (x: number) => x.toLocaleString('en');
  return {
    severity: 'error',
    code: 'PLUMB_YAML_ALIAS_LIMIT',
    summary: 'YAML aliases here expand the document beyond what plumb reads',
    detail: `plumb expands at most ${n(ALIAS_LIMITS.aliases)} aliases, ${n(ALIAS_LIMITS.nodes)} aliased values and ${n(ALIAS_LIMITS.chars)} aliased characters per file (nested aliases count as often as they are expanded); nothing of this file was used.`,
    suggestion: 'write the values out, or alias fewer, smaller values',
    location: { file: f.file, line: start.line, column: start.col, ...(end && { endLine: end.line, endColumn: end.col }) },
  };
}

/** An anchor (`&name`) where a value can start: only such files can expand aliases at all. */
const ANCHOR = /(?:^|[\s[{,:?-])&[^\s,[\]{}]/m;

const REFERENCE = /^\$\{(env|file):([^}]*)\}/;
/** `${env:NAME:-}`: the value may be empty (or unset); the only default plumb knows is the empty one. */
const MAY_BE_EMPTY = ':-';

/**
 * `${env:NAME}` and `${file:path}` (relative to the file that says it); `$${` writes a literal `${`.
 * Any other `${` is an error rather than text, so a typo never ships a literal placeholder.
 * Anything interpolated is a secret from here on: it is masked in every output.
 */
function interpolate(raw: string, pointer: string, ctx: WalkContext, allowed: boolean): string {
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
    if (!allowed) {
      // Nothing is read: the variable or file never reaches the value.
      interpolationRefused(m[0], pointer, ctx);
      return '';
    }
    const kind = m[1]!;
    let name = m[2]!.trim();
    const mayBeEmpty = name.endsWith(MAY_BE_EMPTY);
    if (mayBeEmpty) name = name.slice(0, -MAY_BE_EMPTY.length).trim();
    i = at + m[0].length;
    if (kind === 'env' && name.includes(MAY_BE_EMPTY)) {
      reportAt(ctx, {
        severity: 'error',
        code: 'PLUMB_INTERPOLATION_SYNTAX',
        summary: `"${m[0]}" gives a default value; plumb knows only an empty one`,
        detail: 'A default written in the configuration is not a secret; ${env:NAME:-} only allows the variable to be empty or unset.',
        suggestion: `write \${env:${name.slice(0, name.indexOf(MAY_BE_EMPTY))}:-} and set the value in the environment`,
        pointer,
      });
      failed = true;
      continue;
    }
    const value =
      kind === 'env'
        ? readEnv(name, m[0], pointer, ctx, mayBeEmpty)
        : readFileRef(name, pointer, ctx, mayBeEmpty);
    if (value === undefined) {
      failed = true; // keep going: every missing reference is reported
      continue;
    }
    if (value === '' && !mayBeEmpty) {
      reportAt(ctx, {
        severity: 'error',
        code: kind === 'env' ? 'PLUMB_ENV_EMPTY' : 'PLUMB_FILE_EMPTY',
        summary: kind === 'env' ? `Environment variable ${name} is set but empty` : `"${name}" is empty`,
        detail: `An empty value read from \${${kind}:${name}} would be written to the instance as "" (over a secret, too). A CI variable that is protected is empty on an unprotected branch.`,
        suggestion: `give ${kind === 'env' ? name : 'the file'} a value, or write \${${kind}:${name}:-} if an empty value is intended`,
        pointer,
      });
      failed = true;
      continue;
    }
    if (value.length > 0 && value.length < MIN_SECRET_LENGTH) {
      reportAt(ctx, {
        severity: 'error',
        code: 'PLUMB_SECRET_TOO_SHORT',
        summary: `The value of ${m[0]} is shorter than ${MIN_SECRET_LENGTH} characters`,
        detail: `Every interpolated value is a secret, masked wherever it appears in output; a value of ${value.length} character(s) cannot be masked without masking ordinary text too, so it would be shown.`,
        suggestion: 'a value that short is not a secret: write it in the configuration itself; a real secret is longer (give the variable or file its whole value)',
        pointer,
      });
      failed = true;
      continue;
    }
    secret = true;
    ctx.secrets.add(value);
    out += value;
  }
  if (secret) ctx.secrets.markPointer(pointer);
  return failed ? '' : out;
}

/** Secrets shorter than this are refused: they cannot be masked in free text (secrets.ts). */
const MIN_SECRET_LENGTH = 4;

/** Whether `${…}` may be written at `pointer`: the kinds' places say (KindPointer.interpolation). */
function interpolationAllowed(pointer: string): boolean {
  const segs = asInstanceSegments(splitPointer(pointer));
  return KIND_POINTERS.some((k) => {
    if (!k.interpolation || !matchesPattern(k.pattern, segs)) return false;
    const rest = segs.slice(k.pattern.length);
    return k.interpolation.some((sub) => matchesPattern(sub, rest));
  });
}

const CONNECTION_KEYS = new Set(['url', 'token_env', 'token', 'ca_bundle', 'allow_insecure_http', 'settings_verify_seconds', 'allow_risky']);

function interpolationRefused(reference: string, pointer: string, ctx: WalkContext): void {
  const segs = asInstanceSegments(splitPointer(pointer));
  const connection = segs[0] === 'instances' && segs.length >= 3 && CONNECTION_KEYS.has(segs[2]!);
  reportAt(ctx, {
    severity: 'error',
    code: 'PLUMB_INTERPOLATION_NOT_ALLOWED',
    summary: `${capitalized(describePointer(pointer))} cannot be interpolated (${reference.length > 40 ? reference.slice(0, 40) + '…' : reference})`,
    detail: connection
      ? 'The connection (url, token_env, ca_bundle, allow_insecure_http, …) is written out in the configuration: a merge request that could interpolate it could send the token, and any variable or file, to another host. Which instances the token may go to is set outside the configuration (docs/config.md#where-the-token-may-go).'
      : 'Only secret values (settings, a repository file\'s content) are read from the environment or files. This value becomes part of a request (its path or query: a branch, a group, a path) or of what plumb does locally, so a variable or file read into it would travel to the instance, into its logs, or elsewhere. Nothing was read.',
    suggestion: connection
      ? 'write the value itself; for one configuration per environment, use a directory per environment (docs/config.md#shared-defaults)'
      : 'write the value itself (for `$` followed by `{`, write $${)',
    pointer,
  });
}

function capitalized(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Where an unset variable may stand for an unavailable secret: an application setting's value. */
const SETTING_POINTER = /^\/(?:instances\/[^/]+|defaults)\/settings\/[^/]+$/;

function readEnv(name: string, match: string, pointer: string, ctx: WalkContext, mayBeEmpty: boolean): string | undefined {
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
  if (value === undefined && mayBeEmpty) return '';
  if (value === undefined && ctx.unavailableSecrets && SETTING_POINTER.test(pointer)) {
    ctx.pending.push({
      severity: 'info',
      code: 'PLUMB_SECRET_UNAVAILABLE',
      summary: `Environment variable ${name} is not set in this pipeline: this setting is not compared here`,
      detail: `--unavailable-secrets skip: \${env:${name}} is taken for a secret this pipeline is not given (a protected variable in a merge-request pipeline). Apply still needs it.`,
      pointer,
      fileIndex: ctx.fileIndex,
    });
    return UNAVAILABLE_SECRET;
  }
  if (value === undefined) {
    ctx.reported.addSubtree(pointer);
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

/**
 * The file's text without a byte order mark (an editor's encoding mark is not part of the secret)
 * and without one final line break.
 */
function readFileRef(name: string, pointer: string, ctx: WalkContext, mayBeEmpty: boolean): string | undefined {
  const target = path.resolve(path.dirname(ctx.abs), name);
  try {
    return readLocalFile(target, 'secret', ctx.roots).toString('utf8').replace(/^\uFEFF/, '').replace(/\r?\n$/, '');
  } catch (err) {
    if (mayBeEmpty && (err as NodeJS.ErrnoException).code === 'ENOENT') return '';
    const refused = err instanceof LocalFileError && err.code !== 'EISDIR';
    ctx.reported.addSubtree(pointer);
    ctx.pending.push({
      severity: 'error',
      code: refused ? 'PLUMB_LOCAL_FILE_REFUSED' : 'PLUMB_FILE_MISSING',
      summary: `${refused ? 'Refused to read' : 'Cannot read'} "${name}" for \${file:${name}}: ${fileErrorSentence(err)}`,
      detail: `Paths are relative to the file that references them (${path.dirname(ctx.file) || '.'}).`,
      suggestion: refused
        ? 'keep the file inside the configuration root as a regular file, or list its directory in PLUMB_FILE_ROOTS (docs/config.md#local-files)'
        : 'check the path, or create the file',
      pointer,
      fileIndex: ctx.fileIndex,
    });
    return undefined;
  }
}

/**
 * The encoding of a file that is not UTF-8 text in a way YAML would misread (a UTF-16 or UTF-32
 * file is mostly null bytes to a UTF-8 reader), from its byte order mark or its null bytes.
 */
function foreignEncoding(b: Buffer): string | undefined {
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xfe && b[2] === 0 && b[3] === 0) return 'UTF-32LE';
  if (b.length >= 4 && b[0] === 0 && b[1] === 0 && b[2] === 0xfe && b[3] === 0xff) return 'UTF-32BE';
  if (b.length >= 2 && b[0] === 0xff && b[1] === 0xfe) return 'UTF-16LE (with a byte order mark)';
  if (b.length >= 2 && b[0] === 0xfe && b[1] === 0xff) return 'UTF-16BE (with a byte order mark)';
  if (b.length >= 2 && b.indexOf(0) >= 0) {
    // No mark: ASCII text in UTF-16 has a null byte beside every character.
    const n = Math.min(b.length, 512) & ~1;
    let even = 0;
    let odd = 0;
    for (let i = 0; i < n; i += 2) {
      if (b[i] === 0) even++;
      if (b[i + 1] === 0) odd++;
    }
    if (odd > n / 4 && even === 0) return 'UTF-16LE';
    if (even > n / 4 && odd === 0) return 'UTF-16BE';
  }
  return undefined;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * How `defaults:` merges into an instance: a map node merges its children key by key (`keys` names
 * a child's own spec, `each` the spec of the others); a `unit` is inherited or overridden whole. The
 * units: a setting, a token, a file, a Pages field, and every other key of a group or a project
 * (`prune_access_tokens`). docs/config.md#shared-defaults says the same for users.
 */
type MergeSpec = 'unit' | { readonly keys?: Readonly<Record<string, MergeSpec>>; readonly each?: MergeSpec };

const EACH_UNIT: MergeSpec = { each: 'unit' };
const INSTANCE_SPEC: MergeSpec = {
  keys: {
    settings: EACH_UNIT,
    groups: { each: { keys: { access_tokens: EACH_UNIT }, each: 'unit' } },
    projects: { each: { keys: { files: EACH_UNIT, pages: EACH_UNIT }, each: 'unit' } },
  },
};
const DEFAULTS_SECTIONS = ['settings', 'groups', 'projects'];

function childSpec(spec: MergeSpec, key: string): MergeSpec {
  return spec === 'unit' ? 'unit' : (spec.keys?.[key] ?? spec.each ?? 'unit');
}

/**
 * Copies what `defaults:` declares into every instance that does not declare it, and removes the
 * block from the data (the schema and the resolvers see each instance whole). An inherited value
 * keeps its default's location (`LocationIndex.alias`) and secrecy; an instance's own value wins.
 */
function inheritDefaults(data: Record<string, unknown>, locations: LocationIndex, secrets: SecretRegistry, origins: DefaultsOrigins, pending: PendingDiagnostic[]): void {
  if (!('defaults' in data)) return;
  const block = data.defaults;
  delete data.defaults;
  const fileOf = (pointer: string) => locations.ownerOf(pointer) ?? 0;
  if (block === null) return;
  if (!isPlainObject(block)) {
    pending.push({
      severity: 'error',
      code: 'PLUMB_DEFAULTS_SHAPE',
      summary: '`defaults` must be a mapping of settings, groups and projects',
      suggestion: 'write `defaults:` with `settings:`, `groups:` or `projects:` under it, as under an instance',
      pointer: '/defaults',
      fileIndex: fileOf('/defaults'),
    });
    return;
  }
  const shared: [string, Record<string, unknown>][] = [];
  for (const [key, value] of Object.entries(block)) {
    const p = joinPointer('/defaults', key);
    if (!DEFAULTS_SECTIONS.includes(key)) {
      pending.push({
        severity: 'error',
        code: 'PLUMB_DEFAULTS_SHAPE',
        summary: `"${key}" cannot be shared in defaults`,
        detail: 'defaults holds settings, groups and projects; the connection (url, token_env, ca_bundle, …) and allow_risky belong to each instance.',
        suggestion: 'move it under each instance that needs it',
        pointer: p,
        fileIndex: fileOf(p),
        on: 'key',
      });
      continue;
    }
    if (value === null) continue;
    if (!isPlainObject(value)) {
      pending.push({
        severity: 'error',
        code: 'PLUMB_DEFAULTS_SHAPE',
        summary: `${key} in defaults must be a mapping`,
        suggestion: `write it as under an instance: \`${key}:\` with one key per ${key === 'settings' ? 'setting' : key === 'groups' ? 'group' : 'project'}`,
        pointer: p,
        fileIndex: fileOf(p),
      });
      continue;
    }
    shared.push([key, value]);
  }
  const instances = data.instances;
  if (shared.length === 0 || !isPlainObject(instances)) return;

  const recordUnits = (spec: MergeSpec, value: unknown, ip: string, dp: string) => {
    if (spec === 'unit' || !isPlainObject(value)) {
      origins.record(ip, dp, 'inherited');
      return;
    }
    for (const [k, v] of Object.entries(value)) recordUnits(childSpec(spec, k), v, joinPointer(ip, k), joinPointer(dp, k));
  };
  const inherit = (target: Record<string, unknown>, key: string, value: unknown, spec: MergeSpec, ip: string, dp: string) => {
    if (!(key in target)) {
      target[key] = structuredClone(value);
      locations.alias(ip, dp);
      for (const s of [...secrets.pointers]) if (s === dp || s.startsWith(dp + '/')) secrets.markPointer(ip + s.slice(dp.length));
      recordUnits(spec, value, ip, dp);
      return;
    }
    const own = target[key];
    // An instance's empty block stays as written (and is reported where it is).
    if (own === null) return;
    if (spec === 'unit' || !isPlainObject(own) || !isPlainObject(value)) {
      origins.record(ip, dp, 'overridden');
      return;
    }
    for (const [k, v] of Object.entries(value)) inherit(own, k, v, childSpec(spec, k), joinPointer(ip, k), joinPointer(dp, k));
  };
  for (const [name, instance] of Object.entries(instances)) {
    if (!isPlainObject(instance)) continue;
    const ip = joinPointer('/instances', name);
    for (const [key, value] of shared) inherit(instance, key, value, childSpec(INSTANCE_SPEC, key), joinPointer(ip, key), joinPointer('/defaults', key));
  }
}

/** `defaults` holds what an instance holds: its places are an instance's, for matching. */
function asInstanceSegments(segs: readonly string[]): readonly string[] {
  return segs[0] === 'defaults' ? ['instances', '(defaults)', ...segs.slice(1)] : segs;
}

function isResourceLevel(pointer: string): boolean {
  const segs = asInstanceSegments(splitPointer(pointer));
  // Maps at these pointers are resources: defined in one place only (see KindPointer.resource).
  return KIND_POINTERS.some((k) => k.resource && k.pattern.length === segs.length && matchesPattern(k.pattern, segs));
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

/** A readable name for a place in the configuration, for messages: the exact key, then its owner. */
export function describePointer(pointer: string): string {
  const segs = splitPointer(pointer);
  if (segs[0] === 'defaults') {
    if (segs.length === 1) return 'the defaults block';
    const inner = describePointer(joinPointer('/instances/(defaults)', ...segs.slice(1)));
    return inner.includes('instance "(defaults)"') ? inner.replace('instance "(defaults)"', 'the defaults block') : `${inner} in defaults`;
  }
  const s = segs;
  if (s[0] !== 'instances' || s.length < 2) return pointer === '' ? 'the configuration' : `"${s.at(-1) ?? pointer}"`;
  const inst = `instance "${s[1]}"`;
  let base: string;
  let used: number;
  const owner = KIND_POINTERS.find((k) => matchesPattern(k.pattern, s));
  if (owner) [base, used] = [owner.describe(s), owner.pattern.length];
  else if ((s[2] === 'groups' || s[2] === 'projects') && s[3] !== undefined) [base, used] = [`${s[2] === 'groups' ? 'group' : 'project'} "${s[3]}"`, 4];
  else if (s.length >= 3) [base, used] = [inst, 2];
  else return inst;
  const rest = s.slice(used);
  if (rest.length === 0) return base;
  const last = rest.at(-1)!;
  if (/^\d+$/.test(last) && rest.length >= 2) return `item ${Number(last) + 1} of "${rest.at(-2)}" of ${base}`;
  return `"${last}" of ${base}`;
}
