/**
 * The protected-branches kind: a project's protected branches (`protected_branches:` of a project,
 * a selector or `defaults:`), by branch name or wildcard, with their push, merge and unprotect
 * levels, force push and code-owner approval; `prune_protected_branches: true` removes the rules
 * the configuration does not declare. Everything about it lives in this folder: its API calls
 * (./api.ts), its diagnostic codes (./codes.ts), plan, apply, export and its Terraform resource.
 *
 * This file is the kind's registry entry: light (no provider, no API client), its runtime parts
 * behind `load()` (./runtime.ts).
 */
import type { Reason } from '../../engine/plan.js';
import type { KindEntry } from '../kind.js';
import { PROTECTED_BRANCH_CONFIG } from './config.js';
import { PROTECTED_BRANCH_SHAPE } from './shape.js';
import { PROTECTED_BRANCH_CODES, PROTECTED_BRANCH_CODE_MEANINGS } from './codes.js';
import type { ProtectedBranchPayload } from './payload.js';

/** How a plan explains this kind's reasons to people (assembled by the registry, src/resources/index.ts). */
export const PROTECTED_BRANCH_REASONS = {
  'missing-in-live': 'it does not exist on the instance',
  'field-changed': 'declared values differ from the instance',
  'level-changed': 'an access level differs, which the update request cannot change: apply unprotects the branch, then protects it again at once',
  'not-in-config': 'it is not declared and pruning is on',
} as const satisfies Partial<Record<Reason, string>>;

/** The kind's registry entry: what every door asks of it (src/resources/kind.ts). */
export const protectedBranchesKind: KindEntry<ProtectedBranchPayload> = {
  kind: PROTECTED_BRANCH_CONFIG.kind,
  reasons: PROTECTED_BRANCH_REASONS,
  codes: Object.values(PROTECTED_BRANCH_CODES),
  ownCodes: PROTECTED_BRANCH_CODE_MEANINGS,
  config: PROTECTED_BRANCH_CONFIG,
  terraformShape: PROTECTED_BRANCH_SHAPE,
  load: async () => (await import('./runtime.js')).protectedBranchesRuntime,
};
