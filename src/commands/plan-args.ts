/** `plumb plan`'s command line as data (src/commands/args.ts). */
import { ArgvReader, COMMON_HELP, COMMON_OPTIONS, EXPIRING_HELP, expiringArg, MAX_CHANGES_HELP, TARGET_HELP, UNAVAILABLE_HELP, commonArgs } from './args.js';
import type { CommonArgs, ExpiringWithin, Options, Parsed } from './args.js';

export const PLAN_USAGE = `Usage: plumb plan [PATHS...] [options]

Reads the instance and shows what apply would change. Exit 0; with --detailed-exitcode 2 when
there are changes; 1 on any error.

  --out FILE            save the plan (JSON) for \`plumb apply FILE\`
  --markdown FILE       the plan as a merge-request comment
  --report FILE         a {create, update, delete} report for merge-request widgets
  --html FILE           the plan as one self-contained HTML page (docs/report.md#the-html-page)
  --detailed-exitcode   exit 2 when there are changes
  --show-content        read changed repository text files (up to 10 MB) to show a diff; the
                        live side of a private project's file is withheld (only its line count)
  --show-private-content
                        with --show-content, show private projects' files too (CI logs reach
                        people those projects do not; docs/security.md)
  --withhold-matches    replace the names selectors found by placeholders, as on a merge request
                        (detected from CI_MERGE_REQUEST_IID, CI_PIPELINE_SOURCE, GITHUB_EVENT_NAME)
  --show-matches        show them even on a merge request (docs/security.md)
${MAX_CHANGES_HELP}
${UNAVAILABLE_HELP}
${EXPIRING_HELP}
${TARGET_HELP}

${COMMON_HELP}`;

export const PLAN_OPTIONS = {
  ...COMMON_OPTIONS,
  out: { type: 'string' },
  markdown: { type: 'string' },
  report: { type: 'string' },
  html: { type: 'string' },
  'detailed-exitcode': { type: 'boolean', default: false },
  'show-content': { type: 'boolean', default: false },
  'show-private-content': { type: 'boolean', default: false },
  'withhold-matches': { type: 'boolean', default: false },
  'show-matches': { type: 'boolean', default: false },
  'unavailable-secrets': { type: 'string' },
  'expiring-within': { type: 'string' },
  'max-changes': { type: 'string' },
  'max-match-change': { type: 'string' },
  target: { type: 'string', multiple: true },
} as const satisfies Options;

export interface PlanArgs extends CommonArgs {
  readonly expiringWithin?: ExpiringWithin;
  readonly out?: string;
  readonly markdown?: string;
  readonly report?: string;
  readonly html?: string;
  readonly detailedExitcode: boolean;
  readonly showContent: boolean;
  readonly showPrivateContent: boolean;
  /** `--withhold-matches` / `--show-matches`; default: withheld on a merge request (docs/security.md). */
  readonly matches?: 'withhold' | 'show';
}

export function parsePlanArgs(argv: readonly string[]): Parsed<PlanArgs> {
  const a = new ArgvReader('plan', argv, PLAN_OPTIONS);
  const withhold = a.flag('withhold-matches');
  const show = a.flag('show-matches');
  if (withhold && show) a.problem('--withhold-matches and --show-matches cannot be given together', 'give one: --withhold-matches replaces the names selectors found, --show-matches shows them');
  return a.result({
    ...commonArgs(a),
    ...expiringArg(a),
    ...(a.str('out') !== undefined && { out: a.str('out') }),
    ...(a.str('markdown') !== undefined && { markdown: a.str('markdown') }),
    ...(a.str('report') !== undefined && { report: a.str('report') }),
    ...(a.str('html') !== undefined && { html: a.str('html') }),
    detailedExitcode: a.flag('detailed-exitcode'),
    // --show-private-content implies --show-content.
    showContent: a.flag('show-content') || a.flag('show-private-content'),
    showPrivateContent: a.flag('show-private-content'),
    ...(withhold ? { matches: 'withhold' as const } : show ? { matches: 'show' as const } : {}),
  });
}
