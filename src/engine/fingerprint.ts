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
  /** `sha256`: a secret the instance issued (`fingerprintIssued`); absent: scrypt. */
  readonly kind?: 'sha256';
}

const SCRYPT = { N: 4096, r: 8, p: 1 } as const;

/** Asynchronous on purpose: several fingerprints are computed in parallel on libuv's thread pool. */
export function fingerprintSecret(value: string, salt = randomBytes(16).toString('base64')): Promise<SecretFingerprint> {
  return new Promise((resolve, reject) => {
    scrypt(value, Buffer.from(salt, 'base64'), 32, SCRYPT, (err, key) => (err ? reject(err) : resolve({ salt, hash: key.toString('base64') })));
  });
}

/**
 * The fingerprint of a secret the instance issued (a token secret: at least 120 random bits), kept
 * where its value was delivered: salted sha256. Slowing a brute-force search matters for a value
 * someone chose (a write-only setting, a password); for a random value of that size the search is
 * out of reach at any speed, and scrypt would cost every delivery and every drift check ~10 ms of
 * CPU (a thousand tokens: seconds). docs/security.md, "CI/CD variable sinks".
 */
export function fingerprintIssued(value: string, salt = randomBytes(16).toString('base64')): SecretFingerprint {
  return { kind: 'sha256', salt, hash: sha256Salted(value, salt) };
}

const sha256Salted = (value: string, salt: string): string => createHash('sha256').update(Buffer.from(salt, 'base64')).update(value).digest('base64');

export async function matchesFingerprint(value: string, fp: SecretFingerprint): Promise<boolean> {
  const again = Buffer.from(fp.kind === 'sha256' ? sha256Salted(value, fp.salt) : (await fingerprintSecret(value, fp.salt)).hash, 'base64');
  const want = Buffer.from(fp.hash, 'base64');
  return again.length === want.length && timingSafeEqual(again, want);
}
