/**
 * Builds plumb's JSON Schemas from the field catalogue. Used by `scripts/generate.ts` (which commits
 * the results under schemas/) and by the staleness test; never at run time.
 */
import type { SettingSpec, SettingRule } from '../catalogue/types.js';
import { SETTINGS, SETTING_RULES, GROUP_TOKEN_SCOPES, ACCESS_LEVELS } from '../catalogue/index.js';

export type JsonSchema = Record<string, unknown>;

const SCHEMA_BASE = 'https://plumb.dev/schemas';
const DRAFT = 'http://json-schema.org/draft-07/schema#';

export const ROLE_NAMES = Object.values(ACCESS_LEVELS) as readonly string[];
export const ACCESS_LEVEL_VALUES = Object.keys(ACCESS_LEVELS).map(Number);

function tierText(s: SettingSpec): string {
  const tags = (s.tiers ?? []).map((t) => `[${t}]`).join('');
  return tags ? ` ${tags}` : '';
}

/** Human description for editors: meaning, tier, version notes, secrecy. */
export function settingDescription(s: SettingSpec): string {
  const parts = [s.description + tierText(s)];
  if (s.since) parts.push(`Since ${s.since}.`);
  if (s.deprecated) {
    parts.push(
      `Deprecated${s.deprecated.since ? ` since ${s.deprecated.since}` : ''}${s.deprecated.replacement ? `; use ${s.deprecated.replacement}` : ''}${s.deprecated.note ? ` (${s.deprecated.note})` : ''}.`,
    );
  }
  if (s.secret) parts.push('Secret: write it as ${env:NAME}; plumb never shows it.');
  if (s.readOnly) parts.push('Cannot be updated through the interface.');
  if (s.restartRequired) parts.push('Restart required to apply.');
  return parts.join(' ');
}

/** The JSON Schema of one setting's value. */
export function settingValueSchema(s: SettingSpec): JsonSchema {
  const out: JsonSchema = {};
  const nullable = s.default === null;
  switch (s.type) {
    case 'boolean':
      out.type = 'boolean';
      break;
    case 'integer':
    case 'float':
      out.type = s.type === 'integer' ? 'integer' : 'number';
      if (s.enum) out.enum = [...s.enum];
      if (s.minimum !== undefined) out.minimum = s.minimum;
      if (s.maximum !== undefined) out.maximum = s.maximum;
      if (s.multipleOf !== undefined) out.multipleOf = s.multipleOf;
      break;
    case 'string':
    case 'text':
      out.type = nullable ? ['string', 'null'] : 'string';
      if (s.enum) out.enum = nullable ? [...s.enum, null] : [...s.enum];
      if (s.minLength !== undefined) out.minLength = s.minLength;
      if (s.maxLength !== undefined) out.maxLength = s.maxLength;
      if (s.pattern !== undefined) out.pattern = s.pattern;
      break;
    case 'string[]':
    case 'integer[]':
      out.type = nullable ? ['array', 'null'] : 'array';
      out.items = { type: s.type === 'string[]' ? 'string' : 'integer', ...(s.enum && { enum: [...s.enum] }) };
      if (s.enum) out.uniqueItems = true;
      if (s.maxItems !== undefined) out.maxItems = s.maxItems;
      break;
    case 'string|string[]':
      out.type = ['string', 'array'];
      out.items = { type: 'string' };
      break;
    case 'hash':
    case 'object':
      out.type = nullable ? ['object', 'null'] : 'object';
      if (s.keys) {
        out.properties = Object.fromEntries(s.keys.map((k) => [k, { type: 'boolean' }]));
        out.additionalProperties = false;
      } else if (s.values) {
        out.additionalProperties = { type: 'integer', ...(s.values.minimum !== undefined && { minimum: s.values.minimum }), ...(s.values.maximum !== undefined && { maximum: s.values.maximum }) };
      }
      break;
  }
  out.description = settingDescription(s);
  if (s.default !== undefined) out.default = s.default;
  if (s.secret) out.writeOnly = true;
  return out;
}

