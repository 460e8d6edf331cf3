/**
 * A kind stays in its folder: the number of files outside it that name it
 * (scripts/count-kind-mentions.ts) may shrink, never grow above what docs/architecture.md states.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { kindMentions } from '../../scripts/count-kind-mentions.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The table of docs/architecture.md: `| \`kind\` | N |` rows under "Where each kind is named". */
function documented(): Record<string, number> {
  const doc = readFileSync(path.join(root, 'docs', 'architecture.md'), 'utf8');
  const start = doc.indexOf('### Where each kind is named');
  if (start < 0) throw new Error('docs/architecture.md has no "Where each kind is named" section');
  const rows = doc.slice(start).split('\n').map((l) => /^\| `([a-z_]+)` \| (\d+) \|/.exec(l)).filter((m) => m !== null);
  return Object.fromEntries(rows.map((m) => [m[1]!, Number(m[2])]));
}

describe('the files outside a kind that name it', () => {
  const counts = kindMentions(root);
  const doc = documented();

  it('are stated in docs/architecture.md for every kind', () => {
    expect(Object.keys(doc).sort()).toEqual(Object.keys(counts).sort());
  });

  it.each(Object.keys(counts))('do not grow above the documented number for %s', (kind) => {
    expect(counts[kind]!.length, `files naming ${kind}: ${counts[kind]!.join(', ')}`).toBeLessThanOrEqual(doc[kind]!);
  });
});
