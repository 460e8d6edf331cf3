/**
 * `plumb emulator`'s command line as data (src/commands/args.ts). The options and usage are the
 * emulator's own (src/emulator/options.ts); they are checked here so a mistake is a diagnostic like
 * any other command's, and the emulator then reads the same argv.
 */
import { EMULATOR_OPTIONS, EMULATOR_USAGE } from '../emulator/options.js';
import { closestMatch } from '../util/suggest.js';
import { ArgvReader } from './args.js';
import type { Parsed } from './args.js';

export { EMULATOR_USAGE };

const TIERS = ['free', 'premium', 'ultimate'];

export interface EmulatorArgs {
  readonly help: boolean;
  /** The command line, for the emulator's own parser. */
  readonly argv: readonly string[];
}

export function parseEmulatorArgs(argv: readonly string[]): Parsed<EmulatorArgs> {
  const a = new ArgvReader('emulator', argv, EMULATOR_OPTIONS, false);
  const port = a.str('port');
  if (port !== undefined && !(Number.isInteger(Number(port)) && Number(port) >= 0 && Number(port) <= 65535)) {
    a.problem(`--port must be a whole number from 0 to 65535, not "${port}"`, `0 picks a free port (${a.help})`);
  }
  const tier = a.str('tier');
  if (tier !== undefined && !TIERS.includes(tier)) {
    const guess = closestMatch(tier, TIERS);
    a.problem(`--tier must be free, premium or ultimate, not "${tier}"`, guess ? `did you mean "${guess}"?` : a.help);
  }
  const cache = a.str('cache-seconds');
  if (cache !== undefined && !(Number.isFinite(Number(cache)) && Number(cache) >= 0)) {
    a.problem(`--cache-seconds must be a number of seconds, 0 or more, not "${cache}"`, a.help);
  }
  const latency = a.str('latency-ms');
  if (latency !== undefined && (latency === '' || !Number.isFinite(Number(latency)) || Number(latency) < 0)) {
    a.problem(`--latency-ms must be a number of milliseconds, 0 or more, not "${latency}"`, `20 models a remote instance (${a.help})`);
  }
  return a.result({ help: a.flag('help'), argv: [...argv] });
}
