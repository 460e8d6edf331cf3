/**
 * The import rules of docs/architecture.md, enforced (`npm run lint` runs this after eslint).
 * Builds the import graph of src/ with the TypeScript compiler's parser and fails on:
 *  (a) an import the folder table does not allow (type-only imports follow the same table, except
 *      where a row says "types");
 *  (b) an import cycle among runtime imports, and a cycle among folders through any import (type-only
 *      and dynamic ones too: a folder that needs another's types depends on it);
 *  (c) a dynamic `import()` of a module a static import may not reach either;
 *  (d) a kind importing another kind;
 *  (e) a write to standard output (`process.stdout`, `io.stdout`) outside the views and the
 *      documented exceptions.
 * Usage: tsx scripts/check-imports.ts [ROOT]   (ROOT defaults to the repository; tests point it at
 * fixture trees under test/lint/fixtures/).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export interface Violation {
  readonly rule: 'table' | 'cycle' | 'folder-cycle' | 'dynamic-import' | 'kind-to-kind' | 'stdout';
  readonly file: string;
  readonly message: string;
}

/** Which folder a file of src/ belongs to, for the table: `resources/<kind>` for a kind's files. */
export function areaOf(rel: string): string {
  const parts = rel.split('/');
  if (parts.length === 1) return parts[0]!.replace(/\.ts$/, '');
  if (parts[0] === 'resources') return parts.length > 2 ? `resources/${parts[1]}` : `resources/${parts[1]!.replace(/\.ts$/, '')}`;
  return parts[0]!;
}

const KIND_SHARED = ['resources/kind', 'resources/terraform', 'resources/codes'];

/**
 * The table: area → areas (or files, as `folder/file`) it may import. `*` any; a kind row is
 * matched by `resources/<kind>` (any folder under resources/). Keep in step with
 * docs/architecture.md, "Folders and who may import whom". No row exists only to let one folder
 * reach back into another that imports it: the folders form no cycle (rule b).
 */
export const TABLE: Readonly<Record<string, readonly string[]>> = {
  util: [],
  catalogue: ['util'],
  diagnostics: ['util'],
  api: ['diagnostics', 'util'],
  generated: [],
  config: ['catalogue', 'diagnostics', 'util', 'generated'],
  engine: ['api', 'config', 'diagnostics', 'util', 'version'],
  kind: ['api', 'catalogue', 'config', 'engine', 'util', 'diagnostics', ...KIND_SHARED],
  'resources/index': ['kind', 'config', 'engine', ...KIND_SHARED],
  'resources/kind': ['catalogue', 'diagnostics', 'engine', 'config', ...KIND_SHARED],
  'resources/terraform': ['engine', 'catalogue'],
  // A registry of other kinds (a test's fifth kind): compiles their schemas at run time.
  'resources/with-kinds': ['resources/index', 'schema', ...KIND_SHARED],
  'resources/codes': ['diagnostics', 'generated'],
  render: ['engine/plan', 'engine/report', 'util/terminal', 'util/html', 'util/days'],
  emulator: ['catalogue', 'util'],
  schema: ['catalogue', 'util', 'config'],
  cdktf: ['catalogue', 'config', 'diagnostics', 'util'],
  provider: ['api', 'catalogue', 'config', 'engine', 'diagnostics', 'util', 'resources/index', 'resources/terraform'],
  commands: ['*'],
  cli: ['*'],
  // The standalone executable's entry point: the CLI, and how it finds its embedded files.
  sea: ['cli', 'util'],
  // The provider as one JavaScript file (dist/plumb-provider.cjs): the CLI's provider command, its files embedded.
  'provider-file': ['cli', 'util'],
  version: [],
};

/** Files that may write to standard output: the views, and the documented exceptions. */
export const STDOUT_ALLOWED: readonly RegExp[] = [
  /^commands\/views\//, // one view per command, one implementation per output format
  /^commands\/output\.ts$/, // the Io object itself: where stdout is bound
  /^render\//,
  /^cli\.ts$/, // --help, --version, usage
  /^resources\/group-access-tokens\/deliver-all\.ts$/, // a token's `stdout: true` sink (machine-readable output), when no InstanceContext.stdout is given
  /^emulator\//, // a separate program
  /^provider\/server\.ts$/, // go-plugin's handshake line is the provider's protocol
];

