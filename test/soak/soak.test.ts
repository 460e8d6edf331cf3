/**
 * A short fixed-seed run of the fault soak (bench/soak.js runs the long one): at least 60 faults
 * across settings, group access tokens (create, rotate, self-rotate, replace, revoke, prune),
 * repository files (content and execute bit) and Pages, the lowering of the token lifetime limit
 * at the end of each episode, and no invariant violated. See soak.ts
 * for the invariants.
 */
import { describe, expect, it } from 'vitest';
import { FAULT_KINDS, INVARIANTS, soak } from './soak.js';

describe('fault soak (fixed seed)', () => {
  it('keeps every invariant through at least 60 injected faults of every kind, and converges after each', async () => {
    const r = await soak({ seed: 7, minFaults: 60 });
    expect(r.faults).toBeGreaterThanOrEqual(60);
    for (const k of FAULT_KINDS) expect(r.byKind[k], `faults of kind ${k}`).toBeGreaterThan(0);
    expect(r.commitsChecked, 'file commits checked').toBeGreaterThan(20);
    // Each episode ends by lowering the token lifetime limit below every live token: refused
    // offline, gated, then accepted, and plumb re-issues the declared tokens within it first.
    expect(r.lifetimeRounds).toBeGreaterThan(0);
    expect(r.reissuedBeforeLimit).toBeGreaterThan(0);
    for (const inv of INVARIANTS) expect(r.violations[inv], inv).toEqual([]);
  }, 120_000);
});
