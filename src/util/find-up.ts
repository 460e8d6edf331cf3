import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The first `relative` path that exists in the directory of `fromUrl` or one of its parents. plumb's
 * own files (schemas/, examples/) sit next to src/, dist/ or the bundled dist/plumb.cjs, at
 * different depths, so they are found by walking up rather than by a fixed relative path.
 */
export function findUp(relative: string, fromUrl: string, levels = 5): string | undefined {
  let dir = path.dirname(fileURLToPath(fromUrl));
  for (let i = 0; i < levels; i++) {
    const candidate = path.join(dir, relative);
    if (existsSync(candidate)) return candidate;
    dir = path.dirname(dir);
  }
  return undefined;
}
