/**
 * scripts/config-path.ts, the measure of `plan`'s configuration path (docs/architecture.md,
 * "Measuring the path"): it counts a small tree right, and the repository's pipeline runs one way
 * (each stage module entered once, no stage reached back from a later one).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { countConfigPath, PLAN_ENTRIES } from '../../scripts/config-path.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** The whole program is type-checked first; on a busy 2-core machine that takes a while. */
const TYPECHECK_MS = 300_000;

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'plumb-config-path-'));
  dirs.push(root);
  writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', types: [] }, include: ['src'] }));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, 'src', rel)), { recursive: true });
    writeFileSync(path.join(root, 'src', rel), text);
  }
  return root;
}

describe('the configuration path measure', () => {
  it('counts files, stops and a climb back to a file nearer the entry, through an interface member too', () => {
    const root = tree({
      'a.ts': "import { b } from './b.js';\nexport function helper(): number { return 1; }\nexport function entry(): number { return b() + b(); }\n",
      'b.ts': "import { c } from './c.js';\nexport function b(): number { return c(); }\n",
      'c.ts': "import { helper } from './a.js';\nimport type { Kind } from './kind.js';\nimport { KIND } from './k.js';\nconst kinds: Kind[] = [KIND];\nexport function c(): number { return helper() + kinds.map((k) => k.run()).length; }\n",
      'kind.ts': 'export interface Kind { run(): number }\n',
      'k.ts': "import type { Kind } from './kind.js';\nfunction run(): number { return 2; }\nexport const KIND: Kind = { run };\n",
    });
    const c = countConfigPath(root, ['src/a.ts:entry']);
    // a → b → c → a (helper: a climb, a is the entry's file) and c → k (the kind's run).
    expect([c.files, c.stops, c.climbs]).toEqual([4, 4, 1]);
    expect(c.climbing).toEqual(['src/c.ts → src/a.ts']);
    expect(Object.fromEntries(c.entries)).toEqual({ 'src/a.ts': 2, 'src/b.ts': 1, 'src/c.ts': 1, 'src/k.ts': 1 });
  }, TYPECHECK_MS);

  it(
    "enters each stage of the repository's configuration pipeline once, and its drivers once",
    () => {
      const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
      const c = countConfigPath(root, PLAN_ENTRIES);
      for (const stage of ['read', 'parse', 'merge', 'schema', 'resolve', 'checks']) expect(c.entries.get(`src/config/pipeline/${stage}.ts`), stage).toBe(1);
      expect(c.entries.get('src/config/validate.ts')).toBe(1);
      expect(c.entries.get('src/config/load.ts')).toBe(1);
      // No stage is reached back from a later stage or a helper.
      expect(c.climbing.filter((x) => x.includes('src/config/pipeline/') || x.endsWith('validate.ts') || x.endsWith('load.ts'))).toEqual([]);
    },
    TYPECHECK_MS,
  );
});
