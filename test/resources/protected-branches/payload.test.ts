/** The protected branches' payload: what a saved plan may hold, each refusal naming the field. */
import { describe, expect, it } from 'vitest';
import { parseProtectedBranchPayload } from '../../../src/resources/protected-branches/payload.js';
import { protectedBranchesProvider } from '../../../src/resources/protected-branches/provider.js';

describe('a protected-branch payload', () => {
  it('reads each type back as planned, and says what it means in the words a plan shows', () => {
    const replace = { type: 'replace', project: 'fleet/a', rule: { name: 'main', push_access_level: 0, merge_access_level: 40, allow_force_push: true } };
    expect(parseProtectedBranchPayload(replace)).toEqual(replace);
    expect(protectedBranchesProvider.describePayload!('local', parseProtectedBranchPayload(replace))).toEqual({
      addresses: ['local.project["fleet/a"].protected_branch["main"]'],
      action: 'replace',
      attributes: [
        { name: 'push_access_level', after: 'no_access', required: true },
        { name: 'merge_access_level', after: 'maintainer', required: true },
        { name: 'allow_force_push', after: true, required: true },
      ],
    });
    expect(parseProtectedBranchPayload({ type: 'update', project: 'fleet/a', name: 'main', set: { allow_force_push: false } })).toMatchObject({ set: { allow_force_push: false } });
    expect(parseProtectedBranchPayload({ type: 'delete', project: 'fleet/a', name: 'legacy-*' })).toEqual({ type: 'delete', project: 'fleet/a', name: 'legacy-*' });
  });

  it('refuses a level that is not an API number, a field the update does not take, an empty update and an unknown field', () => {
    expect(() => parseProtectedBranchPayload({ type: 'create', project: 'p', rule: { name: 'main', push_access_level: 'maintainer' } })).toThrow('payload.rule.push_access_level is not an access level');
    expect(() => parseProtectedBranchPayload({ type: 'create', project: 'p', rule: { name: 'main', push_access_level: 20 } })).toThrow('payload.rule.push_access_level');
    expect(() => parseProtectedBranchPayload({ type: 'update', project: 'p', name: 'main', set: { push_access_level: 30 } })).toThrow('payload.set.push_access_level is not a field the update request takes');
    expect(() => parseProtectedBranchPayload({ type: 'update', project: 'p', name: 'main', set: {} })).toThrow('payload.set is empty');
    expect(() => parseProtectedBranchPayload({ type: 'create', project: 'p', rule: { name: 'main', owner: 1 } })).toThrow('payload.rule.owner is not a protected-branch field');
  });
});
