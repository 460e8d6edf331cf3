/** The fingerprint of an issued secret (engine/fingerprint.ts): salted, cheap, and told apart from scrypt's. */
import { describe, expect, it } from 'vitest';
import { fingerprintIssued, fingerprintSecret, matchesFingerprint } from '../../src/engine/fingerprint.js';

describe('fingerprintIssued', () => {
  it('matches the value it was made of and nothing else, with a salt of its own each time', async () => {
    const a = fingerprintIssued('svc-AbCdEfGhIjKlMnOpQrSt');
    const b = fingerprintIssued('svc-AbCdEfGhIjKlMnOpQrSt');
    expect(a.kind).toBe('sha256');
    expect(a.salt).not.toBe(b.salt);
    expect(a.hash).not.toBe(b.hash);
    expect(JSON.stringify(a)).not.toContain('AbCdEf');
    expect(await matchesFingerprint('svc-AbCdEfGhIjKlMnOpQrSt', a)).toBe(true);
    expect(await matchesFingerprint('svc-AbCdEfGhIjKlMnOpQrSu', a)).toBe(false);
  });

  it('still reads a scrypt fingerprint (no kind), as earlier state files hold', async () => {
    const old = await fingerprintSecret('svc-AbCdEfGhIjKlMnOpQrSt');
    expect(old.kind).toBeUndefined();
    expect(await matchesFingerprint('svc-AbCdEfGhIjKlMnOpQrSt', old)).toBe(true);
    expect(await matchesFingerprint('other', old)).toBe(false);
  });
});
