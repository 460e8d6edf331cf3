/**
 * The protected branches' desired part: per project (a container, src/catalogue/containers.ts)
 * that declares `protected_branches:` or `prune_protected_branches:`, its rules. Kept under the
 * kind's name in `DesiredInstance.resources` and read through {@link protectedBranchesOf}.
 */
import type { DesiredInstance } from '../../config/model.js';
import type { Level } from './levels.js';

/** One declared rule: only the fields the configuration writes; the others are left as the instance has them. */
export interface DesiredProtection {
  /** A branch name, or a wildcard (`release/*`): `*` matches any run of characters, `/` included. */
  readonly name: string;
  readonly pointer: string;
  readonly push_access_level?: Level;
  readonly merge_access_level?: Level;
  readonly unprotect_access_level?: Level;
  readonly allow_force_push?: boolean;
  readonly code_owner_approval_required?: boolean;
}

export interface ProtectedBranchesProject {
  /** Numeric id or full path, as written. */
  readonly ref: string;
  readonly pointer: string;
  readonly protections: readonly DesiredProtection[];
  /** `prune_protected_branches: true`: rules the configuration does not declare are removed. Default false. */
  readonly prune: boolean;
}

export const KIND = 'protected_branch';

/** The projects of the instance that declare protected branches (or prune them). */
export function protectedBranchesOf(instance: DesiredInstance): readonly ProtectedBranchesProject[] {
  return (instance.resources.get(KIND) as readonly ProtectedBranchesProject[] | undefined) ?? [];
}
