/**
 * plumb's resources as a Terraform provider schema: the JSON `terraform providers schema -json`
 * prints, for a provider named `plumb`. `npm run generate` commits it as
 * schemas/terraform-provider.schema.json and feeds it to `@cdktf/provider-generator`, which turns
 * it into the typed constructs exported as `plumb-gitops/cdktf`. Built from the same JSON Schemas as the
 * YAML path (themselves built from the catalogue), so both front-ends accept the same fields.
 * Build time only; never loaded by the CLI.
 */
import { instanceSchema, accessTokenSchema, fileSchema, pagesSchema, settingValueSchema, writableSettings } from './build.js';
import type { JsonSchema } from './build.js';
import {
  GROUP_ACCESS_TOKEN_FIELDS,
  FILE_WRITE_FIELDS,
  PAGES_UPDATE_FIELDS,
} from '../catalogue/index.js';

/** Where the provider lives, as a `required_providers` source (plumb is not in a registry). */
export const PLUMB_PROVIDER_SOURCE = 'registry.terraform.io/plumb/plumb';

/** plumb's resource types and the block of the configuration each one fills. */
export const PLUMB_RESOURCE_TYPES = {
  plumb_application_settings: 'settings',
  plumb_group_access_token: 'access token',
  plumb_repository_file: 'file',
  plumb_project_pages: 'pages',
} as const;

type TfType = string | [string, TfType];

export interface TfAttribute {
  type: TfType;
  description: string;
  description_kind: 'plain';
  required?: true;
  optional?: true;
  sensitive?: true;
  deprecated?: true;
}

export interface TfBlock {
  attributes: Record<string, TfAttribute>;
  block_types?: Record<string, { nesting_mode: 'list'; max_items: 1; block: TfBlock }>;
  description: string;
  description_kind: 'plain';
}

function tfType(s: JsonSchema): TfType {
  const types = ([] as unknown[]).concat(s.type ?? []).filter((t) => t !== 'null') as string[];
  if (types.includes('array')) {
    const items = (s.items ?? {}) as JsonSchema;
    return ['list', tfType(items)];
  }
  if ('const' in s && typeof s.const === 'boolean') return 'bool';
  const t = types[0] ?? (Array.isArray(s.enum) && s.enum.every((e) => typeof e === 'number') ? 'number' : 'string');
  switch (t) {
    case 'boolean':
      return 'bool';
    case 'integer':
    case 'number':
      return 'number';
    case 'object':
      return 'dynamic';
    default:
      return 'string';
  }
}

/** The schema's own description, plus its enum and bounds in words (Terraform's schema has no field for them). */
function describe(s: JsonSchema, fallback = ''): string {
  const parts = [String(s.description ?? fallback)];
  const items = (s.items ?? {}) as JsonSchema;
  const values = (s.enum ?? items.enum) as unknown[] | undefined;
  if (values) parts.push(`One of: ${values.filter((v) => v !== null).map((v) => String(v)).join(', ')}.`);
  if (s.minimum !== undefined && s.maximum !== undefined) parts.push(`From ${String(s.minimum)} to ${String(s.maximum)}.`);
  else if (s.minimum !== undefined) parts.push(`At least ${String(s.minimum)}.`);
  else if (s.maximum !== undefined) parts.push(`At most ${String(s.maximum)}.`);
  if (s.multipleOf !== undefined) parts.push(`In steps of ${String(s.multipleOf)}.`);
  if (s.minLength !== undefined || s.maxLength !== undefined) parts.push(`Length ${String(s.minLength ?? 0)} to ${String(s.maxLength ?? 'unbounded')}.`);
  if (s.pattern !== undefined) parts.push(`Matches ${String(s.pattern)}.`);
  if (s.maxItems !== undefined) parts.push(`At most ${String(s.maxItems)} items.`);
  if (s.default !== undefined) parts.push(`Default: ${JSON.stringify(s.default)}.`);
  return parts.filter(Boolean).join(' ').trim();
}

