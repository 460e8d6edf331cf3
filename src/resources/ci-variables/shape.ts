/**
 * CI/CD variables as Terraform resources: one per key and environment scope, of a project
 * (`plumb_project_variable`) or of a group (`plumb_group_variable`), as the service's own Terraform
 * provider has them. Each sits under the key's `scopes:` (src/catalogue/kinds.ts).
 */
import type { TerraformResourceShape } from '../../catalogue/kinds.js';
import { ownerIdentity } from '../../catalogue/kinds.js';

const words = {
  value: 'The value. Write-only (Terraform 1.11+): give it from a variable (ephemeral = true, or sensitive); Terraform keeps it out of plan and state, and plumb compares it in memory with the instance\'s, or for a hidden variable through a salted fingerprint, and notices a change through write_only_revision.',
};

function shape(container: 'projects' | 'groups'): TerraformResourceShape {
  const owner = container === 'projects' ? 'project' : 'group';
  return {
    kind: 'cicd_variable',
    type: `plumb_${owner}_variable`,
    definition: 'ci_variable_scope',
    keyPath: [container, `{${owner}}`, 'variables', '{key}', 'scopes', '{environment_scope}'],
    identity: [
      ownerIdentity(owner),
      { name: 'key', description: "The variable's key: letters, digits and _, at most 255 characters." },
      { name: 'environment_scope', description: 'The environments that receive it ("*": all).' },
    ],
    description: `A CI/CD variable of a ${owner}, in one environment scope.`,
    terraformWords: words,
  };
}

export const PROJECT_VARIABLE_SHAPE: TerraformResourceShape = shape('projects');
export const GROUP_VARIABLE_SHAPE: TerraformResourceShape = shape('groups');
export const CI_VARIABLE_SHAPES: readonly TerraformResourceShape[] = [PROJECT_VARIABLE_SHAPE, GROUP_VARIABLE_SHAPE];
