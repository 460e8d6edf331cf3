/**
 * Selectors (issue 23, docs/config.md#selectors): a `projects:` or `groups:` key that names every
 * project or group under one group, `platform/*` (direct children) or `platform/**` (every depth),
 * declared once for all of them. One mechanism of the configuration layer, whatever kinds live under
 * the container:
 *
 * - offline ({@link extractSelectors}, a hook of config/load.ts): the key's syntax, `exclude:` and
 *   `include_archived:` are checked and taken out of the entry; the entry stays in the data so that
 *   `validate` checks its body as any entry's, `{instance}` replaced and the selector's group
 *   standing in for `{group}` (only the form of a value is checked there);
 * - at plan, apply and drift ({@link expandSelectors}, after engine/selectors.ts listed the group
 *   through api/discovery.ts): the entry is replaced by one entry per match, its placeholders
 *   replaced per match, merged under an explicit entry for the same project or group the way
 *   `defaults:` merges under an instance (a setting, a token, a file, a Pages field, another key is
 *   the unit; the explicit entry's unit wins), located at the selector's line
 *   (`LocationIndex.alias`), with origins for plans and diagnostics ({@link SelectorOrigins}).
 *
 * A placeholder's value comes from the instance (a project's path), so: it never reaches a sink
 * command's program (only its arguments), a match whose path is not a plain path is refused, and
 * everything substituted goes through every check a written value goes through (the expanded data
 * is validated again): a sink path stays out of the configuration and .git/, a `source:` inside the
 * configuration root.
 */
import type { Diagnostic, SourceLocation } from '../diagnostics/index.js';
import { matchesPathGlob, pathGlobProblem } from '../util/path-glob.js';
import { joinPointer, splitPointer } from './pointer.js';
import type { LocationIndex } from './load.js';
import type { SecretRegistry } from './secrets.js';

export type SelectorContainer = 'projects' | 'groups';

/** One selector entry of one instance. */
export interface Selector {
  readonly instance: string;
  readonly container: SelectorContainer;
  /** The key as written: `platform/**`. */
  readonly key: string;
  /** `/instances/prod/projects/platform~1**` */
  readonly pointer: string;
  /** The group listed: `platform`. */
  readonly base: string;
  /** `children`: `base/*`; `all`: `base/**`. */
  readonly depth: 'children' | 'all';
  /** Paths or patterns left out (`platform/legacy`, `platform/sandbox/**`). */
  readonly exclude: readonly string[];
  /** Archived projects too (projects only). */
  readonly includeArchived: boolean;
  /** The entry as written (without `exclude`, `include_archived`), placeholders unreplaced. */
  readonly body: Readonly<Record<string, unknown>>;
}

/** What discovery found for a selector: each match's path and, for a project, its group's path. */
export interface SelectorMatch {
  readonly path: string;
}

/**
 * What a selector's listing said of a project it matched: that it exists (the listing is by the same
 * credential, in the same run) and its default branch, absent when the project has no repository or
 * the credential may not read its code. Lets a kind skip reads the listing already answered.
 */
export interface ListedProject {
  readonly defaultBranch?: string;
}

/** The projects listed for an instance's selectors, by instance name, then by path as listed. */
export type ListedProjects = ReadonlyMap<string, ReadonlyMap<string, ListedProject>>;

/** A selector's outcome at plan: how many objects it matched (after `exclude`). */
export interface SelectorCount {
  readonly selector: Selector;
  readonly matched: number;
  /** The matched paths, as the instance listed them (a merge-request plan withholds them: engine/withhold.ts). */
  readonly paths: readonly string[];
}

/** The selectors of a configuration, in the order written. */
export class SelectorSet {
  readonly list: Selector[] = [];
  get size(): number {
    return this.list.length;
  }
}

/**
 * Where a match's value came from: `inherited` from the selector (the explicit entry does not
 * declare it), or `overridden` by the explicit entry. Keyed by the match's pointer at the unit.
 */
export class SelectorOrigins {
  readonly #origins = new Map<string, { readonly selector: Selector; readonly at: string; readonly how: 'inherited' | 'overridden' }>();
  /** A match's entry pointer → its selector. */
  readonly #entries = new Map<string, Selector>();

