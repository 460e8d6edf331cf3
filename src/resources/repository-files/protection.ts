/**
 * Whether `delivery: commit` may push to a branch (issue 32 item 3; docs/config.md#delivering-files):
 * planned, from the protection the branch will have when the files arrive and from who plumb's
 * token is, so a refusal is an error at plan, located, rather than a failure halfway through apply.
 *
 * The branch's protection is the live one (`GET …/repository/branches/:branch`: `protected`, and
 * `can_push`, the service's own verdict for plumb's user), unless the configuration declares the
 * project's protected branches and they move the branch's push rights: then it is the protection
 * after apply, which the protected branches' kind answers through the registry (the fact
 * `branchProtectionAfterApply`, engine/resource.ts; a kind never imports another), judged for
 * plumb's role ({@link roleFor}).
 */
import type { BranchAccess } from '../../api/branches.js';
import type { ProjectRef } from '../../api/namespaces.js';

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

/** The role an administrator pushes with (the protected branches' Admin level). */
export const ADMIN_ROLE = 60;

/**
 * plumb's role in a project, for a protection the instance does not hold yet (its `can_push` cannot
 * answer for it): the role the project's `permissions` state (`GET /projects/:id`, read once per
 * plan and project), and at least Developer when the service lets plumb push to the branch now (a
 * push needs that role). Both can only understate a role (a role held through a group the project
 * is shared with is not in `permissions`; an answer without them, or a project that cannot be read,
 * states none): plumb may refuse a push the service would allow, never the other way round.
 */
export async function roleFor(project: string, live: BranchAccess, projectOf: (ref: string) => Promise<ProjectRef>): Promise<number> {
  const stated = await projectOf(project).then(
    (p) => p.role,
    () => undefined,
  );
  return Math.max(stated ?? 0, live.can_push ? 30 : 0);
}

/** Who a push level lets through, in words. */
export function pushWho(level: number): string {
  return level === 0 ? 'no one' : level <= 30 ? 'Developers and Maintainers' : level <= 40 ? 'Maintainers' : 'administrators';
}
