/**
 * `plumb export`'s command line as data (src/commands/args.ts). The exporters own their flags
 * (`ResourceExporter.flags`): the options and the usage are those of the registry export runs with.
 */
import { ExportOptionError } from '../engine/export.js';
import type { ResourceExporter } from '../engine/export.js';
import { ArgvReader, HELP_OPTION, commonArgs } from './args.js';
import type { Options, Parsed } from './args.js';
import type { ExportFlags } from './export.js';

const USAGE = `Usage: plumb export --out DIR (--instance-url URL [--token-env NAME] | -c PATH [--instance NAME]) [options]

Reads a live instance and writes a configuration in plumb's format to DIR/plumb.yaml, ready to
commit (docs/export.md): settings that differ from the spec's defaults, each with its meaning and
default; the active tokens of the groups; repository files (next to the YAML, as source: files);
Pages. Secrets become \${env:NAME} references, listed at the end. Keys are sorted: exporting the
same instance again gives the same text. Exit 0 written, 1 error.

  --out DIR             where to write plumb.yaml (and files/, the repository files' content)
  --instance-url URL    the instance to read (base URL, without /api/v4)
  --token-env NAME      the variable holding an administrator's token (default PLUMB_TOKEN;
                        with -c, the configuration's token_env)
  -c, --config PATH     read the instance (url, token_env, CA bundle) from this configuration
  --instance NAME       with -c: which instance; without: the name it gets (default main)
  --allow-url URL       with -c: an instance the token may be sent to (repeatable; also
                        PLUMB_ALLOWED_URLS, PLUMB_URL; --instance-url is allowed by being given)
\0EXPORTERS\0
  --force               write into a directory that holds files an earlier export did not write
                        (a hand-written plumb.yaml is replaced); refused without it
  --now DATE            the date rotation policies are inferred against (default: PLUMB_NOW, else today)
  --concurrency N       API requests in flight, 1 to 64 (default 8)
  --json                a summary as JSON on stdout
  -h, --help            this help
`;

const OPTIONS = {
  config: { type: 'string', short: 'c', multiple: true },
  cdktf: { type: 'string' },
  'cdktf-timeout': { type: 'string' },
  instance: { type: 'string' },
  'instance-url': { type: 'string' },
  'token-env': { type: 'string' },
  'allow-url': { type: 'string', multiple: true },
  out: { type: 'string' },
  force: { type: 'boolean', default: false },
  now: { type: 'string' },
  concurrency: { type: 'string' },
  json: { type: 'boolean', default: false },
  ...HELP_OPTION,
} as const satisfies Options;

/** The usage with each exporter's flags, in the registry's order. */
export function exportUsage(exporters: readonly ResourceExporter[]): string {
  const lines = exporters
    .flatMap((e) => e.flags)
    .map((f) => {
      const head = `  --${f.name}${f.arg ? ` ${f.arg}` : ''}`;
      const [first, ...more] = f.help.split('\n');
      return [`${head.padEnd(24)}${first}`, ...more.map((m) => `${' '.repeat(24)}${m}`)].join('\n');
    });
  return USAGE.replace('\0EXPORTERS\0\n', lines.map((l) => `${l}\n`).join(''));
}

/** export's options and each exporter's flags. */
export function exportOptions(exporters: readonly ResourceExporter[]): Options {
  const options: Options = { ...OPTIONS };
  for (const f of exporters.flatMap((e) => e.flags)) options[f.name] = f.type === 'boolean' ? { type: 'boolean', default: false } : { type: 'string', ...(f.multiple && { multiple: true }) };
  return options;
}

export interface ExportArgs extends Omit<ExportFlags, 'kinds'> {
  readonly help: boolean;
}

export function parseExportArgs(argv: readonly string[], exporters: readonly ResourceExporter[]): Parsed<ExportArgs> {
  const a = new ArgvReader('export', argv, exportOptions(exporters), false);
  const common = commonArgs(a, []);
  const out = a.str('out');
  if (out === undefined) a.problem('plumb export needs --out DIR (where to write plumb.yaml)', a.help);
  const options = new Map<string, unknown>();
  for (const e of exporters) {
    try {
      options.set(e.kind, e.parseOptions(a.all()));
    } catch (err) {
      if (!(err instanceof ExportOptionError)) throw err;
      a.problem(err.summary, err.suggestion);
    }
  }
  return a.result({
    help: a.flag('help'),
    config: common.config,
    ...(common.cdktf && { cdktf: common.cdktf }),
    ...(common.instance !== undefined && { instance: common.instance }),
    ...(a.str('instance-url') !== undefined && { instanceUrl: a.str('instance-url') }),
    ...(a.str('token-env') !== undefined && { tokenEnv: a.str('token-env') }),
    allowUrls: common.allowUrls,
    out: out ?? '',
    ...(common.now !== undefined && { now: common.now }),
    json: common.json,
    ...(common.concurrency !== undefined && { concurrency: common.concurrency }),
    options,
    exporters,
    force: a.flag('force'),
  });
}
