/**
 * The Pages' desired part: per project (a container, src/catalogue/containers.ts) with a `pages:`
 * block, that block. Kept under the kind's name in `DesiredInstance.resources` and read through
 * {@link pagesOf}.
 */
import type { DesiredInstance } from '../../config/model.js';

/** The Pages update request's fields, as declared (interface names). */
export interface DesiredPagesFields {
  readonly pages_https_only?: boolean;
  readonly pages_unique_domain_enabled?: boolean;
  /** `null` clears it (an empty string in the configuration too). */
  readonly pages_primary_domain?: string | null;
}

export interface DesiredPages {
  readonly pointer: string;
  /** Only the declared fields; the others are left as the instance has them. */
  readonly fields: DesiredPagesFields;
  /** `false`: unpublish (a destroy); `true`: expect a deployment (plumb cannot publish). Undefined: not managed. */
  readonly published?: boolean;
  /** The project's opt-in to apply an unpublish without `--allow-destroy`. */
  readonly allowUnpublish: boolean;
}

/** A project's declared Pages. */
export interface PagesProject {
  /** Numeric id or full path, as written. */
  readonly ref: string;
  readonly pointer: string;
  readonly pages: DesiredPages;
}

/** The projects of the instance that declare Pages. */
export function pagesOf(instance: DesiredInstance): readonly PagesProject[] {
  return (instance.resources.get('pages') as readonly PagesProject[] | undefined) ?? [];
}
