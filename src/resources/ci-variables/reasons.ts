/** The CI/CD variables' reasons and their texts (the registry entry carries them; the Terraform part words its warnings with them). */
import type { Reason } from '../../engine/plan.js';

/** How a plan explains this kind's reasons to people (assembled by the registry, src/resources/index.ts). */
export const CI_VARIABLE_REASONS = {
  'field-changed': 'declared values differ from the instance',
  'variable-absent': 'the variable does not exist on the instance',
  'variable-value-changed': 'value changed',
  'variable-value-not-comparable': 'the variable is hidden and no fingerprint of the value plumb wrote is recorded: the value is sent to be sure',
  'variable-hidden-changed': 'masked_and_hidden differs, and the service sets it only when it creates a variable: it is deleted and created again',
  'variable-pruned': 'not declared, and prune_variables is on',
} as const satisfies Partial<Record<Reason, string>>;
