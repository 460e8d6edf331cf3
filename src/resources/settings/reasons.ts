import type { Reason } from '../../engine/plan.js';

/** How a plan explains this kind's reasons to people (assembled in src/resources/index.ts; the Terraform door's warnings too). */
export const SETTINGS_REASONS = {
  'field-changed': 'declared values differ from the instance',
  'write-only-changed': 'a write-only value changed since it was last applied',
  'write-only-unknown': 'a write-only value is not known to have been applied',
  'write-only-unavailable': 'a write-only value reads a variable this pipeline is not given (--unavailable-secrets skip): not compared here, apply compares it',
} as const satisfies Partial<Record<Reason, string>>;
