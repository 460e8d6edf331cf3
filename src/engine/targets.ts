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

/** One target segment as a regular expression over one address segment. */
function segmentPattern(segment: string): RegExp {
  let re = '';
  for (let i = 0; i < segment.length; i++) {
    const ch = segment[i]!;
    if (ch === '\\' && i + 1 < segment.length) re += escapeRegExp(segment[++i]!);
    else if (ch === '*') re += '.*';
    else re += escapeRegExp(ch);
  }
  return new RegExp(`^${re}$`, 's');
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
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
  const patterns = raw.map((segments) => segments.map(segmentPattern));
  const segmentsOf = (address: string) => splitAddress(address.replace(/#\d+$/, '')) ?? [address];
  return {
    written: [...targets],
    targeted(address) {
      const a = segmentsOf(address);
      return patterns.some((p) => p.length <= a.length && p.every((re, i) => re.test(a[i]!)));
    },
    within(prefix) {
      const a = segmentsOf(prefix);
      return patterns.some((p) => p.every((re, i) => i >= a.length || re.test(a[i]!)));
    },
    withinSegments(segments) {
      return patterns.some((p, n) =>
        p.every((re, i) => {
          const seg = segments[i];
          if (seg === undefined) return true;
          if (typeof seg === 'string') return re.test(seg);
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
