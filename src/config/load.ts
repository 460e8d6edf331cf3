/**
 * Loading a configuration: its documents read (files, or text another front-end made), parsed,
 * interpolated and merged, `defaults:` inherited, every value's place recorded. Each concern has its
 * file beside this one: paths.ts (which files), yaml-doc.ts and locations.ts (positions), syntax.ts
 * (unreadable text), values.ts and interpolate.ts (one file's values), aliases.ts, merge.ts,
 * defaults.ts, places.ts (the kinds' places), loading.ts (what they share).
 */
import jsYaml from 'js-yaml';
import type { Diagnostic } from '../diagnostics/index.js';
import { SecretRegistry } from './secrets.js';
import { configRoot, isShowableText, LocalFileError, readLocalFile, secretRootsFrom } from './files.js';
import type { FileRoots } from './files.js';
import { fileErrorSentence } from '../util/file-error.js';
import { extractSelectors } from './selectors.js';
import { checkSelectorBodies } from './selector-checks.js';
import type { Expansion, ListedProjects, SelectorSet } from './selectors.js';
import { displayName } from './paths.js';
import { LocationIndex } from './locations.js';
import type { SourceFile } from './yaml-doc.js';
import { foreignEncoding, syntaxDiagnostics } from './syntax.js';
import { ANCHOR, AliasLimitExceeded, aliasExpansionDiagnostic, newAliasBudget } from './aliases.js';
import { fromYaml } from './values.js';
import { mergeInto } from './merge.js';
import { DefaultsOrigins, inheritDefaults } from './defaults.js';
import { isPlainObject, ReportedPointers } from './loading.js';
import { credentialsOf } from './credentials.js';
import type { PendingDiagnostic, WalkContext } from './loading.js';
import { BUILT_IN_CONFIG_KINDS } from '../resources/config.js';
import type { ConfigKinds } from '../resources/kind-config.js';

export { resolveConfigFiles } from './paths.js';
export { describePointer } from './places.js';
export { LocationIndex } from './locations.js';
export type { NodeLocation } from './locations.js';
export { DefaultsOrigins } from './defaults.js';
export { ReportedPointers } from './loading.js';

/** A selector match the configuration checks failed for alone: left out of the expansion. */
export interface BlockedMatch {
  readonly instance: string;
  readonly container: 'projects' | 'groups';
  /** The selector's key, as written. */
  readonly selector: string;
  readonly match: string;
  readonly diagnostics: readonly Diagnostic[];
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
  readonly expansion?: Pick<Expansion, 'origins' | 'counts'> & {
    /** The projects the selectors' listings returned (engine/selectors.ts), with what they said of each. */
    readonly listed?: ListedProjects;
    /**
     * Matches left out because the configuration checks failed for them alone (engine/selectors.ts;
     * docs/plans.md#blocked-matches): their diagnostics, for the plan to report them as blocked.
     */
    readonly blocked?: readonly BlockedMatch[];
  };
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
  /**
   * The kinds to read the configuration with (a registry's configuration side); default: the
   * built-in kinds. Their places decide merging, interpolation and names; their mounts, `defaults:`.
   */
  readonly kinds?: ConfigKinds;
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
  const kinds = opts.kinds ?? BUILT_IN_CONFIG_KINDS;
  const parsedDocs: { file: string; abs: string; fileIndex: number; fileRoots: FileRoots; source: SourceFile; parsed: unknown }[] = [];

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
      const refused = err instanceof LocalFileError && err.code === 'PLUMB_LOCAL_FILE_REFUSED';
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
    parsedDocs.push({ file, abs, fileIndex, fileRoots, source, parsed });
  }
  // Every document is parsed before any is interpolated: a token_env in a later file protects its
  // variable in an earlier one, and a credential is refused before it is read (./credentials.ts).
  const credentials = credentialsOf(
    parsedDocs.map((d) => d.parsed),
    env,
  );
  for (const { file, abs, fileIndex, fileRoots, source, parsed } of parsedDocs) {
    const pointers: string[] = [];
    const ctx: WalkContext = { file, abs, env, secrets, pending, fileIndex, pointers, reported, aliases: newAliasBudget(), roots: fileRoots, unavailableSecrets: opts.unavailableSecrets === true, places: kinds.pointers, credentials };
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
    mergeInto(data, value, '', fileIndex, locations, pending, kinds.pointers);
    // First definition wins: a duplicate's own locations stay reachable through its diagnostic.
    for (const p of pointers) locations.own(p, fileIndex);
  }
  inheritDefaults(data, locations, secrets, defaults, pending, kinds.configs);
  // The credentials are secrets though the configuration never holds them: every output masks them.
  for (const value of credentials.values) secrets.add(value);
  const selectors = extractSelectors(data, locations, diagnostics);
  checkSelectorBodies(data, selectors, locations, diagnostics);
  for (const { fileIndex, pointer, on, ...d } of pending) {
    const l = locations.in(fileIndex, pointer);
    diagnostics.push({ ...d, pointer, location: on === 'key' ? (l?.key ?? l?.value) : l?.value });
  }
  return { data, diagnostics, texts, locations, secrets, files: shown, roots, reported, defaults, ...(selectors.size > 0 && { selectors }) };
}

