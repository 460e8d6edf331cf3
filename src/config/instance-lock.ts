/**
 * `lock:` of an instance: the repository file apply creates to hold the instance while it works
 * (docs/state.md#locking). Resolved here, offline: the project must be a reference, the path a plain
 * path inside the repository. That no `files:` entry declares it is checked by the kind that owns
 * files, after every instance is resolved (`PLUMB_LOCK_PATH_DECLARED`).
 */
import type { DesiredInstanceLock } from './model.js';
import { joinPointer } from './pointer.js';
import { checkRef, obj, push } from './resolve-context.js';
import type { Ctx } from './resolve-context.js';

/** Minutes a lock is valid when `ttl_minutes` is not given. */
export const DEFAULT_LOCK_TTL_MINUTES = 60;

export function resolveInstanceLock(raw: unknown, p: string, ctx: Ctx): DesiredInstanceLock | undefined {
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
  if (ctx.diagnostics.length > before) return undefined;
  return {
    project,
    path: filePath,
    ...(typeof l.branch === 'string' && l.branch !== '' && { branch: l.branch }),
    ttlMinutes: typeof l.ttl_minutes === 'number' ? l.ttl_minutes : DEFAULT_LOCK_TTL_MINUTES,
    pointer: p,
  };
}