/** A JSON Schema object's properties as a Terraform block: objects with known keys become nested blocks. */
function blockOf(schema: JsonSchema, opts: { description: string; required?: readonly string[]; descriptions?: Record<string, string>; deprecated?: ReadonlySet<string> }): TfBlock {
  const attributes: Record<string, TfAttribute> = {};
  const blockTypes: NonNullable<TfBlock['block_types']> = {};
  const required = new Set([...((schema.required as string[] | undefined) ?? []), ...(opts.required ?? [])]);
  for (const [name, raw] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
    const description = describe(raw, opts.descriptions?.[name]);
    if (raw.properties) {
      blockTypes[name] = { nesting_mode: 'list', max_items: 1, block: blockOf(raw, { description }) };
      continue;
    }
    attributes[name] = {
      type: tfType(raw),
      description,
      description_kind: 'plain',
      ...(required.has(name) ? { required: true } : { optional: true }),
      ...(raw.writeOnly === true && { sensitive: true }),
      ...(opts.deprecated?.has(name) && { deprecated: true }),
    };
  }
  return {
    attributes,
    ...(Object.keys(blockTypes).length > 0 && { block_types: blockTypes }),
    description: opts.description,
    description_kind: 'plain',
  };
}

function withKey(block: TfBlock, keys: Record<string, TfAttribute>): TfBlock {
  return { ...block, attributes: { ...keys, ...block.attributes } };
}

function key(description: string): TfAttribute {
  return { type: 'string', description, description_kind: 'plain', required: true };
}

const fieldDescriptions = (fields: readonly { name: string; description: string }[]) => Object.fromEntries(fields.map((f) => [f.name, f.description]));

/** The whole provider schema document. */
export function terraformProviderSchema(): Record<string, unknown> {
  const instance = instanceSchema();
  const props = instance.properties as Record<string, JsonSchema>;
  // No `lock`: Terraform locks its own state, and the provider applies one resource at a time.
  const connection = Object.fromEntries(Object.entries(props).filter(([k]) => !['settings', 'groups', 'projects', 'lock'].includes(k)));
  const settings = writableSettings();
  const settingsBlock = blockOf(
    { type: 'object', properties: Object.fromEntries(settings.map((s) => [s.name, settingValueSchema(s)])) },
    {
      description: 'Instance-wide application settings (PUT /application/settings). Only the attributes you set are managed; each setting may be set by one resource.',
      deprecated: new Set(settings.filter((s) => s.deprecated).map((s) => s.name)),
    },
  );
  const token = accessTokenSchema();
  const file = fileSchema();
  const pages = pagesSchema();
  return {
    format_version: '1.0',
    provider_schemas: {
      [PLUMB_PROVIDER_SOURCE]: {
        provider: {
          version: 0,
          block: blockOf(
            { type: 'object', properties: connection },
            { description: 'One instance plumb manages. Its name is the provider alias, else the stack name.', required: ['url', 'token_env'] },
          ),
        },
        resource_schemas: {
          plumb_application_settings: { version: 0, block: settingsBlock },
          plumb_group_access_token: {
            version: 0,
            block: withKey(
              blockOf(token, { description: String(token.description), descriptions: fieldDescriptions(GROUP_ACCESS_TOKEN_FIELDS) }),
              { group: key('The group: its full path or numeric id.'), name: key('The token name: its identity among the group\'s active tokens.') },
            ),
          },
          plumb_repository_file: {
            version: 0,
            block: withKey(
              blockOf(file, { description: String(file.description), descriptions: fieldDescriptions(FILE_WRITE_FIELDS) }),
              { project: key('The project: its full path or numeric id.'), file_path: key('Path of the file in the repository (plain: no "..", "." or empty segments, no leading "/").') },
            ),
          },
          plumb_project_pages: {
            version: 0,
            block: withKey(
              blockOf(pages, { description: String(pages.description), descriptions: fieldDescriptions(PAGES_UPDATE_FIELDS) }),
              { project: key('The project: its full path or numeric id.') },
            ),
          },
        },
        data_source_schemas: {},
      },
    },
  };
}