  /** @internal */
  record(pointer: string, selector: Selector, at: string, how: 'inherited' | 'overridden'): void {
    this.#origins.set(pointer, { selector, at, how });
  }

  /** @internal */
  entry(pointer: string, selector: Selector): void {
    this.#entries.set(pointer, selector);
  }

  at(pointer: string): { readonly selector: Selector; readonly at: string; readonly how: 'inherited' | 'overridden' } | undefined {
    return this.#origins.get(pointer);
  }

  /** The selector a pointer's project or group entry was expanded from (`/instances/i/projects/p/...`). */
  selectorOf(pointer: string): Selector | undefined {
    if (this.#entries.size === 0) return undefined;
    const segs = splitPointer(pointer);
    if (segs.length < 4) return undefined;
    return this.#entries.get(joinPointer('/instances', segs[1]!, segs[2]!, segs[3]!));
  }

  /** The override at or above `pointer`. */
  overrideOver(pointer: string): { readonly pointer: string; readonly at: string; readonly selector: Selector } | undefined {
    if (this.#origins.size === 0) return undefined;
    for (let p = pointer; p.split('/').length > 4; p = p.slice(0, p.lastIndexOf('/'))) {
      const o = this.#origins.get(p);
      if (o?.how === 'overridden') return { pointer: p, at: o.at, selector: o.selector };
    }
    return undefined;
  }

  get size(): number {
    return this.#origins.size + this.#entries.size;
  }
}

const SEGMENT = '[A-Za-z0-9_.][A-Za-z0-9_.-]*';
const PLAIN_PATH = new RegExp(`^${SEGMENT}(/${SEGMENT})*$`);
const SELECTOR = new RegExp(`^(${SEGMENT}(?:/${SEGMENT})*)/(\\*\\*?)$`);

/** A key that is meant as a selector (a `*` in it); its syntax is checked by {@link extractSelectors}. */
export function isSelectorKey(key: string): boolean {
  return key.includes('*');
}

/** A path plumb accepts as a group or project path: plain segments, no `.` or `..`. */
export function isPlainPath(p: string): boolean {
  return PLAIN_PATH.test(p) && !p.split('/').some((s) => s === '.' || s === '..');
}

/** The placeholders a selector's values may hold, per container. */
const PLACEHOLDERS: Record<SelectorContainer, readonly string[]> = {
  projects: ['{project}', '{group}', '{instance}'],
  groups: ['{group}', '{instance}'],
};

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Replaces the placeholders in every string of `v` (not in keys); `skip(pointer)` keeps a place as is. */
function substitute(v: unknown, values: Readonly<Record<string, string>>, pointer: string, onPlace?: (pointer: string, s: string) => void): unknown {
  if (typeof v === 'string') {
    if (!v.includes('{')) return v;
    onPlace?.(pointer, v);
    let out = v;
    for (const [k, x] of Object.entries(values)) out = out.replaceAll(k, x);
    return out;
  }
  if (Array.isArray(v)) return v.map((x, i) => substitute(x, values, joinPointer(pointer, i), onPlace));
  if (isPlainObject(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = substitute(x, values, joinPointer(pointer, k), onPlace);
    return out;
  }
  return v;
}

/** A token sink's program: chosen by the configuration alone, never by a placeholder. */
const PROGRAM = /\/sink\/command\/0$/;

/**
 * The load hook: finds every selector key of every instance's `projects:` and `groups:`, checks it
 * offline, and keeps it in the data for the schema and the kinds to check its body. Problems are
 * located diagnostics.
 */
export function extractSelectors(data: Record<string, unknown>, locations: LocationIndex, diagnostics: Diagnostic[]): SelectorSet {
  const set = new SelectorSet();
  const instances = data.instances;
  if (!isPlainObject(instances)) return set;
  const locate = (pointer: string, on: 'key' | 'value' = 'key'): SourceLocation | undefined => {
    const l = locations.get(pointer);
    return on === 'key' ? (l?.key ?? l?.value) : l?.value;
  };
  for (const [name, inst] of Object.entries(instances)) {
    if (!isPlainObject(inst)) continue;
    for (const container of ['projects', 'groups'] as const) {
      const entries = inst[container];
      if (!isPlainObject(entries)) continue;
      for (const [key, raw] of Object.entries(entries)) {
        if (!isSelectorKey(key)) continue;
        const pointer = joinPointer('/instances', name, container, key);
        const noun = container === 'projects' ? 'project' : 'group';
        const m = SELECTOR.exec(key);
        if (!m || !isPlainPath(m[1]!)) {
          diagnostics.push({
            severity: 'error',
            code: 'PLUMB_SELECTOR_SYNTAX',
            summary: `"${key}" is not a selector plumb knows`,
            detail: `A selector is a group's full path followed by /* (the ${container} directly in it) or /** (at every depth); "*" may appear nowhere else.`,
            suggestion: `write e.g. "platform/*" or "platform/**" (quoted), or the ${noun}'s full path`,
            pointer,
            location: locate(pointer),
          });
          delete entries[key];
          continue;
        }
        const entry = isPlainObject(raw) ? raw : {};
        let ok = true;
        const exclude: string[] = [];
        if (entry.exclude !== undefined) {
          const ep = joinPointer(pointer, 'exclude');
          if (!Array.isArray(entry.exclude)) {
            diagnostics.push({ severity: 'error', code: 'PLUMB_SELECTOR_SYNTAX', summary: `exclude of selector "${key}" must be a list of paths or patterns`, suggestion: 'write `exclude: [platform/legacy, "platform/sandbox/**"]`', pointer: ep, location: locate(ep, 'value') });
            ok = false;
          } else {
            entry.exclude.forEach((x, i) => {
              const xp = joinPointer(ep, i);
              const problem = typeof x === 'string' ? pathGlobProblem(x) : 'it is not a string';
              if (problem === undefined) exclude.push(x as string);
              else {
                diagnostics.push({ severity: 'error', code: 'PLUMB_SELECTOR_SYNTAX', summary: `${JSON.stringify(x)} in exclude of selector "${key}" is neither a ${noun} path nor a pattern: ${problem}`, suggestion: `write a full path (platform/legacy) or a pattern with * within a segment and ** across segments (platform/legacy-*, platform/sandbox/**)`, pointer: xp, location: locate(xp, 'value') });
                ok = false;
              }
            });
          }
        }
        let includeArchived = false;
        if (entry.include_archived !== undefined) {
          const ap = joinPointer(pointer, 'include_archived');
          if (container !== 'projects') {
            diagnostics.push({ severity: 'error', code: 'PLUMB_SELECTOR_SYNTAX', summary: `include_archived applies to project selectors only ("${key}" selects groups)`, suggestion: 'remove it: groups are not archived', pointer: ap, location: locate(ap) });
            ok = false;
          } else if (typeof entry.include_archived !== 'boolean') {
            diagnostics.push({ severity: 'error', code: 'PLUMB_SELECTOR_SYNTAX', summary: `include_archived of selector "${key}" must be true or false`, suggestion: 'write `include_archived: true` to select archived projects too', pointer: ap, location: locate(ap, 'value') });
            ok = false;
          } else includeArchived = entry.include_archived;
        }
        delete entry.exclude;
        delete entry.include_archived;
        // Placeholders: where they may not be, and which ones this container knows.
        const known = PLACEHOLDERS[container];
        substitute(entry, {}, '', (rel, s) => {
          const p = pointer + rel;
          for (const ph of s.match(/\{(project|group|instance)\}/g) ?? []) {
            if (!known.includes(ph)) {
              diagnostics.push({ severity: 'error', code: 'PLUMB_SELECTOR_PLACEHOLDER', summary: `${ph} has no value in selector "${key}", which selects groups`, suggestion: 'use {group} (the group\'s full path) or {instance}', pointer: p, location: locate(p, 'value') });
              ok = false;
            } else if (PROGRAM.test(rel)) {
              diagnostics.push({ severity: 'error', code: 'PLUMB_SELECTOR_PLACEHOLDER', summary: `A sink command's program cannot hold ${ph}`, detail: 'The value of a placeholder comes from the instance (a project or group path): it must not choose which program receives the token.', suggestion: 'name the program itself, and pass the placeholder as one of its arguments', pointer: p, location: locate(p, 'value') });
              ok = false;
            }
          }
        });
        const body = structuredClone(entry);
        // The body as validate checks it: `{instance}` replaced, and `{group}` by the selector's
        // group as a stand-in (a commit message knows no {group}; the value checked is the form).
        entries[key] = substitute(entry, { '{instance}': name, '{group}': m[1]! }, '');
        if (!ok) continue;
        set.list.push({ instance: name, container, key, pointer, base: m[1]!, depth: m[2] === '*' ? 'children' : 'all', exclude, includeArchived, body });
      }
    }
  }
  return set;
}

export interface Expansion {
  readonly data: Record<string, unknown>;
  readonly origins: SelectorOrigins;
  readonly counts: SelectorCount[];
  readonly diagnostics: Diagnostic[];
}

/**
 * Replaces each selector entry by one entry per match (`matches` by selector, from discovery),
 * merged under the explicit entries; see the file's comment. A selector without an entry in
 * `matches` was not listed and is only removed. `data` is not modified.
 */
export function expandSelectors(
  source: Record<string, unknown>,
  selectors: SelectorSet,
  matches: ReadonlyMap<Selector, readonly SelectorMatch[]>,
  locations: LocationIndex,
  secrets: SecretRegistry,
  /** Keys of an entry whose value is one unit, never merged key by key (`wholeKeys`, config/kinds.ts). */
  whole: ReadonlySet<string> = new Set(),
): Expansion {
  const data = structuredClone(source);
  const origins = new SelectorOrigins();
  const counts: SelectorCount[] = [];
  const diagnostics: Diagnostic[] = [];
  // A selector's units are located once, not once per match (3,000 matches ask for the same few).
  const placed = new Map<string, string>();
  const place = (pointer: string): string => {
    let text = placed.get(pointer);
    if (text === undefined) {
      const l = locations.get(pointer);
      const at = l?.key ?? l?.value;
      text = at ? `${at.file}:${at.line}:${at.column}` : pointer;
      placed.set(pointer, text);
    }
    return text;
  };
  const writtenOf = new Map<string, string>();
  const written = (pointer: string): string => {
    let w = writtenOf.get(pointer);
    if (w === undefined) writtenOf.set(pointer, (w = locations.written(pointer)));
    return w;
  };
  const locate = (pointer: string) => {
    const l = locations.get(pointer);
    return l?.key ?? l?.value;
  };
  // Which selector gave a match's unit first, to refuse a second one giving it too.
  const givenBy = new Map<string, Selector>();
  const secretPointers = [...secrets.pointers];
  // Selector keys are removed first: an explicit key never is one.
  for (const s of selectors.list) {
    const entries = (data.instances as Record<string, Record<string, Record<string, unknown>>>)[s.instance]![s.container]!;
    delete entries[s.key];
  }
  for (const s of selectors.list) {
    // Not listed (its instance is not worked on, or no --target can select a match): no entries, no count.
    const listed = matches.get(s);
    if (!listed) continue;
    const entries = (data.instances as Record<string, Record<string, Record<string, unknown>>>)[s.instance]![s.container]!;
    const found = listed.filter((m) => !s.exclude.some((x) => matchesPathGlob(x, m.path)));
    const kept = found.filter((m) => {
      if (isPlainPath(m.path)) return true;
      diagnostics.push({ severity: 'warning', code: 'PLUMB_SELECTOR_MATCH_REFUSED', summary: `Selector "${s.key}" of instance "${s.instance}" leaves out ${JSON.stringify(m.path)}: not a plain path`, detail: 'A match\'s path goes into placeholders and addresses; the instance returned one with characters a path cannot hold.', pointer: s.pointer, location: locate(s.pointer) });
      return false;
    });
    counts.push({ selector: s, matched: kept.length, paths: kept.map((m) => m.path) });
    if (kept.length === 0) {
      diagnostics.push({
        severity: 'warning',
        code: 'PLUMB_SELECTOR_MATCHES_NOTHING',
        summary: `Selector "${s.key}" of instance "${s.instance}" matches no ${s.container === 'projects' ? 'project' : 'group'}`,
        detail: `plumb listed ${s.depth === 'children' ? 'the' : 'every'} ${s.container === 'projects' ? `${s.includeArchived ? '' : 'non-archived '}project` : 'group'}${s.depth === 'children' ? 's directly in' : ' under'} "${s.base}"${s.exclude.length > 0 ? ' and left out those exclude names' : ''}: nothing is declared through this selector.`,
        suggestion: 'check the group path, the depth (/* or /**) and exclude; the token must be able to see the group',
        pointer: s.pointer,
        location: locate(s.pointer),
      });
    }
    for (const m of kept) {
      const values: Record<string, string> = s.container === 'projects'
        ? { '{project}': m.path, '{group}': m.path.slice(0, m.path.lastIndexOf('/')), '{instance}': s.instance }
        : { '{group}': m.path, '{instance}': s.instance };
      const body = substitute(s.body, values, '') as Record<string, unknown>;
      const mp = joinPointer('/instances', s.instance, s.container, m.path);
      const markSecrets = (target: string, from: string) => {
        for (const sp of secretPointers) if (sp === from || sp.startsWith(from + '/')) secrets.markPointer(target + sp.slice(from.length));
      };
      const inherit = (target: Record<string, unknown>, key: string, value: unknown, ip: string, sp: string, unitBelow: boolean): void => {
        if (!(key in target)) {
          if (unitBelow && isPlainObject(value)) {
            const block: Record<string, unknown> = {};
            target[key] = block;
            locations.alias(ip, written(sp));
            for (const [k, v] of Object.entries(value)) inherit(block, k, v, joinPointer(ip, k), joinPointer(sp, k), false);
            return;
          }
          target[key] = value;
          locations.alias(ip, written(sp));
          markSecrets(ip, sp);
          givenBy.set(ip, s);
          origins.record(ip, s, place(sp), 'inherited');
          return;
        }
        const first = givenBy.get(ip);
        if (first) {
          diagnostics.push({
            severity: 'error',
            code: 'PLUMB_SELECTOR_OVERLAP',
            summary: `Selectors "${first.key}" and "${s.key}" both declare ${splitPointer(ip).slice(4).join(' ')} for ${s.container === 'projects' ? 'project' : 'group'} "${m.path}" of instance "${s.instance}"`,
            detail: 'plumb does not guess which selector wins; an explicit entry for the project or group overrides both.',
            suggestion: `exclude "${m.path}" from one of them, or declare it in an entry of its own`,
            pointer: sp,
            location: locate(sp),
            related: [{ message: `"${first.key}" declares it here`, location: locate(first.pointer + ip.slice(mp.length)) }],
          });
          return;
        }
        const own = target[key];
        if (unitBelow && isPlainObject(own) && isPlainObject(value)) {
          for (const [k, v] of Object.entries(value)) inherit(own, k, v, joinPointer(ip, k), joinPointer(sp, k), false);
          return;
        }
        origins.record(ip, s, place(sp), 'overridden');
      };
      let own = entries[m.path];
      if (!(m.path in entries)) {
        own = {};
        entries[m.path] = own;
        locations.alias(mp, written(s.pointer));
      }
      if (!isPlainObject(own)) continue; // an empty explicit entry is reported where it is
      origins.entry(mp, s);
      // How it merges: a key holding a mapping (files by path, tokens by name, Pages by field) merges
      // entry by entry, any other key (and a kind's whole key: `delivery`) is a unit: the units of
      // `defaults:` (docs/config.md#shared-defaults).
      for (const [k, v] of Object.entries(body)) inherit(own, k, v, joinPointer(mp, k), joinPointer(s.pointer, k), !whole.has(k));
    }
  }
  return { data, origins, counts, diagnostics };
}
