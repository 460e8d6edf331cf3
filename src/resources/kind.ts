/**
 * The kind contract: what one folder src/resources/<kind>/ exports from its `index.ts`, as one
 * registry entry, so every door (the CLI's plan and apply, export, the Terraform provider, the
 * registry's checks) asks the kind instead of naming it. As terraform-plugin-framework's resources,
 * a provider lists its kinds as one line each: a small required part and optional capabilities a
 * door asks for at run time (an exporter, a Terraform resource, a state slot).
 *
 * The entry is light: what config/, schema/ and the CDKTF reader need (its configuration side, its
 * Terraform shape), its reasons' texts and its codes, all plain data or code that loads no provider.
 * Its runtime parts (provider, exporter, Terraform door) are behind `load()`, a dynamic import of
 * the folder's `runtime.ts`, so `plumb validate` never loads a provider nor the API client. The
 * registry (src/resources/index.ts) is one list of entries; nothing else lists kinds.
 *
 * The engine does not know these types (it receives `ResourceProvider`s); they live here because
 * the Terraform part is a front-end concept (docs/architecture.md, the import table).
 */
import type { TerraformResourceShape } from '../catalogue/kinds.js';
import type { KindConfig } from '../config/kinds.js';
import type { DiagnosticCode } from '../diagnostics/codes.js';
import type { ResourceExporter } from '../engine/export.js';
import type { ResourceProvider } from '../engine/resource.js';
import type { TerraformPart } from './terraform.js';

export type { KindConfig } from '../config/kinds.js';

/** A kind's registry entry (its folder's `index.ts`): light, with its runtime behind `load()`. */
export interface KindEntry<P = unknown> {
  /** The kind's name in plans, addresses and diagnostics (`ResourceChange.kind`). */
  readonly kind: string;
  /** Its configuration side: places, mount, schema fragment, resolver, checks (`./config.ts`). */
  readonly config: KindConfig;
  /** Every reason the kind gives a change, with its text for people (cosmetic; the renderers show it). */
  readonly reasons: Readonly<Record<string, string>>;
  /**
   * The diagnostic codes only this kind emits: registered in src/diagnostics/codes.ts (a built-in
   * kind's, `codesOf([...])`), or its own, listed in `ownCodes`.
   */
  readonly codes: readonly DiagnosticCode[];
  /**
   * Codes the kind declares itself, outside the closed registry, each with its one-line meaning
   * (`ownCodes(...)` in src/diagnostics/own-codes.ts types them), so a kind's codes can live in its
   * folder (the protected branches', a test's fifth kind); docs/diagnostics.md lists the built-in
   * kinds' with the registry's. The registry refuses one the closed registry or another kind holds.
   */
  readonly ownCodes?: Readonly<Record<string, string>>;
  /** The sections of the state file it keeps (`StateStore.section`), when it remembers anything. */
  readonly stateSlots?: readonly string[];
  /**
   * Its Terraform resource's type and address (`./shape.ts`), when the provider serves one; or
   * several, when one kind is several Terraform resources (one for a project's, one for a group's
   * declarations), each with its part in `terraform`.
   */
  readonly terraformShape?: TerraformResourceShape | readonly TerraformResourceShape[];
  /** Its runtime parts, loaded when a door first needs them (`import('./runtime.js')`). */
  load(): Promise<KindRuntime<P>>;
}

/** What a kind's `runtime.ts` exports: the parts that reach the instance. */
export interface KindRuntime<P = unknown> {
  /** Plan, apply, payload parsing and live fingerprints (src/engine/resource.ts). */
  readonly provider: ResourceProvider<P>;
  /** Its part of `plumb export`, when it has one. */
  readonly exporter?: ResourceExporter;
  /** Its Terraform resource, when the provider serves one (its `shape` is the entry's `terraformShape`), or one per shape. */
  readonly terraform?: TerraformPart | readonly TerraformPart[];
}

/** A kind, whole: its entry with its runtime loaded (what a loaded `KindSet` holds). */
export interface KindModule<P = unknown> extends Omit<KindEntry<P>, 'load'>, KindRuntime<P> {}