/** What "given" means for a rule's partner: a non-empty list or string (any value for the rest). */
function nonEmpty(name: string): JsonSchema {
  const t = SETTINGS.find((x) => x.name === name)?.type;
  if (t === 'string[]' || t === 'integer[]') return { minItems: 1 };
  if (t === 'string' || t === 'text') return { minLength: 1 };
  return {};
}

const VISIBILITY_LEVELS = ['private', 'internal', 'public'] as const;

/**
 * Each catalogue rule as JSON Schema, in a fixed order; `ruleIndex[i]` names the catalogue rule the
 * i-th `allOf` entry came from, so a validation error can name both keys of the rule it broke.
 */
export function ruleSchemas(rules: readonly SettingRule[] = SETTING_RULES): { allOf: JsonSchema[]; ruleIndex: number[] } {
  const allOf: JsonSchema[] = [];
  const ruleIndex: number[] = [];
  rules.forEach((r, i) => {
    switch (r.kind) {
      case 'required-when-enabled':
        allOf.push({
          if: { properties: { [r.flag]: { const: true } }, required: [r.flag] },
          // A partner given empty (`domain_denylist: []`) is refused by the instance like a missing one.
          then: { required: [...r.requires], properties: Object.fromEntries(r.requires.map((n) => [n, nonEmpty(n)])) },
        });
        ruleIndex.push(i);
        break;
      case 'required-with':
        allOf.push({
          if: { properties: { [r.field]: { type: 'string', minLength: 1 } }, required: [r.field] },
          then: { required: [...r.requires] },
        });
        ruleIndex.push(i);
        break;
      case 'not-in-list':
        for (const level of VISIBILITY_LEVELS) {
          allOf.push({
            if: { properties: { [r.list]: { type: 'array', contains: { const: level } } }, required: [r.list] },
            then: { properties: { [r.field]: { not: { const: level } } } },
          });
          ruleIndex.push(i);
        }
        break;
    }
  });
  return { allOf, ruleIndex };
}

/** Settings that may appear in a desired-state document: current, updatable ones. */
export function writableSettings(): SettingSpec[] {
  return SETTINGS.filter((s) => !s.removed);
}

export function settingsObjectSchema(): JsonSchema {
  const { allOf } = ruleSchemas();
  return {
    type: 'object',
    description: 'Instance-wide application settings (PUT /application/settings). Only the keys you declare are managed.',
    additionalProperties: false,
    properties: Object.fromEntries(writableSettings().map((s) => [s.name, settingValueSchema(s)])),
    allOf,
  };
}

export function applicationSettingsSchema(): JsonSchema {
  return {
    $schema: DRAFT,
    $id: `${SCHEMA_BASE}/application-settings.schema.json`,
    title: 'Application settings',
    ...settingsObjectSchema(),
  };
}

const DATE_PATTERN = '^\\d{4}-\\d{2}-\\d{2}$';
/** A DNS host name: labels of letters, digits and inner hyphens, dot-separated, at most 253 characters. */
const HOSTNAME_PATTERN = '^(?=.{1,253}\\.?$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\\.?$';

export function accessTokenSchema(): JsonSchema {
  return {
    type: 'object',
    description: 'A group access token, identified by its name among the group\'s active tokens.',
    additionalProperties: false,
    required: ['scopes'],
    properties: {
      id: {
        type: 'integer',
        minimum: 1,
        description: 'Pins the live token (its numeric id) when two active tokens of the group share this name.',
      },
      description: { type: 'string' },
      scopes: {
        type: 'array',
        minItems: 1,
        uniqueItems: true,
        items: { type: 'string', minLength: 1 },
        description: `Scopes of the token. Known: ${GROUP_TOKEN_SCOPES.join(', ')}; other values warn.`,
        examples: [[...GROUP_TOKEN_SCOPES.slice(0, 2)]],
      },
      access_level: {
        enum: [...ACCESS_LEVEL_VALUES, ...ROLE_NAMES],
        default: 40,
        description: 'Role of the token: a number (10..50) or a role name.',
      },
      expires_at: { type: 'string', pattern: DATE_PATTERN, description: 'Fixed expiry date (YYYY-MM-DD). Changing it rotates the token.' },
      rotation: {
        type: 'object',
        additionalProperties: false,
        required: ['lifetime_days'],
        description: 'Rotate on schedule instead of a fixed expiry.',
        properties: {
          lifetime_days: { type: 'integer', minimum: 1, maximum: 400, description: 'Lifetime of each issued token, in days.' },
          rotate_before_days: {
            type: 'integer',
            minimum: 1,
            maximum: 399,
            default: 7,
            description: 'Rotate when the token expires within this many days.',
          },
        },
      },
      sink: sinkSchema(),
      self: { type: 'boolean', description: "This token is plumb's own credential; it rotates through the `self` keyword." },
    },
  };
}

