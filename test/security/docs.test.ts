/**
 * docs/security.md is the threat model people set CI up from: every diagnostic code, environment
 * variable and command-line flag it names must be one plumb has. A variable the page promises that
 * nothing reads (a setting that silently does nothing) is the worst kind of security documentation.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isDiagnosticCode } from '../../src/diagnostics/codes.js';

const root = path.resolve(import.meta.dirname, '../..');
const doc = readFileSync(path.join(root, 'docs/security.md'), 'utf8');

function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) {
      if (name !== 'generated') yield* sources(file);
    } else if (name.endsWith('.ts')) yield file;
  }
}
/** Every source file of src/ but the code registry itself, by path relative to src/. */
const src = new Map([...sources(path.join(root, 'src'))].filter((f) => !f.endsWith('diagnostics/codes.ts')).map((f) => [path.relative(path.join(root, 'src'), f), readFileSync(f, 'utf8')]));
const quoted = (name: string) => new RegExp(`['"\`]${name}['"\`=]|\\benv\\.${name}\\b|\\benv\\[['"]${name}['"]\\]`);
const usedIn = (name: string) => [...src].filter(([, text]) => quoted(name).test(text)).map(([f]) => f);

const names = [...new Set(doc.match(/\bPLUMB_[A-Z0-9_]*[A-Z0-9]\b/g) ?? [])].sort();
const flags = [...new Set(doc.match(/(?<![\w-])--[a-z][a-z-]*[a-z]\b/g) ?? [])].sort();

describe('docs/security.md', () => {
  it('names codes and variables at all (the checks below are not vacuous)', () => {
    expect(names.filter(isDiagnosticCode).length).toBeGreaterThan(5);
    expect(names.filter((n) => !isDiagnosticCode(n)).length).toBeGreaterThan(5);
    expect(flags.length).toBeGreaterThan(5);
  });

  it('names only diagnostic codes that are registered in src/diagnostics/codes.ts and reported somewhere in src/', () => {
    const codes = names.filter((n) => /_(NOT_ALLOWED|EDITED|STALE|MISMATCH|IGNORED|TOO_SHORT|LOCKED|FAILED|INVALID|UNREADABLE)$/.test(n) || isDiagnosticCode(n));
    expect(codes.filter((c) => !isDiagnosticCode(c))).toEqual([]);
    expect(codes.filter((c) => usedIn(c).length === 0)).toEqual([]);
  });

  it('names only environment variables that plumb reads (as env.NAME, env["NAME"] or the quoted name)', () => {
    const variables = names.filter((n) => !isDiagnosticCode(n));
    expect(variables.filter((v) => usedIn(v).length === 0)).toEqual([]);
  });

  it('names only command-line flags that a plumb command accepts', () => {
    // cli.ts, and the commands whose arguments are parsed in their own module (commands/*-args.ts).
    const cli = ['cli.ts', 'emulator/options.ts', ...[...src.keys()].filter((f) => /^commands\/[^/]+-args\.ts$/.test(f))].map((f) => src.get(f) ?? '').join('\n');
    const declared = (flag: string) => new RegExp(`(['"]${flag.slice(2)}['"]|\\b${flag.slice(2)}):\\s*\\{\\s*type:`).test(cli);
    expect(flags.filter((f) => !declared(f))).toEqual([]);
  });
});
