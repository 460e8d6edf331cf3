/**
 * Mistakes in a selector's body that are visible offline, before any match is known
 * (docs/config.md#selectors), reported by `validate` at the line that holds them rather than at plan
 * (or never):
 *
 * - a placeholder plumb does not know (`{projct}`): outside a file's content, an error (a path or a
 *   name with a literal `{projct}` is never meant); inside a file's content, where braces are common
 *   (code, templates), a warning only when it is one typo away from a placeholder. Commit messages
 *   are the file kind's (`PLUMB_FILE_COMMIT_TEMPLATE`), `${…}` is interpolation's;
 * - a placeholder in a key (a file's path, a token's name): keys are not expanded, so every match
 *   would get the same literal key;
 * - a token of a group selector whose file sink names no `{group}`: every match would write its
 *   secret into the same file (`PLUMB_TOKEN_SINK_SHARED`, which plan reports once two groups match);
 * - a selector over the instance's lock project that declares the lock's path as a file
 *   (`PLUMB_LOCK_PATH_DECLARED`, which plan reports once the lock project matches).
 */
import type { Diagnostic, SourceLocation } from '../diagnostics/index.js';
import { matchesPathGlob } from '../util/path-glob.js';
import { closestMatch } from '../util/suggest.js';
import { joinPointer } from './pointer.js';
import type { LocationIndex } from './load.js';
import type { Selector, SelectorSet } from './selectors.js';

/** Every placeholder a selector knows; which container knows which is checked in selectors.ts. */
const PLACEHOLDER_NAMES = ['project', 'group', 'instance'] as const;

/** `{name}`: not `${…}` (interpolation, a shell variable), not `{{…}}` (a literal brace). */
const PLACEHOLDER = /(?<![{$])\{([A-Za-z_][A-Za-z0-9_.-]*)\}(?!\})/g;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The placeholder `name` was probably meant to be: the same without case, or a typo away. */
function meant(name: string): string | undefined {
  const lower = name.toLowerCase();
  return PLACEHOLDER_NAMES.find((p) => p === lower) ?? closestMatch(lower, PLACEHOLDER_NAMES);
}

/** Where a string of a selector's body sits: a file's content, a commit message, or anything else. */
function placeOf(rel: readonly string[]): 'content' | 'commit-message' | 'other' {
  if (rel[0] !== 'files' || rel.length < 3) return 'other';
  if (rel[2] === 'content') return 'content';
  if (rel[2] === 'commit_message' || rel[2] === 'commit_messages') return 'commit-message';
  return 'other';
}

/** Checks the selectors `extractSelectors` accepted; problems are appended to `diagnostics`. */
export function checkSelectorBodies(data: Record<string, unknown>, selectors: SelectorSet, locations: LocationIndex, diagnostics: Diagnostic[]): void {
  const locate = (pointer: string, on: 'key' | 'value'): SourceLocation | undefined => {
    const l = locations.get(pointer);
    return on === 'key' ? (l?.key ?? l?.value) : (l?.value ?? l?.key);
  };
  for (const s of selectors.list) {
    checkPlaceholders(s, s.body, [], locate, diagnostics);
    if (s.container === 'groups') checkSharedSinks(s, locate, diagnostics);
    else checkLockPath(s, data, locate, diagnostics);
  }
}

type Locate = (pointer: string, on: 'key' | 'value') => SourceLocation | undefined;