/**
 * A write to standard output: `.stdout` of `process`, or of anything named like an Io (`io`,
 * `io0`, `this.io`, `l.io`): the object commands write through (src/commands/output.ts).
 */
function isStdout(n: ts.PropertyAccessExpression): boolean {
  if (n.name.text !== 'stdout') return false;
  const receiver = n.expression;
  const name = ts.isIdentifier(receiver) ? receiver.text : ts.isPropertyAccessExpression(receiver) ? receiver.name.text : undefined;
  return name !== undefined && (name === 'process' || /^io\d*$/i.test(name));
}

function isKindArea(area: string): boolean {
  return area.startsWith('resources/') && !(area in TABLE);
}

function allowed(from: string, toRel: string): boolean {
  const to = areaOf(toRel);
  if (from === to) return true;
  const row = TABLE[isKindArea(from) ? 'kind' : from];
  if (!row) return false;
  const toFile = toRel.replace(/\.ts$/, '');
  return row.some((a) => a === '*' || a === to || a === toFile || (a === 'kind' && isKindArea(to)));
}

interface Edge {
  readonly to: string;
  readonly typeOnly: boolean;
  readonly dynamic: boolean;
}

function listFiles(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return listFiles(p, base);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path.relative(base, p).split(path.sep).join('/')] : [];
  });
}

function resolve(fromRel: string, spec: string, known: ReadonlySet<string>): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const joined = path.posix.normalize(path.posix.join(path.posix.dirname(fromRel), spec));
  for (const c of [joined.replace(/\.js$/, '.ts'), `${joined}.ts`, `${joined}/index.ts`]) if (known.has(c)) return c;
  return undefined;
}

