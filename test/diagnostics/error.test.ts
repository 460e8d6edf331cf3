import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ApiNotFoundError } from '../../src/api/errors.js';
import { PlumbError } from '../../src/diagnostics/error.js';
import { LockHeld } from '../../src/engine/lock.js';
import { StateProblem } from '../../src/engine/state.js';

const src = path.resolve(import.meta.dirname, '../../src');

/** The error classes JavaScript and Node define: an error class of plumb derives from one of them only through PlumbError. */
const BUILT_IN_ERRORS = new Set(['Error', 'TypeError', 'RangeError', 'SyntaxError', 'ReferenceError', 'EvalError', 'URIError', 'AggregateError']);

/**
 * Error classes that do not derive from PlumbError yet, each with the work that removes it. The
 * test fails on any other, and on an entry whose class is gone (so the list only shrinks).
 */
const NOT_YET: Readonly<Record<string, string>> = {
  // issue 30 item 4 (house-cli) replaces cli.ts's usage parsing, UsageError included.
  'cli.ts UsageError': 'command-line arguments as data (issue 30 item 4)',
};

interface ClassInfo {
  readonly file: string;
  readonly name: string;
  /** The expression after `extends`, as written; undefined for a class that extends nothing. */
  readonly base: string | undefined;
}

/** Every class declared (or assigned from a class expression) in plumb's source, the emulator and generated code aside. */
function classesOfSrc(): ClassInfo[] {
  const files = (readdirSync(src, { recursive: true }) as string[])
    .map((f) => f.split(path.sep).join('/'))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.startsWith('emulator/') && !f.startsWith('generated/'));
  const out: ClassInfo[] = [];
  for (const file of files) {
    const sf = ts.createSourceFile(file, readFileSync(path.join(src, file), 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (n: ts.Node): void => {
      if (ts.isClassDeclaration(n) || ts.isClassExpression(n)) {
        const heritage = n.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword)?.types[0];
        out.push({ file, name: n.name?.text ?? '(anonymous)', base: heritage?.expression.getText(sf) });
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return out;
}

describe('one error shape', () => {
  const classes = classesOfSrc();

  it('derives every error class under src/ (the emulator aside) from PlumbError', () => {
    const declared = new Set(classes.map((c) => c.name));
    const wrong = classes
      .filter((c) => c.base !== undefined && !(c.file === 'diagnostics/error.ts' && c.name === 'PlumbError'))
      // A built-in error, or an error class of a library (not declared in src/), as the direct base.
      .filter((c) => BUILT_IN_ERRORS.has(c.base!) || (/(Error|Exception)$/.test(c.base!) && !declared.has(c.base!)))
      .map((c) => `${c.file} ${c.name}`)
      .filter((c) => !(c in NOT_YET));
    expect(wrong).toEqual([]);
  });

  it('keeps the list of exceptions to what is still there', () => {
    const present = new Set(classes.filter((c) => c.base !== undefined && BUILT_IN_ERRORS.has(c.base)).map((c) => `${c.file} ${c.name}`));
    expect(Object.keys(NOT_YET).filter((k) => !present.has(k))).toEqual([]);
  });

  it('finds the error classes it checks (the scan is not empty)', () => {
    const bases = new Map(classes.map((c) => [c.name, c.base]));
    const derives = (name: string): boolean => {
      for (let n: string | undefined = name, i = 0; n !== undefined && i < 10; n = bases.get(n), i++) if (n === 'PlumbError') return true;
      return false;
    };
    const errors = classes.filter((c) => derives(c.name) && c.name !== 'PlumbError').map((c) => c.name);
    expect(errors).toEqual(expect.arrayContaining(['ApiError', 'ApiNotFoundError', 'LockHeld', 'StateProblem', 'SinkError', 'LocalFileError', 'PayloadError', 'CommentError']));
  });
});

describe('PlumbError.toDiagnostic', () => {
  it('gives the code, summary and suggestion the error carries, as an error', () => {
    const err = new LockHeld('The state is locked by ci@runner since 10:00', 'wait, or remove the lock file');
    expect(err).toBeInstanceOf(PlumbError);
    expect(err.message).toBe('The state is locked by ci@runner since 10:00');
    expect(err.name).toBe('LockHeld');
    expect(err.toDiagnostic()).toEqual({
      severity: 'error',
      code: 'PLUMB_STATE_LOCKED',
      summary: 'The state is locked by ci@runner since 10:00',
      suggestion: 'wait, or remove the lock file',
    });
  });

  it('lets the catcher add a location and replace the summary', () => {
    const err = new StateProblem('s.json', 's.json is a directory', 'point --state at a file');
    const location = { file: 'plumb.yaml', line: 3, column: 5 };
    expect(err.toDiagnostic({ summary: `--state s.json: ${err.summary}`, location })).toEqual({
      severity: 'error',
      code: 'PLUMB_STATE_UNUSABLE',
      summary: '--state s.json: s.json is a directory',
      suggestion: 'point --state at a file',
      location,
    });
  });

  it("gives a client error's call as the detail and the usual fix as the suggestion", () => {
    const err = new ApiNotFoundError({ method: 'GET', path: '/groups/acme', status: 404, serverMessage: '404 Group Not Found' });
    expect(err).toBeInstanceOf(PlumbError);
    expect(err.toDiagnostic()).toEqual({
      severity: 'error',
      code: 'PLUMB_API_NOT_FOUND',
      summary: 'GET /groups/acme returned 404: 404 Group Not Found',
      detail: 'GET /groups/acme answered 404.',
      suggestion: 'check the group or project path, and that the token can see it',
    });
  });
});
