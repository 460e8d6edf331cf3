/**
 * The kinds registry: the one list of resource kinds, `KIND_MODULES`, each a folder's whole
 * `KindModule` (src/resources/kind.ts). Everything a door needs derives from it: the engine's
 * providers (`KINDS`), export's parts (`EXPORTERS`), the reasons' texts (`REASON_TEXT`), the
 * Terraform resources (`TERRAFORM_PARTS`). Adding a kind means a folder src/resources/<kind>/ and
 * a line here (and its `config` in src/resources/config.ts, which config/ reads without loading
 * providers); docs/architecture.md.
 */
import type { DesiredInstance } from '../config/model.js';
import type { KindRegistry } from '../engine/resource.js';
import type { ResourceExporter } from '../engine/export.js';
import type { KindModule } from './kind.js';
import type { TerraformPart } from './terraform.js';
import { settingsKind } from './settings/index.js';
import { groupAccessTokensKind } from './group-access-tokens/index.js';
import { pagesKind } from './pages/index.js';
import { repositoryFilesKind } from './repository-files/index.js';

/** Every kind, in the order a plan lists and apply executes them. */
export const KIND_MODULES: readonly KindModule[] = [settingsKind, groupAccessTokensKind, repositoryFilesKind, pagesKind];

export const KINDS: KindRegistry = {
  providers: KIND_MODULES.map((m) => m.provider),
  /** Declared in the configuration and validated, not planned yet: each plan warns that they are left untouched. */
  validatedOnly: [],
};

/** Each kind's part of `plumb export` (src/resources/<kind>/export.ts), in the order of KIND_MODULES. */
export const EXPORTERS: readonly ResourceExporter[] = KIND_MODULES.flatMap((m) => (m.exporter ? [m.exporter] : []));

/** Every reason's text. Two kinds may share a reason only with the same text (a test checks it). */
export const REASON_TEXT: Readonly<Record<string, string>> = Object.assign({}, ...KIND_MODULES.map((m) => m.reasons)) as Record<string, string>;

/** The Terraform resources the provider serves, one per kind that has a `terraform` part. */
export const TERRAFORM_PARTS: readonly TerraformPart[] = KIND_MODULES.flatMap((m) => (m.terraform ? [m.terraform] : []));

/**
 * Whether applying the configuration (or one instance of it) writes machine-readable output to
 * standard output, as a token with `sink: {stdout: true}` does.
 */
export function writesStdout(instances: readonly DesiredInstance[], only: string | undefined): boolean {
  return instances.some((i) => (!only || i.name === only) && KINDS.providers.some((p) => p.writesStdout?.(i)));
}
