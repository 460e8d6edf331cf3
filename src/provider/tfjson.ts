/**
 * Terraform's JSON form of a provider schema (what `terraform providers schema -json` prints) and
 * its conversion to the protocol's `Schema` messages. plumb's served schema is written in the JSON
 * form (schema.ts), so the file generated from the catalogue for CDKTF can replace it unchanged.
 */
import type { CtyType, DescriptionKind, TfJsonAttribute, TfJsonBlock, TfJsonSchema } from '../resources/terraform.js';
export type { DescriptionKind, TfJsonAttribute, TfJsonBlock, TfJsonBlockType, TfJsonNestedType, TfJsonSchema } from '../resources/terraform.js';

export interface TfJsonProviderSchema {
  readonly provider: TfJsonSchema;
  readonly resource_schemas: Readonly<Record<string, TfJsonSchema>>;
  readonly data_source_schemas?: Readonly<Record<string, TfJsonSchema>>;
}

/** The whole document: `{format_version, provider_schemas: {address: …}}`. */
export interface TfJsonSchemas {
  readonly format_version: string;
  readonly provider_schemas: Readonly<Record<string, TfJsonProviderSchema>>;
}

/** The one provider of a schema document (plumb's file holds exactly one). */
export function onlyProvider(doc: TfJsonSchemas): TfJsonProviderSchema {
  const all = Object.values(doc.provider_schemas);
  if (all.length !== 1) throw new Error(`a provider schema document must hold exactly one provider, not ${all.length}`);
  return all[0]!;
}

// --- the protocol's messages (plain objects for protobuf) ----------------------------------------

export interface ProtoAttribute {
  name: string;
  type: Buffer;
  nested_type?: { attributes: ProtoAttribute[]; nesting: string };
  description: string;
  description_kind: string;
  required: boolean;
  optional: boolean;
  computed: boolean;
  sensitive: boolean;
  deprecated: boolean;
  write_only: boolean;
}

export interface ProtoBlock {
  version: number;
  attributes: ProtoAttribute[];
  block_types: { type_name: string; block: ProtoBlock; nesting: string; min_items: number; max_items: number }[];
  description: string;
  description_kind: string;
  deprecated: boolean;
}

export interface ProtoSchema {
  version: number;
  block: ProtoBlock;
}

const kind = (k: DescriptionKind | undefined) => (k === 'markdown' ? 'MARKDOWN' : 'PLAIN');

function toProtoAttribute(name: string, a: TfJsonAttribute): ProtoAttribute {
  return {
    name,
    type: a.nested_type ? Buffer.alloc(0) : Buffer.from(JSON.stringify(a.type ?? 'dynamic')),
    ...(a.nested_type && {
      nested_type: {
        attributes: Object.entries(a.nested_type.attributes).map(([n, x]) => toProtoAttribute(n, x)),
        nesting: a.nested_type.nesting_mode.toUpperCase(),
      },
    }),
    description: a.description ?? '',
    description_kind: kind(a.description_kind),
    required: a.required ?? false,
    optional: a.optional ?? false,
    computed: a.computed ?? false,
    sensitive: a.sensitive ?? false,
    deprecated: a.deprecated ?? false,
    write_only: a.write_only ?? false,
  };
}

function toProtoBlock(b: TfJsonBlock, version: number): ProtoBlock {
  return {
    version,
    attributes: Object.entries(b.attributes ?? {}).map(([n, a]) => toProtoAttribute(n, a)),
    block_types: Object.entries(b.block_types ?? {}).map(([n, t]) => ({
      type_name: n,
      block: toProtoBlock(t.block, 0),
      nesting: t.nesting_mode.toUpperCase(),
      min_items: t.min_items ?? 0,
      max_items: t.max_items ?? 0,
    })),
    description: b.description ?? '',
    description_kind: kind(b.description_kind),
    deprecated: b.deprecated ?? false,
  };
}

export function toProtoSchema(s: TfJsonSchema): ProtoSchema {
  return { version: s.version, block: toProtoBlock(s.block, s.version) };
}

/**
 * The cty type of a whole block's value: an object with one attribute per attribute and nested
 * block type, the shape Terraform encodes configuration, plans and state in.
 */
export function blockType(b: TfJsonBlock): CtyType {
  const attrs: Record<string, CtyType> = {};
  for (const [n, a] of Object.entries(b.attributes ?? {})) attrs[n] = attributeType(a);
  for (const [n, t] of Object.entries(b.block_types ?? {})) {
    const inner = blockType(t.block);
    attrs[n] = t.nesting_mode === 'single' || t.nesting_mode === 'group' ? inner : [t.nesting_mode, inner];
  }
  return ['object', attrs];
}

export function attributeType(a: TfJsonAttribute): CtyType {
  if (!a.nested_type) return a.type ?? 'dynamic';
  const inner: CtyType = ['object', Object.fromEntries(Object.entries(a.nested_type.attributes).map(([n, x]) => [n, attributeType(x)]))];
  return a.nested_type.nesting_mode === 'single' ? inner : [a.nested_type.nesting_mode, inner];
}
