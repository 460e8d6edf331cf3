/**
 * The protected-branches kind's diagnostic codes, owned by its folder (`KindEntry.ownCodes`);
 * docs/diagnostics.md lists them with the registry's (scripts/artifacts.ts).
 */
import { ownCodes } from '../../diagnostics/own-codes.js';

export const PROTECTED_BRANCH_CODE_MEANINGS = {
  PLUMB_PROTECTED_BRANCH_NAME: 'A protected_branches key is not a branch name or wildcard Git could ever match (empty, a space, "..", …).',
  PLUMB_PROTECTED_BRANCH_PROJECT_NOT_FOUND: "A project with protected_branches does not exist, or plumb's token cannot see it.",
  PLUMB_PROTECTED_BRANCH_FORBIDDEN: "A project's protected branches answered 403: plumb's token has a role below Maintainer there (or lacks the api scope for a change).",
  PLUMB_PROTECTED_BRANCH_REJECTED: 'The instance refused to protect, update or unprotect a branch (the answer says why).',
  PLUMB_PROTECTED_BRANCH_NOT_APPLIED: 'The instance accepted a protected-branch request but reading it back shows another value (a Premium field on an instance without the licence).',
  PLUMB_PROTECTED_BRANCH_FIELD_NOT_RETURNED: 'The instance does not return a declared protected-branch field (unprotect_access_level, code_owner_approval_required: Premium); plumb leaves it alone.',
} as const;

export const PROTECTED_BRANCH_CODES = ownCodes(PROTECTED_BRANCH_CODE_MEANINGS);
