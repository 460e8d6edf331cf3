/**
 * The kind contract: what one folder src/resources/<kind>/ exports from its `index.ts`, as one
 * object, so every door (the CLI's plan and apply, export, the Terraform provider, the registry's
 * checks) asks the kind instead of naming it. As terraform-plugin-framework's resources: a small
 * required part (name, provider, reasons, configuration places) and optional capabilities a door
 * asks for at run time (an exporter, a Terraform resource, a state slot). The registry
 * (src/resources/index.ts) is one list of these; nothing else lists kinds.
 *
 * The engine does not know this type (it receives `ResourceProvider`s); it lives here because its
 * Terraform part is a front-end concept (docs/architecture.md, the import table).
 */
import type { DiagnosticCode } from '../diagnostics/codes.js';
import type { ResourceExporter } from '../engine/export.js';
import type { ResourceProvider } from '../engine/resource.js';
import type { KindConfig } from './kind-config.js';
import type { TerraformPart } from './terraform.js';

export type { KindConfig } from './kind-config.js';

export interface KindModule<P = unknown> {
  /** The kind's name in plans, addresses and diagnostics (`ResourceChange.kind`). */
  readonly kind: string;
  /** Plan, apply, payload parsing and live fingerprints (src/engine/resource.ts). */
  readonly provider: ResourceProvider<P>;
  /** Every reason the kind gives a change, with its text for people (cosmetic; the renderers show it). */
  readonly reasons: Readonly<Record<string, string>>;
  /** The diagnostic codes only this kind emits (each registered in src/diagnostics/codes.ts). */
  readonly codes: readonly DiagnosticCode[];
  /** Its configuration side: places and resolvers (`./config.ts`, also reached light by config/). */
  readonly config: KindConfig;
  /** The sections of the state file it keeps (`StateStore.section`), when it remembers anything. */
  readonly stateSlots?: readonly string[];
  /** Its part of `plumb export`, when it has one. */
  readonly exporter?: ResourceExporter;
  /** Its Terraform resource, when the provider serves one. */
  readonly terraform?: TerraformPart;
}
