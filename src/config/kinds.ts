/**
 * The configuration side of the kind contract, beside the code that calls it: what config/ needs
 * from a kind without loading its provider (so `plumb validate` never loads the API client), and
 * what the schema generator and the CDKTF reader need. Each kind's `config.ts` exports one
 * `KindConfig`; its registry entry (src/resources/<kind>/index.ts) carries it, and whoever
 * assembles the program (commands/, the provider server, the generation scripts, a test helper)
 * hands config/, schema/ and cdktf/ the kinds as `ConfigKinds`: nothing below them defaults to the
 * built-in kinds, so config/ never imports a kind (docs/architecture.md).
 */
import type { ContainerName } from '../catalogue/containers.js';
import type { TerraformResourceShape } from '../catalogue/kinds.js';
import type { DesiredInstance } from './model.js';
import type { KindPointer } from './pointer.js';
import type { Ctx } from './resolve-context.js';
import type { ErrorObject } from 'ajv';

export type JsonSchema = Record<string, unknown>;

/**
 * Where a kind lives in an instance: the keys it owns, directly under the instance
 * (`{keys: ['settings']}`) or under each entry of a shared container
 * (`{container: 'projects', keys: ['files']}`: `instances.<name>.projects.<ref>.files`). A
 * container (groups, projects: src/catalogue/containers.ts) is resolved once, by config/, whatever
 * kinds live under it; a key belongs to one kind.
 */
export interface KindMount {
  /**
   * The container it lives under, or several: a kind whose keys mean the same under a group and
   * under a project (CI/CD variables) mounts under both, and is resolved once per entry of each
   * (`ResolveAt.container` says which).
   */
  readonly container?: ContainerName | readonly ContainerName[];
  readonly keys: readonly string[];
  /**
   * Of `keys`, those whose value is one unit for `defaults:` and selectors: inherited or overridden
   * whole, never merged key by key (a file's `delivery:`, where `{commit: …}` and
   * `{merge_request: …}` exclude each other). The others hold units (a setting, a token, a file).
   */
  readonly whole?: readonly string[];
}

/** The keys of `kinds` whose value is inherited or overridden whole (`KindMount.whole`). */
export function wholeKeys(kinds: readonly KindConfig[]): ReadonlySet<string> {
  return new Set(kinds.flatMap((k) => k.mount.whole ?? []));
}

/** The containers a mount lives under (none: directly under an instance). */
export function mountContainers(mount: KindMount): readonly ContainerName[] {
  const c = mount.container;
  return c === undefined ? [] : typeof c === 'string' ? [c] : c;
}

/** Whether a mount lives under container `c`. */
export function mountedUnder(mount: KindMount, c: ContainerName): boolean {
  return mountContainers(mount).includes(c);
}

/** The entry a kind's part is resolved in: the instance, or one container entry (a group, a project). */
export interface ResolveAt {
  /** The JSON pointer of the object holding the kind's keys (the instance or the container entry). */
  readonly pointer: string;
  /** The instance's name. */
  readonly instance: string;
  /** Under a container: the entry's reference as written (a full path or a numeric id). */
  readonly ref?: string;
  /** Under a container: which one (a kind mounted under several tells them apart by it). */
  readonly container?: ContainerName;
}

/** A kind's JSON Schema fragment, mounted by src/schema/build.ts. */
export interface KindSchema {
  /** The schema of each key of its mount, in the order they appear (usually a `$ref` into `definitions`). */
  readonly properties: Readonly<Record<string, JsonSchema>>;
  /** Definitions it adds to the configuration schema (`#/definitions/<name>`). */
  readonly definitions?: Readonly<Record<string, JsonSchema>>;
  /** Its keys under `defaults:` when they differ from `properties` (a top-level mount only). */
  readonly defaults?: Readonly<Record<string, JsonSchema>>;
  /** Its stand-alone schema file under schemas/, for tools that validate one block. */
  readonly standalone?: { readonly title: string; readonly file: string; readonly body: JsonSchema };
}

export interface KindConfig<D = unknown> {
  readonly kind: string;
  /** The places the kind owns in the configuration, most specific first. */
  readonly pointers: readonly KindPointer[];
  readonly mount: KindMount;
  /** Its JSON Schema fragment (build time: `npm run generate`). */
  schema(): KindSchema;
  /**
   * Raw YAML → the kind's desired part, with diagnostics through `ctx`. `raw` is the object holding
   * its mount's keys (the instance, or one container entry); called when at least one of its keys is
   * present. `undefined`: it declares nothing there. The instance keeps the result under the kind's
   * name (`DesiredInstance.resources`): the value itself for a top-level mount, the list of values
   * (one per container entry) under a container; the accessor in its folder reads it.
   */
  resolve(raw: Readonly<Record<string, unknown>>, at: ResolveAt, ctx: Ctx): D | undefined;
  /** Checks across instances, after every instance is resolved (e.g. two tokens writing one file). */
  check?(instances: readonly DesiredInstance[], ctx: Ctx): void;
  /**
   * The risk ids the kind flags (`flagRisk`) besides the shared ones (`RISKS`, ./risk-ids.ts), each
   * with its one-line meaning: `allow_risky` accepts them as it accepts those.
   */
  readonly risks?: Readonly<Record<string, string>>;
  /**
   * What this kind's part of `instance` writes on an instance that another kind could write too (a
   * CI/CD variable: a `variables:` entry, a token's `ci_variable` sink). The checks stage refuses one
   * thing claimed by two kinds, located at both; a kind checks its own duplicates itself.
   */
  claims?(instance: DesiredInstance): readonly InstanceClaim[];
}

/** One thing on an instance a kind writes (`KindConfig.claims`). */
export interface InstanceClaim {
  /** What it is, in words every kind that writes such things builds alike (`ciVariableClaim`, src/catalogue/ci-variables.ts). */
  readonly id: string;
  /** Where the configuration declares it. */
  readonly pointer: string;
  /** How people read it: `project platform/app variable DEPLOY_KEY (scope production)`. */
  readonly what: string;
  /** How the kind declares it, for the message: `a variables: entry`, `a token's ci_variable sink`. */
  readonly as: string;
}

/** The configuration's JSON Schema for a set of kinds, compiled: what the schema pass runs. */
export interface CompiledConfigSchema {
  /** ajv's validate function (errors on `.errors`), with `allErrors`. */
  readonly validate: ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };
  /** The schema itself (read on the error path, for did-you-mean suggestions). */
  json(): JsonSchema;
}

/**
 * The kinds config/ loads, validates and resolves a configuration with: a registry's configuration
 * side (`LoadOptions.kinds`, required; the built-in kinds' is `BUILT_IN_CONFIG_KINDS` in
 * src/resources/index.ts). A registry with other kinds (`withKinds`, src/resources/with-kinds.ts)
 * passes its own compiled schema.
 */
export interface ConfigKinds {
  /** Every kind's configuration side, in the registry's order. */
  readonly configs: readonly KindConfig[];
  /** Every kind's places, most specific first (`configs.flatMap((k) => k.pointers)`). */
  readonly pointers: readonly KindPointer[];
  /**
   * The schema of a configuration with these kinds; absent: the one `npm run generate` compiled for
   * the same kinds (src/generated/config-validator.ts), which only the built-in kinds may use.
   */
  readonly schema?: CompiledConfigSchema;
  /** The kinds' Terraform resources (each kind's `shape.ts`), for the CDKTF reader and the schema generator. */
  readonly terraformShapes: readonly TerraformResourceShape[];
}
