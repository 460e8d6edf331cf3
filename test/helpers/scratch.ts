import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, onTestFinished } from 'vitest';

/**
 * Removes `dir` when the test that made it ends (made in a test or its `beforeEach`), or when the
 * file's tests end (made at collection or in `beforeAll`). Left behind, the suite's directories
 * filled the temp directory (issue 29.18: about 1,070 after one run).
 */
export function removeWhenDone(dir: string): void {
  try {
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  } catch {
    // Outside a test (at collection, in a beforeAll): after the file's tests. A hook cannot be
    // registered from inside another hook, so the file-level one below removes these.
    untilFileEnd.add(dir);
  }
}

const untilFileEnd = new Set<string>();
afterAll(() => {
  for (const dir of untilFileEnd) rmSync(dir, { recursive: true, force: true });
  untilFileEnd.clear();
});

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
