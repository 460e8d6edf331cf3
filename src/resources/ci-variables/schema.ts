/** The CI/CD variables' JSON Schema fragment: `variables:` and `prune_variables:` of a project or a group. */
import { VARIABLE_TYPES } from '../../catalogue/ci-variables.js';
import type { JsonSchema } from '../../config/kinds.js';

/** The fields of one variable in one scope (the API's names and defaults). */
function fieldProperties(): Record<string, JsonSchema> {
  return {
    value: { type: 'string', description: 'The value: a literal, or a secret (${env:NAME}, ${file:path}). Never shown in a plan; compared in memory, or for a hidden variable through a fingerprint kept in the state.' },
    variable_type: { enum: [...VARIABLE_TYPES], default: 'env_var', description: 'env_var: an environment variable; file: a file whose path the variable holds.' },
    protected: { type: 'boolean', default: false, description: 'Only pipelines on protected branches and tags receive it.' },
    masked: { type: 'boolean', default: false, description: 'Masked in job logs; the value must satisfy the masking rules (at least 8 characters, …).' },
    masked_and_hidden: { type: 'boolean', default: false, description: 'Masked, and the value is never shown again (not even to plumb): set at creation only; changing it deletes and creates the variable again.' },
    raw: { type: 'boolean', default: false, description: 'The value is not expanded ($OTHER is kept as written).' },
    description: { type: 'string', default: '', description: 'What the variable is for.' },
  };
}

export function variableSchema(): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    description:
      'A CI/CD variable, by key: its fields (in environment_scope, "*" by default), and under `scopes:` the same key in other environment scopes, each with its own fields.',
    properties: {
      ...fieldProperties(),
      environment_scope: { type: 'string', minLength: 1, maxLength: 255, default: '*', description: 'The environments that receive it ("*": all).' },
      scopes: {
        type: 'object',
        minProperties: 1,
        description: 'The key in several environment scopes: scope → fields (each with its own value).',
        additionalProperties: { $ref: '#/definitions/ci_variable_scope' },
      },
    },
  };
}

/** One key in one environment scope (under `scopes:`, and a Terraform resource's attributes). */
export function variableScopeSchema(): JsonSchema {
  return { type: 'object', additionalProperties: false, required: ['value'], description: 'The variable in one environment scope.', properties: fieldProperties() };
}

export function variablesProperties(): Record<string, JsonSchema> {
  return {
    variables: {
      type: 'object',
      description: 'CI/CD variables by key (letters, digits and _, at most 255 characters).',
      additionalProperties: { $ref: '#/definitions/ci_variable' },
    },
    prune_variables: { type: 'boolean', default: false, description: 'Delete the variables of this project or group that the configuration does not declare (by key and scope).' },
  };
}
