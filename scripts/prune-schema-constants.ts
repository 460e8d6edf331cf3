/**
 * Part of `npm run generate`: the precompiled validator keeps, of each schema constant ajv's
 * standalone code declares (`const schema13 = {…}`, the whole subschema as JSON), only what the
 * generated code reads from it (`schema13.properties` for an additionalProperties check,
 * `schema13.properties.import_sources.items.enum` for an enum).
 *
 * Why: ajv emits every subschema that code refers to whole, although it reads a few paths of it;
 * the application settings' constant alone carried its ~30 rules and the names of every setting.
 * Every object in those constants is built when the module loads, in every `plumb validate`, and
 * what is built and kept is what the first garbage collections copy (issue 30).
 *
 * Safe by construction: a path the code reads is kept whole from where it ends (a computed access
 * such as `schema13.properties[key]` ends the path before it), and a path that does not resolve,
 * or a constant the code uses as a whole, keeps the constant as it was.
 */

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/**
 * The index one past the object or array literal that starts at `start`, written as ajv writes
 * them (strings in double quotes). Also read by ./error-pushes.ts.
 */
export function endOfJson(code: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < code.length; i++) {
    const c = code[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  throw new Error('prune-schema-constants: unterminated JSON literal');
}

const SEGMENT = /^(?:\.([A-Za-z_$][\w$]*)|\[("(?:[^"\\]|\\.)*")\])/;

/** The paths read from `name` in `code` (the declaration excluded); `undefined` when it is used whole. */
function pathsRead(code: string, name: string): string[][] | undefined {
  const paths: string[][] = [];
  for (const m of code.matchAll(new RegExp(`\\b${name}\\b`, 'g'))) {
    let rest = code.slice(m.index + name.length);
    const path: string[] = [];
    for (let s = SEGMENT.exec(rest); s; s = SEGMENT.exec(rest)) {
      path.push(s[1] ?? (JSON.parse(s[2]!) as string));
      rest = rest.slice(s[0].length);
    }
    if (path.length === 0) return undefined;
    paths.push(path);
  }
  return paths;
}

/** `value` with only the given paths (each kept whole from where it ends); `undefined` if one does not resolve. */
function keepPaths(value: Json, paths: string[][]): Json | undefined {
  const out: { [k: string]: Json } = {};
  for (const [head, ...tail] of paths) {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, head!)) return undefined;
    if (tail.length === 0) out[head!] = value[head!]!;
  }
  const byHead = new Map<string, string[][]>();
  for (const [head, ...tail] of paths) if (tail.length > 0 && !Object.hasOwn(out, head!)) byHead.set(head!, [...(byHead.get(head!) ?? []), tail]);
  for (const [head, tails] of byHead) {
    const kept = keepPaths((value as { [k: string]: Json })[head]!, tails);
    if (kept === undefined) return undefined;
    out[head] = kept;
  }
  return out;
}

export function pruneSchemaConstants(code: string): string {
  let out = code;
  for (const m of code.matchAll(/const (schema\d+) = (?=[{[])/g)) {
    const name = m[1]!;
    const start = out.indexOf(m[0]) + m[0].length;
    const end = endOfJson(out, start);
    const others = out.slice(0, out.indexOf(m[0])) + out.slice(end);
    const paths = pathsRead(others, name);
    if (paths === undefined) continue;
    const kept = keepPaths(JSON.parse(out.slice(start, end)) as Json, paths);
    if (kept === undefined) continue;
    out = out.slice(0, start) + JSON.stringify(kept) + out.slice(end);
  }
  return out;
}
