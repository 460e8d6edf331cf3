/**
 * How a resource kind is addressed outside plumb's YAML: its Terraform resource type (the name
 * CDKTF constructs synthesize), where one resource sits under an instance, and the attributes that
 * say which resource it is. Each kind owns its shape (src/resources/<kind>/shape.ts) and its registry
 * entry carries it; the build-time schema generator (src/schema/terraform.ts), the CDKTF reader
 * (src/cdktf/documents.ts) and the kind's Terraform part read it from there: none of those names a
 * kind.
 */

export interface TerraformResourceShape {
  /** The plumb kind (`KindEntry.kind`). */
  readonly kind: string;
  /** The Terraform resource type. */
  readonly type: string;
  /** The definition of the configuration's JSON Schema (`definitions.<name>`) the resource's attributes come from. */
  readonly definition: string;
  /** Where one resource sits under `instances.<name>`; `{attr}` is the value of that identity attribute. */
  readonly keyPath: readonly string[];
  /** The attributes that say which resource this is (literal in CDKTF; a change replaces it). */
  readonly identity: readonly { readonly name: string; readonly description: string }[];
  /** Descriptions of the fields, where the definition lacks them. */
  readonly fields?: readonly { readonly name: string; readonly description: string }[];
  /** The block's description, when not the definition's. */
  readonly description?: string;
  /** Attributes Terraform marks deprecated. */
  readonly deprecated?: readonly string[];
  /**
   * Descriptions written for Terraform and CDKTF where the configuration schema's speak of plumb's
   * YAML or apply's flags: by the attribute's place in the resource (`source`, `sink.command`).
   */
  readonly terraformWords?: Readonly<Record<string, string>>;
  /**
   * Attributes each resource carries though plumb declares them once for a container (a file's
   * `delivery`, declared per project): attribute → the configuration schema's definition it takes
   * and where its value sits under `instances.<name>` (`{attr}` as in keyPath). The schema
   * generator adds them to the block; the CDKTF reader puts their value there, once per container.
   */
  readonly lifted?: Readonly<Record<string, { readonly definition: string; readonly keyPath: readonly string[] }>>;
}

/** The identity attribute naming the project or group a resource belongs to (`project`, `group`). */
export function ownerIdentity(owner: 'project' | 'group'): { readonly name: string; readonly description: string } {
  return { name: owner, description: `The ${owner}: its full path or numeric id.` };
}

/**
 * The provider's address, as a `required_providers` source. plumb is in no registry, so the host is
 * one no one can publish under: `.invalid` is reserved (RFC 6761 §6.4: never resolves, no
 * certificate authority issues for it), so without plumb's mirror `terraform init` fails at service
 * discovery instead of installing whatever a registry namespace holds (docs/terraform.md, "The
 * provider's address").
 */
export const PLUMB_PROVIDER_SOURCE = 'plumb.invalid/plumb/plumb';
