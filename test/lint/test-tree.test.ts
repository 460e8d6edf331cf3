/**
 * The test tree mirrors src/ (docs/architecture.md, "Where tests live"): a test of src/X/Y.ts lives
 * in test/X/, and only the cross-cutting suites the architecture lists sit elsewhere. And every test
 * starts the emulator through the one harness, test/helpers/emulator.ts: no other file under test/
 * imports `startEmulator` (the emulator's own command, `runEmulatorCommand` or `plumb emulator` in a
 * child process, is what test/emulator, test/security and test/install test, not a harness).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const HARNESS = 'test/helpers/emulator.ts';

/** The cross-cutting suites named in docs/architecture.md's "Where tests live" (`- \`test/x/\`: …` lines). */
function crossCutting(doc: string): string[] {
  const start = doc.indexOf('### Where tests live');
  if (start < 0) throw new Error('docs/architecture.md has no "Where tests live" section');
  const section = doc.slice(start + 1);
  const end = section.search(/\n#{1,3} /);
  return [...(end < 0 ? section : section.slice(0, end)).matchAll(/^- `test\/([a-z-]+)\/`/gm)].map((m) => m[1]!);
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const full = path.join(dir, e);
    return statSync(full).isDirectory() ? walk(full) : [full];
  });
}

/** Test files (repository-relative) whose folder is neither a folder of src/ nor under a cross-cutting suite. */
export function misplacedTests(testFiles: readonly string[], isSrcFolder: (rel: string) => boolean, suites: readonly string[]): string[] {
  return testFiles.filter((f) => {
    const folder = path.posix.dirname(path.posix.relative('test', f));
    if (folder === '.') return true;
    if (suites.includes(folder.split('/')[0]!)) return false;
    return !isSrcFolder(folder);
  });
}

/** `file:line` of every import of `startEmulator` (named, namespace or dynamic) from src/emulator/ in `text`. */
export function emulatorStarts(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const emulatorModule = (spec: string): boolean => spec.startsWith('.') && /(^|\/)src\/emulator\/(index|server)(\.js|\.ts)?$/.test(path.posix.join(path.posix.dirname(file), spec));
  const found: string[] = [];
  const at = (n: ts.Node) => `${file}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}`;
  const visit = (n: ts.Node): void => {
    if (ts.isImportDeclaration(n) && ts.isStringLiteral(n.moduleSpecifier) && emulatorModule(n.moduleSpecifier.text)) {
      const clause = n.importClause;
      const bindings = clause?.namedBindings;
      if (clause && !clause.isTypeOnly && bindings) {
        if (ts.isNamespaceImport(bindings)) found.push(at(n));
        else if (bindings.elements.some((e) => !e.isTypeOnly && (e.propertyName ?? e.name).text === 'startEmulator')) found.push(at(n));
      }
    }
    if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = n.arguments[0];
      if (arg && ts.isStringLiteralLike(arg) && emulatorModule(arg.text)) found.push(at(n));
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

describe('the test tree', () => {
  const doc = readFileSync(path.join(root, 'docs', 'architecture.md'), 'utf8');
  const suites = crossCutting(doc);
  const files = walk(path.join(root, 'test')).map((f) => path.relative(root, f).split(path.sep).join('/'));
  const isSrcFolder = (rel: string) => existsSync(path.join(root, 'src', rel)) && statSync(path.join(root, 'src', rel)).isDirectory();

  it('lists its cross-cutting suites in docs/architecture.md, each an existing folder without a twin in src/', () => {
    expect(suites.length).toBeGreaterThan(0);
    for (const s of suites) {
      expect(existsSync(path.join(root, 'test', s)), `test/${s}/`).toBe(true);
      expect(isSrcFolder(s), `test/${s}/ has a twin src/${s}/: it is a mirror, not a cross-cutting suite`).toBe(false);
    }
  });

  it('puts every test file in a mirror of a src/ folder or in a cross-cutting suite', () => {
    expect(misplacedTests(files.filter((f) => f.endsWith('.test.ts')), isSrcFolder, suites)).toEqual([]);
  });

  it('refuses a test file in a folder that mirrors nothing, and one at the top of test/', () => {
    const tests = ['test/tokens/rules.test.ts', 'test/resources/pages/pages.test.ts', 'test/cli/show.test.ts', 'test/loose.test.ts', 'test/api/fixtures/x.test.ts'];
    expect(misplacedTests(tests, isSrcFolder, suites)).toEqual(['test/tokens/rules.test.ts', 'test/loose.test.ts', 'test/api/fixtures/x.test.ts']);
  });

  it('starts the emulator only through test/helpers/emulator.ts', () => {
    const starts = files.filter((f) => f.endsWith('.ts') && f !== HARNESS).flatMap((f) => emulatorStarts(f, readFileSync(path.join(root, f), 'utf8')));
    expect(starts).toEqual([]);
    expect(emulatorStarts(HARNESS, readFileSync(path.join(root, HARNESS), 'utf8'))).toHaveLength(1);
  });

  it('refuses a named, renamed, namespace or dynamic import of startEmulator, and lets types and other modules through', () => {
    const f = 'test/engine/x.test.ts';
    expect(emulatorStarts(f, "import { startEmulator } from '../../src/emulator/index.js';")).toEqual([`${f}:1`]);
    expect(emulatorStarts(f, "import { addJobToken, startEmulator as go } from '../../src/emulator/server.js';")).toEqual([`${f}:1`]);
    expect(emulatorStarts(f, "import * as emulator from '../../src/emulator/index.js';")).toEqual([`${f}:1`]);
    expect(emulatorStarts(f, "const x = 1;\nconst m = await import('../../src/emulator/index.js');")).toEqual([`${f}:2`]);
    expect(emulatorStarts(f, "import type { RunningEmulator } from '../../src/emulator/index.js';")).toEqual([]);
    expect(emulatorStarts(f, "import { type RunningEmulator, addJobToken } from '../../src/emulator/index.js';")).toEqual([]);
    expect(emulatorStarts(f, "import { startTestEmulator } from '../helpers/emulator.js';")).toEqual([]);
  });
});