function checkPlaceholders(s: Selector, v: unknown, rel: string[], locate: Locate, diagnostics: Diagnostic[]): void {
  const pointer = joinPointer(s.pointer, ...rel);
  if (typeof v === 'string') {
    const place = placeOf(rel);
    if (place === 'commit-message') return;
    for (const m of v.matchAll(PLACEHOLDER)) {
      const name = m[1]!;
      if ((PLACEHOLDER_NAMES as readonly string[]).includes(name)) continue; // selectors.ts checks where each may be
      const guess = meant(name);
      if (place === 'content' && guess === undefined) continue; // braces in a file's text, not a placeholder
      diagnostics.push({
        severity: place === 'content' ? 'warning' : 'error',
        code: 'PLUMB_SELECTOR_PLACEHOLDER',
        summary: `{${name}} in selector "${s.key}" is not a placeholder plumb knows, so every match gets it as written`,
        detail: `A selector's values may hold ${s.container === 'projects' ? '{project}, {group} and {instance}' : '{group} and {instance}'}; nothing else in braces is replaced.`,
        suggestion: guess ? `did you mean {${guess}}?` : 'remove the braces, or use one of the placeholders',
        pointer,
        location: locate(pointer, 'value'),
      });
    }
    return;
  }
  if (Array.isArray(v)) {
    v.forEach((x, i) => checkPlaceholders(s, x, [...rel, String(i)], locate, diagnostics));
    return;
  }
  if (!isPlainObject(v)) return;
  for (const [k, x] of Object.entries(v)) {
    const kp = joinPointer(pointer, k);
    const inKey = [...k.matchAll(PLACEHOLDER)].map((m) => m[1]!).find((n) => meant(n) !== undefined);
    if (inKey !== undefined) {
      const what = rel[0] === 'files' && rel.length === 1 ? `the file path "${k}"` : rel[0] === 'access_tokens' && rel.length === 1 ? `the token name "${k}"` : `the key "${k}"`;
      diagnostics.push({
        severity: 'error',
        code: 'PLUMB_SELECTOR_PLACEHOLDER',
        summary: `{${inKey}} in ${what} of selector "${s.key}" is not replaced: placeholders are replaced in values only, never in keys`,
        detail: 'A key names what is declared (a file by its path, a token by its name); every match would get this same literal key.',
        suggestion: 'write the key without a placeholder (one file path or token name for every match); a placeholder may stand in the values under it',
        pointer: kp,
        location: locate(kp, 'key'),
      });
    }
    checkPlaceholders(s, x, [...rel, k], locate, diagnostics);
  }
}

/** A token of a group selector delivered into one fixed file: every match would overwrite the others'. */
function checkSharedSinks(s: Selector, locate: Locate, diagnostics: Diagnostic[]): void {
  const tokens = s.body.access_tokens;
  if (!isPlainObject(tokens)) return;
  for (const [name, t] of Object.entries(tokens)) {
    const sink = isPlainObject(t) && isPlainObject(t.sink) ? t.sink : undefined;
    if (typeof sink?.file !== 'string' || sink.file.includes('{group}')) continue;
    const fp = joinPointer(s.pointer, 'access_tokens', name, 'sink', 'file');
    diagnostics.push({
      severity: 'error',
      code: 'PLUMB_TOKEN_SINK_SHARED',
      summary: `Token "${name}" of selector "${s.key}" delivers the secret of every group it matches into the same file ${JSON.stringify(sink.file)}`,
      detail: 'Each matched group gets its own token; with one fixed file, each secret would overwrite the one before, and all but the last token would be unusable.',
      suggestion: `give each group its own file: {group} in the path is the group's full path (file: "${withGroup(sink.file)}", quoted)`,
      pointer: fp,
      location: locate(fp, 'value'),
    });
  }
}

/** `secrets/ci.token` → `secrets/{group}/ci.token`. */
function withGroup(file: string): string {
  const at = file.lastIndexOf('/');
  return at < 0 ? `{group}/${file}` : `${file.slice(0, at)}/{group}/${file.slice(at + 1)}`;
}

/** A project selector covering the lock project and declaring the lock's path as a file. */
function checkLockPath(s: Selector, data: Record<string, unknown>, locate: Locate, diagnostics: Diagnostic[]): void {
  const instance = isPlainObject(data.instances) ? data.instances[s.instance] : undefined;
  const lock = isPlainObject(instance) && isPlainObject(instance.lock) ? instance.lock : undefined;
  const files = s.body.files;
  if (!lock || typeof lock.project !== 'string' || typeof lock.path !== 'string' || !isPlainObject(files) || !(lock.path in files)) return;
  // The service matches paths without case; a numeric id cannot be placed offline (plan checks it).
  const project = lock.project.toLowerCase();
  const base = s.base.toLowerCase() + '/';
  if (!project.startsWith(base)) return;
  if (s.depth === 'children' && project.slice(base.length).includes('/')) return;
  if (s.exclude.some((x) => matchesPathGlob(x, lock.project as string))) return;
  const lp = joinPointer('/instances', s.instance, 'lock', 'path');
  const fp = joinPointer(s.pointer, 'files', lock.path);
  const where = locate(fp, 'key');
  diagnostics.push({
    severity: 'error',
    code: 'PLUMB_LOCK_PATH_DECLARED',
    summary: `The lock file "${lock.path}" of project "${lock.project}" is also declared as a repository file by selector "${s.key}", which covers that project`,
    detail: 'apply creates and deletes the lock file itself; managing it as a file too would overwrite or delete a lock another apply holds, or be blocked by its own lock.',
    suggestion: `give the lock a path of its own that no \`files:\` entry declares, or exclude "${lock.project}" from the selector`,
    pointer: lp,
    location: locate(lp, 'value'),
    ...(where && { related: [{ message: `declared as a file by selector "${s.key}" here`, location: where }] }),
  });
}
