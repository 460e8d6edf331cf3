import { createHash, randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';
import { canonical } from './normalize.js';

/** sha256 over canonical JSON: fingerprints of live state (never of secrets in clear). */
export function stateFingerprint(value: unknown): string {
  return 'sha256:' + createHash('sha256').update(JSON.stringify(canonical(value) ?? null)).digest('hex');
}

/**
 * A salted, deliberately slow fingerprint of a secret (scrypt, per-value random salt). It lets plumb
 * tell whether a write-only value changed without keeping the value, and is safe to store in a
 * state file or a saved plan: recovering a secret from it costs a brute-force search per value.
 */
export interface SecretFingerprint {
  readonly salt: string;
  readonly hash: string;
}

const SCRYPT = { N: 4096, r: 8, p: 1 } as const;

export function fingerprintSecret(value: string, salt = randomBytes(16).toString('base64')): SecretFingerprint {
  const hash = scryptSync(value, Buffer.from(salt, 'base64'), 32, SCRYPT).toString('base64');
  return { salt, hash };
}

export function matchesFingerprint(value: string, fp: SecretFingerprint): boolean {
  const again = Buffer.from(fingerprintSecret(value, fp.salt).hash, 'base64');
  const want = Buffer.from(fp.hash, 'base64');
  return again.length === want.length && timingSafeEqual(again, want);
}
