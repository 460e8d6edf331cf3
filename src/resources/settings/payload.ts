/** What apply needs to update the application settings: the plan's payload of this kind. */
import type { SecretFingerprint } from '../../engine/fingerprint.js';
import { PayloadError, record, string } from '../../engine/payload.js';

export type SettingsPayload = {
  /** Non-secret values to send, as declared. */
  readonly set: Record<string, unknown>;
  /** Secret values to send: resolved again from the configuration at apply time. */
  readonly secrets: Record<string, { readonly pointer: string } & SecretFingerprint>;
};

export function parseSettingsPayload(raw: unknown): SettingsPayload {
  const p = record(raw, 'the payload');
  const set = record(p.set, 'payload.set');
  const secrets: SettingsPayload['secrets'] = {};
  for (const [name, ref] of Object.entries(record(p.secrets, 'payload.secrets'))) {
    const r = record(ref, `payload.secrets.${name}`);
    secrets[name] = { pointer: string(r, 'pointer', `payload.secrets.${name}.pointer`), salt: string(r, 'salt', `payload.secrets.${name}.salt`), hash: string(r, 'hash', `payload.secrets.${name}.hash`) };
  }
  for (const name of Object.keys(set)) if (name in secrets) throw new PayloadError(`payload sends "${name}" both as a value and as a secret`);
  return { set, secrets };
}
