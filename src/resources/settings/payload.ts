/** What apply needs to update the application settings: the plan's payload of this kind. */
import type { SecretFingerprint } from '../../engine/fingerprint.js';
import { PayloadError, record, string } from '../../engine/payload.js';

export type SettingsPayload = {
  /** Non-secret values to send, as declared. */
  readonly set: Record<string, unknown>;
  /** Secret values to send: resolved again from the configuration at apply time. */
  readonly secrets: Record<string, { readonly pointer: string } & SecretFingerprint>;
  /**
   * Secret values this pipeline was not given (`plan --unavailable-secrets skip`), each with the
   * references it reads: shown as a change of their own, never sent. A plan holding one is a
   * preview: apply (which never skips) plans them again, so it refuses such a saved plan.
   */
  readonly unavailable?: Record<string, readonly string[]>;
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
  if (p.unavailable === undefined) return { set, secrets };
  const unavailable: Record<string, string[]> = {};
  for (const [name, refs] of Object.entries(record(p.unavailable, 'payload.unavailable'))) {
    if (!Array.isArray(refs) || refs.length === 0 || !refs.every((r) => typeof r === 'string' && /^\$\{env:[A-Za-z0-9_]+\}$/.test(r))) throw new PayloadError(`payload.unavailable.${name} is not a list of \${env:NAME} references`);
    if (name in set || name in secrets) throw new PayloadError(`payload both sends "${name}" and says it is unavailable`);
    unavailable[name] = refs as string[];
  }
  return { set, secrets, unavailable };
}
