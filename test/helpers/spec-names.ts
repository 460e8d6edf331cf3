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

/** Section 2's response-only fields: `Response-only fields: \`id\` (integer), ...` as names. */
export function specResponseOnlyFields(markdown: string): string[] {
  const line = /^The resource is the settings record\. Response-only fields: ([^.]*)\./m.exec(markdown);
  if (!line) throw new Error('"Response-only fields" not found');
  return [...line[1]!.matchAll(/`([a-z0-9_]+)` \(/g)].map((m) => m[1]!);
}

/**
 * Section 2's renamed limits: "The update response also shows `a` and `b`, while the settings table
 * names the same limits `c` and `d`" as table name → response name (c → a, d → b).
 */
export function specResponseNames(markdown: string): Map<string, string> {
  const m = /response also shows ([^,]*), while the settings table names the same limits ([^.]*)\./.exec(markdown);
  if (!m) throw new Error('the renamed limits of section 2 not found');
  const names = (s: string): string[] => [...s.matchAll(/`([a-z0-9_]+)`/g)].map((x) => x[1]!);
  const shown = names(m[1]!);
  const table = names(m[2]!);
  if (shown.length === 0 || shown.length !== table.length) throw new Error('the renamed limits do not pair up');
  return new Map(table.map((t, i) => [t, shown[i]!]));
}

/**
 * The tier of a row: `[TT]` in its meaning or heading is the top tier, `[HT]` (or a place in the
 * "Fields only returned on higher tiers" list without a tag) a higher tier, else every tier.
 */
export function specRowTier(row: SpecSettingRow, higher: ReadonlyMap<string, unknown>): 'free' | 'premium' | 'ultimate' {
  const tags = `${row.meaning} ${row.heading}`;
  if (tags.includes('[TT]')) return 'ultimate';
  return tags.includes('[HT]') || higher.has(row.name) ? 'premium' : 'free';
}

/**
 * Deprecated rows that stand for another setting: `deprecated; use x` (x a setting, or one word
 * that replaces the last word of the name: `asset_proxy_whitelist` "use allowlist") and section 9's
 * "`a` is deprecated since N in favour of `b`" / "the three older housekeeping period settings …
 * in favour of `b`". Deprecated rows that name no single setting ("use the web or api variants")
 * are not here.
 */
export function specAliases(markdown: string): Map<string, string> {
  const rows = specSettingRows(markdown);
  const names = new Set(rows.map((r) => r.name));
  const out = new Map<string, string>();
  for (const r of rows) {
    const m = /\bdeprecated\b[^;]*; use ([a-z0-9_]+)(?:\s|$|;)/.exec(r.meaning);
    if (!m) continue;
    const word = m[1]!;
    const target = names.has(word) ? word : r.name.replace(/[a-z0-9]+$/, word);
    if (names.has(target) && target !== r.name) out.set(r.name, target);
  }
  const versioning = markdown.slice(markdown.indexOf('## 9. Versioning'));
  for (const m of versioning.matchAll(/([a-z0-9_]+) is deprecated since [\d.]+ in favour of ([a-z0-9_]+)/g)) {
    if (names.has(m[1]!) && names.has(m[2]!)) out.set(m[1]!, m[2]!);
  }
  const housekeeping = /the three older housekeeping period settings are deprecated since [\d.]+ in favour of ([a-z0-9_]+)/.exec(versioning);
  if (housekeeping) {
    const older = rows.filter((r) => /^housekeeping_.*_period$/.test(r.name) && r.name !== housekeeping[1] && /\bdeprecated\b/.test(r.meaning));
    if (older.length !== 3) throw new Error(`expected three older housekeeping periods, found ${older.length}`);
    for (const r of older) out.set(r.name, housekeeping[1]!);
  }
  return out;
}

export type SpecSettingRule =
  | { readonly kind: 'required-when-enabled'; readonly flag: string; readonly requires: readonly string[] }
  | { readonly kind: 'required-with'; readonly field: string; readonly requires: readonly string[] };

/**
 * The dependency rules of section 2.2, read from the table rows: a boolean master "requires" its
 * partners when enabled, any other master (a certificate, a URL) whenever it is given. Partners come
 * from `req-by X` (`req-by the enabled flag`: the nearest row above named `<stem>enabled` whose stem
 * starts the name), from `requires a, b and c` (a setting name, or a suffix of the master's stem:
 * `requires default_label, timeout, url`), from a `x_enabled (+ a, b)` row (the flag requires the
 * rest of its row: "same pattern") and, for each `throttle_*_enabled` flag 2.2 names that has none
 * of these, its `period_in_seconds` and `requests_per_period` ("requires its period and requests
 * settings"). Phrases that point at rows ("the next two", "the four chat_app fields") are covered
 * by those rows' own `req-by`.
 */
export function specSettingRules(markdown: string): SpecSettingRule[] {
  const rows = specSettingRows(markdown);
  const byName = new Map(rows.map((r) => [r.name, r]));
  const partners = new Map<string, string[]>();
  const add = (master: string, partner: string): void => {
    if (!byName.has(master)) throw new Error(`req-by names the unknown setting ${master}`);
    const list = partners.get(master) ?? [];
    if (!list.includes(partner)) list.push(partner);
    partners.set(master, list);
  };
  const stemOf = (flag: string): string => flag.slice(0, -'enabled'.length);
  rows.forEach((r, i) => {
    const by = /req-by (the enabled flag|[a-z0-9_]+)/.exec(r.meaning);
    if (by) {
      let master = by[1]!;
      if (master === 'the enabled flag') {
        const flag = rows.slice(0, i).reverse().find((x) => x.name.endsWith('_enabled') && r.name.startsWith(stemOf(x.name)));
        if (!flag) throw new Error(`no enabled flag above ${r.name}`);
        master = flag.name;
      }
      add(master, r.name);
    }
    const req = /\brequires ([^;]*)/.exec(r.meaning);
    if (req && !/^(the|its) /.test(req[1]!)) {
      for (const word of req[1]!.split(/,\s*|\s+and\s+/).map((w) => w.trim()).filter(Boolean)) {
        const name = byName.has(word) ? word : r.name.endsWith('_enabled') && byName.has(stemOf(r.name) + word) ? stemOf(r.name) + word : undefined;
        if (!name) throw new Error(`cannot read "${word}" in the requires of ${r.name}`);
        add(r.name, name);
      }
    }
    if (/\(\+/.test(r.row)) {
      const master = /^([a-z0-9_]+)/.exec(r.row)![1]!;
      if (master !== r.name) add(master, r.name);
    }
  });
  const listed = /Master flags and their required settings are listed in the tables above: ([^.]*)\./.exec(markdown);
  if (!listed) throw new Error('the master flags of section 2.2 not found');
  if (/each throttle_\*_enabled flag/.test(listed[1]!)) {
    for (const r of rows) {
      if (!/^throttle_.*_enabled$/.test(r.name) || partners.has(r.name)) continue;
      for (const suffix of ['period_in_seconds', 'requests_per_period']) {
        if (byName.has(stemOf(r.name) + suffix)) add(r.name, stemOf(r.name) + suffix);
      }
    }
  }
  return [...partners].map(([master, requires]): SpecSettingRule =>
    byName.get(master)!.type === 'boolean' ? { kind: 'required-when-enabled', flag: master, requires } : { kind: 'required-with', field: master, requires },
  );
}
