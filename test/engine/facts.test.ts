/**
 * Facts between kinds (docs/architecture.md#facts-between-kinds): the session hands every kind the
 * registry's answers, a fact is answered by one kind at most, and a registry without the kind that
 * answers one simply lacks it.
 */
import { describe, expect, it } from 'vitest';
import { registryFacts } from '../../src/engine/resource.js';
import type { KindRegistry, ResourceProvider } from '../../src/engine/resource.js';
import { BUILT_IN_KINDS } from '../helpers/kinds.js';

describe('registryFacts', () => {
  it("gathers the built-in kinds' answers, and lacks a fact when no kind of the registry answers it", () => {
    expect(Object.keys(registryFacts(BUILT_IN_KINDS.engine))).toEqual(['branchProtectionAfterApply']);
    const without: KindRegistry = { providers: BUILT_IN_KINDS.engine.providers.filter((p) => !p.facts), validatedOnly: [] };
    expect(registryFacts(without)).toEqual({});
  });

  it('refuses a fact two kinds answer', () => {
    const answering = BUILT_IN_KINDS.engine.providers.find((p) => p.facts)!;
    const twin: ResourceProvider = { ...answering, kind: 'twin' };
    expect(() => registryFacts({ providers: [answering, twin], validatedOnly: [] })).toThrow(/kinds protected_branch and twin both answer the fact branchProtectionAfterApply/);
  });
});
