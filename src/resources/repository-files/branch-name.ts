/** Branch names as Git accepts them: a file's branches, its start_branch, a merge request's source branch. */
import { push } from '../../config/resolve-context.js';
import type { Ctx } from '../../config/resolve-context.js';

/** Why Git refuses a branch name (`git check-ref-format --branch`), or undefined when it accepts it. */
export function refNameProblem(name: string): string | undefined {
  if (name === '') return 'it is empty';
  if (name === '@') return 'it is "@"';
  if (name.startsWith('-')) return 'it starts with "-"';
  if (/[\x00-\x20\x7f ~^:?*[\\]/.test(name)) return 'it contains a space, a control character or one of ~ ^ : ? * [ \\';
  if (name.includes('..')) return 'it contains ".."';
  if (name.includes('@{')) return 'it contains "@{"';
  if (name.includes('//')) return 'it contains "//"';
  if (name.startsWith('/') || name.endsWith('/')) return 'it starts or ends with "/"';
  if (name.endsWith('.')) return 'it ends with "."';
  if (name.split('/').some((c) => c.startsWith('.') || c.endsWith('.lock'))) return 'a part of it starts with "." or ends with ".lock"';
  return undefined;
}

/**
 * Reports `name` at `pointer` when Git refuses it (`what` names it in the summary: `start_branch "x"`);
 * answers whether it did.
 */
export function checkBranchName(ctx: Ctx, name: string, pointer: string, what = `"${name}"`, suggestion = 'fix the branch name (see `git check-ref-format --branch`)'): boolean {
  const problem = refNameProblem(name);
  if (problem) push(ctx, { severity: 'error', code: 'PLUMB_FILE_BRANCH_NAME', summary: `${what} is not a branch name Git accepts: ${problem}`, suggestion, pointer });
  return problem !== undefined;
}
