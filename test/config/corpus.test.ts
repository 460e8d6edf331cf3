/**
 * The diagnostics corpus (test/corpus/README.md): every invalid configuration must produce exactly
 * the diagnostics its `<case>.expect.json` lists — same code, severity, file, line and column, as
 * many times as listed, and nothing else. Every valid configuration must produce no error.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../helpers/kinds.js';
import type { Diagnostic } from '../../src/diagnostics/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const corpus = path.join(root, 'test/corpus');
const invalidDir = path.join(corpus, 'invalid');
const validDir = path.join(corpus, 'valid');

interface CorpusEnv {
  readonly today: string;
  readonly env: Record<string, string>;
}
const { today, env } = JSON.parse(readFileSync(path.join(corpus, 'env.json'), 'utf8')) as CorpusEnv;

interface Expected {
  readonly code: string;
  readonly severity: 'error' | 'warning' | 'info';
  readonly file: string | null;
  readonly line: number | null;
  readonly column: number | null;
}

interface ExpectFile {
  readonly description: string;
  readonly paths?: readonly string[];
  readonly diagnostics: readonly Expected[];
}

interface Case {
  readonly name: string;
  readonly dir: string;
  readonly paths: readonly string[];
  readonly expect: ExpectFile;
}

/** Every `<name>.expect.json` of a corpus directory, with the input it describes. */
function casesIn(dir: string, requireExpect: boolean): Case[] {
  const entries = readdirSync(dir).filter((e) => !e.startsWith('.'));
  const names = new Set<string>();
  for (const e of entries) {
    if (e.endsWith('.expect.json')) names.add(e.slice(0, -'.expect.json'.length));
    else if (e.endsWith('.yaml')) names.add(e.slice(0, -'.yaml'.length));
    else if (statSync(path.join(dir, e)).isDirectory()) names.add(e);
  }
  return [...names].sort().map((name) => {
    const expectPath = path.join(dir, `${name}.expect.json`);
    const hasExpect = existsSync(expectPath);
    if (requireExpect && !hasExpect) throw new Error(`corpus case ${name} in ${dir} has no ${name}.expect.json`);
    const expectFile: ExpectFile = hasExpect
      ? (JSON.parse(readFileSync(expectPath, 'utf8')) as ExpectFile)
      : { description: name, diagnostics: [] };
    const asFile = existsSync(path.join(dir, `${name}.yaml`));
    const asDir = existsSync(path.join(dir, name)) && statSync(path.join(dir, name)).isDirectory();
    if (!expectFile.paths && asFile === asDir) throw new Error(`corpus case ${name} needs exactly one of ${name}.yaml or ${name}/`);
    const paths = expectFile.paths ?? [asFile ? `${name}.yaml` : name];
    return { name, dir, paths, expect: expectFile };
  });
}

type Tuple = [code: string, severity: string, file: string | null, line: number | null, column: number | null];

function actualTuples(diags: readonly Diagnostic[]): Tuple[] {
  return sortTuples(diags.map((d) => [d.code, d.severity, d.location?.file ?? null, d.location?.line ?? null, d.location?.column ?? null]));
}

function expectedTuples(exp: ExpectFile): Tuple[] {
  return sortTuples(exp.diagnostics.map((d) => [d.code, d.severity, d.file, d.line, d.column]));
}

/** A stable order (file, line, column, code) so a failing comparison shows a readable diff. */
function sortTuples(t: Tuple[]): Tuple[] {
  const key = (x: Tuple) => `${x[2] ?? ''}\u0000${String(x[3] ?? 0).padStart(6, '0')}\u0000${String(x[4] ?? 0).padStart(6, '0')}\u0000${x[0]}\u0000${x[1]}`;
  return [...t].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

function run(c: Case) {
  return loadConfig(c.paths, { cwd: c.dir, env, today });
}

const invalidCases = casesIn(invalidDir, true);
const validCases = casesIn(validDir, false);

describe('the invalid corpus', () => {
  it('holds at least 70 cases, each expecting at least one error and giving a position for every located diagnostic', () => {
    expect(invalidCases.length).toBeGreaterThanOrEqual(70);
    for (const c of invalidCases) {
      expect(c.expect.description, c.name).toMatch(/\S/);
      expect(c.expect.diagnostics.some((d) => d.severity === 'error'), `${c.name} expects no error`).toBe(true);
      for (const d of c.expect.diagnostics) {
        expect(d.code, c.name).toMatch(/^PLUMB_[A-Z0-9_]+$/);
        expect(['error', 'warning', 'info'], c.name).toContain(d.severity);
        const located = d.file !== null;
        expect([d.line !== null, d.column !== null], `${c.name}: file, line and column go together`).toEqual([located, located]);
      }
    }
  });

  describe.each(invalidCases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    it(`reports exactly the expected diagnostics: ${c.expect.description}`, () => {
      const result = run(c);
      expect(actualTuples(result.diagnostics)).toEqual(expectedTuples(c.expect));
    });

    it('refuses to produce a desired state', () => {
      const result = run(c);
      expect(result.config).toBeUndefined();
    });
  });
});

describe('the valid corpus', () => {
  it('holds several configurations', () => {
    expect(validCases.length).toBeGreaterThanOrEqual(3);
  });

  describe.each(validCases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    it('validates with no error and exactly the expected warnings', () => {
      const result = run(c);
      expect(actualTuples(result.diagnostics)).toEqual(expectedTuples(c.expect));
      expect(c.expect.diagnostics.every((d) => d.severity !== 'error')).toBe(true);
      expect(result.config).toBeDefined();
      expect(result.config!.instances.length).toBeGreaterThan(0);
    });
  });

  it('accepts the shipped examples (examples/plumb/ with the other configuration examples) without any diagnostic', () => {
    const others = readdirSync(path.join(root, 'examples'))
      .filter((f) => /\.ya?ml$/.test(f) && /^instances:/m.test(readFileSync(path.join(root, 'examples', f), 'utf8')))
      .map((f) => `examples/${f}`);
    for (const paths of [['examples/plumb'], ['examples/plumb', ...others]]) {
      const result = loadConfig(paths, { cwd: root, env: { PLUMB_TOKEN: 'example-token' }, today });
      expect(actualTuples(result.diagnostics), paths.join(' ')).toEqual([]);
      expect(result.config?.instances.length, paths.join(' ')).toBeGreaterThan(0);
    }
  });

  describe('the configurations shown in README.md', () => {
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    const blocks = [...readme.matchAll(/```ya?ml\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((b) => /^instances:/m.test(b));
    const tmp = mkdtempSync(path.join(tmpdir(), 'plumb-readme-'));
    afterAll(() => rmSync(tmp, { recursive: true, force: true }));

    it('include at least one complete configuration', () => {
      expect(blocks.length).toBeGreaterThanOrEqual(1);
    });

    it.each(blocks.map((b, i) => [i + 1, b] as const))('block %i validates with no diagnostic', (i, block) => {
      const file = path.join(tmp, `readme-${i}.yaml`);
      writeFileSync(file, block);
      const result = loadConfig([file], { cwd: tmp, env, today });
      expect(actualTuples(result.diagnostics)).toEqual([]);
      expect(result.config).toBeDefined();
    });
  });
});
