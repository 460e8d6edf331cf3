/**
 * `lock:` of an instance: the repository file apply creates to hold the instance while it works
 * (docs/state.md#locking). Resolved here, offline: the project must be a reference, the path a plain
 * path inside the repository, and never a file the configuration itself manages (apply would
 * overwrite or delete the lock, or the lock would block its own write).
 */
import type { DesiredInstanceLock, DesiredProject } from './model.js';
import { joinPointer } from './pointer.js';
import { at, checkRef, obj, push } from './resolve-context.js';
import type { Ctx } from './resolve-context.js';

/** Minutes a lock is valid when `ttl_minutes` is not given. */
export const DEFAULT_LOCK_TTL_MINUTES = 60;

export function resolveInstanceLock(raw: unknown, p: string, projects: readonly DesiredProject[], ctx: Ctx): DesiredInstanceLock | undefined {
  if (raw === undefined) return undefined;
  const l = obj(raw);
  const project = typeof l.project === 'number' ? String(l.project) : l.project;
  const filePath = l.path;
  // Types and required keys are reported by the schema pass.
  if (typeof project !== 'string' || typeof filePath !== 'string' || project === '' || filePath === '') return undefined;
  const before = ctx.diagnostics.length;
  checkRef(project, joinPointer(p, 'project'), 'project', ctx);
  const segments = filePath.split('/');
  if (filePath.startsWith('/') || segments.some((s) => s === '..' || s === '.' || s === '') || filePath.includes('\\') || filePath.includes('\0')) {
    push(ctx, {
      severity: 'error',
      code: 'PLUMB_FILE_PATH_TRAVERSAL',
      summary: `Lock path "${filePath}" is not a plain path inside the repository`,
      detail: 'Paths must be relative, without "..", "." or empty segments; the instance rejects directory traversal.',
      suggestion: 'write the path from the repository root, e.g. locks/plumb.json',
      pointer: joinPointer(p, 'path'),
    });
  }
  // The service matches project paths without case; a numeric id and a path of one project cannot be told apart offline.
  const same = projects.find((pr) => pr.ref.toLowerCase() === project.toLowerCase());
  const declared = same?.files.find((f) => f.path === filePath);
  if (same && declared) {
    const where = at(ctx, declared.pointer, 'key');
    push(ctx, {
      severity: 'error',
      code: 'PLUMB_LOCK_PATH_DECLARED',
      summary: `The lock file "${filePath}" of project "${project}" is also declared as a repository file`,
      detail: 'apply creates and deletes the lock file itself; managing it as a file too would overwrite or delete a lock another apply holds, or be blocked by its own lock.',
      suggestion: 'give the lock a path of its own, e.g. locks/plumb.json, that no `files:` entry declares',
      pointer: joinPointer(p, 'path'),
      ...(where && { related: [{ message: 'declared as a file here', location: where }] }),
    });
  }
  if (ctx.diagnostics.length > before) return undefined;
  return {
    project,
    path: filePath,
    ...(typeof l.branch === 'string' && l.branch !== '' && { branch: l.branch }),
    ttlMinutes: typeof l.ttl_minutes === 'number' ? l.ttl_minutes : DEFAULT_LOCK_TTL_MINUTES,
    pointer: p,
  };
}