export function checkImports(root: string): Violation[] {
  const src = path.join(root, 'src');
  const files = listFiles(src).filter((f) => !f.startsWith('generated/'));
  const known = new Set(listFiles(src));
  const out: Violation[] = [];
  const graph = new Map<string, Edge[]>();
  for (const rel of files) {
    const text = readFileSync(path.join(src, rel), 'utf8');
    const sf = ts.createSourceFile(rel, text, ts.ScriptTarget.Latest, true);
    const edges: Edge[] = [];
    const add = (spec: string, typeOnly: boolean, dynamic: boolean) => {
      const to = resolve(rel, spec, known);
      if (to) edges.push({ to, typeOnly, dynamic });
    };
    const visit = (n: ts.Node): void => {
      if (ts.isImportDeclaration(n) && ts.isStringLiteral(n.moduleSpecifier)) {
        const c = n.importClause;
        const typeOnly = !!c && (c.isTypeOnly || (!c.name && !!c.namedBindings && ts.isNamedImports(c.namedBindings) && c.namedBindings.elements.length > 0 && c.namedBindings.elements.every((e) => e.isTypeOnly)));
        add(n.moduleSpecifier.text, typeOnly, false);
      } else if (ts.isExportDeclaration(n) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier)) {
        add(n.moduleSpecifier.text, n.isTypeOnly, false);
      } else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword) {
        const arg = n.arguments[0];
        if (arg && ts.isStringLiteralLike(arg)) add(arg.text, false, true);
        else out.push({ rule: 'dynamic-import', file: rel, message: `a dynamic import() of a computed specifier (${arg?.getText(sf) ?? ''}) cannot be checked` });
      } else if (ts.isPropertyAccessExpression(n) && isStdout(n)) {
        if (!STDOUT_ALLOWED.some((r) => r.test(rel))) {
          const { line } = sf.getLineAndCharacterOfPosition(n.getStart(sf));
          out.push({ rule: 'stdout', file: rel, message: `line ${line + 1}: ${n.getText(sf)} outside the views (what a command shows goes through its view, src/commands/views/)` });
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
    graph.set(rel, edges);
    const from = areaOf(rel);
    for (const e of edges) {
      const to = areaOf(e.to);
      if (isKindArea(from) && isKindArea(to) && from !== to) {
        out.push({ rule: 'kind-to-kind', file: rel, message: `imports ${e.to}: a kind never imports another kind` });
        continue;
      }
      if (allowed(from, e.to)) continue;
      out.push(e.dynamic
        ? { rule: 'dynamic-import', file: rel, message: `import() of ${e.to}: ${from} may not import ${to}, statically or dynamically` }
        : { rule: 'table', file: rel, message: `imports ${e.to}: ${from} may import only ${(TABLE[isKindArea(from) ? 'kind' : from] ?? []).join(', ') || 'nothing of plumb'} (docs/architecture.md)` });
    }
  }
  out.push(...cycles(graph));
  out.push(...folderCycles(graph));
  return out;
}

/** The folder of a file of src/ (its first segment; a file at the top is its own folder). */
function folderOf(rel: string): string {
  const i = rel.indexOf('/');
  return i < 0 ? rel.replace(/\.ts$/, '') : rel.slice(0, i);
}

/**
 * Every cycle a depth-first walk of a directed graph meets: the nodes in sorted order, each node's
 * successors in the order `next` gives them. Each cycle once, rotated to start at its smallest node.
 */
function cyclesOf(nodes: Iterable<string>, next: (node: string) => readonly string[]): string[][] {
  const found = new Map<string, string[]>();
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const walk = (node: string): void => {
    state.set(node, 'open');
    stack.push(node);
    for (const to of next(node)) {
      const s = state.get(to);
      if (s === 'open') {
        const cycle = stack.slice(stack.indexOf(to));
        const start = cycle.indexOf([...cycle].sort()[0]!);
        const ordered = [...cycle.slice(start), ...cycle.slice(0, start)];
        const key = ordered.join(' → ');
        if (!found.has(key)) found.set(key, ordered);
      } else if (!s) walk(to);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...nodes].sort()) if (!state.has(node)) walk(node);
  return [...found.values()];
}

/**
 * Cycles among folders, through any import: each reported once, from its smallest folder, naming
 * one import of each step. A circle of folders is what lets a one-line import crash start-up with
 * "Cannot access … before initialization", whichever module happens to load first.
 */
function folderCycles(graph: ReadonlyMap<string, readonly Edge[]>): Violation[] {
  const via = new Map<string, Map<string, string>>();
  for (const [from, edges] of graph) {
    for (const e of edges) {
      const [a, b] = [folderOf(from), folderOf(e.to)];
      if (a === b) continue;
      const row = via.get(a) ?? new Map<string, string>();
      if (!row.has(b)) row.set(b, `${from} → ${e.to}`);
      via.set(a, row);
    }
  }
  return cyclesOf(via.keys(), (f) => [...(via.get(f)?.keys() ?? [])].sort()).map((cycle) => {
    const steps = cycle.map((a, i) => via.get(a)!.get(cycle[(i + 1) % cycle.length]!)!);
    return { rule: 'folder-cycle', file: cycle[0]!, message: `folder cycle: ${cycle.join(' → ')} → ${cycle[0]!} (${steps.join('; ')})` };
  });
}

/** Cycles among runtime (not type-only, not dynamic) imports: each reported once, from its smallest file. */
function cycles(graph: ReadonlyMap<string, readonly Edge[]>): Violation[] {
  const runtime = (f: string) => (graph.get(f) ?? []).filter((e) => !e.typeOnly && !e.dynamic).map((e) => e.to);
  return cyclesOf(graph.keys(), runtime).map((cycle) => ({ rule: 'cycle', file: cycle[0]!, message: `import cycle: ${cycle.join(' → ')} → ${cycle[0]!}` }));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = process.argv[2] ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const violations = checkImports(root);
  for (const v of violations) process.stderr.write(`src/${v.file}: [${v.rule}] ${v.message}\n`);
  if (violations.length > 0) {
    process.stderr.write(`${violations.length} import rule violation(s); the rules are in docs/architecture.md and scripts/check-imports.ts\n`);
    process.exitCode = 1;
  }
}
