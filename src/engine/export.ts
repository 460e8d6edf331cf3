/**
 * The exporter interface: how a resource kind turns what a live instance holds into configuration
 * (`plumb export`, docs/export.md). Like providers, exporters live in their kind's folder
 * (`src/resources/<kind>/export.ts`) and reach the command through the kinds registry; neither the
 * engine nor the command knows which kinds exist.
 *
 * An exporter returns entries (a key path under the instance, a value, a comment for people),
 * never YAML: the command assembles one document with sorted keys, so the output is the same text
 * for the same instance and a re-export shows a reviewable diff.
 */
import type { ApiClient } from '../api/client.js';
import { PlumbError } from '../diagnostics/error.js';
import type { DesiredInstance } from '../config/model.js';
import type { ResourceKindName } from './plan.js';

/** One command-line flag of `plumb export` that an exporter owns (`--group REF`). */
export interface ExportFlag {
  /** The long option, without dashes. */
  readonly name: string;
  readonly type: 'string' | 'boolean';
  /** Repeatable. */
  readonly multiple?: boolean;
  /** The value's placeholder in the usage (`REF`, `PROJECT:PATH`). */
  readonly arg?: string;
  /** Its text in `plumb export --help` (lines after the first are indented under it). */
  readonly help: string;
}

/** The values parseArgs gave an exporter's flags. */
export type ExportFlagValues = Readonly<Record<string, string | boolean | readonly (string | boolean)[] | undefined>>;

/** A flag value an exporter refuses: the command reports it as a usage mistake (PLUMB_USAGE). */
export class ExportOptionError extends PlumbError {
  declare readonly code: 'PLUMB_USAGE';
  declare readonly suggestion: string;
  constructor(summary: string, suggestion: string) {
    super('PLUMB_USAGE', summary, { suggestion });
  }
}

/** With `-c`: the instance as the configuration in use declares it. */
export interface ExportDeclared {
  readonly instance: DesiredInstance;
  /** NAME when the value at `pointer` is written as exactly `${env:NAME}`, so a re-export keeps the name. */
  envReference(pointer: string): string | undefined;
}

/** A directory an exporter writes into under the output directory, checked before the instance is read. */
export interface ExportOutputDir {
  /** Relative to the output directory. */
  readonly dir: string;
  /** The flag that chose it, for messages (`--sink-dir`); absent: a fixed directory. */
  readonly flag?: string;
  /** It holds secrets: export puts a `.gitignore` ignoring everything in it, so it must be a directory of its own. */
  readonly secrets?: boolean;
  /** What it holds, in messages ("token secrets"). */
  readonly what?: string;
  /** Whether an entry already there is one of its own (anything else refuses a secrets directory). */
  holds?(name: string): boolean;
}

export interface ExportContext<O = unknown> {
  readonly client: ApiClient;
  /** YYYY-MM-DD, for expiry-based inferences (rotation policies). */
  readonly today: string;
  /** What its `parseOptions` returned. */
  readonly options: O;
  readonly declared?: ExportDeclared;
  /**
   * The instance's mapping in the earlier export this one replaces (`--out`'s plumb.yaml, parsed,
   * not validated): what people chose there and the instance cannot say (token sinks, rotation
   * policies) is kept.
   */
  readonly previous?: Readonly<Record<string, unknown>>;
}

/** One value of the exported configuration, at `path` under `instances.<name>`. */
export interface ExportEntry {
  readonly path: readonly string[];
  readonly value: unknown;
  /** Shown above the key: what it means, its default, why it looks as it does. Never a secret. */
  readonly comment?: string;
  /**
   * The value is an `${env:NAME}` reference export means (a secret setting's variable). Any other
   * value is instance text, written so that it never becomes a reference (`${` as `$${`).
   */
  readonly reference?: boolean;
}

/** An environment variable the exported configuration reads (`${env:NAME}`): a secret plumb cannot read back. */
export interface ExportEnv {
  readonly name: string;
  /** What it must hold, for the list at the end. */
  readonly why: string;
}

/** A file written next to the YAML (the `source:` of a repository file), relative to the output directory. */
export interface ExportFile {
  readonly path: string;
  readonly content: Buffer;
}

export interface ExportResult {
  readonly entries: readonly ExportEntry[];
  readonly env?: readonly ExportEnv[];
  readonly files?: readonly ExportFile[];
  /** Directories the configuration needs to exist (token sink directories), relative to the output directory. */
  readonly directories?: readonly string[];
  /** Notes for people (stderr), e.g. what could not be exported and why. */
  readonly notes?: readonly string[];
  /** What it exported, counted, for the summary (`--json` keys, e.g. `{tokens: 2, groups: 1}`). */
  readonly counts: Readonly<Record<string, number>>;
  /** The same counts in words for the summary line (`2 token(s) in 1 group(s)`). */
  readonly summary: string;
  /** What people must do before the configuration validates (stdout, after the summary). */
  readonly todo?: readonly string[];
}

/**
 * One resource kind's export. It declares its flags and parses them into its own options; it is
 * always asked, and says "0 file(s)" when its options ask for nothing.
 */
export interface ResourceExporter<O = unknown> {
  readonly kind: ResourceKindName;
  readonly flags: readonly ExportFlag[];
  /** Its options from its flags' values; throws {@link ExportOptionError} for a value it refuses. */
  parseOptions(values: ExportFlagValues): O;
  /** The directories under the output directory it writes into. */
  outputDirs?(options: O): readonly ExportOutputDir[];
  /** What a 404 of one of its reads is about, named as written on the command line (`--pages P`). */
  notFound?(apiPath: string): string | undefined;
  export(ctx: ExportContext<O>): Promise<ExportResult>;
}
