/** A protected branch as a Terraform resource: its type and address (src/catalogue/kinds.ts). */
import type { TerraformResourceShape } from '../../catalogue/kinds.js';
import { ownerIdentity } from '../../catalogue/kinds.js';
import { KIND } from './model.js';

const LEVEL_WORDS_TF = (who: string) => `Who may ${who}: "no_access", "developer" (Developers + Maintainers), "maintainer" or "admin". Default for a new rule: "maintainer".`;

export const PROTECTED_BRANCH_SHAPE: TerraformResourceShape = {
  kind: KIND,
  type: 'plumb_protected_branch',
  definition: 'protected_branch',
  keyPath: ['projects', '{project}', 'protected_branches', '{branch}'],
  identity: [
    ownerIdentity('project'),
    { name: 'branch', description: 'The branch name, or a wildcard (release/*: * matches any characters, / included).' },
  ],
  terraformWords: {
    push_access_level: LEVEL_WORDS_TF('push'),
    merge_access_level: LEVEL_WORDS_TF('merge'),
    unprotect_access_level: LEVEL_WORDS_TF('unprotect the branch (Premium)'),
  },
};
