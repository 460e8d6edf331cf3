/** `plumb drift`'s command line as data (src/commands/args.ts). */
import { ArgvReader, COMMON_HELP, COMMON_OPTIONS, EXPIRING_HELP, expiringArg, TARGET_HELP, UNAVAILABLE_HELP, commonArgs } from './args.js';
import type { CommonArgs, ExpiringWithin, Options, Parsed } from './args.js';

export const DRIFT_USAGE = `Usage: plumb drift [PATHS...] [options]

Compares the instance with the configuration. Exit 0 in sync, 2 drift (or, with
--expiring-within, something expires within the window), 1 error.

  --junit FILE          also write a JUnit XML report (one test case per resource; drifted =
                        failure), for the service's artifacts:reports:junit
  --html FILE           also write the result as one self-contained HTML page
                        (docs/report.md#the-html-page)
${UNAVAILABLE_HELP}
${EXPIRING_HELP}
${TARGET_HELP}

${COMMON_HELP}`;

export const DRIFT_OPTIONS = { ...COMMON_OPTIONS, target: { type: 'string', multiple: true }, junit: { type: 'string' }, html: { type: 'string' }, 'unavailable-secrets': { type: 'string' }, 'expiring-within': { type: 'string' } } as const satisfies Options;

export interface DriftArgs extends CommonArgs {
  readonly expiringWithin?: ExpiringWithin;
  readonly junit?: string;
  readonly html?: string;
}

export function parseDriftArgs(argv: readonly string[]): Parsed<DriftArgs> {
  const a = new ArgvReader('drift', argv, DRIFT_OPTIONS);
  return a.result({ ...commonArgs(a), ...expiringArg(a), ...(a.str('junit') !== undefined && { junit: a.str('junit') }), ...(a.str('html') !== undefined && { html: a.str('html') }) });
}
