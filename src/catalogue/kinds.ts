/**
 * How each resource kind is addressed outside plumb's YAML: its Terraform resource type (the name
 * CDKTF constructs synthesize), where one resource sits under an instance, and the attributes that
 * say which resource it is. Facts of the interface, shared by the build-time schema generator
 * (src/schema/terraform.ts), the CDKTF reader (src/cdktf/documents.ts) and each kind's Terraform
 * part (src/resources/<kind>/terraform.ts): none of those names a kind.
 */
import { SETTINGS } from './application-settings.js';
import { FILE_WRITE_FIELDS, GROUP_ACCESS_TOKEN_FIELDS, PAGES_UPDATE_FIELDS } from './resources.js';

export interface TerraformResourceShape {
  /** The plumb kind (`KindModule.kind`). */
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
}

const project = { name: 'project', description: 'The project: its full path or numeric id.' };

export const TERRAFORM_RESOURCES: readonly TerraformResourceShape[] = [
  {
    kind: 'application_settings',
    type: 'plumb_application_settings',
    definition: 'settings',
    keyPath: ['settings'],
    identity: [],
    description: 'Instance-wide application settings (PUT /application/settings). Only the attributes you set are managed; each setting may be set by one resource.',
    deprecated: SETTINGS.filter((s) => !s.removed && s.deprecated).map((s) => s.name),
  },
  {
    kind: 'group_access_token',
    type: 'plumb_group_access_token',
    definition: 'access_token',
    keyPath: ['groups', '{group}', 'access_tokens', '{name}'],
    identity: [
      { name: 'group', description: 'The group: its full path or numeric id.' },
      { name: 'name', description: 'The token name: its identity among the group\'s active tokens.' },
    ],
    fields: GROUP_ACCESS_TOKEN_FIELDS,
    terraformWords: { 'sink.command': 'Program and arguments (a program on PATH, or a path relative to the working directory); receives the secret on standard input.' },
  },
  {
    kind: 'repository_file',
    type: 'plumb_repository_file',
    definition: 'file',
    keyPath: ['projects', '{project}', 'files', '{file_path}'],
    identity: [project, { name: 'file_path', description: 'Path of the file in the repository (plain: no "..", "." or empty segments, no leading "/").' }],
    fields: FILE_WRITE_FIELDS,
    terraformWords: { source: 'A local file whose content is used (relative to the working directory, inside the configuration root). Not empty.' },
  },
  {
    kind: 'pages',
    type: 'plumb_project_pages',
    definition: 'pages',
    keyPath: ['projects', '{project}', 'pages'],
    identity: [project],
    fields: PAGES_UPDATE_FIELDS,
    terraformWords: { allow_unpublish: 'Lets published = false unpublish the site (its deployments are removed; only a new pipeline deploys it again). Without it, such a plan is an error. Default: false.' },
  },
];

/** The Terraform shape of a kind; throws when the catalogue has none (a kind's own lookup, at load). */
export function terraformShape(kind: string): TerraformResourceShape {
  const s = TERRAFORM_RESOURCES.find((r) => r.kind === kind);
  if (!s) throw new Error(`no Terraform resource for kind ${kind} in src/catalogue/kinds.ts`);
  return s;
}

/**
 * The provider's address, as a `required_providers` source. plumb is in no registry, so the host is
 * one no one can publish under: `.invalid` is reserved (RFC 6761 §6.4: never resolves, no
 * certificate authority issues for it), so without plumb's mirror `terraform init` fails at service
 * discovery instead of installing whatever a registry namespace holds (docs/terraform.md, "The
 * provider's address").
 */
export const PLUMB_PROVIDER_SOURCE = 'plumb.invalid/plumb/plumb';
