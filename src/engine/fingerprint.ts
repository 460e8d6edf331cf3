import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { canonical } from '../util/canonical.js';

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

/** Asynchronous on purpose: several fingerprints are computed in parallel on libuv's thread pool. */
export function fingerprintSecret(value: string, salt = randomBytes(16).toString('base64')): Promise<SecretFingerprint> {
  return new Promise((resolve, reject) => {
    scrypt(value, Buffer.from(salt, 'base64'), 32, SCRYPT, (err, key) => (err ? reject(err) : resolve({ salt, hash: key.toString('base64') })));
  });
}

export async function matchesFingerprint(value: string, fp: SecretFingerprint): Promise<boolean> {
  const again = Buffer.from((await fingerprintSecret(value, fp.salt)).hash, 'base64');
  const want = Buffer.from(fp.hash, 'base64');
  return again.length === want.length && timingSafeEqual(again, want);
}
