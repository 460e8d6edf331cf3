/** The repository files' JSON Schema fragment: one file, keyed by its path under `files:` of a project. */
import type { JsonSchema } from '../../config/kinds.js';

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
