/**
 * One project declared under two names (a numeric id and a path, or paths that differ only in case:
 * the service matches paths case-insensitively) is one project; planning both would have each undo
 * what the other writes on every apply. Paths are compared offline; ids are resolved with
 * `GET /projects/:id` only when the declarations mix ids and paths, so the common all-paths plan
 * makes no extra request. Both declarations are left out of the plan and reported
 * (`PLUMB_DUPLICATE_RESOURCE`), as the tokens kind does for groups.
 */
import { getProjectRef } from '../api/namespaces.js';
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

