/**
 * The CI/CD variables kind (issue 31 item 6): the variables of projects and groups, declared under
 * `variables:` (and `prune_variables:`) of a project or a group, in an instance, under `defaults:`
 * or in a selector's body. Everything about it lives in this folder; its API calls are
 * src/api/ci-variables.ts and its rules (key, masking, scope) src/catalogue/ci-variables.ts, which
 * the emulator reads too.
 *
 * This file is the kind's registry entry: light (no provider, no API client), its runtime parts
 * behind `load()` (./runtime.ts).
 */
import type { Reason } from '../../engine/plan.js';
import type { KindEntry } from '../kind.js';
import { codesOf } from '../codes.js';
import { CI_VARIABLES_CONFIG } from './config.js';
import type { VariablePayload } from './payload.js';
import { VARIABLES_STATE_SECTION } from './state.js';

/** How a plan explains this kind's reasons to people (assembled by the registry, src/resources/index.ts). */
export const CI_VARIABLE_REASONS = {
  'field-changed': 'declared values differ from the instance',
  'variable-absent': 'the variable does not exist on the instance',
  'variable-value-changed': 'value changed',
  'variable-value-not-comparable': 'the variable is hidden and no fingerprint of the value plumb wrote is recorded: the value is sent to be sure',
  'variable-hidden-changed': 'masked_and_hidden differs, and the service sets it only when it creates a variable: it is deleted and created again',
  'variable-pruned': 'not declared, and prune_variables is on',
} as const satisfies Partial<Record<Reason, string>>;

/** The kind's registry entry: what every door asks of it (src/resources/kind.ts). */
export const ciVariablesKind: KindEntry<VariablePayload> = {
  kind: CI_VARIABLES_CONFIG.kind,
  reasons: CI_VARIABLE_REASONS,
  codes: codesOf(['PLUMB_CI_VARIABLE_']),
  config: CI_VARIABLES_CONFIG,
  stateSlots: [VARIABLES_STATE_SECTION],
  load: async () => (await import('./runtime.js')).ciVariablesRuntime,
};