function sinkSchema(): JsonSchema {
  return {
    type: 'object',
    description: 'Where the secret of a newly issued token is delivered (exactly one of file, command, stdout).',
    additionalProperties: false,
    minProperties: 1,
    maxProperties: 1,
    properties: {
      file: { type: 'string', minLength: 1, description: 'Written atomically with mode 0600; the directory must exist.' },
      command: {
        type: 'array',
        minItems: 1,
        items: { type: 'string', minLength: 1 },
        description:
          'Program and arguments (a program on PATH, or a path relative to this YAML file); receives the secret on standard input.',
      },
      stdout: { const: true, description: 'Print one JSON line with the secret on standard output (the apply report then goes to standard error).' },
    },
  };
}

export function groupSchema(): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    properties: {
      access_tokens: {
        type: 'object',
        description: 'Group access tokens keyed by name.',
        additionalProperties: { $ref: '#/definitions/access_token' },
      },
      prune_access_tokens: {
        type: 'boolean',
        default: false,
        description: 'Revoke active tokens of this group that are not declared.',
      },
    },
  };
}

export function fileSchema(): JsonSchema {
  return {
    type: 'object',
    description: 'A repository file, keyed by its path in the repository.',
    additionalProperties: false,
    properties: {
      branches: {
        type: 'array',
        minItems: 1,
        uniqueItems: true,
        items: { type: 'string', minLength: 1 },
        description: "Branches the file is managed on; default: the project's default branch.",
      },
      content: { type: 'string', description: 'The file content, inline.' },
      source: { type: 'string', minLength: 1, description: 'A local file whose content is used (relative to this YAML file).' },
      encoding: { enum: ['text', 'base64'], default: 'text' },
      execute_filemode: { type: 'boolean' },
      start_branch: {
        type: 'string',
        minLength: 1,
        description: 'When a branch of `branches` does not exist yet, the first write creates it from this branch.',
      },
      commit_message: {
        type: 'string',
        minLength: 1,
        description: 'Commit message template for every action; placeholders {path}, {branch}, {project}, {action}.',
      },
      commit_messages: {
        type: 'object',
        additionalProperties: false,
        description: 'Commit message template per action (overrides commit_message for that action).',
        properties: {
          create: { type: 'string', minLength: 1 },
          update: { type: 'string', minLength: 1 },
          delete: { type: 'string', minLength: 1 },
        },
      },
      author_name: { type: 'string' },
      author_email: { type: 'string' },
      state: { enum: ['present', 'absent'], default: 'present', description: '`absent` deletes the file.' },
    },
  };
}

export function pagesSchema(): JsonSchema {
  return {
    type: 'object',
    description: "A project's Pages settings (PATCH /projects/:id/pages).",
    additionalProperties: false,
    properties: {
      pages_unique_domain_enabled: { type: 'boolean', description: 'Use a unique domain.' },
      pages_https_only: { type: 'boolean', description: 'Force HTTPS.' },
      pages_primary_domain: {
        type: ['string', 'null'],
        pattern: `^$|${HOSTNAME_PATTERN}`,
        description: 'One of the already assigned domains; all Pages requests redirect to it. Since 17.8. An empty string or null clears it.',
      },
      published: { type: 'boolean', description: '`false` unpublishes the Pages site (DELETE, a destroy); `true` expects a deployment.' },
      allow_unpublish: { type: 'boolean', default: false, description: 'Apply an unpublish of this project without --allow-destroy.' },
    },
  };
}

export function projectSchema(): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    properties: {
      files: { type: 'object', additionalProperties: { $ref: '#/definitions/file' } },
      pages: { $ref: '#/definitions/pages' },
    },
  };
}

