/**
 * The schema plumb's provider serves: the GENERATED `schemas/terraform-provider.schema.json`
 * (`npm run generate`, src/schema/terraform.ts, the same document the CDKTF bindings in
 * src/generated/cdktf/ are generated from), so every attribute a CDKTF app synthesizes into
 * cdk.tf.json is exactly an attribute the provider declares, and HCL uses the same names.
 *
 * The provider adds to that document only what a provider alone needs, listed in PROVIDER_ONLY
 * below and checked by test/provider/schema.test.ts: computed attributes Terraform keeps in state
 * (ids, revisions, token ids, file digests), the write-only flag on secret settings (CDKTF's
 * generator does not know it; Terraform 1.11 does), the provider block's `state_file`, a default
 * for `token_env`, and the data source. It never renames, retypes or removes a generated attribute.
 */
import { SETTINGS, isSecretSetting } from '../catalogue/index.js';
import type { SettingSpec } from '../catalogue/index.js';
import { ownText } from '../util/own-files.js';
import type { CtyType } from './cty.js';
import { onlyProvider } from './tfjson.js';
import type { TfJsonAttribute, TfJsonBlock, TfJsonProviderSchema, TfJsonSchema, TfJsonSchemas } from './tfjson.js';

export const DATA_SOURCE_TYPES = {
  settings: 'plumb_application_settings',
} as const;

export const RESOURCE_TYPES = {
  settings: 'plumb_application_settings',
  token: 'plumb_group_access_token',
  file: 'plumb_repository_file',
  pages: 'plumb_project_pages',
} as const;

/** Schema versions of the resource types; UpgradeResourceState accepts these and older. */
export const SCHEMA_VERSION = 0;

/** Attributes of the settings resource that are not settings. */
export const SETTINGS_META_ATTRIBUTES = ['id', 'write_only_revision'] as const;

const str = (description: string, extra: Partial<TfJsonAttribute> = {}): TfJsonAttribute => ({ type: 'string', description, description_kind: 'plain', ...extra });
const computed = (description: string, type: CtyType = 'string'): TfJsonAttribute => ({ type, description, description_kind: 'plain', computed: true });

/**
 * What the provider adds to the generated document, per schema. Attributes here must not exist in
 * the generated document (the test checks it), so CDKTF's synthesized configuration never sets them.
 */
export const PROVIDER_ONLY: Readonly<Record<string, Readonly<Record<string, TfJsonAttribute>>>> = {
  provider: {
    state_file: str('plumb\'s state file of salted fingerprints (default PLUMB_STATE, else .plumb/state.json).', { optional: true }),
  },
  [RESOURCE_TYPES.settings]: {
    id: computed('Always "application_settings": an instance has one set of settings.'),
    write_only_revision: computed('Changes whenever plumb sends write-only settings (plumb knows they changed from salted fingerprints in its state file); never the secret, nor a hash of it.'),
  },
  [RESOURCE_TYPES.token]: {
    token_id: computed('Id of the active token (changes when plumb rotates or replaces it).', 'number'),
    token_expires_at: computed('Expiry of the active token.'),
  },
  [RESOURCE_TYPES.file]: {
    content_sha256: computed('Per branch: "sha256:" and the first 12 hex digits of the file\'s SHA-256 (the instance\'s after refresh, the declared one after apply); never of a secret.', ['map', 'string']),
    last_commit_id: computed('Per branch: the last commit that changed the file, as plan saw it. Apply refuses to overwrite a file committed to since (optimistic locking).', ['map', 'string']),
  },
  [RESOURCE_TYPES.pages]: {
    id: computed('The project.'),
  },
};

/** The cty type of a setting's attribute in the data source (the data source converts live values to it). */
export function settingAttributeType(s: SettingSpec): CtyType {
  switch (s.type) {
    case 'boolean':
      return 'bool';
    case 'integer':
    case 'float':
      return 'number';
    case 'string':
    case 'text':
      return 'string';
    case 'string[]':
    case 'string|string[]':
      return ['list', 'string'];
    case 'integer[]':
      return ['list', 'number'];
    case 'object':
      return ['map', 'bool'];
    case 'hash':
      return 'dynamic';
  }
}

/** The instance's current settings, read-only; secret settings are left out (write-only). Provider-only: CDKTF binds resources. */
function settingsDataSchema(): TfJsonSchema {
  const attributes: Record<string, TfJsonAttribute> = { id: computed('Always "application_settings".') };
  for (const s of SETTINGS) {
    if (s.removed || s.secret) continue;
    attributes[s.name] = { type: settingAttributeType(s), description: s.description, description_kind: 'plain', computed: true, ...(s.deprecated && { deprecated: true }) };
  }
  return {
    version: SCHEMA_VERSION,
    block: { attributes, description: 'The application settings as the instance reports them now (secret settings excluded).', description_kind: 'plain' },
  };
}

function extend(s: TfJsonSchema, extra: Readonly<Record<string, TfJsonAttribute>> | undefined, edit: (name: string, a: TfJsonAttribute) => TfJsonAttribute = (_, a) => a): TfJsonSchema {
  const attributes = Object.fromEntries(Object.entries(s.block.attributes ?? {}).map(([n, a]) => [n, edit(n, a)]));
  return { ...s, block: { ...s.block, attributes: { ...attributes, ...extra } } };
}

/** The generated document, as committed by `npm run generate`. */
export function generatedSchema(): TfJsonProviderSchema {
  const text = ownText('schemas/terraform-provider.schema.json', import.meta.url);
  if (text === undefined) throw new Error('schemas/terraform-provider.schema.json is missing from plumb\'s installation; reinstall plumb-gitops (or run npm run generate in a checkout)');
  return onlyProvider(JSON.parse(text) as TfJsonSchemas);
}

let cached: TfJsonProviderSchema | undefined;

/** The served schema: the generated one plus PROVIDER_ONLY (see the note at the top). */
export function providerSchema(): TfJsonProviderSchema {
  if (cached) return cached;
  const g = generatedSchema();
  const resources: Record<string, TfJsonSchema> = {};
  for (const [type, s] of Object.entries(g.resource_schemas)) {
    resources[type] = extend(s, PROVIDER_ONLY[type], (name, a) =>
      // Secret settings: write-only, so Terraform sends them but never stores them in plan or state.
      type === RESOURCE_TYPES.settings && isSecretSetting(name) ? { ...a, sensitive: true, write_only: true } : a,
    );
  }
  cached = {
    // token_env defaults to PLUMB_TOKEN under Terraform (ConfigureProvider); CDKTF's bindings keep it required.
    provider: extend(g.provider, PROVIDER_ONLY.provider, (name, a) => (name === 'token_env' ? { ...a, required: false, optional: true } : a)),
    resource_schemas: resources,
    data_source_schemas: { ...g.data_source_schemas, [DATA_SOURCE_TYPES.settings]: settingsDataSchema() },
  };
  return cached;
}

/** Names of the nested blocks (one-element lists in Terraform's values) of a resource type. */
export function blockNames(typeName: string): ReadonlySet<string> {
  return new Set(Object.keys(providerSchema().resource_schemas[typeName]?.block.block_types ?? {}));
}

/** A nested block's schema, for values read back from the instance. */
export function nestedBlock(typeName: string, name: string): TfJsonBlock | undefined {
  return providerSchema().resource_schemas[typeName]?.block.block_types?.[name]?.block;
}
