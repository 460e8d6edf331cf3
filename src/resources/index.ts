/**
 * The kinds registry: the one list of resource kinds, `KIND_MODULES`, each a folder's whole
 * `KindModule` (src/resources/kind.ts). Everything a door needs derives from a list of modules in
 * one `KindSet` (`kindSet`): the configuration side config/ loads with (`configs`, `pointers`, and
 * the compiled schema when it is not the generated one), the engine's providers (`engine`), export's
 * parts (`exporters`), the reasons' texts (`reasonText`), the Terraform resources
 * (`terraformParts`, `terraformShapes`). `BUILT_IN_KINDS` is the set of `KIND_MODULES`; a test adds
 * a kind with `withKinds([...KIND_MODULES, fifth])` (src/resources/with-kinds.ts). Adding a kind
 * means a folder src/resources/<kind>/ and a line here (and its `config` in
 * src/resources/config.ts, which config/ reads without loading providers); docs/architecture.md.
 */
import type { DesiredInstance } from '../config/model.js';
import type { KindRegistry } from '../engine/resource.js';
import type { ResourceExporter } from '../engine/export.js';
import type { KindModule } from './kind.js';
import type { CompiledConfigSchema, ConfigKinds } from './kind-config.js';
import type { TerraformPart } from './terraform.js';
import { settingsKind } from './settings/index.js';
import { groupAccessTokensKind } from './group-access-tokens/index.js';
import { pagesKind } from './pages/index.js';
import { repositoryFilesKind } from './repository-files/index.js';

/** Every kind, in the order a plan lists and apply executes them. */
export const KIND_MODULES: readonly KindModule[] = [settingsKind, groupAccessTokensKind, repositoryFilesKind, pagesKind];

/** A registry: a list of kinds and everything each door takes from it. */
export interface KindSet extends ConfigKinds {
  readonly modules: readonly KindModule[];
  /** The engine's providers (`EngineOptions.kinds`). */
  readonly engine: KindRegistry;
  /** Each kind's part of `plumb export`, in the registry's order. */
  readonly exporters: readonly ResourceExporter[];
  /** Every reason's text. Two kinds may share a reason only with the same text (a test checks it). */
  readonly reasonText: Readonly<Record<string, string>>;
  /** The Terraform resources the provider serves, one per kind that has a `terraform` part. */
  readonly terraformParts: readonly TerraformPart[];
  /**
   * The Terraform provider schema document generated for these kinds (`terraform providers schema
   * -json`'s form); absent: the one `npm run generate` committed (schemas/terraform-provider.schema.json).
   */
  readonly terraformSchema?: () => Record<string, unknown>;
}

/**
 * The registry of `modules`. `built`: what only a build (or `withKinds`, at run time) makes for
 * them: the compiled configuration schema and the Terraform provider schema; absent, the ones
 * generated for the built-in kinds.
 */
export function kindSet(modules: readonly KindModule[], built: { readonly schema?: CompiledConfigSchema; readonly terraformSchema?: () => Record<string, unknown> } = {}): KindSet {
  const terraformParts = modules.flatMap((m) => (m.terraform ? [m.terraform] : []));
  return {
    modules,
    configs: modules.map((m) => m.config),
    pointers: modules.flatMap((m) => m.config.pointers),
    engine: {
      providers: modules.map((m) => m.provider),
      /** Declared in the configuration and validated, not planned yet: each plan warns that they are left untouched. */
      validatedOnly: [],
    },
    exporters: modules.flatMap((m) => (m.exporter ? [m.exporter] : [])),
    reasonText: Object.assign({}, ...modules.map((m) => m.reasons)) as Record<string, string>,
    terraformParts,
    terraformShapes: terraformParts.map((p) => p.shape),
    ...built,
  };
}

/** The built-in kinds. */
export const BUILT_IN_KINDS: KindSet = kindSet(KIND_MODULES);

export const KINDS: KindRegistry = BUILT_IN_KINDS.engine;
/** Each kind's part of `plumb export` (src/resources/<kind>/export.ts), in the order of KIND_MODULES. */
export const EXPORTERS: readonly ResourceExporter[] = BUILT_IN_KINDS.exporters;
export const REASON_TEXT: Readonly<Record<string, string>> = BUILT_IN_KINDS.reasonText;
export const TERRAFORM_PARTS: readonly TerraformPart[] = BUILT_IN_KINDS.terraformParts;

/**
 * Whether applying the configuration (or one instance of it) writes machine-readable output to
 * standard output, as a token with `sink: {stdout: true}` does.
 */
export function writesStdout(instances: readonly DesiredInstance[], only: string | undefined, kinds: KindRegistry = KINDS): boolean {
  return instances.some((i) => (!only || i.name === only) && kinds.providers.some((p) => p.writesStdout?.(i)));
}
