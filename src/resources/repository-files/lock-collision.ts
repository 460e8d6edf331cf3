/**
 * The instance's lock file declared as a file of this kind under the lock project's other name
 * (docs/config.md#lock-one-apply-at-a-time-across-machines).
 */
import { getProjectRef } from '../../api/namespaces.js';
import { joinPointer } from '../../config/pointer.js';
import type { PlanDiagnostic } from '../../engine/plan.js';
import type { InstanceContext } from '../../engine/resource.js';
import { planDiagnostic } from '../../engine/resource.js';

/**
 * The instance's lock file (`lock:`, docs/state.md#the-lock-on-the-instance) declared as a file of
 * the lock's project under the project's other name: one a numeric id, the other a path. The same
 * name (paths without case) is refused offline (`PLUMB_LOCK_PATH_DECLARED`,
 * resources/repository-files/config.ts); an id and a path can be told apart only by the instance, so
 * both are resolved here (`GET /projects/:id`, only when a project declares a file at the lock's
 * path under a name of the other sort). Returns the projects whose declaration collides, and the
 * diagnostic for each; the caller plans none of their files.
 */
export async function lockFileCollisions<P extends { readonly ref: string }>(
  ctx: InstanceContext,
  projects: readonly P[],
  fileAt: (p: P, path: string) => string | undefined,
): Promise<{ colliding: Set<P>; diagnostics: PlanDiagnostic[] }> {
  const colliding = new Set<P>();
  const diagnostics: PlanDiagnostic[] = [];
  const lock = ctx.instance.lock;
  if (!lock) return { colliding, diagnostics };
  const isId = (ref: string) => /^\d+$/.test(ref);
  const candidates = projects.filter((p) => isId(p.ref) !== isId(lock.project) && fileAt(p, lock.path) !== undefined);
  if (candidates.length === 0) return { colliding, diagnostics };
  const idOf = async (ref: string): Promise<number | undefined> => {
    try {
      return (await getProjectRef(ctx.client, isId(ref) ? Number(ref) : ref)).id;
    } catch {
      return undefined; // unresolvable: the lock (at apply) or the file's own read says why
    }
  };
  const lockId = await idOf(lock.project);
  if (lockId === undefined) return { colliding, diagnostics };
  for (const p of candidates) {
    if ((await idOf(p.ref)) !== lockId) continue;
    colliding.add(p);
    const where = ctx.locate(fileAt(p, lock.path)!);
    diagnostics.push(
      planDiagnostic(ctx, {
        severity: 'error',
        code: 'PLUMB_LOCK_PATH_DECLARED',
        summary: `The lock file "${lock.path}" of project "${lock.project}" is also declared as a repository file of project "${p.ref}", the same project (id ${lockId})`,
        detail: 'apply creates and deletes the lock file itself; managing it as a file too would overwrite or delete a lock another apply holds, or be blocked by its own lock. No file of this project is planned.',
        suggestion: 'give the lock a path of its own, e.g. locks/plumb.json, that no `files:` entry declares, and name the project the same way in both places',
        address: `${ctx.instance.name}.project[${JSON.stringify(p.ref)}]`,
        pointer: joinPointer(lock.pointer, 'path'),
        ...(where && { related: [{ message: 'declared as a file here', file: where.file, line: where.line, column: where.column }] }),
      }),
    );
  }
  return { colliding, diagnostics };
}
