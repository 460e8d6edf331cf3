/**
 * The protected branches' part of resolving a configuration: `instances.<name>.projects.<ref>.
 * protected_branches` (a rule per branch name or wildcard) and `prune_protected_branches`. The
 * schema pass checks the types and the levels; this turns them into `ProtectedBranchesProject`,
 * refusing names no branch could ever have.
 */
import type { KindConfig, KindSchema, ResolveAt } from '../../config/kinds.js';
import type { KindPointer } from '../../config/pointer.js';
import { joinPointer } from '../../config/pointer.js';
import { obj, push } from '../../config/resolve-context.js';
import type { Ctx } from '../../config/resolve-context.js';
import { PROTECTED_BRANCH_CODES } from './codes.js';
import { FLAG_FIELDS, LEVEL_FIELDS, parseLevel } from './levels.js';
import type { DesiredProtection, ProtectedBranchesProject } from './model.js';
import { protectedBranchSchema } from './schema.js';

/** A rule is one resource, defined in one file of the configuration; nothing of it may be interpolated (its name is in request paths). */
export const PROTECTED_BRANCH_POINTERS: readonly KindPointer[] = [
  { pattern: ['instances', '*', 'projects', '*', 'protected_branches', '*'], resource: true, describe: (s) => `protected branch "${s[5]}" of project "${s[3]}"` },
];

/**
 * Why no branch could ever be named so (Git's `check-ref-format --branch` rules, `*` aside: it is
 * the wildcard), or undefined.
 */
export function protectionNameProblem(name: string): string | undefined {
  if (name.trim() === '') return 'it is empty';
  if (/[\x00-\x20\x7f~^:?[\\]/.test(name)) return 'it contains a space, a control character or one of ~ ^ : ? [ \\';
  if (name.includes('..')) return 'it contains ".."';
  if (name.includes('@{')) return 'it contains "@{"';
  if (name.includes('//')) return 'it contains "//"';
  if (name.startsWith('/') || name.endsWith('/')) return 'it starts or ends with "/"';
  if (name.startsWith('-')) return 'it starts with "-"';
  if (name.endsWith('.')) return 'it ends with "."';
  if (name.split('/').some((c) => c.startsWith('.') || c.endsWith('.lock'))) return 'a part of it starts with "." or ends with ".lock"';
  return undefined;
}

function resolveProtection(name: string, raw: Record<string, unknown>, p: string, ctx: Ctx): DesiredProtection | undefined {
  const problem = protectionNameProblem(name);
  if (problem) {
    push(ctx, {
      severity: 'error',
      code: PROTECTED_BRANCH_CODES.PLUMB_PROTECTED_BRANCH_NAME,
      summary: `Protected branch ${JSON.stringify(name)} can never match a branch: ${problem}`,
      detail: 'A protected branch is a branch name, or a wildcard where * matches any characters (release/*); Git refuses such a branch name, so the rule would protect nothing.',
      suggestion: 'write the branch name as Git accepts it (see `git check-ref-format --branch`), with * where any characters may stand',
      pointer: p,
      on: 'key',
    });
    return undefined;
  }
  const rule: { -readonly [K in keyof DesiredProtection]: DesiredProtection[K] } = { name, pointer: p };
  for (const f of LEVEL_FIELDS) {
    const level = parseLevel(raw[f]);
    if (level !== undefined) rule[f] = level;
  }
  for (const f of FLAG_FIELDS) if (typeof raw[f] === 'boolean') rule[f] = raw[f];
  return rule;
}

/** A project's rules; a project that declares none and does not prune is not managed (undefined). */
function resolve(raw: Readonly<Record<string, unknown>>, where: ResolveAt, ctx: Ctx): ProtectedBranchesProject | undefined {
  const base = joinPointer(where.pointer, 'protected_branches');
  const protections = Object.entries(obj(raw.protected_branches)).flatMap(([name, r]) => resolveProtection(name, obj(r), joinPointer(base, name), ctx) ?? []);
  const prune = raw.prune_protected_branches === true;
  return protections.length > 0 || prune ? { ref: where.ref ?? '', pointer: where.pointer, protections, prune } : undefined;
}

function schema(): KindSchema {
  return {
    properties: {
      protected_branches: { type: 'object', additionalProperties: { $ref: '#/definitions/protected_branch' }, description: "The project's protected branches, by branch name or wildcard." },
      prune_protected_branches: { type: 'boolean', default: false, description: 'Unprotect the branches of the project that protected_branches does not declare. Default: false (an undeclared rule is left as it is, and reported).' },
    },
    definitions: { protected_branch: protectedBranchSchema() },
    standalone: { title: 'Protected branch', file: 'protected-branch.schema.json', body: protectedBranchSchema() },
  };
}

/** The risk a replacement carries (`allow_risky` accepts it; docs/plans.md, "Risky changes"). */
export const REPLACED_RISK = 'protected-branch-replaced';

export const PROTECTED_BRANCH_RISKS = {
  [REPLACED_RISK]: "changing a protected branch's push, merge or unprotect level, which the update request cannot change: apply unprotects the branch and protects it again, and in between anyone with the Developer role may push or force-push to it",
} as const;

/** This kind's configuration side, carried by its registry entry (./index.ts). */
export const PROTECTED_BRANCH_CONFIG: KindConfig = { kind: 'protected_branch', pointers: PROTECTED_BRANCH_POINTERS, mount: { container: 'projects', keys: ['protected_branches', 'prune_protected_branches'] }, schema, resolve, risks: PROTECTED_BRANCH_RISKS };
