/**
 * The kinds registry: the one list of resource kinds, `KIND_ENTRIES`, each a folder's registry
 * entry (src/resources/<kind>/index.ts, a `KindEntry`: src/resources/kind.ts). Adding a kind means
 * a folder src/resources/<kind>/ and a line here (docs/architecture.md).
 *
 * An entry is light, so this module is too: `configKinds(entries)` gives what config/, schema/ and
 * the CDKTF reader take (`ConfigKinds`: configuration sides, places, Terraform shapes) without
 * loading a provider, and `plumb validate` stops there. `loadKinds(entries)` loads each kind's
 * runtime parts (`KindEntry.load()`) into a `KindSet`, from which every other door takes what it
 * needs: the engine's providers (`engine`), export's parts (`exporters`), the reasons' texts
 * (`reasonText`), the Terraform resources (`terraformParts`). The built-in kinds are
 * `BUILT_IN_CONFIG_KINDS` and `builtInKinds()`; only where the program is assembled (commands/,
 * the provider server, the generation scripts, a test helper) are they chosen; a test adds a kind
 * with `withKinds([...KIND_ENTRIES, fifth])` (src/resources/with-kinds.ts).
 */
import type { DesiredInstance } from '../config/model.js';
import type { KindRegistry } from '../engine/resource.js';
import type { ResourceExporter } from '../engine/export.js';
import type { KindEntry, KindModule } from './kind.js';
import type { CompiledConfigSchema, ConfigKinds } from '../config/kinds.js';
import type { TerraformPart } from './terraform.js';
import { checkClaims } from './codes.js';
import { settingsKind } from './settings/index.js';
import { groupAccessTokensKind } from './group-access-tokens/index.js';
import { pagesKind } from './pages/index.js';
import { repositoryFilesKind } from './repository-files/index.js';
import { protectedBranchesKind } from './protected-branches/index.js';
import { ciVariablesKind } from './ci-variables/index.js';

/** Every kind, in the order a plan lists and apply executes them. */
export const KIND_ENTRIES: readonly KindEntry[] = [settingsKind, groupAccessTokensKind, protectedBranchesKind, repositoryFilesKind, pagesKind, ciVariablesKind];

/** What only a build (or `withKinds`, at run time) makes for a registry's kinds; absent: the ones generated for the built-in kinds. */
export interface BuiltSchemas {
  readonly schema?: CompiledConfigSchema;
  readonly terraformSchema?: () => Record<string, unknown>;
}

/** The configuration side of a registry (light: loads no provider). */
export function configKinds(entries: readonly KindEntry[], built: BuiltSchemas = {}): ConfigKinds {
  checkClaims(entries);
  return {
    configs: entries.map((m) => m.config),
    pointers: entries.flatMap((m) => m.config.pointers),
    terraformShapes: entries.flatMap((m) => (m.terraformShape === undefined ? [] : [m.terraformShape].flat())),
    ...(built.schema && { schema: built.schema }),
  };
}

/** Every reason's text of a registry's kinds (light). Two kinds may share a reason only with the same text (a test checks it). */
export function reasonTexts(entries: readonly KindEntry[]): Readonly<Record<string, string>> {
  return Object.assign({}, ...entries.map((m) => m.reasons)) as Record<string, string>;
}

/** The built-in kinds' configuration side: what `plumb validate` loads a configuration with. */
export const BUILT_IN_CONFIG_KINDS: ConfigKinds = configKinds(KIND_ENTRIES);

/** The built-in kinds' reason texts. */
export const REASON_TEXT: Readonly<Record<string, string>> = reasonTexts(KIND_ENTRIES);

/** A registry with every kind's runtime loaded: everything each door takes from it. */
export interface KindSet extends ConfigKinds {
  readonly modules: readonly KindModule[];
  /** The engine's providers (`EngineOptions.kinds`). */
  readonly engine: KindRegistry;
  /** Each kind's part of `plumb export`, in the registry's order. */
  readonly exporters: readonly ResourceExporter[];
  /** Every reason's text. */
  readonly reasonText: Readonly<Record<string, string>>;
  /** The Terraform resources the provider serves, one per kind that has a `terraform` part. */
  readonly terraformParts: readonly TerraformPart[];
  /**
   * The Terraform provider schema document generated for these kinds (`terraform providers schema
   * -json`'s form); absent: the one `npm run generate` committed (schemas/terraform-provider.schema.json).
   */
  readonly terraformSchema?: () => Record<string, unknown>;
}

/** The registry of `entries`, each kind's runtime loaded. */
export async function loadKinds(entries: readonly KindEntry[], built: BuiltSchemas = {}): Promise<KindSet> {
  const modules: KindModule[] = await Promise.all(entries.map(async ({ load, ...entry }) => ({ ...entry, ...(await load()) })));
  const terraformParts = modules.flatMap((m) => (m.terraform === undefined ? [] : [m.terraform].flat()));
  return {
    ...configKinds(entries, built),
    modules,
    engine: {
      providers: modules.map((m) => m.provider),
      /** Declared in the configuration and validated, not planned yet: each plan warns that they are left untouched. */
      validatedOnly: [],
    },
    exporters: modules.flatMap((m) => (m.exporter ? [m.exporter] : [])),
    reasonText: reasonTexts(entries),
    terraformParts,
    ...(built.terraformSchema && { terraformSchema: built.terraformSchema }),
  };
}

let builtIn: Promise<KindSet> | undefined;

/** The built-in kinds, loaded once per process. */
export function builtInKinds(): Promise<KindSet> {
  builtIn ??= loadKinds(KIND_ENTRIES);
  return builtIn;
}

/**
 * Whether applying the configuration (or one instance of it) writes machine-readable output to
 * standard output, as a token with `sink: {stdout: true}` does.
 */
export function writesStdout(instances: readonly DesiredInstance[], only: string | undefined, kinds: KindRegistry): boolean {
  return instances.some((i) => (!only || i.name === only) && kinds.providers.some((p) => p.writesStdout?.(i)));
}
