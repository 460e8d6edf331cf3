/**
 * The schema plumb's provider serves, in Terraform's JSON form, built from the catalogue.
 *
 * PROVISIONAL: this is the ONE place the served schema comes from. The CDKTF work generates
 * `schemas/terraform-provider.schema.json` (the same JSON form, provider `plumb`) from the
 * catalogue; once it lands, `providerSchema()` should read that file (through `onlyProvider` in
 * tfjson.ts) and this builder goes away. Resource type names and attribute names here follow that
 * file's contract: `plumb_application_settings`, `plumb_group_access_token`,
 * `plumb_repository_file`, `plumb_project_pages`, settings named as in the catalogue.
 */
import { GROUP_TOKEN_SCOPES, SETTINGS } from '../catalogue/index.js';
import type { SettingSpec } from '../catalogue/index.js';
import type { CtyType } from './cty.js';
import type { TfJsonAttribute, TfJsonProviderSchema, TfJsonSchema } from './tfjson.js';

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

function settingType(s: SettingSpec): CtyType {
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

const str = (description: string, extra: Partial<TfJsonAttribute> = {}): TfJsonAttribute => ({ type: 'string', description, description_kind: 'plain', ...extra });
const computedId = (description: string): TfJsonAttribute => str(description, { computed: true });

function settingsSchema(): TfJsonSchema {
  const attributes: Record<string, TfJsonAttribute> = {
    id: computedId('Always "application_settings": an instance has one set of settings.'),
    write_only_revision: str(
      'Changes whenever plumb sends write-only settings (plumb knows they changed from salted fingerprints in its state file); never the secret, nor a hash of it.',
      { computed: true },
    ),
  };
  for (const s of SETTINGS) {
    if (s.removed) continue;
    attributes[s.name] = {
      type: settingType(s),
      description: s.description,
      description_kind: 'plain',
      optional: true,
      ...(s.deprecated && { deprecated: true }),
      ...(s.secret && { sensitive: true, write_only: true }),
    };
  }
  return {
    version: SCHEMA_VERSION,
    block: {
      attributes,
      description: 'The instance-wide application settings. Only the settings written are managed; the others are left alone. Destroying this resource leaves the settings as they are.',
      description_kind: 'plain',
    },
  };
}

function tokenSchema(): TfJsonSchema {
  return {
    version: SCHEMA_VERSION,
    block: {
      description: 'A group access token, identified by its name among the group\'s active tokens. Its secret goes to the sink, never to state.',
      description_kind: 'plain',
      attributes: {
        id: computedId('"GROUP:NAME".'),
        group: str('Full path or numeric id of the group.', { required: true }),
        name: str('Name of the token: its identity in the group.', { required: true }),
        description: str('Description; managed only when written.', { optional: true }),
        scopes: { type: ['set', 'string'], description: `Scopes. Known: ${GROUP_TOKEN_SCOPES.join(', ')}.`, description_kind: 'plain', required: true },
        access_level: str('Role: 10..50 or guest, planner, reporter, developer, maintainer, owner (default maintainer, 40).', { optional: true }),
        expires_at: str('Fixed expiry (YYYY-MM-DD); or give rotation.', { optional: true }),
        rotation: {
          description: 'Rotate on schedule instead of a fixed expiry.',
          description_kind: 'plain',
          optional: true,
          nested_type: {
            nesting_mode: 'single',
            attributes: {
              lifetime_days: { type: 'number', description: 'Lifetime of each issued token, in days (1-400).', description_kind: 'plain', required: true },
              rotate_before_days: { type: 'number', description: 'Rotate when the token expires within this many days (default 7).', description_kind: 'plain', optional: true },
            },
          },
        },
        sink: {
          description: 'Where the secret of a newly issued token is delivered: exactly one of file, command, stdout.',
          description_kind: 'plain',
          required: true,
          nested_type: {
            nesting_mode: 'single',
            attributes: {
              file: str('Written atomically with mode 0600 (relative to the working directory); the directory must exist.', { optional: true }),
              command: { type: ['list', 'string'], description: 'Program and arguments; receives the secret on standard input.', description_kind: 'plain', optional: true },
              stdout: { type: 'bool', description: 'Refused under Terraform (the provider\'s standard output goes to Terraform\'s log); kept for the shape plumb\'s YAML shares.', description_kind: 'plain', optional: true },
            },
          },
        },
        self: { type: 'bool', description: 'This token is plumb\'s own credential.', description_kind: 'plain', optional: true },
        token_id: { type: 'number', description: 'Id of the active token (changes when plumb rotates or replaces it).', description_kind: 'plain', computed: true },
        token_expires_at: str('Expiry of the active token.', { computed: true }),
      },
    },
  };
}

function fileSchema(): TfJsonSchema {
  return {
    version: SCHEMA_VERSION,
    block: {
      description: 'A file in a project\'s repository (validated; plan and apply come later).',
      description_kind: 'plain',
      attributes: {
        id: computedId('"PROJECT:BRANCH:PATH".'),
        project: str('Full path or numeric id of the project.', { required: true }),
        path: str('Path of the file in the repository.', { required: true }),
        branch: str('Branch; default: the project\'s default branch.', { optional: true }),
        content: str('The content.', { optional: true }),
        encoding: str('text or base64.', { optional: true }),
        execute_filemode: { type: 'bool', description: 'Executable bit.', description_kind: 'plain', optional: true },
        commit_message: str('Commit message.', { optional: true }),
        author_name: str('Commit author name.', { optional: true }),
        author_email: str('Commit author email.', { optional: true }),
      },
    },
  };
}

function pagesSchema(): TfJsonSchema {
  return {
    version: SCHEMA_VERSION,
    block: {
      description: 'A project\'s Pages settings (validated; plan and apply come later).',
      description_kind: 'plain',
      attributes: {
        id: computedId('The project.'),
        project: str('Full path or numeric id of the project.', { required: true }),
        pages_unique_domain_enabled: { type: 'bool', description: 'Use a unique domain.', description_kind: 'plain', optional: true },
        pages_https_only: { type: 'bool', description: 'Force HTTPS.', description_kind: 'plain', optional: true },
        pages_primary_domain: str('One of the already assigned domains.', { optional: true }),
      },
    },
  };
}

/** The instance's current settings, read-only; secret settings are left out (write-only). */
function settingsDataSchema(): TfJsonSchema {
  const attributes: Record<string, TfJsonAttribute> = { id: computedId('Always "application_settings".') };
  for (const s of SETTINGS) {
    if (s.removed || s.secret) continue;
    attributes[s.name] = { type: settingType(s), description: s.description, description_kind: 'plain', computed: true, ...(s.deprecated && { deprecated: true }) };
  }
  return {
    version: SCHEMA_VERSION,
    block: { attributes, description: 'The application settings as the instance reports them now (secret settings excluded).', description_kind: 'plain' },
  };
}

/** The cty type of a setting's attribute (the data source converts live values to it). */
export function settingAttributeType(s: SettingSpec): CtyType {
  return settingType(s);
}

function providerConfigSchema(): TfJsonSchema {
  return {
    version: 0,
    block: {
      description: 'plumb: a code-hosting instance\'s configuration, planned and applied by plumb\'s engine.',
      description_kind: 'plain',
      attributes: {
        url: str('Base URL of the instance, without /api/v4.', { required: true }),
        token_env: str('Name of the environment variable holding the access token (default PLUMB_TOKEN); never the token itself.', { optional: true }),
        ca_bundle: str('PEM file of a private CA.', { optional: true }),
        allow_insecure_http: { type: 'bool', description: 'Allow plain HTTP to a non-loopback host.', description_kind: 'plain', optional: true },
        allow_risky: { type: ['list', 'string'], description: 'Ids of risky changes this instance accepts (docs/plans.md).', description_kind: 'plain', optional: true },
        state_file: str('plumb\'s state file of salted fingerprints (default PLUMB_STATE, else .plumb/state.json).', { optional: true }),
      },
    },
  };
}

let cached: TfJsonProviderSchema | undefined;

/** The served schema. See the note at the top of this file. */
export function providerSchema(): TfJsonProviderSchema {
  cached ??= {
    provider: providerConfigSchema(),
    resource_schemas: {
      [RESOURCE_TYPES.settings]: settingsSchema(),
      [RESOURCE_TYPES.token]: tokenSchema(),
      [RESOURCE_TYPES.file]: fileSchema(),
      [RESOURCE_TYPES.pages]: pagesSchema(),
    },
    data_source_schemas: {
      [DATA_SOURCE_TYPES.settings]: settingsDataSchema(),
    },
  };
  return cached;
}
