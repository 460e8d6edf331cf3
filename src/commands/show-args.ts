/** `plumb show`'s command line as data (src/commands/args.ts). */
import { ArgvReader, HELP_OPTION } from './args.js';
import type { Options, Parsed } from './args.js';

export const SHOW_USAGE = `Usage: plumb show PLAN.json [--markdown|--json]

Renders a plan saved with \`plumb plan --out FILE\`, as plan showed it, from the file alone: it reads
no configuration and never contacts the instance. Exit 0; 1 when the file is not a plan.

  --markdown            the merge-request comment (as plan --markdown writes it), on stdout
  --json                the plan as JSON
  -h, --help            this help
`;

export const SHOW_OPTIONS = {
  markdown: { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
  ...HELP_OPTION,
} as const satisfies Options;

export interface ShowArgs {
  readonly help: boolean;
  readonly planFile: string;
  readonly format: 'human' | 'json' | 'markdown';
}

export function parseShowArgs(argv: readonly string[]): Parsed<ShowArgs> {
  const a = new ArgvReader('show', argv, SHOW_OPTIONS);
  const files = a.positionals;
  if (files.length !== 1) {
    a.problem(files.length === 0 ? 'plumb show needs the plan file to show' : `plumb show takes one plan file, not ${files.length} (${files.join(', ')})`, 'write plumb show PLAN.json (the file `plumb plan --out PLAN.json` wrote)');
  }
  if (a.flag('markdown') && a.flag('json')) a.problem('plumb show takes --markdown or --json, not both', 'run it once per format');
  return a.result({ help: a.flag('help'), planFile: files[0] ?? '', format: a.flag('json') ? 'json' : a.flag('markdown') ? 'markdown' : 'human' });
}
