/**
 * How far one `plan`'s configuration path wanders (docs/architecture.md, "Measuring the path"):
 * a static walk of the call graph of src/ from the function a command loads its configuration
 * with, counting the files it visits, its stops and its climbs.
 *
 * The walk starts at an entry function and follows, in source order, every call whose callee is a
 * function of src/ (a function, a method, a const arrow function, a class's constructor; a call
 * through an interface member, such as a kind's `resolve`, goes to every object literal typed as
 * that interface that implements the member, so the kinds' resolvers are walked too). Each function
 * is walked once, the first time it is reached; it is the static union of every branch (YAML and
 * `--cdktf` alike), not one run.
 *  - a **stop** is reaching a not yet walked function in another file than its caller;
 *  - a file's **entries** are its stops;
 *  - a file's **layer** is how few stops lead to it from the entry's file; a **climb** is a stop
 *    into a file of a higher layer than its caller's (the path goes back up).
 * Files of src/generated/ are counted as stops but not walked (they call nothing of plumb).
 *
 * Usage: tsx scripts/config-path.ts [FILE:FUNCTION ...] [--files]
 *   default entries: {@link PLAN_ENTRIES}; `--files` lists the entries per file, `--climbs` each climb.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export interface PathCount {
  readonly files: number;
  readonly stops: number;
  readonly climbs: number;
  /** Repository-relative file → how many times the walk entered it (its first visit included). */
  readonly entries: ReadonlyMap<string, number>;
  /** Each climb, as `caller file → callee file`. */
  readonly climbing: readonly string[];
}

/** Where `plan` loads its configuration (YAML or, with `--cdktf`, an app). */
export const PLAN_ENTRIES = ['src/commands/config-source.ts:loadConfiguration'];

type Fn = ts.FunctionLikeDeclaration;

function isFunctionLike(n: ts.Node): n is Fn {
  return ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isArrowFunction(n) || ts.isFunctionExpression(n) || ts.isConstructorDeclaration(n) || ts.isGetAccessorDeclaration(n);
}

