/**
 * `--target ADDRESS` (plan, apply, drift), as `terraform -target`: only resources whose address a
 * target matches are read and planned. docs/plans.md#targeting is the user's description.
 *
 * An address is a list of segments separated by `.` outside quotes: `prod`, `group["platform/a"]`,
 * `access_token["ci"]`. A target is written the same way, with globs:
 * - `*` matches any run of characters (none included) within ONE segment, quotes included: `*`
 *   alone matches any segment, `group["platform/*"]` any group whose path starts with `platform/`
 *   (at any depth: `/` is not special), `group[*]` any group;
 * - `\*` is a literal star and `\\` a literal backslash; every other character is literal;
 * - a `.` inside `"…"` does not separate segments (`file["README.md"]`);
 * - a target matches an address when each of its segments matches the address's segment at the
 *   same place and the address has at least as many: a target names a resource and everything
 *   beneath it (`prod.project["app"].pages` also selects `….pages.deployments`).
 * The `#ID` an undeclared token's address ends with is not part of matching: a target names tokens
 * by name.
 */

export interface TargetSet {
  /** The targets as written (what the plan records). */
  readonly written: readonly string[];
  /** Whether the resource at `address` is selected. */
  targeted(address: string): boolean;
  /**
   * Whether a target can select `prefix` or something beneath it: a kind asks this before reading
   * a group's or a project's live state, so unmatched declarations cost no request.
   */
  within(prefix: string): boolean;
  /**
   * As `within`, for a prefix with segments not known yet (`{ startsWith }`: any segment that starts
   * so), e.g. a file on the default branch before the project was read:
   * `[inst, 'project["a"]', { startsWith: 'branch[' }, 'file["x"]']`.
   */
  withinSegments(segments: readonly (string | { readonly startsWith: string })[]): boolean;
}

/** Selects everything (no `--target`). */
export const ALL_TARGETS: TargetSet = { written: [], targeted: () => true, within: () => true, withinSegments: () => true };

/** Splits an address or a target into its segments; undefined when a quote is not closed. */
export function splitAddress(address: string): string[] | undefined {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < address.length; i++) {
    const ch = address[i]!;
    if (ch === '\\' && i + 1 < address.length) {
      cur += ch + address[++i]!;
      continue;
    }
    if (ch === '"') quoted = !quoted;
    if (ch === '.' && !quoted) {
      out.push(cur);
      cur = '';
      continue;
    }
    cur += ch;
  }
  if (quoted) return undefined;
  out.push(cur);
  return out;
}

/** Whether one address segment matches a target segment. */
type SegmentMatcher = (segment: string) => boolean;

/**
 * One target segment as a matcher over one address segment. The segment is cut at its unescaped
 * stars into literal pieces; a match has the first piece as a prefix, the last as a suffix, and
 * the others in order between them, each taken at its leftmost place (leftmost is always right
 * when the only wildcard is `*`). No backtracking: time is linear in the address segment for any
 * target, where a regular expression took polynomial time on `*a*a*a*b` (issue 18).
 */
function segmentMatcher(segment: string): SegmentMatcher {
  const pieces: string[] = [''];
  for (let i = 0; i < segment.length; i++) {
    const ch = segment[i]!;
    if (ch === '\\' && i + 1 < segment.length) pieces[pieces.length - 1] += segment[++i]!;
    else if (ch === '*') pieces.push('');
    else pieces[pieces.length - 1] += ch;
  }
  if (pieces.length === 1) {
    const literal = pieces[0]!;
    return (s) => s === literal;
  }
  const first = pieces[0]!;
  const last = pieces.at(-1)!;
  const middle = pieces.slice(1, -1).filter((p) => p !== '');
  const least = first.length + last.length + middle.reduce((n, p) => n + p.length, 0);
  return (s) => {
    if (s.length < least || !s.startsWith(first) || !s.endsWith(last)) return false;
    let at = first.length;
    const end = s.length - last.length;
    for (const piece of middle) {
      const found = s.indexOf(piece, at);
      if (found < 0 || found + piece.length > end) return false;
      at = found + piece.length;
    }
    return true;
  };
}

/** Exported for tests: whether the target segment `pattern` matches the address segment `segment`. */
export function segmentMatches(pattern: string, segment: string): boolean {
  return segmentMatcher(pattern)(segment);
}

/** What is wrong with a target as written, for a usage diagnostic; undefined when it is usable. */
export function targetProblem(target: string): string | undefined {
  if (target.trim() === '') return 'it is empty';
  const segments = splitAddress(target);
  if (!segments) return 'a quote is not closed';
  const empty = segments.findIndex((s) => s === '');
  if (empty >= 0) return `segment ${empty + 1} is empty (two dots, or a dot at an end)`;
  return undefined;
}

/** The matcher for targets already checked with `targetProblem`; no targets: everything. */
export function targetSet(targets: readonly string[]): TargetSet {
  if (targets.length === 0) return ALL_TARGETS;
  const raw = targets.map((t) => splitAddress(t)!);
  const patterns = raw.map((segments) => segments.map(segmentMatcher));
  const segmentsOf = (address: string) => splitAddress(address.replace(/#\d+$/, '')) ?? [address];
  return {
    written: [...targets],
    targeted(address) {
      const a = segmentsOf(address);
      return patterns.some((p) => p.length <= a.length && p.every((m, i) => m(a[i]!)));
    },
    within(prefix) {
      const a = segmentsOf(prefix);
      return patterns.some((p) => p.every((m, i) => i >= a.length || m(a[i]!)));
    },
    withinSegments(segments) {
      return patterns.some((p, n) =>
        p.every((re, i) => {
          const seg = segments[i];
          if (seg === undefined) return true;
          if (typeof seg === 'string') return re(seg);
          return globMayStartWith(raw[n]![i]!, seg.startsWith);
        }),
      );
    },
  };
}

/** Whether a target segment (a glob) can match some segment that starts with `start`. */
function globMayStartWith(glob: string, start: string): boolean {
  let literal = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === '*') return literal.startsWith(start) || start.startsWith(literal);
    if (ch === '\\' && i + 1 < glob.length) literal += glob[++i]!;
    else literal += ch;
  }
  return literal.startsWith(start);
}
