/**
 * Reads the settings names out of `shared/spec/application-settings.md` the way a person reading the
 * tables would, independently of the catalogue, so the catalogue can be checked against the spec.
 *
 * How rows are read (the same decisions the catalogue records in its `note`s):
 * - `a, b, c` in the name cell is one setting per name; a type cell `boolean, string` pairs the types
 *   with the names by position, a single type applies to every name.
 * - `x_enabled (+ period_in_seconds, requests_per_period)` is `x_enabled` plus `x_period_in_seconds`
 *   and `x_requests_per_period` (the suffixes replace `enabled`); the types pair positionally with
 *   the last type repeated (`boolean, integer` gives boolean, integer, integer).
 * - `old_name replacement: new_name` is the setting `new_name`.
 * - `word-replacement name` (a prefix glued to `-replacement`) is the setting `name`.
 * - A row with an empty type cell is a cross-reference, not a setting.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface SpecSettingRow {
  readonly name: string;
  /** The type text of the spec for this name ("array of string", "boolean"). */
  readonly type: string;
  /** The whole "Meaning / constraints" cell of the row the name comes from. */
  readonly meaning: string;
  /** The bold heading above the table. */
  readonly section: string;
  /** The full text of the heading line, e.g. `**Search engine** (all [HT])`. */
  readonly heading: string;
  /** The raw name cell. */
  readonly row: string;
}

const NAME = /^[a-z][a-z0-9_]*$/;

function splitList(cell: string): string[] {
  return cell
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** The names one name cell stands for; `[]` for a row that is not a setting. */
function namesOfCell(cell: string): string[] {
  const replacement = /\breplacement:\s*([a-z0-9_]+)\s*$/.exec(cell);
  if (replacement) return [replacement[1]!];
  const prefixed = /^[a-z0-9]+-replacement\s+([a-z0-9_]+)$/.exec(cell);
  if (prefixed) return [prefixed[1]!];
  const plus = /^([a-z0-9_]+)\s*\(\+\s*([^)]*)\)$/.exec(cell);
  if (plus) {
    const master = plus[1]!;
    if (!master.endsWith('_enabled')) throw new Error(`cannot expand "${cell}": master is not *_enabled`);
    const stem = master.slice(0, -'enabled'.length);
    return [master, ...splitList(plus[2]!).map((suffix) => stem + suffix)];
  }
  return splitList(cell);
}

/** Every settings row of section 2.1, one entry per setting name, in document order. */
export function specSettingRows(markdown: string): SpecSettingRow[] {
  const start = markdown.indexOf('### 2.1 Settings');
  const end = markdown.indexOf('### 2.2', start);
  if (start < 0 || end < 0) throw new Error('section 2.1 of the settings document not found');
  const rows: SpecSettingRow[] = [];
  let section = '';
  let heading = '';
  for (const raw of markdown.slice(start, end).split('\n')) {
    const line = raw.trim();
    const bold = /^\*\*(.+?)\*\*/.exec(line);
    if (bold) {
      section = bold[1]!.trim();
      heading = line;
      continue;
    }
    if (!line.startsWith('|')) continue;
    const cells = line
      .slice(1, line.endsWith('|') ? -1 : undefined)
      .split('|')
      .map((c) => c.trim());
    const [nameCell = '', typeCell = '', meaning = ''] = cells;
    if (nameCell === 'Name' || /^-+$/.test(nameCell)) continue;
    if (typeCell === '') continue; // a cross-reference row
    const names = namesOfCell(nameCell);
    const types = splitList(typeCell);
    if (types.length > 1 && types.length > names.length) {
      throw new Error(`row "${nameCell}" has more types than names`);
    }
    names.forEach((name, i) => {
      if (!NAME.test(name)) throw new Error(`row "${nameCell}" yields the odd name "${name}"`);
      const type = types.length === 1 ? typeCell : types[Math.min(i, types.length - 1)]!;
      rows.push({ name, type, meaning, section, heading, row: nameCell });
    });
  }
  return rows;
}

/** Every setting name of section 2.1, lists expanded, odd rows resolved, in document order. */
export function specSettingNames(markdown: string): string[] {
  return specSettingRows(markdown).map((r) => r.name);
}

/** The name cells of section 2.1 rows that carry no type (cross-references, not settings). */
export function specNonSettingRows(markdown: string): string[] {
  const start = markdown.indexOf('### 2.1 Settings');
  const end = markdown.indexOf('### 2.2', start);
  const out: string[] = [];
  for (const raw of markdown.slice(start, end).split('\n')) {
    const cells = raw.trim().split('|').map((c) => c.trim());
    // ['', name, type, meaning, '']
    if (cells.length >= 4 && cells[1] && cells[1] !== 'Name' && !/^-+$/.test(cells[1]) && cells[2] === '') {
      out.push(cells[1]);
    }
  }
  return out;
}

/** `Removed from the interface: a, b (16.0), c (16.6)` as name → version. */
export function specRemovedSettings(markdown: string): Map<string, string> {
  const line = /^Removed from the interface:(.*)$/m.exec(markdown);
  if (!line) throw new Error('"Removed from the interface" line not found');
  const out = new Map<string, string>();
  let pending: string[] = [];
  for (const part of line[1]!.split(',')) {
    const m = /^\s*([a-z0-9_]+)\s*(?:\(([\d.]+)\))?\s*\.?\s*$/.exec(part);
    if (!m) throw new Error(`cannot read removed entry "${part}"`);
    pending.push(m[1]!);
    if (m[2]) {
      for (const name of pending) out.set(name, m[2]);
      pending = [];
    }
  }
  if (pending.length > 0) throw new Error(`removed entries without a version: ${pending.join(', ')}`);
  return out;
}

/** `Fields only returned on higher tiers: a, b (read), c (update).` as name → qualifier. */
export function specHigherTierFields(markdown: string): Map<string, 'read' | 'update' | 'both'> {
  const line = /^Fields only returned on higher tiers:(.*)$/m.exec(markdown);
  if (!line) throw new Error('"Fields only returned on higher tiers" line not found');
  const out = new Map<string, 'read' | 'update' | 'both'>();
  for (const part of line[1]!.replace(/\.\s*$/, '').split(',')) {
    const m = /^\s*([a-z0-9_]+)\s*(?:\((read|update)\))?\s*$/.exec(part);
    if (!m) throw new Error(`cannot read higher-tier entry "${part}"`);
    out.set(m[1]!, (m[2] as 'read' | 'update' | undefined) ?? 'both');
  }
  return out;
}

/** Where the spec documents are expected: `../shared/spec` next to the repository root. */
export const SPEC_DIR = fileURLToPath(new URL('../../../shared/spec', import.meta.url));

/** Absolute path of `../shared/spec` next to the repository root, when it exists. */
export function specDir(): string | undefined {
  // PLUMB_SPEC_DIR: where the documents are when the checkout is not next to shared/ (a worktree).
  const dir = process.env.PLUMB_SPEC_DIR || SPEC_DIR;
  return existsSync(dir) ? dir : undefined;
}

/**
 * Whether the tests that read the spec run: always when the documents are there; in CI (`CI` set
 * to anything but '' or 'false') they run without them too, so they fail instead of passing by
 * skipping; in a user's checkout without the documents they are skipped.
 */
export function specTestMode(found: boolean, env: NodeJS.ProcessEnv = process.env): 'run' | 'skip' {
  const ci = env['CI'];
  return found || (ci !== undefined && ci !== '' && ci.toLowerCase() !== 'false') ? 'run' : 'skip';
}
