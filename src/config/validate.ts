/**
 * The configuration pipeline (docs/architecture.md, steps 2–3), run one way: read → parse → merge
 * (./pipeline/read.ts, parse.ts, merge.ts; `loadDocuments` in ./load.ts runs these three for
 * documents given one by one) → schema → resolve → checks (./pipeline/schema.ts, resolve.ts,
 * checks.ts, run by `validateLoaded`). Each stage takes the previous stage's output and none calls
 * back into an earlier one. The CDKTF door (src/cdktf/load.ts) enters at the parse stage's output.
 */
import type { Diagnostic } from '../diagnostics/index.js';
import type { Ctx } from './resolve-context.js';
import { mergeOptions } from './load.js';
import type { LoadedSources, LoadOptions } from './load.js';
import type { DesiredConfig } from './model.js';
import { readConfig } from './pipeline/read.js';
import { parseConfig } from './pipeline/parse.js';
import { mergeConfig } from './pipeline/merge.js';
import { checkSchema } from './pipeline/schema.js';
import { resolveConfig } from './pipeline/resolve.js';
import { checkConfig } from './pipeline/checks.js';

export interface ValidateOptions extends LoadOptions {
  /** Today's date for date checks (YYYY-MM-DD); defaults to the current UTC date. */
  readonly today?: string;
  /**
   * Confine token sink files to this directory (a real path): the Terraform door's configuration
   * root, for sinks from the configuration and from import ids alike (docs/terraform.md, "Import").
   */
  readonly sinkRoot?: string;
}

export interface ConfigResult {
  /** Present only when there are no errors. */
  readonly config?: DesiredConfig;
  readonly diagnostics: Diagnostic[];
  readonly sources: LoadedSources;
  /**
   * With `config`: the local files nothing plumb writes may land on (its configuration files and the
   * files its kinds read, e.g. `source:`), real path → what it is; see `protectedFile`.
   */
  readonly protectedFiles?: ReadonlyMap<string, string>;
}

/** Loads, merges, validates and resolves a configuration; never touches the network. */
export function loadConfig(paths: readonly string[], opts: ValidateOptions): ConfigResult {
  const read = readConfig({ paths }, { cwd: opts.cwd ?? process.cwd(), env: opts.env ?? process.env, ...(opts.root !== undefined && { root: opts.root }) });
  const sources = mergeConfig(parseConfig(read), mergeOptions(opts));
  return validateLoaded(sources, read.files, read.diagnostics, opts);
}

/**
 * The schema, resolve and checks stages, for a configuration already merged (YAML files, a CDKTF
 * app's resources, the Terraform provider's document, or the configuration with its selectors
 * expanded): every check of {@link loadConfig}. `files` maps each shown file name to the absolute
 * path relative paths are resolved against; `earlier` are diagnostics found before loading (they
 * come first, and later checks stay silent where `sources.reported` says so).
 */
export function validateLoaded(sources: LoadedSources, files: Map<string, string>, earlier: readonly Diagnostic[], opts: ValidateOptions): ConfigResult {
  const cwd = opts.cwd ?? process.cwd();
  const diagnostics: Diagnostic[] = [...earlier, ...sources.diagnostics];
  const ctx: Ctx = { sources, diagnostics, today: opts.today ?? new Date().toISOString().slice(0, 10), files, cwd, localReads: new Map(), ...(opts.sinkRoot !== undefined && { sinkRoot: opts.sinkRoot }) };
  const kinds = opts.kinds;
  checkSchema(kinds, ctx);
  const config = resolveConfig(sources.data, kinds.configs, ctx);
  return checkConfig(config, kinds.configs, ctx, earlier.length + sources.diagnostics.length);
}
