/**
 * The CI/CD variables kind (issue 31 item 6): the variables of projects and groups, declared under
 * `variables:` (and `prune_variables:`) of a project or a group, in an instance, under `defaults:`
 * or in a selector's body. Everything about it lives in this folder; its API calls are
 * src/api/variables.ts and its rules (key, masking, scope) src/catalogue/ci-variables.ts, which
 * the emulator reads too.
 *
 * This file is the kind's registry entry: light (no provider, no API client), its runtime parts
 * behind `load()` (./runtime.ts).
 */
import type { KindEntry } from '../kind.js';
import { codesOf } from '../codes.js';
import { CI_VARIABLES_CONFIG } from './config.js';
import type { VariablePayload } from './payload.js';
import { VARIABLES_STATE_SECTION } from './state.js';
import { CI_VARIABLE_REASONS } from './reasons.js';
import { CI_VARIABLE_SHAPES } from './shape.js';

/** The kind's registry entry: what every door asks of it (src/resources/kind.ts). */
export const ciVariablesKind: KindEntry<VariablePayload> = {
  kind: CI_VARIABLES_CONFIG.kind,
  reasons: CI_VARIABLE_REASONS,
  codes: codesOf(['PLUMB_CI_VARIABLE_']),
  config: CI_VARIABLES_CONFIG,
  stateSlots: [VARIABLES_STATE_SECTION],
  terraformShape: CI_VARIABLE_SHAPES,
  load: async () => (await import('./runtime.js')).ciVariablesRuntime,
};
