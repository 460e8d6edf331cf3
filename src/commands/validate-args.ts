/** `plumb validate`'s command line as data (src/commands/args.ts). */
import { ArgvReader, COMMON_HELP, COMMON_OPTIONS, UNAVAILABLE_HELP, commonArgs } from './args.js';
import type { CommonArgs, Options, Parsed } from './args.js';
import { closestMatch } from '../util/suggest.js';

export const VALIDATE_USAGE = `Usage: plumb validate [PATHS...] [options]

Checks the configuration offline: schema, dependencies between settings, references, dates,
instance URLs. Never opens a network connection. Exit 0 valid (warnings allowed), 1 invalid.
--state, --concurrency, --allow-url and --debug are accepted for symmetry with plan and have no effect.

  --format FORMAT       human (default), json (same as --json) or codequality (the service's
                        Code Quality report on stdout, for artifacts:reports:codequality)
${UNAVAILABLE_HELP}

${COMMON_HELP}`;

export const VALIDATE_OPTIONS = { ...COMMON_OPTIONS, today: { type: 'string' }, format: { type: 'string' }, 'unavailable-secrets': { type: 'string' } } as const satisfies Options;

export interface ValidateArgs extends CommonArgs {
  readonly format: 'human' | 'json' | 'codequality';
}

const FORMATS = ['human', 'json', 'codequality'] as const;

export function parseValidateArgs(argv: readonly string[]): Parsed<ValidateArgs> {
  const a = new ArgvReader('validate', argv, VALIDATE_OPTIONS);
  const common = commonArgs(a);
  const raw = a.str('format');
  let format: ValidateArgs['format'] = common.json ? 'json' : 'human';
  if (raw !== undefined) {
    const known = FORMATS.find((f) => f === raw);
    if (!known) {
      const guess = closestMatch(raw, [...FORMATS]);
      a.problem(`--format must be human, json or codequality, not "${raw}"`, guess ? `did you mean "${guess}"?` : 'plumb validate --help lists the formats');
    } else if (common.json && known !== 'json') {
      a.problem(`--json and --format ${known} ask for two formats`, 'keep one of them');
    } else format = known;
  }
  // `--today`: the name --now had before it was shared with plan.
  const now = common.now ?? a.str('today');
  return a.result({ ...common, ...(now !== undefined && { now }), format });
}
