/**
 * Reads the tables of `shared/spec/tokens-files-pages.md` the way a person reading them would,
 * independently of the catalogue, so the catalogue's token, file and Pages facts can be checked
 * against the spec (test/catalogue/spec-resources.test.ts), as spec-names.ts does for settings.
 */

/** The rows of the first table under the heading that starts with `heading`, as cell arrays (header row excluded). */
export function specTable(markdown: string, heading: string, nth = 0): string[][] {
  const start = markdown.indexOf(`\n${heading}`);
  if (start < 0) throw new Error(`heading "${heading}" not found in the spec`);
  const lines = markdown.slice(start + 1).split('\n').slice(1);
  const tables: string[][][] = [];
  let current: string[][] | undefined;
  for (const raw of lines) {
    const line = raw.trim();
    if (/^#{2,3} /.test(line)) break;
    if (!line.startsWith('|')) {
      if (current) tables.push(current);
      current = undefined;
      continue;
    }
    const cells = line.slice(1, line.endsWith('|') ? -1 : undefined).split('|').map((c) => c.trim());
    if (cells.every((c) => /^-+$/.test(c))) continue;
    (current ??= []).push(cells);
  }
  if (current) tables.push(current);
  const t = tables[nth];
  if (!t) throw new Error(`no table ${nth} under "${heading}"`);
  return t.slice(1);
}

/** A paragraph (a line) under `heading` that starts with `prefix`. */
export function specLine(markdown: string, heading: string, prefix: string): string {
  const start = markdown.indexOf(`\n${heading}`);
  if (start < 0) throw new Error(`heading "${heading}" not found in the spec`);
  const line = markdown.slice(start).split('\n').find((l) => l.trim().startsWith(prefix));
  if (!line) throw new Error(`no line starting with "${prefix}" under "${heading}"`);
  return line.trim();
}

/** `a, b` in a name cell is one row per name; backquotes are dropped. */
export function namesOf(cell: string): string[] {
  return cell.replace(/`/g, '').replace(/\s*\(path\)$/, '').split(',').map((s) => s.trim()).filter(Boolean);
}

/** The spec's type words → the catalogue's value types (`nullable` when "or null"). */
export function specType(text: string): { type: string; nullable: boolean } {
  const nullable = / or null$/.test(text);
  const t = text.replace(/ or null$/, '').replace(/\s*\(.*\)$/, '').trim();
  const map: Record<string, string> = {
    integer: 'integer',
    string: 'string',
    boolean: 'boolean',
    datetime: 'datetime',
    date: 'date',
    object: 'object',
    'array of string': 'string[]',
    'array of deployment': 'object[]',
  };
  const type = map[t];
  if (!type) throw new Error(`unknown spec type "${text}"`);
  return { type, nullable };
}
