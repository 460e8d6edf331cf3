/**
 * plumb's resources as a Terraform provider schema: the JSON `terraform providers schema -json`
 * prints, for a provider named `plumb`. `npm run generate` commits it as
 * schemas/terraform-provider.schema.json and feeds it to `@cdktf/provider-generator`, which turns
 * it into the typed constructs exported as `plumb-gitops/cdktf`. Built from the same JSON Schemas as the
 * YAML path (themselves built from the catalogue), so both front-ends accept the same fields.
 * Build time only; never loaded by the CLI.
 */
import { configSchema, instanceSchema } from './build.js';
import type { JsonSchema } from './build.js';
import { DATA_SOURCES } from '../catalogue/index.js';
import type { TerraformResourceShape } from '../catalogue/index.js';
import type { KindConfig } from '../config/kinds.js';

/** Where the provider lives, as a `required_providers` source (src/catalogue/kinds.ts). */
import { PLUMB_PROVIDER_SOURCE } from '../catalogue/index.js';
export { PLUMB_PROVIDER_SOURCE };

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
  block_types?: Record<string, { nesting_mode: 'list'; max_items?: 1; block: TfBlock }>;
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
  if (s.minLength === 1 && s.maxLength === undefined) parts.push('Not empty.');
  else if (s.maxLength === undefined && s.minLength !== undefined) parts.push(`At least ${String(s.minLength)} characters.`);
  else if (s.maxLength !== undefined) parts.push(`Length ${String(s.minLength ?? 0)} to ${String(s.maxLength)}.`);
  if (s.pattern !== undefined) parts.push(`Matches ${String(s.pattern)}.`);
  if (s.maxItems !== undefined) parts.push(`At most ${String(s.maxItems)} items.`);
  if (s.default !== undefined) parts.push(`Default: ${JSON.stringify(s.default)}.`);
  return parts.filter(Boolean).join(' ').trim();
}

/**
 * Descriptions written for this schema's doors (HCL, CDKTF) where the configuration schema's speak
 * of plumb's YAML (a path "relative to this YAML file", apply's `--allow-…` flags): the provider
 * block's here, a resource's in its catalogue shape (`terraformWords`), by the attribute's place
 * (`source`, `sink.command`). The YAML wording stays in the configuration schema and docs/config.md.
 */
const PROVIDER_WORDS: Readonly<Record<string, string>> = {
  ca_bundle: 'PEM file of a private CA (relative to the working directory). Not empty.',
  allow_risky: 'Ids of risky changes (changes that can lock people or plumb out, skip a review or leave something unprotected; docs/plans.md, "Risky changes") plumb may carry out. A risky change whose id is not listed is an error at plan.',
};

/** A JSON Schema object's properties as a Terraform block: objects with known keys become nested blocks. */
function blockOf(schema: JsonSchema, opts: { description: string; required?: readonly string[]; descriptions?: Record<string, string>; deprecated?: ReadonlySet<string>; words?: Readonly<Record<string, string>>; at?: string }): TfBlock {
  const attributes: Record<string, TfAttribute> = {};
  const blockTypes: NonNullable<TfBlock['block_types']> = {};
  const required = new Set([...((schema.required as string[] | undefined) ?? []), ...(opts.required ?? [])]);
  for (const [name, raw] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
    const place = opts.at !== undefined ? `${opts.at}.${name}` : name;
    const description = opts.words?.[place] ?? describe(raw, opts.descriptions?.[name]);
    if (raw.properties) {
      blockTypes[name] = { nesting_mode: 'list', max_items: 1, block: blockOf(raw, { description, ...(opts.words && { words: opts.words, at: place }) }) };
      continue;
    }
    // A list of objects with known keys (a token's `sinks`): a repeatable nested block.
    const items = raw.items as JsonSchema | undefined;
    if (raw.type === 'array' && items?.properties) {
      blockTypes[name] = { nesting_mode: 'list', block: blockOf(items, { description, ...(opts.words && { words: opts.words, at: place }) }) };
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

/** One kind's resource: its configuration definition as a block, its identity attributes first. */
function resourceBlock(r: TerraformResourceShape, definitions: Readonly<Record<string, JsonSchema>>): TfBlock {
  const schema = definitions[r.definition];
  if (!schema) throw new Error(`the configuration schema has no definition ${r.definition} (${r.type})`);
  const lifted = Object.entries(r.lifted ?? {}).map(([name, l]) => {
    const def = definitions[l.definition];
    if (!def) throw new Error(`the configuration schema has no definition ${l.definition} (${r.type}.${name})`);
    return [name, def] as const;
  });
  const withLifted: JsonSchema = lifted.length > 0 ? { ...schema, properties: { ...(schema.properties as Record<string, JsonSchema>), ...Object.fromEntries(lifted) } } : schema;
  const block = blockOf(withLifted, {
    description: r.description ?? String(schema.description),
    ...(r.terraformWords && { words: r.terraformWords }),
    ...(r.fields && { descriptions: fieldDescriptions(r.fields) }),
    ...(r.deprecated && { deprecated: new Set(r.deprecated) }),
  });
  return withKey(block, Object.fromEntries(r.identity.map((i) => [i.name, key(i.description)])));
}

/**
 * The whole provider schema document, for the built-in kinds (`npm run generate`) or the kinds and
 * Terraform shapes a registry passes (`withKinds`, src/resources/with-kinds.ts).
 */
export function terraformProviderSchema(kinds: readonly KindConfig[], shapes: readonly TerraformResourceShape[]): Record<string, unknown> {
  const instance = instanceSchema(kinds);
  const props = instance.properties as Record<string, JsonSchema>;
  // No `lock`: Terraform locks its own state, and the provider applies one resource at a time.
  const mounts = new Set<string>([...shapes.map((r) => r.keyPath[0]!), 'lock']);
  const connection = Object.fromEntries(Object.entries(props).filter(([k]) => !mounts.has(k)));
  const definitions = configSchema(kinds).definitions as Record<string, JsonSchema>;
  return {
    format_version: '1.0',
    provider_schemas: {
      [PLUMB_PROVIDER_SOURCE]: {
        provider: {
          version: 0,
          block: blockOf(
            { type: 'object', properties: connection },
            { description: 'One instance plumb manages. Its name is the provider alias, else the stack name.', required: ['url', 'token_env'], words: PROVIDER_WORDS },
          ),
        },
        resource_schemas: Object.fromEntries(shapes.map((r) => [r.type, { version: 0, block: resourceBlock(r, definitions) }])),
        // The data sources listing a group's projects and groups (catalogue/data-sources.ts); the
        // settings' data source is served by the provider alone (src/provider/schema.ts).
        data_source_schemas: DATA_SOURCES,
      },
    },
  };
}
