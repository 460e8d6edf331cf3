/**
 * What protection a branch has after apply, from the configuration alone (and, when given, the
 * rules the instance holds now): pure, no request. For the files kind's delivery planning (can
 * plumb's token push to this branch once the declared protection is in place?), and for people.
 *
 * The service's rules (`ProtectedRef.matching`, `RefMatcher`, `Gitlab::UserAccess`):
 * - a rule's name matches a branch exactly, or as a wildcard where each `*` matches any run of
 *   characters, `/` included and none at all: `release/*` matches `release/1.0` and
 *   `release/1.0/hotfix`, `*-stable` matches `9-0-stable`; every other character is literal;
 * - several rules may match one branch, and they add up: a role may push (merge) when ANY matching
 *   rule lets it, so the branch's effective level is the lowest non-zero level among them (0, No
 *   one, only when every matching rule says so); force push and code-owner approval hold when any
 *   matching rule sets them;
 * - an administrator counts as the Admin level (60); No one refuses administrators too.
 */
import type { DesiredProtection, ProtectedBranchesProject } from './model.js';
import { API_DEFAULTS } from './levels.js';
import type { Level } from './levels.js';

/** A rule's values, whole (the instance's, or what apply leaves). */
export interface RuleValues {
  readonly name: string;
  readonly push_access_level: Level;
  readonly merge_access_level: Level;
  readonly unprotect_access_level: Level;
  readonly allow_force_push: boolean;
  readonly code_owner_approval_required: boolean;
}

/** The protection one branch has: the rules that match it and what they add up to. */
export interface BranchProtection {
  readonly protected: boolean;
  /** The matching rules' names, in the order given. */
  readonly rules: readonly string[];
  /** The lowest level that may push: 0 (No one) when no matching rule lets anyone; 30 (Developer) when unprotected. */
  readonly push_access_level: Level;
  readonly merge_access_level: Level;
  readonly allow_force_push: boolean;
  readonly code_owner_approval_required: boolean;
}

/** Whether a protected-branch name (a wildcard or not) matches a branch, as the service matches it. */
export function protectionMatches(name: string, branch: string): boolean {
  if (!name.includes('*')) return name === branch;
  const parts = name.split('*');
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (branch.length < first.length + last.length || !branch.startsWith(first) || !branch.endsWith(last)) return false;
  // The middle parts in order, each as early as it fits (a lazy `.*?` between literals).
  let at = first.length;
  const end = branch.length - last.length;
  for (const part of parts.slice(1, -1)) {
    const found = branch.indexOf(part, at);
    if (found < 0 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}

/** A declared rule's values after apply: the declared fields, the rest as the instance has them (or the service's defaults for a new rule). */
export function ruleAfterApply(declared: DesiredProtection, live: RuleValues | undefined): RuleValues {
  const base = live ?? { name: declared.name, ...API_DEFAULTS };
  return {
    name: declared.name,
    push_access_level: declared.push_access_level ?? base.push_access_level,
    merge_access_level: declared.merge_access_level ?? base.merge_access_level,
    unprotect_access_level: declared.unprotect_access_level ?? base.unprotect_access_level,
    allow_force_push: declared.allow_force_push ?? base.allow_force_push,
    code_owner_approval_required: declared.code_owner_approval_required ?? base.code_owner_approval_required,
  };
}

/** The lowest level among `levels` that lets someone through; 0 when none does. */
function lowest(levels: readonly Level[]): Level {
  const open = levels.filter((l) => l !== 0);
  return open.length === 0 ? 0 : (Math.min(...open) as Level);
}

/** What a set of whole rules gives one branch. */
export function protectionOf(rules: readonly RuleValues[], branch: string): BranchProtection {
  const matching = rules.filter((r) => protectionMatches(r.name, branch));
  if (matching.length === 0) return { protected: false, rules: [], push_access_level: 30, merge_access_level: 30, allow_force_push: true, code_owner_approval_required: false };
  return {
    protected: true,
    rules: matching.map((r) => r.name),
    push_access_level: lowest(matching.map((r) => r.push_access_level)),
    merge_access_level: lowest(matching.map((r) => r.merge_access_level)),
    allow_force_push: matching.some((r) => r.allow_force_push),
    code_owner_approval_required: matching.some((r) => r.code_owner_approval_required),
  };
}

/**
 * The protection `branch` of a project will have once the configuration is applied: the declared
 * rules (their undeclared fields from `live`, else the service's defaults), plus the live rules the
 * configuration does not declare unless it prunes them. Without `live`, only the declared rules
 * count (what the configuration guarantees whatever the instance holds besides). `applies`: which
 * rules (by name) this apply changes (a `--target` leaves the others as the instance has them);
 * default every one.
 */
export function protectionAfterApply(project: Pick<ProtectedBranchesProject, 'protections' | 'prune'>, branch: string, live?: readonly RuleValues[], applies: (name: string) => boolean = () => true): BranchProtection {
  return protectionOf(rulesAfterApply(project, live, applies), branch);
}

/** Every rule the project has once the configuration is applied (see {@link protectionAfterApply}). */
export function rulesAfterApply(project: Pick<ProtectedBranchesProject, 'protections' | 'prune'>, live?: readonly RuleValues[], applies: (name: string) => boolean = () => true): RuleValues[] {
  const byName = new Map((live ?? []).map((r) => [r.name, r]));
  const declared = project.protections.filter((d) => applies(d.name)).map((d) => ruleAfterApply(d, byName.get(d.name)));
  const names = new Set(declared.map((d) => d.name));
  const all = new Set(project.protections.map((d) => d.name));
  // A live rule stays unless a declared one replaces it or pruning removes it (an undeclared one this apply changes).
  const kept = (live ?? []).filter((r) => !names.has(r.name) && !(project.prune && !all.has(r.name) && applies(r.name)));
  return [...declared, ...kept];
}

/**
 * Whether a role (30 Developer, 40 Maintainer, 60 Admin: an administrator) may push to a branch
 * with this protection, as `Gitlab::UserAccess#can_push_to_branch?` decides.
 */
export function mayPush(protection: BranchProtection, role: number): boolean {
  if (role < 30) return false;
  return protection.push_access_level !== 0 && role >= protection.push_access_level;
}
