/** The protected branches' JSON Schema fragment: one rule, keyed by its branch name or wildcard under `protected_branches:` of a project. */
import type { JsonSchema } from '../../config/kinds.js';
import { LEVEL_VALUES } from './levels.js';

const level = (who: string, def: string): JsonSchema => ({
  enum: [...LEVEL_VALUES],
  description: `Who may ${who}: no_access (0), developer (30: Developers + Maintainers), maintainer (40) or admin (60); the word or the number. ${def}`,
});

export function protectedBranchSchema(): JsonSchema {
  return {
    type: ['object', 'null'],
    description: 'A protected branch (POST /projects/:id/protected_branches), keyed by its branch name or wildcard (`release/*`: `*` matches any characters, `/` included). Undeclared fields are left as the instance has them (a new rule gets the service\'s defaults).',
    additionalProperties: false,
    properties: {
      push_access_level: level('push', 'Default for a new rule: maintainer.'),
      merge_access_level: level('merge', 'Default for a new rule: maintainer.'),
      unprotect_access_level: level('unprotect the branch (Premium)', 'Default for a new rule: maintainer.'),
      allow_force_push: { type: 'boolean', description: 'Allow force push for everyone who may push. Default for a new rule: false.' },
      code_owner_approval_required: { type: 'boolean', description: 'Pushes and merges need a code owner\'s approval (Premium). Default for a new rule: false.' },
    },
  };
}
