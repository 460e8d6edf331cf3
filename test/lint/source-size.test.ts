/**
 * No hand-written source file over 700 lines (issue 30): a file that long mixes responsibilities
 * (the tokens provider had its caches, planning and apply in 1,369 lines). Split it by
 * responsibility, as src/resources/<kind>/ does (plan.ts, apply.ts and what both share).
 * Generated code (src/generated/) is exempt.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MAX_LINES = 700;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    if (statSync(p).isDirectory()) return path.relative(root, p) === path.join('src', 'generated') ? [] : sources(p);
    return /\.(ts|tsx|js|mjs|cjs)$/.test(n) && !n.endsWith('.d.ts') ? [p] : [];
  });
}

const lines = (file: string) => readFileSync(file, 'utf8').split('\n').length - (readFileSync(file, 'utf8').endsWith('\n') ? 1 : 0);

describe('the hand-written source files', () => {
  it(`are ${MAX_LINES} lines at most (src/generated/ aside)`, () => {
    const over = sources(path.join(root, 'src'))
      .map((f) => ({ file: path.relative(root, f).split(path.sep).join('/'), lines: lines(f) }))
      .filter((f) => f.lines > MAX_LINES)
      .map((f) => `${f.file}: ${f.lines} lines`);
    expect(over, 'split these by responsibility').toEqual([]);
  });

  it('are found by the walk (it does not pass by reading nothing)', () => {
    const found = sources(path.join(root, 'src')).map((f) => path.relative(root, f).split(path.sep).join('/'));
    expect(found).toContain('src/engine/engine.ts');
    expect(found).toContain('src/resources/group-access-tokens/provider.ts');
    expect(found.some((f) => f.startsWith('src/generated/'))).toBe(false);
  });
});
