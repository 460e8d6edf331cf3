/**
 * Each kind owns its reasons (KindEntry.reasons, src/resources/<kind>/index.ts): every reason
 * name a kind's folder gives must be one that kind declares, or views fall back to the bare name
 * (the files kind once gave `missing-in-live` and `absent-requested`, which only the tokens kind
 * declared). Checked on the source: a reason name any kind declares, written as a string literal
 * in another kind's folder, must be declared by that folder's kind too.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { KIND_ENTRIES } from '../../src/resources/index.js';

const RESOURCES = fileURLToPath(new URL('../../src/resources/', import.meta.url));

/** The kind folders: each with an index.ts that declares the kind's reasons. */
const FOLDERS = readdirSync(RESOURCES, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => ({ name: d.name, index: path.join(RESOURCES, d.name, 'index.ts') }))
  .filter((d) => {
    try {
      return readFileSync(d.index, 'utf8').includes('KindEntry<');
    } catch {
      return false;
    }
  });

/** Where a kind declares its reasons: its index.ts, or the reasons.ts beside it (the settings'). */
const DECLARING = ['index.ts', 'reasons.ts'];

/** The text of a folder's declaring files. */
function declarations(folder: string): string {
  return DECLARING.map((f) => {
    try {
      return readFileSync(path.join(RESOURCES, folder, f), 'utf8');
    } catch {
      return '';
    }
  }).join('\n');
}

/** The folder whose index.ts (or reasons.ts) declares every one of these reasons as a key. */
function folderDeclaring(reasons: readonly string[]): string {
  const found = FOLDERS.filter((d) => {
    const text = declarations(d.name);
    return reasons.every((r) => new RegExp(`(^|\\s)'?${r}'?:`, 'm').test(text));
  });
  if (found.length !== 1) throw new Error(`${found.length} folders declare ${reasons.join(', ')}`);
  return found[0]!.name;
}

/** String literals in a folder's sources other than the files that declare its reasons. */
function literalsIn(folder: string): Set<string> {
  const out = new Set<string>();
  for (const f of readdirSync(path.join(RESOURCES, folder))) {
    if (!f.endsWith('.ts') || DECLARING.includes(f)) continue;
    const text = readFileSync(path.join(RESOURCES, folder, f), 'utf8');
    for (const m of text.matchAll(/'([a-z][a-z0-9-]*)'/g)) out.add(m[1]!);
  }
  return out;
}

describe('reasons', () => {
  const declaredAnywhere = new Set(KIND_ENTRIES.flatMap((k) => Object.keys(k.reasons)));
  it.each(KIND_ENTRIES.map((k) => [k.kind, k] as const))('of %s are all declared by that kind', (_name, k) => {
    const folder = folderDeclaring(Object.keys(k.reasons));
    const given = [...literalsIn(folder)].filter((s) => declaredAnywhere.has(s));
    expect(given.length).toBeGreaterThan(0);
    expect(given.filter((r) => !(r in k.reasons))).toEqual([]);
  });
});
