/**
 * The documents users read (README.md, docs/*.md, shipped in the npm package) hold together as
 * documents: a table is not cut by a paragraph (a section pasted into the middle of one), a relative
 * link reaches a file of the repository, and nothing points at documents users do not have (plumb's
 * interface specification is not published with it).
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const docs = ['README.md', ...readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const text = (rel: string) => readFileSync(path.join(root, rel), 'utf8');
/** The lines outside fenced code blocks, with their numbers. */
function prose(rel: string): { line: string; n: number }[] {
  let fenced = false;
  return text(rel)
    .split('\n')
    .map((line, i) => ({ line, n: i + 1 }))
    .filter(({ line }) => {
      if (/^\s*```/.test(line)) {
        fenced = !fenced;
        return false;
      }
      return !fenced;
    });
}

describe('the documents', () => {
  it('cut no table with a paragraph: every table row follows a row, or is a header over its |---| line', () => {
    const stray: string[] = [];
    for (const rel of docs) {
      const lines = prose(rel);
      lines.forEach(({ line, n }, i) => {
        if (!line.startsWith('|')) return;
        const before = lines[i - 1];
        const after = lines[i + 1];
        if (before && before.n === n - 1 && before.line.startsWith('|')) return;
        if (after && /^\|[\s:|-]+\|\s*$/.test(after.line)) return;
        stray.push(`${rel}:${n}: ${line.slice(0, 60)}`);
      });
    }
    expect(stray).toEqual([]);
  });

  it('link only to files that exist', () => {
    const broken: string[] = [];
    for (const rel of docs) {
      for (const { line, n } of prose(rel)) {
        for (const m of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
          const target = m[1]!.split('#')[0]!;
          if (target === '' || /^[a-z]+:/.test(target)) continue;
          if (!existsSync(path.resolve(root, path.dirname(rel), target))) broken.push(`${rel}:${n}: ${m[1]}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('point at no document users do not have (the interface specification is not published with plumb)', () => {
    for (const rel of ['README.md', 'docs/emulator.md', 'docs/config.md', 'docs/cdktf.md']) expect(text(rel), rel).not.toMatch(/shared\/spec\//);
    // The emulator's code example works in a checkout, from its root: not a path above it.
    expect(text('docs/emulator.md')).not.toContain("from '../src/");
  });

  it('do not claim the npm name plumb-gitops is taken: npm holds a name only once something is published under it', () => {
    expect(text('README.md')).not.toMatch(/took the name|name (?:is|was) taken/);
  });
});
