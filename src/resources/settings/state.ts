/**
 * The settings' section of plumb's state file (`settings`): the salted fingerprint of each write-only
 * setting plumb applied, keyed by setting name, so an unchanged secret is not re-sent on every run.
 */
import type { StateStore } from '../../engine/state.js';
import type { SecretFingerprint } from '../../engine/fingerprint.js';

export function settingFingerprint(store: StateStore, instanceUrl: string, name: string): SecretFingerprint | undefined {
  return store.section<SecretFingerprint>(instanceUrl, 'settings')?.[name];
}

export function recordSetting(store: StateStore, instanceUrl: string, name: string, fp: SecretFingerprint): void {
  store.writableSection<SecretFingerprint>(instanceUrl, 'settings')[name] = fp;
}
