/**
 * Loading a configuration: what the first three stages of the pipeline (./pipeline/: read → parse →
 * merge) hand the schema stage, and their options. `loadDocuments` runs those three for documents
 * given one by one (the Terraform provider's); `loadConfig` (./validate.ts) runs the whole pipeline
 * from the command line's paths.
 */
import type { Diagnostic } from '../diagnostics/index.js';
import type { SecretRegistry } from './secrets.js';
import type { FileRoots } from './files.js';
import type { Expansion, ListedProjects, SelectorSet } from './selectors.js';
import type { LocationIndex } from './locations.js';
import type { DefaultsOrigins } from './defaults.js';
import type { ReportedPointers } from './loading.js';
import { readConfig } from './pipeline/read.js';
import { parseConfig } from './pipeline/parse.js';
import { mergeConfig } from './pipeline/merge.js';
import type { MergeOptions } from './pipeline/merge.js';
import type { ConfigKinds } from './kinds.js';

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
   * The kinds to read the configuration with (a registry's configuration side, chosen where the
   * program is assembled: commands/, the provider server). Their places decide merging,
   * interpolation and names; their mounts, `defaults:`.
   */
  readonly kinds: ConfigKinds;
}

/** Reads, parses, interpolates and merges configuration files, recording where every value came from. */
export function loadSources(files: readonly string[], opts: LoadOptions, roots?: ReadonlyMap<string, string>): LoadedSources {
  return loadDocuments(files.map((abs) => ({ abs, root: roots?.get(abs) })), opts);
}

/**
 * A configuration document: a file to read, or text another front-end produced (the Terraform
 * provider's document), shown as `file` and resolving relative paths against the directory of `abs`.
 */
export interface ConfigDocument {
  readonly abs: string;
  readonly file?: string;
  readonly text?: string;
  /** Its configuration root (a real path); default: {@link LoadOptions.root}, else found from `abs`. */
  readonly root?: string;
}

/** The sources of no document, for a command that stopped before reading any (no kinds are needed to read nothing). */
export function noSources(): LoadedSources {
  return loadDocuments([], { kinds: { configs: [], pointers: [], terraformShapes: [] } });
}

/** {@link loadSources} for documents that may already be in memory: the read, parse and merge stages (./pipeline/). */
export function loadDocuments(docs: readonly ConfigDocument[], opts: LoadOptions): LoadedSources {
  const env = opts.env ?? process.env;
  const read = readConfig({ documents: docs }, { cwd: opts.cwd ?? process.cwd(), env, ...(opts.root !== undefined && { root: opts.root }) });
  return mergeConfig(parseConfig(read), mergeOptions(opts));
}

/** What the merge stage takes from a command's {@link LoadOptions}. */
export function mergeOptions(opts: LoadOptions): MergeOptions {
  return { env: opts.env ?? process.env, unavailableSecrets: opts.unavailableSecrets === true, kinds: opts.kinds };
}
