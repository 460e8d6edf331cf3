/**
 * Glob patterns over the slash-separated full paths of groups and projects, one syntax for every
 * place plumb matches paths: the YAML selectors and their `exclude:` lists (issue 23), and the
 * `exclude` of the Terraform data sources `plumb_projects` and `plumb_groups`.
 *
 * - A pattern is segments separated by `/`, none empty (no leading, trailing or double slash).
 * - `*` matches any run of characters inside one segment (never a `/`): `platform/*` is every
 *   direct child of `platform`, `platform/legacy-*` every child whose name starts with `legacy-`.
 * - `**` (a whole segment) matches any number of segments: `platform/**\/api` matches
 *   `platform/api` and `platform/a/b/api`. As the last segment it matches one or more, so
 *   `platform/**` is everything below `platform` at every depth, not `platform` itself (write both
 *   `platform` and `platform/**` for the group and its subtree).
 * - Every other character is literal; `?`, `[`, `]`, `{`, `}`, `!` and `\` are refused rather than
 *   taken literally, since a reader would expect them to be wildcards.
 * - Matching ignores case, as the service's paths do (`Platform/API` is `platform/api`).
 *
 * Matching is linear in the pattern times the path (no backtracking regular expression): patterns
 * come from configuration under review, which must not be able to stall a run.
 */

const REFUSED = /[?[\]{}!\\]/;

/** Why `pattern` is not a valid path pattern, or undefined when it is. */
export function pathGlobProblem(pattern: string): string | undefined {
  if (pattern.trim() === '') return 'the pattern is empty';
  if (pattern !== pattern.trim()) return 'the pattern starts or ends with white space';
  if (pattern.startsWith('/') || pattern.endsWith('/')) return 'a path pattern has no leading or trailing "/" (write the full path, e.g. platform/infra)';
  const segments = pattern.split('/');
  if (segments.some((s) => s === '')) return 'the pattern has an empty segment ("//")';
  const refused = REFUSED.exec(pattern);
  if (refused) return `"${refused[0]}" is not a wildcard here: only * (within one segment) and ** (any number of segments) are`;
  const bad = segments.find((s) => s.includes('**') && s !== '**');
  if (bad !== undefined) return `"**" must be a whole segment (found "${bad}"); use * to match within a segment`;
  return undefined;
}

/** Whether the pattern holds a wildcard (else it names one path). */
export function isPathGlob(pattern: string): boolean {
  return pattern.includes('*');
}

/** `*` inside one segment, case-insensitively: the classic two-pointer wildcard match, O(n·m) at worst. */
function segmentMatches(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let mark = 0;
  while (t < text.length) {
    if (p < pattern.length && pattern[p] !== '*' && pattern[p] === text[t]) {
      p++;
      t++;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      mark = t;
    } else if (star !== -1) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}

/**
 * A matcher for a valid pattern (check it with {@link pathGlobProblem} first: an invalid one
 * throws). The matcher takes a full path (`platform/infra/api`).
 */
export function compilePathGlob(pattern: string): (path: string) => boolean {
  const problem = pathGlobProblem(pattern);
  if (problem) throw new TypeError(`invalid path pattern "${pattern}": ${problem}`);
  const segments = pattern.toLowerCase().split('/');
  const n = segments.length;
  return (path: string) => {
    const text = path.toLowerCase().split('/');
    const m = text.length;
    // next[j]: whether segments i+1.. match text j..; filled from the last pattern segment back.
    let next: boolean[] = Array.from({ length: m + 1 }, (_, j) => j === m);
    for (let i = n - 1; i >= 0; i--) {
      const s = segments[i]!;
      const cur: boolean[] = new Array<boolean>(m + 1).fill(false);
      for (let j = m; j >= 0; j--) {
        if (s === '**') cur[j] = i === n - 1 ? j < m : next[j]! || (j < m && cur[j + 1]!);
        else cur[j] = j < m && segmentMatches(s, text[j]!) && next[j + 1]!;
      }
      next = cur;
    }
    return next[0]!;
  };
}

/** Whether `path` matches `pattern` (a valid pattern; see {@link compilePathGlob}). */
export function matchesPathGlob(pattern: string, path: string): boolean {
  return compilePathGlob(pattern)(path);
}

/**
 * One matcher for a list of patterns or plain paths (an `exclude:` list): true when any matches.
 * Invalid patterns throw; check them first.
 */
export function anyPathGlob(patterns: readonly string[]): (path: string) => boolean {
  const matchers = patterns.map(compilePathGlob);
  return (path) => matchers.some((m) => m(path));
}
