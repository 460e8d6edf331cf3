/**
 * The schema plumb's provider serves: the GENERATED `schemas/terraform-provider.schema.json`
 * (`npm run generate`, src/schema/terraform.ts, the same document the CDKTF bindings in
 * src/generated/cdktf/ are generated from), so every attribute a CDKTF app synthesizes into
 * cdk.tf.json is exactly an attribute the provider declares, and HCL uses the same names.
 *
 * The provider adds to that document only what a provider alone needs, each kind's part saying
 * what (its `terraform.computed` and `editAttribute`, src/resources/<kind>/terraform.ts), checked
 * by test/provider/schema.test.ts: computed attributes Terraform keeps in state (ids, revisions,
 * token ids, file digests), the write-only flag on secret settings (CDKTF's generator does not know
 * it; Terraform 1.11 does), the provider block's `state_file` (migration only), a default for `token_env`, and the
 * kinds' data sources. It never renames, retypes or removes a generated attribute.
 */
import { ownText } from '../util/own-files.js';
import type { KindSet } from '../resources/index.js';
import { onlyProvider } from './tfjson.js';
import type { TfJsonAttribute, TfJsonBlock, TfJsonProviderSchema, TfJsonSchema, TfJsonSchemas } from './tfjson.js';

/** Schema versions of the resource types; UpgradeResourceState accepts these and older. */
export const SCHEMA_VERSION = 0;

const str = (description: string, extra: Partial<TfJsonAttribute> = {}): TfJsonAttribute => ({ type: 'string', description, description_kind: 'plain', ...extra });

/**
 * What the provider adds to the generated document, per schema. Attributes here must not exist in
 * the generated document (the test checks it), so CDKTF's synthesized configuration never sets them.
 */
export function providerOnly(kinds: KindSet): Readonly<Record<string, Readonly<Record<string, TfJsonAttribute>>>> {
  return {
    provider: {
      // plumb keeps what it remembers in each resource's private state (private-state.ts); the file of
      // older versions is only read, once per resource, to move its entries there.
      // The token itself, for a token from an ephemeral resource or a secrets manager: sensitive, and
      // never stored (a provider block is not in Terraform's state; an ephemeral value not in the plan).
      token: str('The instance\'s access token itself, instead of token_env: from an ephemeral variable or ephemeral resource (or a sensitive data source). Sensitive; used instead of token_env, and never with it. The URL must still be allowed from the environment (PLUMB_ALLOWED_URLS, …).', { optional: true, sensitive: true }),
      state_file: str('The state file an older plumb provider kept (default PLUMB_STATE, else .plumb/state.json): read once per resource to move its entries into Terraform\'s state, never written. Only needed while migrating.', { optional: true, deprecated: true }),
    },
    ...Object.fromEntries(kinds.terraformParts.map((p) => [p.typeName, p.computed ?? {}])),
  };
}

function extend(s: TfJsonSchema, extra: Readonly<Record<string, TfJsonAttribute>> | undefined, edit: (name: string, a: TfJsonAttribute) => TfJsonAttribute = (_, a) => a): TfJsonSchema {
  const attributes = Object.fromEntries(Object.entries(s.block.attributes ?? {}).map(([n, a]) => [n, edit(n, a)]));
  return { ...s, block: { ...s.block, attributes: { ...attributes, ...extra } } };
}

/** The schema without the nested-block attributes a kind does not serve under Terraform (a token's `sink.stdout`). */
function withoutHidden(s: TfJsonSchema, hidden: Readonly<Record<string, readonly string[]>> | undefined): TfJsonSchema {
  if (!hidden) return s;
  const blockTypes = Object.fromEntries(Object.entries(s.block.block_types ?? {}).map(([name, bt]) => {
    const drop = hidden[name];
    if (!drop) return [name, bt];
    const attributes = Object.fromEntries(Object.entries(bt.block.attributes ?? {}).filter(([a]) => !drop.includes(a)));
    return [name, { ...bt, block: { ...bt.block, attributes } }];
  }));
  return { ...s, block: { ...s.block, block_types: blockTypes } };
}

/** The generated document, as committed by `npm run generate` (or generated for a registry's kinds, `KindSet.terraformSchema`). */
export function generatedSchema(kinds: KindSet): TfJsonProviderSchema {
  if (kinds.terraformSchema) return onlyProvider(kinds.terraformSchema() as unknown as TfJsonSchemas);
  const text = ownText('schemas/terraform-provider.schema.json', import.meta.url);
  if (text === undefined) throw new Error('schemas/terraform-provider.schema.json is missing from plumb\'s installation; reinstall plumb-gitops (or run npm run generate in a checkout)');
  return onlyProvider(JSON.parse(text) as TfJsonSchemas);
}

const cached = new WeakMap<KindSet, TfJsonProviderSchema>();

/** The served schema of a registry's kinds: the generated one plus `providerOnly(kinds)` and the kinds' edits (see the note at the top). */
export function providerSchema(kinds: KindSet): TfJsonProviderSchema {
  const known = cached.get(kinds);
  if (known) return known;
  const g = generatedSchema(kinds);
  const only = providerOnly(kinds);
  const resources: Record<string, TfJsonSchema> = {};
  for (const [type, s] of Object.entries(g.resource_schemas)) {
    const part = kinds.terraformParts.find((p) => p.typeName === type);
    resources[type] = withoutHidden(extend(s, only[type], part?.editAttribute?.bind(part)), part?.hidden);
  }
  const dataSources: Record<string, TfJsonSchema> = { ...g.data_source_schemas };
  for (const p of kinds.terraformParts) if (p.dataSource) dataSources[p.typeName] = p.dataSource.schema();
  const served: TfJsonProviderSchema = {
    // token_env defaults to PLUMB_TOKEN under Terraform (ConfigureProvider); CDKTF's bindings keep it required.
    provider: extend(g.provider, only.provider, (name, a) => (name === 'token_env' ? { ...a, required: false, optional: true } : a)),
    resource_schemas: resources,
    data_source_schemas: dataSources,
  };
  cached.set(kinds, served);
  return served;
}

/** A resource type's served block. */
export function resourceBlock(typeName: string, kinds: KindSet): TfJsonBlock | undefined {
  return providerSchema(kinds).resource_schemas[typeName]?.block;
}

/** Names of the nested blocks (one-element lists in Terraform's values) of a resource type. */
export function blockNames(typeName: string, kinds: KindSet): ReadonlySet<string> {
  return new Set(Object.keys(resourceBlock(typeName, kinds)?.block_types ?? {}));
}
