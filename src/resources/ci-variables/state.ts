/**
 * The CI/CD variables' section of plumb's state file (`ci_variables`): a salted fingerprint of the
 * value plumb last wrote to each variable, keyed by the variable's address. It is how a hidden
 * variable (whose value the service never returns) is compared, and how a value edited by hand on
 * the instance is told from a value changed in the configuration (drift).
 */
import type { SecretFingerprint } from '../../engine/fingerprint.js';
import type { StateStore } from '../../engine/state.js';

export const VARIABLES_STATE_SECTION = 'ci_variables';

export function writtenFingerprint(store: StateStore, instanceUrl: string, address: string): SecretFingerprint | undefined {
  const fp = store.section<SecretFingerprint>(instanceUrl, VARIABLES_STATE_SECTION)?.[address];
  return fp && typeof fp.salt === 'string' && typeof fp.hash === 'string' ? fp : undefined;
}

/** Recorded at the end of apply (`flush`), not per write. */
export function recordWritten(store: StateStore, instanceUrl: string, address: string, fp: SecretFingerprint | undefined): void {
  const section = store.writableSection<SecretFingerprint>(instanceUrl, VARIABLES_STATE_SECTION);
  if (fp) section[address] = fp;
  else delete section[address];
  store.markDirty();
}