/** Counts the walk from each `file:function` entry (repository-relative), together. */
export function countConfigPath(root: string, entries: readonly string[]): PathCount {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  if (!config) throw new Error('cannot read tsconfig.json');
  const program = ts.createProgram(
    config.fileNames.filter((f) => f.startsWith(path.join(root, 'src') + path.sep)),
    config.options,
  );
  const checker = program.getTypeChecker();
  // Check every file first: asked lazily, the checker misses some members of generic interfaces (a kind's `resolve`).
  void program.getSemanticDiagnostics();
  const src = path.join(root, 'src') + path.sep;
  const ours = (f: ts.SourceFile) => f.fileName.startsWith(src);
  const rel = (n: ts.Node) => path.relative(root, n.getSourceFile().fileName).split(path.sep).join('/');

  // Interface member → its implementations in object literals typed as that interface.
  const impls = new Map<ts.Node, Fn[]>();
  for (const sf of program.getSourceFiles().filter(ours)) {
    const scan = (n: ts.Node): void => {
      if (ts.isObjectLiteralExpression(n)) {
        const type = checker.getContextualType(n);
        for (const prop of n.properties) {
          const name = prop.name && ts.isIdentifier(prop.name) ? prop.name.text : undefined;
          const member = name ? type?.getProperty(name)?.declarations?.[0] : undefined;
          if (!member) continue;
          const fn = ts.isMethodDeclaration(prop) ? prop : ts.isPropertyAssignment(prop) ? functionOf(prop.initializer) : ts.isShorthandPropertyAssignment(prop) ? shorthandFunction(prop) : undefined;
          if (fn) impls.set(member, [...(impls.get(member) ?? []), fn]);
        }
      }
      ts.forEachChild(n, scan);
    };
    scan(sf);
  }

  function declarationOf(sym: ts.Symbol | undefined): ts.Declaration | undefined {
    let s = sym;
    if (s && s.flags & ts.SymbolFlags.Alias) s = checker.getAliasedSymbol(s);
    return s?.valueDeclaration ?? s?.declarations?.[0];
  }

  function functionOf(expr: ts.Expression): Fn | undefined {
    if (isFunctionLike(expr)) return expr;
    const decl = declarationOf(checker.getSymbolAtLocation(expr));
    if (!decl) return undefined;
    if (isFunctionLike(decl)) return decl;
    if (ts.isVariableDeclaration(decl) && decl.initializer && (ts.isArrowFunction(decl.initializer) || ts.isFunctionExpression(decl.initializer))) return decl.initializer;
    if (ts.isBindingElement(decl)) return undefined;
    return undefined;
  }

  function shorthandFunction(prop: ts.ShorthandPropertyAssignment): Fn | undefined {
    const decl = declarationOf(checker.getShorthandAssignmentValueSymbol(prop));
    if (!decl) return undefined;
    if (isFunctionLike(decl)) return decl;
    return ts.isVariableDeclaration(decl) && decl.initializer ? functionOf(decl.initializer) : undefined;
  }

  function callees(call: ts.CallExpression | ts.NewExpression): Fn[] {
    const target = call.expression;
    const sym = checker.getSymbolAtLocation(ts.isPropertyAccessExpression(target) ? target.name : target);
    let s = sym;
    if (s && s.flags & ts.SymbolFlags.Alias) s = checker.getAliasedSymbol(s);
    // (The symbol of a member of a generic interface is not always found from its name; the signature is.)
    const decl = s ? (s.valueDeclaration ?? s.declarations?.[0]) : checker.getResolvedSignature(call)?.declaration;
    if (!decl) return [];
    if (ts.isClassDeclaration(decl)) {
      const ctor = decl.members.find(ts.isConstructorDeclaration);
      return ctor ? [ctor] : [];
    }
    if (ts.isMethodSignature(decl) || ts.isPropertySignature(decl)) return impls.get(decl) ?? [];
    if (ts.isBindingElement(decl)) {
      // `const { f } = await import('./x.js')`: the export of that name.
      const type = checker.getTypeAtLocation(decl);
      const d = type.getSymbol()?.valueDeclaration;
      return d && isFunctionLike(d) ? [d] : [];
    }
    const fn = isFunctionLike(decl) ? decl : ts.isVariableDeclaration(decl) && decl.initializer ? functionOf(decl.initializer) : undefined;
    return fn ? [fn] : [];
  }

  const walked = new Set<Fn>();
  const counts = new Map<string, number>();
  const edges: [string, string][] = [];

  function walk(fn: Fn): void {
    const here = rel(fn);
    const visit = (n: ts.Node): void => {
      if (ts.isCallExpression(n) || ts.isNewExpression(n)) {
        for (const callee of callees(n)) {
          if (!ours(callee.getSourceFile()) || walked.has(callee)) continue;
          walked.add(callee);
          const there = rel(callee);
          if (there !== here) {
            edges.push([here, there]);
            counts.set(there, (counts.get(there) ?? 0) + 1);
          }
          if (!there.startsWith('src/generated/')) walk(callee);
        }
      }
      ts.forEachChild(n, visit);
    };
    if (fn.body) ts.forEachChild(fn.body, visit);
  }

  for (const entry of entries) {
    const [file, name] = entry.split(':');
    const sf = program.getSourceFile(path.join(root, file!));
    if (!sf) throw new Error(`no such file: ${file}`);
    let found: Fn | undefined;
    const find = (n: ts.Node): void => {
      if (!found && ts.isFunctionDeclaration(n) && n.name?.text === name) found = n;
      ts.forEachChild(n, find);
    };
    find(sf);
    if (!found) throw new Error(`no function ${name} in ${file}`);
    walked.add(found);
    counts.set(file!, (counts.get(file!) ?? 0) + 1);
    walk(found);
  }
  // A file's layer: how few files the walk crosses to reach it from an entry's file.
  const layer = new Map<string, number>(entries.map((e) => [e.split(':')[0]!, 0]));
  for (let frontier = [...layer.keys()], d = 1; frontier.length > 0; d++) {
    const next = edges.filter(([a, b]) => frontier.includes(a) && !layer.has(b)).map(([, b]) => b);
    for (const b of next) layer.set(b, d);
    frontier = [...new Set(next)];
  }
  const climbing = edges.filter(([a, b]) => layer.get(b)! < layer.get(a)!).map(([a, b]) => `${a} → ${b}`);
  return { files: counts.size, stops: edges.length, climbs: climbing.length, entries: counts, climbing };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const entries = args.filter((a) => !a.startsWith('--'));
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const c = countConfigPath(root, entries.length > 0 ? entries : PLAN_ENTRIES);
  console.log(`${c.files} files, ${c.stops} stops, ${c.climbs} climbs`);
  if (args.includes('--files')) {
    for (const [f, n] of [...c.entries].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))) console.log(`${String(n).padStart(3)}  ${f}`);
  }
  if (args.includes('--climbs')) for (const c1 of c.climbing) console.log(`climb: ${c1}`);
}
