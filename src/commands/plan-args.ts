/** `plumb plan`'s command line as data (src/commands/args.ts). */
import { ArgvReader, COMMON_HELP, COMMON_OPTIONS, MAX_CHANGES_HELP, TARGET_HELP, UNAVAILABLE_HELP, commonArgs } from './args.js';
import type { CommonArgs, Options, Parsed } from './args.js';

export const PLAN_USAGE = `Usage: plumb plan [PATHS...] [options]

Reads the instance and shows what apply would change. Exit 0; with --detailed-exitcode 2 when
there are changes; 1 on any error.

  --out FILE            save the plan (JSON) for \`plumb apply FILE\`
  --markdown FILE       the plan as a merge-request comment
  --report FILE         a {create, update, delete} report for merge-request widgets
  --detailed-exitcode   exit 2 when there are changes
  --show-content        read changed repository text files (up to 10 MB) to show a diff; the
                        live side of a private project's file is withheld (only its line count)
  --show-private-content
                        with --show-content, show private projects' files too (CI logs reach
                        people those projects do not; docs/security.md)
${MAX_CHANGES_HELP}
${UNAVAILABLE_HELP}
${TARGET_HELP}

${COMMON_HELP}`;

export const PLAN_OPTIONS = {
  ...COMMON_OPTIONS,
  out: { type: 'string' },
  markdown: { type: 'string' },
  report: { type: 'string' },
  'detailed-exitcode': { type: 'boolean', default: false },
  'show-content': { type: 'boolean', default: false },
  'show-private-content': { type: 'boolean', default: false },
  'unavailable-secrets': { type: 'string' },
  'max-changes': { type: 'string' },
  'max-match-change': { type: 'string' },
  target: { type: 'string', multiple: true },
} as const satisfies Options;

export interface PlanArgs extends CommonArgs {
  readonly out?: string;
  readonly markdown?: string;
  readonly report?: string;
  readonly detailedExitcode: boolean;
  readonly showContent: boolean;
  readonly showPrivateContent: boolean;
}

export function parsePlanArgs(argv: readonly string[]): Parsed<PlanArgs> {
  const a = new ArgvReader('plan', argv, PLAN_OPTIONS);
  return a.result({
    ...commonArgs(a),
    ...(a.str('out') !== undefined && { out: a.str('out') }),
    ...(a.str('markdown') !== undefined && { markdown: a.str('markdown') }),
    ...(a.str('report') !== undefined && { report: a.str('report') }),
    detailedExitcode: a.flag('detailed-exitcode'),
    // --show-private-content implies --show-content.
    showContent: a.flag('show-content') || a.flag('show-private-content'),
    showPrivateContent: a.flag('show-private-content'),
  });
}
