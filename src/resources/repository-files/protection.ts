/**
 * Whether `delivery: commit` may push to a branch (issue 32 item 3; docs/config.md#delivering-files):
 * planned, from the protection the branch will have when the files arrive and from who plumb's
 * token is, so a refusal is an error at plan, located, rather than a failure halfway through apply.
 *
 * Today the branch's protection is the live one (`GET …/repository/branches/:branch`: `protected`,
 * and `can_push`, the service's own verdict for plumb's user). A declared protection
 * (`protected_branches:`) replaces it where `willHave` is computed in plan.ts (`pushRights`): one
 * line, `{protected, canPush}` from what the protected-branches kind computes for the branch after
 * apply and whether plumb's role (60 for an administrator) may push under it (a kind never imports
 * another: it reaches this one through the registry).
 */
import type { BranchAccess } from '../../api/branches.js';

/** The protection a branch will have when the files are delivered, as push rights go. */
export interface BranchProtection {
  readonly protected: boolean;
  /** Whether plumb's user may push to it under that protection. */
  readonly canPush: boolean;
}

/**
 * `allowed`: plumb pushes as anyone allowed to would; `admin-on-protected`: allowed, but the branch
 * is protected and plumb's token is an administrator's (a flagged risk: the push skips the review
 * the protection stands for); `denied`: the service would refuse the commit.
 */
export type PushVerdict = 'allowed' | 'admin-on-protected' | 'denied';

export function pushVerdict(willHave: BranchProtection, admin: boolean): PushVerdict {
  if (!willHave.canPush) return 'denied';
  return willHave.protected && admin ? 'admin-on-protected' : 'allowed';
}

/** The branch's protection as the instance holds it now. */
export function liveProtection(branch: BranchAccess): BranchProtection {
  return { protected: branch.protected, canPush: branch.can_push };
}
