import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

/**
 * A scratch directory for the calling test file (removed after it); `project(files)` writes the files
 * (relative path → text) into a fresh directory and returns that directory.
 */
export function scratchArea(prefix: string): { readonly dir: string; readonly project: (files: Record<string, string>) => string } {
  const scratch = mkdtempSync(path.join(tmpdir(), `${prefix}-`));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  let counter = 0;
  const project = (files: Record<string, string>): string => {
    const dir = path.join(scratch, `p${++counter}`);
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      writeFileSync(path.join(dir, rel), text);
    }
    return dir;
  };
  return { dir: scratch, project };
}
