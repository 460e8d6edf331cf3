/** The group access tokens' JSON Schema fragment: a token, its sink, and their keys under a group. */
import { ACCESS_LEVELS, GROUP_TOKEN_SCOPES } from '../../catalogue/index.js';
import type { JsonSchema } from '../../config/kinds.js';
import { VARIABLE_KEY_SCHEMA_PATTERN } from '../../catalogue/ci-variables.js';

const ROLE_NAMES = Object.values(ACCESS_LEVELS) as readonly string[];
const ACCESS_LEVEL_VALUES = Object.keys(ACCESS_LEVELS).map(Number);
const DATE_PATTERN = '^\\d{4}-\\d{2}-\\d{2}$';
/** `rotation.overlap`: whole hours or days (config.ts reads it with `overlapHours`). */
export const OVERLAP_PATTERN = '^[1-9][0-9]{0,4}[hd]$';

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
          overlap: {
            type: 'string',
            pattern: OVERLAP_PATTERN,
            description:
              'Rotate with an overlap window (`2d`, `12h`): create the successor, deliver it to every sink, and revoke the predecessor on the first apply this long after; shorter than rotate_before_days.',
            examples: ['2d', '12h'],
          },
        },
      },
      sink: sinkSchema(),
      sinks: {
        type: 'array',
        minItems: 1,
        items: sinkSchema(),
        description: 'Several places the secret of a newly issued token is delivered, each as `sink` takes it (use `sink` or `sinks`, not both).',
      },
      self: { type: 'boolean', description: "This token is plumb's own credential; it rotates through the `self` keyword." },
    },
  };
}

function sinkSchema(): JsonSchema {
  return {
    type: 'object',
    description: 'Where the secret of a newly issued token is delivered (exactly one of file, command, stdout, ci_variable).',
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
      ci_variable: ciVariableSchema(),
    },
  };
}

/** The variable key alphabet and length of the service (`HasVariable`). */

function ciVariableSchema(): JsonSchema {
  return {
    type: 'object',
    description: 'A CI/CD variable of a project or a group, created or updated with the secret and read back (docs/tokens.md, "Delivering to CI/CD variables").',
    additionalProperties: false,
    required: ['key'],
    properties: {
      project: { type: 'string', minLength: 1, description: 'The project (full path or numeric id) whose variable receives the secret; or `group`.' },
      group: { type: 'string', minLength: 1, description: 'The group (full path or numeric id) whose variable receives the secret; or `project`.' },
      key: { type: 'string', pattern: VARIABLE_KEY_SCHEMA_PATTERN, description: 'The variable key: letters, digits and _, at most 255 characters.' },
      protected: { type: 'boolean', default: true, description: 'Only pipelines of protected branches and tags see it.' },
      masked: { type: 'boolean', default: true, description: 'Masked in job logs. An api-scoped token delivered unmasked is a risky change (allow_risky: unmasked-token-variable).' },
      hidden: { type: 'boolean', default: false, description: 'Masked and hidden: the service never shows the value again, so the delivery cannot be read back (delivered, not verifiable).' },
      raw: { type: 'boolean', default: true, description: 'The value is not expanded in jobs.' },
      environment_scope: { type: 'string', minLength: 1, default: '*', description: 'The environments the variable applies to.' },
      variable_type: { enum: ['env_var', 'file'], default: 'env_var', description: 'An environment variable, or a file whose path the variable holds.' },
      description: { type: 'string', description: 'The variable\'s description.' },
      instance: { type: 'string', minLength: 1, description: 'Another instance of this configuration (its name) holding the variable; its URL pin and its credential apply.' },
    },
  };
}

/** The keys tokens own under a group. */
export function groupTokenProperties(): Record<string, JsonSchema> {
  return {
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
  };
}