export function instanceSchema(): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    properties: {
      url: { type: 'string', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/]+', description: 'Base URL of the instance, without /api/v4.' },
      token_env: {
        type: 'string',
        pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
        description: 'Name of the environment variable holding the access token (never the token itself).',
      },
      ca_bundle: { type: 'string', minLength: 1, description: 'PEM file of a private CA (relative to this YAML file).' },
      allow_insecure_http: { type: 'boolean', default: false, description: 'Allow plain HTTP to a non-loopback host.' },
      settings_verify_seconds: {
        type: 'integer',
        minimum: 0,
        maximum: 600,
        default: 90,
        description: 'How long apply waits for cached settings to show their new values before calling them drifted.',
      },
      allow_risky: {
        type: 'array',
        uniqueItems: true,
        // Ids are checked by plumb itself (unknown id with a did-you-mean), not by a pattern here.
        items: { type: 'string' },
        description:
          'Ids of risky changes (changes that can lock administrators or plumb out) this instance accepts without --allow-risky; see docs/plans.md.',
      },
      lock: {
        type: 'object',
        additionalProperties: false,
        required: ['project', 'path'],
        description:
          'A lock on the instance that apply holds while it works, so applies on different machines never run at once: a file in a repository of the instance, created to acquire and deleted to release (docs/state.md#locking).',
        properties: {
          project: {
            type: ['string', 'integer'],
            minLength: 1,
            minimum: 1,
            description: 'The project holding the lock file: its full path or numeric id. The token needs the Developer role there (Maintainer on a protected branch).',
          },
          path: { type: 'string', minLength: 1, description: 'Path of the lock file in the repository, e.g. `locks/plumb-production.json`.' },
          branch: { type: 'string', minLength: 1, description: "Branch of the lock file. Default: the project's default branch." },
          ttl_minutes: {
            type: 'integer',
            minimum: 1,
            maximum: 1440,
            default: 60,
            description: 'How long a lock stays valid; an apply of another machine takes over a lock older than this (a run that died without releasing it).',
          },
        },
      },
      settings: { $ref: '#/definitions/settings' },
      groups: { type: 'object', additionalProperties: { $ref: '#/definitions/group' }, description: 'Groups by full path or numeric id.' },
      projects: { type: 'object', additionalProperties: { $ref: '#/definitions/project' }, description: 'Projects by full path or numeric id.' },
    },
  };
}

export function configSchema(): JsonSchema {
  return {
    $schema: DRAFT,
    $id: `${SCHEMA_BASE}/plumb-config.schema.json`,
    title: 'plumb configuration',
    type: 'object',
    additionalProperties: false,
    properties: {
      version: { const: 1, description: 'Configuration format version.' },
      instances: {
        type: 'object',
        description: 'Target instances by a name of your choice.',
        propertyNames: { pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$' },
        additionalProperties: { $ref: '#/definitions/instance' },
      },
      defaults: {
        type: 'object',
        description:
          'Settings, groups and projects every instance inherits (docs/config.md#shared-defaults). An instance overrides a setting, a token, a file, a Pages field or a group or project key by declaring it; the rules between settings apply to each instance as merged.',
        additionalProperties: false,
        properties: {
          settings: { ...settingsObjectSchema(), allOf: undefined, description: 'Settings every instance inherits; an instance overrides one by declaring it.' },
          groups: { type: 'object', additionalProperties: { $ref: '#/definitions/group' }, description: 'Groups every instance inherits (tokens by name).' },
          projects: { type: 'object', additionalProperties: { $ref: '#/definitions/project' }, description: 'Projects every instance inherits (files by path, Pages by field).' },
        },
      },
    },
    definitions: {
      instance: instanceSchema(),
      settings: settingsObjectSchema(),
      group: groupSchema(),
      access_token: accessTokenSchema(),
      project: projectSchema(),
      file: fileSchema(),
      pages: pagesSchema(),
    },
  };
}

/** Stand-alone schema for one resource kind, for tools that validate a single block. */
export function resourceSchema(title: string, body: JsonSchema, file: string): JsonSchema {
  return { $schema: DRAFT, $id: `${SCHEMA_BASE}/${file}`, title, ...body };
}
