/**
 * One project declared under two names (a numeric id and a path, or paths that differ only in case:
 * the service matches paths case-insensitively) is one project; planning both would have each undo
 * what the other writes on every apply. Paths are compared offline; ids are resolved with
 * `GET /projects/:id` only when the declarations mix ids and paths, so the common all-paths plan
 * makes no extra request. Both declarations are left out of the plan and reported
 * (`PLUMB_DUPLICATE_RESOURCE`), as the tokens kind does for groups.
 */
import { getProjectRef } from '../api/namespaces.js';
import { joinPointer } from '../config/pointer.js';
import type { DesiredContainer } from '../config/model.js';
import type { PlanDiagnostic } from './plan.js';
import type { InstanceContext } from './resource.js';
import { planDiagnostic } from './resource.js';

export async function distinctProjects<P extends DesiredContainer>(
  ctx: InstanceContext,
  projects: readonly P[],
  what: string,
  pointerOf: (p: P) => string,
): Promise<{ distinct: P[]; diagnostics: PlanDiagnostic[] }> {
  const isId = (ref: string) => /^\d+$/.test(ref);
  const keys = new Map<P, string>(projects.map((p) => [p, isId(p.ref) ? `#${p.ref}` : p.ref.toLowerCase()]));
  const numeric = projects.filter((p) => isId(p.ref));
  if (numeric.length > 0 && numeric.length < projects.length) {
    await Promise.all(
      projects.map(async (p) => {
        try {
          keys.set(p, `#${(await getProjectRef(ctx.client, isId(p.ref) ? Number(p.ref) : p.ref)).id}`);
        } catch {
          // Unresolvable: its own read fails and says why.
        }
      }),
    );
  }
  const first = new Map<string, P>();
  const dropped = new Set<P>();
  const diagnostics: PlanDiagnostic[] = [];
  for (const p of projects) {
    const key = keys.get(p)!;
    const earlier = first.get(key);
    if (!earlier) {
      first.set(key, p);
      continue;
    }
    dropped.add(p).add(earlier);
    const where = ctx.locate(pointerOf(earlier));
    diagnostics.push(
      planDiagnostic(ctx, {
        severity: 'error',
        code: 'PLUMB_DUPLICATE_RESOURCE',
        summary: `Project "${p.ref}" is the same project as "${earlier.ref}"${where ? ` (declared at ${where.file}:${where.line}:${where.column})` : ''}${key.startsWith('#') ? ` (id ${key.slice(1)})` : ''}`,
        detail: `Two declarations of one project's ${what} would each undo what the other writes on every apply; neither is planned.`,
        suggestion: `declare the project once, by one name (e.g. "${isId(earlier.ref) ? p.ref : earlier.ref}"), and merge the two declarations`,
        address: `${ctx.instance.name}.project[${JSON.stringify(p.ref)}]`,
        pointer: pointerOf(p),
        ...(where && { related: [{ message: 'the other name of this project is declared here', file: where.file, line: where.line, column: where.column }] }),
      }),
    );
  }
  return { distinct: projects.filter((p) => !dropped.has(p)), diagnostics };
}

/**
 * The instance's lock file (`lock:`, docs/state.md#the-lock-on-the-instance) declared as a file of
 * the lock's project under the project's other name: one a numeric id, the other a path. The same
 * name (paths without case) is refused offline (`PLUMB_LOCK_PATH_DECLARED`,
 * resources/repository-files/config.ts); an id and a path can be told apart only by the instance, so
 * both are resolved here (`GET /projects/:id`, only when a project declares a file at the lock's
 * path under a name of the other sort). Returns the projects whose declaration collides, and the
 * diagnostic for each; the caller plans none of their files.
 */
export async function lockFileCollisions<P extends DesiredContainer>(
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
