/** `plumb apply`'s command line as data (src/commands/args.ts). */
import { parseDuration } from '../util/duration.js';
import { ArgvReader, COMMON_HELP, COMMON_OPTIONS, MAX_CHANGES_HELP, TARGET_HELP, commonArgs } from './args.js';
import type { CommonArgs, Options, Parsed } from './args.js';

export const APPLY_USAGE = `Usage: plumb apply [PLAN.json] [-c PATH...] [options]

Carries out a saved plan exactly as reviewed (refused when the configuration or the instance moved
since), or plans and applies, asking for "yes" on a terminal. Exit 0 applied, 1 error or refused,
130/143 interrupted by SIGINT/SIGTERM (the changes in flight finish, the rest are not started, all
is reported and recorded; docs/plans.md#interrupted-applies).

  --auto-approve        apply an unsaved plan without asking (needed without a terminal)
  --allow-risky         apply changes flagged as risky (lock-out) that the configuration does
                        not accept in its allow_risky list
  --allow-destroy       apply destroys (unpublishing Pages) that the configuration does not opt
                        into (allow_unpublish of the Pages block)
  --lock-timeout DURATION
                        wait this long (30s, 5m) for another apply's lock on the state file;
                        default 0: fail at once, naming the holder (docs/state.md#locking)
${MAX_CHANGES_HELP}
${TARGET_HELP}
                        (a saved plan applies the targets it was made with)

${COMMON_HELP}`;

export const APPLY_OPTIONS = {
  ...COMMON_OPTIONS,
  target: { type: 'string', multiple: true },
  'auto-approve': { type: 'boolean', default: false },
  'allow-risky': { type: 'boolean', default: false },
  'allow-destroy': { type: 'boolean', default: false },
  'lock-timeout': { type: 'string' },
  'max-changes': { type: 'string' },
  'max-match-change': { type: 'string' },
} as const satisfies Options;

export interface ApplyArgs extends CommonArgs {
  /** A saved plan to carry out; without it, apply plans first. */
  readonly planFile?: string;
  readonly autoApprove: boolean;
  readonly allowRisky: boolean;
  readonly allowDestroy: boolean;
  readonly lockTimeoutMs: number;
}

export function parseApplyArgs(argv: readonly string[]): Parsed<ApplyArgs> {
  const a = new ArgvReader('apply', argv, APPLY_OPTIONS);
  // An argument ending in .json is a saved plan; anything else is configuration.
  const planFiles = a.positionals.filter((p) => p.endsWith('.json'));
  if (planFiles.length > 1) a.problem(`plumb apply takes one plan file, not ${planFiles.length} (${planFiles.join(', ')})`, 'apply one saved plan at a time');
  const raw = a.str('lock-timeout');
  let lockTimeoutMs = raw === undefined ? 0 : parseDuration(raw);
  if (lockTimeoutMs === undefined) {
    a.problem(`--lock-timeout must be a duration such as 0, 30s, 5m or 1h, not "${raw}"`, 'leave it out to fail at once when another apply holds the lock (plumb apply --help)');
    lockTimeoutMs = 0;
  }
  return a.result({
    ...commonArgs(a, a.positionals.filter((p) => !p.endsWith('.json'))),
    ...(planFiles[0] !== undefined && { planFile: planFiles[0] }),
    autoApprove: a.flag('auto-approve'),
    allowRisky: a.flag('allow-risky'),
    allowDestroy: a.flag('allow-destroy'),
    lockTimeoutMs,
  });
}
