import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import { HOMEPAGE, VERSION } from './version.js';
import { EMULATOR_OPTIONS, EMULATOR_USAGE } from './emulator/options.js';
import type { Diagnostic } from './diagnostics/index.js';
import type { CommandHooks, Io } from './commands/output.js';
import { processIo } from './commands/output.js';
import { problemView } from './commands/views/problem.js';
import { closestMatch } from './util/suggest.js';
import { targetProblem } from './engine/targets.js';
import { parseDuration } from './util/duration.js';
import type { CdktfFlags } from './commands/config-source.js';
import { ExportOptionError } from './engine/export.js';
import type { ResourceExporter } from './engine/export.js';

const COMMON_HELP = `Common options:
  -c, --config PATH     a YAML file or directory of YAML files (repeatable; same as PATHS)
  --cdktf DIR           run the CDKTF app in DIR (the directory of its cdktf.json) and read its
                        synth output instead of YAML; only with this flag does plumb run an app
  --cdktf-timeout SECONDS  stop the app's synth (and everything it started) after this long
                        (default 120)
  --instance NAME       only this instance of the configuration
  --now DATE            the date plumb decides with (default: PLUMB_NOW, else today)
  --state FILE|URL      plumb's state file (default: PLUMB_STATE, else .plumb/state.json), or the
                        service's Terraform-state API, INSTANCE/api/v4/projects/ID/terraform/
                        state/NAME (apply holds its lock; see docs/ci.md)
  --concurrency N       API requests in flight per instance, 1 to 64 (default 8)
  --allow-url URL       an instance the token may be sent to (repeatable; also PLUMB_ALLOWED_URLS,
                        PLUMB_URL, CI_SERVER_URL in GitLab CI; loopback needs none; see
                        docs/config.md#where-the-token-may-go)
  --debug               one line per API call on stderr (never tokens or bodies)
  --json                machine-readable output on stdout
  -h, --help            this help`;

const UNAVAILABLE_HELP = `  --unavailable-secrets skip
                        a secret setting whose \${env:NAME} is not set in this pipeline (a
                        protected variable in a merge-request pipeline) is not compared, and said
                        so, instead of an error (default: error; apply has no such option)`;

const MAX_CHANGES_HELP = `  --max-changes N       more than N changes to one instance is the risk large-change-set, which
                        apply carries out only with --allow-risky or allow_risky (default 100)
  --max-match-change P  a selector whose match count moved by more than P percent (and more than
                        5 objects) since the last apply is the risk selector-match-count-changed
                        (0 to 100, default 10)`;

const TARGET_HELP = `  --target ADDRESS      only resources at or beneath ADDRESS (repeatable; \`*\` matches within one
                        segment: 'prod.group["platform/*"]'; quote it for the shell)`;

const HELP = `plumb ${VERSION} — keep a code-hosting instance's configuration in Git

Usage:
  plumb validate [PATHS...] [--json | --format codequality]
                                            check configuration offline (exit 0 valid, 1 invalid)
  plumb plan [PATHS...] [--out FILE] [--json] [--markdown FILE] [--report FILE] [--detailed-exitcode]
                                            show what apply would change (exit 0; 2 = changes with
                                            --detailed-exitcode; 1 = error)
  plumb apply [PLAN.json] [-c PATH...] [--auto-approve] [--allow-risky] [--allow-destroy]
              [--lock-timeout DURATION] [--json]
                                            carry out a saved plan, or plan and apply (asks on a TTY);
                                            --allow-risky accepts changes that can lock people out,
                                            --allow-destroy destroys (unpublishing Pages)
  plumb drift [PATHS...] [--json] [--junit FILE]
                                            exit 0 in sync, 2 drift, 1 error
  plumb export --out DIR (--instance-url URL --token-env NAME | -c PATH) [--all-settings]
               [--group REF...] [--file PROJECT:PATH...] [--pages PROJECT...] [--sink-dir DIR] [--force]
                                            write the live instance as a configuration (exit 0
                                            written, 1 error)
  plumb show PLAN.json [--markdown|--json]  render a saved plan; never contacts the instance
  plumb comment PLAN.json [--key NAME]      post the plan on the merge request, as one note kept
                                            up to date (in the service's CI; docs/ci.md)
  plumb emulator [--port N] [--seed FILE]   run a local emulator of the instance interface
  plumb provider                            serve Terraform/OpenTofu (started by Terraform; see
                                            docs/terraform.md)
  plumb --version
  plumb COMMAND --help                      the options of one command

PATHS are YAML files or directories of YAML files (default: plumb.yaml, plumb.yml or plumb/); a
CDKTF app is run only when given with --cdktf DIR.
Common options: -c/--config PATH (repeatable), --instance NAME, --now DATE (or PLUMB_NOW),
--state FILE (or PLUMB_STATE; default .plumb/state.json), --concurrency N (API requests in flight,
default 8), --debug (one line per API call on stderr; never tokens or bodies), --json.
Documentation: ${HOMEPAGE} (the README), and docs/ in the installed package
($(npm root --global)/plumb-gitops/docs/; CI set-up: docs/ci.md). License: MIT (LICENSE).
`;

type Options = NonNullable<ParseArgsConfig['options']>;

const COMMON_OPTIONS = {
  config: { type: 'string', short: 'c', multiple: true },
  cdktf: { type: 'string' },
  'cdktf-timeout': { type: 'string' },
  now: { type: 'string' },
  state: { type: 'string' },
  instance: { type: 'string' },
  json: { type: 'boolean', default: false },
  debug: { type: 'boolean', default: false },
  concurrency: { type: 'string' },
  'allow-url': { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h', default: false },
} as const satisfies Options;

type CommandName = 'validate' | 'plan' | 'apply' | 'drift' | 'export' | 'show' | 'comment' | 'emulator' | 'provider';

/** Each command's usage and options: the one source for parsing, --help and did-you-mean. */
const COMMANDS = {
  validate: {
    usage: `Usage: plumb validate [PATHS...] [options]

Checks the configuration offline: schema, dependencies between settings, references, dates,
instance URLs. Never opens a network connection. Exit 0 valid (warnings allowed), 1 invalid.
--state, --concurrency, --allow-url and --debug are accepted for symmetry with plan and have no effect.

  --format FORMAT       human (default), json (same as --json) or codequality (the service's
                        Code Quality report on stdout, for artifacts:reports:codequality)
${UNAVAILABLE_HELP}

${COMMON_HELP}`,
    options: { ...COMMON_OPTIONS, today: { type: 'string' }, format: { type: 'string' }, 'unavailable-secrets': { type: 'string' } },
  },
  plan: {
    usage: `Usage: plumb plan [PATHS...] [options]

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
  --withhold-matches    replace the names selectors found by placeholders, as on a merge request
                        (detected from CI_MERGE_REQUEST_IID, CI_PIPELINE_SOURCE, GITHUB_EVENT_NAME)
  --show-matches        show them even on a merge request (docs/security.md)
${MAX_CHANGES_HELP}
${UNAVAILABLE_HELP}
${TARGET_HELP}

${COMMON_HELP}`,
    options: {
      ...COMMON_OPTIONS,
      out: { type: 'string' },
      markdown: { type: 'string' },
      report: { type: 'string' },
      'detailed-exitcode': { type: 'boolean', default: false },
      'show-content': { type: 'boolean', default: false },
      'show-private-content': { type: 'boolean', default: false },
      'withhold-matches': { type: 'boolean', default: false },
      'show-matches': { type: 'boolean', default: false },
      'unavailable-secrets': { type: 'string' },
      'max-changes': { type: 'string' },
      'max-match-change': { type: 'string' },
      target: { type: 'string', multiple: true },
    },
  },
  apply: {
    usage: `Usage: plumb apply [PLAN.json] [-c PATH...] [options]

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

${COMMON_HELP}`,
    options: { ...COMMON_OPTIONS, target: { type: 'string', multiple: true }, 'auto-approve': { type: 'boolean', default: false }, 'allow-risky': { type: 'boolean', default: false }, 'allow-destroy': { type: 'boolean', default: false }, 'lock-timeout': { type: 'string' }, 'max-changes': { type: 'string' }, 'max-match-change': { type: 'string' } },
  },
  drift: {
    usage: `Usage: plumb drift [PATHS...] [options]

Compares the instance with the configuration. Exit 0 in sync, 2 drift, 1 error.

  --junit FILE          also write a JUnit XML report (one test case per resource; drifted =
                        failure), for the service's artifacts:reports:junit
${UNAVAILABLE_HELP}
${TARGET_HELP}

${COMMON_HELP}`,
    options: { ...COMMON_OPTIONS, target: { type: 'string', multiple: true }, junit: { type: 'string' }, 'unavailable-secrets': { type: 'string' } },
  },
  show: {
    usage: `Usage: plumb show PLAN.json [--markdown|--json]

Renders a plan saved with \`plumb plan --out FILE\`, as plan showed it, from the file alone: it reads
no configuration and never contacts the instance. Exit 0; 1 when the file is not a plan.

  --markdown            the merge-request comment (as plan --markdown writes it), on stdout
  --json                the plan as JSON
  -h, --help            this help
`,
    options: {
      markdown: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  },
  comment: {
    usage: `Usage: plumb comment PLAN.json [--key NAME] [--token-env NAME...] [--config PATH...]

Posts a saved plan (\`plumb plan --out PLAN.json\`) on the merge request of the current pipeline as
one note, and updates that note on every later pipeline instead of adding another: the note is
found by a hidden marker, <!-- plumb-plan: KEY -->, among the notes of the token's user. It links
the job (CI_JOB_URL) and is cut to the service's limit of 1,000,000 characters, saying so.
Reads CI_API_V4_URL, CI_PROJECT_ID, CI_MERGE_REQUEST_IID and the token PLUMB_COMMENT_TOKEN (a
token that may comment; never an administrator token). CI_API_V4_URL must be on a pinned instance
(PLUMB_URL, CI_SERVER_URL in the service's CI, PLUMB_ALLOWED_URLS), over https unless on loopback.
Exit 0 posted, 1 error.

  --key NAME            which comment, when one merge request gets several (one per sharded
                        job); default: the plan's instance names
  --token-env NAME      a variable holding an administrator token (repeatable; default
                        PLUMB_TOKEN): refused when PLUMB_COMMENT_TOKEN holds the same token,
                        and masked, as the comment token is, in everything printed
  --config PATH         the configuration (YAML, repeatable), read only for the ca_bundle of its
                        instance at CI_API_V4_URL's host; without it, in the service's CI, the
                        runner's CI_SERVER_TLS_CA_FILE is trusted for CI_SERVER_URL
  -h, --help            this help
`,
    options: {
      key: { type: 'string' },
      config: { type: 'string', multiple: true },
      'token-env': { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h', default: false },
    },
  },
  export: {
    usage: `Usage: plumb export --out DIR (--instance-url URL [--token-env NAME] | -c PATH [--instance NAME]) [options]

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
`,
    options: {
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
      help: { type: 'boolean', short: 'h', default: false },
    },
    positionals: false,
  },
  emulator: {
    usage: EMULATOR_USAGE,
    options: EMULATOR_OPTIONS,
    positionals: false,
  },
  provider: {
    usage: `Usage: plumb provider
       plumb provider mirror DIR [--executable FILE] [--platform OS_ARCH…]
       plumb provider install [--executable FILE]

Serves Terraform's plugin protocol 6 (Terraform 1.x, OpenTofu): plumb as a Terraform provider, on
the same engine as plan and apply. Terraform starts it (as terraform-provider-plumb) and talks to it
over gRPC on loopback, with mutual TLS; run by hand it explains how to use it and exits 1.

mirror DIR lays the provider out as a Terraform filesystem mirror in DIR and prints the CLI
configuration that uses it; install does the same into Terraform's implied local mirror
(~/.terraform.d/plugins), which a plain \`terraform init\` reads. See docs/terraform.md.

  --executable FILE     put this standalone executable (npm run build:sea) in the mirror,
                        instead of the provider file of this installation and its launcher
  --platform OS_ARCH    the Terraform platform to write it for (repeatable; default this
                        machine's, e.g. linux_amd64); an executable must be built for it
  -h, --help            this help

Exit codes of mirror and install: 0 written; 1 not written (the directory is a file or not
writable, --executable is not a standalone executable for the platform, …), said on stderr.
`,
    options: { help: { type: 'boolean', short: 'h', default: false }, executable: { type: 'string' }, platform: { type: 'string', multiple: true } },
    positionals: true,
  },
} as const satisfies Record<CommandName, { usage: string; options: Options; positionals?: boolean }>;

/**
 * Entry point. Each command's module is imported only when that command runs, so `plumb --version`
 * and `plumb validate` never load the HTTP client, the emulator, cdktf or the provider's gRPC stack.
 * `hooks.kinds`: the registry every command runs with, export's flags included (default the
 * built-in kinds; test/resources/fifth-kind.test.ts adds one).
 */
export async function main(argv: readonly string[], io: Io = processIo(), hooks: CommandHooks = {}): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case '--version':
      case '-v':
      case 'version':
        io.stdout(`plumb ${VERSION}\n`);
        return 0;
      case undefined:
      case '--help':
      case '-h':
      case 'help':
        io.stdout(HELP);
        return command === undefined ? 1 : 0;
      case 'validate': {
        const { values, positionals } = parse('validate', rest);
        if (values.help) return usage('validate', io);
        const flags = common('validate', values, positionals);
        const format = validateFormat(values.format as string | undefined, flags.json);
        const { runValidate } = await import('./commands/validate.js');
        return await runValidate(flags.config, { json: flags.json, format, unavailableSecrets: flags.unavailableSecrets, now: flags.now ?? (values.today as string | undefined), instance: flags.instance, cdktf: flags.cdktf }, io, hooks);
      }
      case 'plan':
      case 'apply':
      case 'drift':
        return await runReconcile(command, rest, io, hooks);
      case 'export':
        return await runExportCommand(rest, io, hooks);
      case 'show': {
        const { values, positionals } = parse('show', rest);
        if (values.help) return usage('show', io);
        if (positionals.length !== 1) {
          throw new UsageError({
            summary: positionals.length === 0 ? 'plumb show needs the plan file to show' : `plumb show takes one plan file, not ${positionals.length} (${positionals.join(', ')})`,
            suggestion: 'write plumb show PLAN.json (the file `plumb plan --out PLAN.json` wrote)',
          });
        }
        if (values.markdown === true && values.json === true) {
          throw new UsageError({ summary: 'plumb show takes --markdown or --json, not both', suggestion: 'run it once per format' });
        }
        const { runShow } = await import('./commands/show.js');
        return runShow({ planFile: positionals[0]!, format: values.json === true ? 'json' : values.markdown === true ? 'markdown' : 'human' }, io, hooks);
      }
      case 'comment': {
        const { values, positionals } = parse('comment', rest);
        if (values.help) return usage('comment', io);
        if (positionals.length !== 1) {
          throw new UsageError({ summary: 'plumb comment needs one plan file', suggestion: 'write plumb comment PLAN.json (the file `plumb plan --out PLAN.json` wrote)' });
        }
        const { runComment } = await import('./commands/comment.js');
        const tokenEnvs = (values['token-env'] as string[] | undefined) ?? [];
        return await runComment({ planFile: positionals[0]!, ...(typeof values.key === 'string' && { key: values.key }), tokenEnvs: [...new Set(['PLUMB_TOKEN', ...tokenEnvs])], ...(Array.isArray(values.config) && { config: values.config as string[] }) }, io, hooks);
      }
      case 'emulator': {
        const { values } = parse('emulator', rest);
        if (values.help) return usage('emulator', io);
        checkEmulatorValues(values);
        const { runEmulatorCommand } = await import('./emulator/cli.js');
        return await runEmulatorCommand([...rest]);
      }
      case 'provider': {
        const { values, positionals } = parse('provider', rest);
        if (values.help) return usage('provider', io);
        if (positionals[0] === 'mirror' || positionals[0] === 'install') {
          const install = positionals[0] === 'install';
          if ((install && positionals.length !== 1) || (!install && positionals.length !== 2)) {
            throw new UsageError({ summary: install ? '`plumb provider install` takes no directory' : '`plumb provider mirror` needs one directory', suggestion: 'run `plumb provider --help` for usage' });
          }
          const { runMirrorCommand } = await import('./provider/mirror.js');
          const r = runMirrorCommand(
            {
              install,
              ...(positionals[1] !== undefined && { dir: positionals[1] }),
              ...(typeof values.executable === 'string' && { executable: values.executable }),
              ...(Array.isArray(values.platform) && { platforms: values.platform.map(String) }),
            },
            io,
            { version: VERSION, execPath: process.execPath },
          );
          if (r.stderr) io.stderr(r.stderr);
          if (r.stdout) io.stdout(r.stdout);
          return r.code;
        }
        if (positionals.length > 0 || values.executable !== undefined || values.platform !== undefined) throw new UsageError({ summary: `Unknown provider command "${positionals[0] ?? (values.executable !== undefined ? '--executable' : '--platform')}"`, suggestion: 'plumb provider (started by Terraform), plumb provider mirror DIR, or plumb provider install' });
        // gRPC, protobuf and msgpack load here only: no other command pays for them.
        const { runProvider } = await import('./provider/server.js');
        return await runProvider({ env: io.env, stdout: io.stdout, stderr: io.stderr, cwd: io.cwd });
      }
      default: {
        const guess = closestMatch(command, Object.keys(COMMANDS));
        throw new UsageError({
          summary: `Unknown command "${command}"`,
          detail: `plumb's commands: ${Object.keys(COMMANDS).join(', ')}.`,
          suggestion: guess ? `did you mean "${guess}"?` : 'run `plumb --help` for usage',
        });
      }
    }
  } catch (err) {
    if (err instanceof UsageError) {
      const d: Diagnostic = { severity: 'error', code: 'PLUMB_USAGE', ...err.parts };
      return problemView(asksForJson(rest), io).problem([d]);
    }
    throw err;
  }
}

/**
 * Whether a command line that could not be parsed asked for JSON (`--json`, or validate's
 * `--format json`): its usage error is then the error document on stdout, like any other error.
 */
function asksForJson(rest: readonly string[]): boolean {
  return rest.some((a, i) => a === '--json' || a === '--format=json' || (a === '--format' && rest[i + 1] === 'json'));
}

function usage(command: CommandName, io: Io, spec: { usage: string } = COMMANDS[command]): number {
  io.stdout(spec.usage.trimEnd() + '\n');
  return 0;
}

/**
 * `plumb export`'s options and usage: its own, and each exporter's flags (`ResourceExporter.flags`),
 * in the registry's order where the usage says \0EXPORTERS\0.
 */
function exportSpec(exporters: readonly ResourceExporter[]): { usage: string; options: Options; positionals: false } {
  const base = COMMANDS.export;
  const flags = exporters.flatMap((e) => e.flags);
  const lines = flags.map((f) => {
    const head = `  --${f.name}${f.arg ? ` ${f.arg}` : ''}`;
    const [first, ...more] = f.help.split('\n');
    return [`${head.padEnd(24)}${first}`, ...more.map((m) => `${' '.repeat(24)}${m}`)].join('\n');
  });
  const options: Options = { ...base.options };
  for (const f of flags) options[f.name] = f.type === 'boolean' ? { type: 'boolean', default: false } : { type: 'string', ...(f.multiple && { multiple: true }) };
  return { usage: base.usage.replace('\0EXPORTERS\0\n', lines.map((l) => `${l}\n`).join('')), options, positionals: false };
}

/** A mistake on the command line, reported as a diagnostic (PLUMB_USAGE). */
class UsageError extends Error {
  constructor(readonly parts: Pick<Diagnostic, 'summary' | 'detail' | 'suggestion'>) {
    super(parts.summary);
  }
}

type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

/** parseArgs with the command's options; its errors become plumb's sentences. */
function parse(command: CommandName, rest: readonly string[], spec: { options: Options; positionals?: boolean } = COMMANDS[command]): { values: Values; positionals: string[] } {
  const names = Object.keys(spec.options);
  try {
    return parseArgs({ args: negativeValuesJoined(rest, spec.options), allowPositionals: spec.positionals ?? true, strict: true, options: spec.options }) as {
      values: Values;
      positionals: string[];
    };
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    const message = err instanceof Error ? err.message : String(err);
    const help = `plumb ${command} --help lists the options`;
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const option = /'(-[^']*)'/.exec(message)?.[1] ?? message;
      const bare = option.replace(/^-+/, '').replace(/=.*$/, '');
      const guess = closestMatch(bare, names);
      throw new UsageError({
        summary: `Unknown option "${option}" for plumb ${command}`,
        suggestion: guess ? `did you mean "--${guess}"? (${help})` : help,
      });
    }
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      const option = /'(--?[A-Za-z-]+)/.exec(message)?.[1] ?? 'an option';
      const takesValue = / argument missing|argument is ambiguous/.test(message) || names.some((n) => `--${n}` === option && spec.options[n]?.type === 'string');
      throw new UsageError({
        summary: takesValue ? `Option ${option} of plumb ${command} needs a value` : `Option ${option} of plumb ${command} takes no value`,
        suggestion: takesValue ? `write ${option} VALUE (${help})` : `write ${option} alone (${help})`,
      });
    }
    if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
      const arg = /'([^']*)'/.exec(message)?.[1] ?? '';
      throw new UsageError({ summary: `plumb ${command} takes no argument "${arg}"`, suggestion: help });
    }
    throw err;
  }
}

/**
 * `--max-changes -1` as `--max-changes=-1`: a negative number is never an option, so the option's
 * own check says what it takes ("a whole number of 1 or more, not "-1""), where parseArgs would
 * say it "needs a value".
 */
function negativeValuesJoined(args: readonly string[], options: Options): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const next = args[i + 1];
    if (a.startsWith('--') && options[a.slice(2)]?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      out.push(`${a}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

/** `validate --format`: one of three, and not contradicting --json. */
function validateFormat(raw: string | undefined, json: boolean): 'human' | 'json' | 'codequality' {
  const formats = ['human', 'json', 'codequality'] as const;
  if (raw === undefined) return json ? 'json' : 'human';
  const format = formats.find((f) => f === raw);
  if (!format) {
    const guess = closestMatch(raw, [...formats]);
    throw new UsageError({ summary: `--format must be human, json or codequality, not "${raw}"`, suggestion: guess ? `did you mean "${guess}"?` : 'plumb validate --help lists the formats' });
  }
  if (json && format !== 'json') throw new UsageError({ summary: `--json and --format ${format} ask for two formats`, suggestion: 'keep one of them' });
  return format;
}

/** The emulator's option values, checked here so a mistake is a diagnostic like any other command's. */
function checkEmulatorValues(values: Values): void {
  const help = 'plumb emulator --help lists the options';
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError({ summary: `--port must be a whole number from 0 to 65535, not "${String(values.port)}"`, suggestion: `0 picks a free port (${help})` });
  }
  if (values.tier !== undefined && !['free', 'premium', 'ultimate'].includes(String(values.tier))) {
    const guess = closestMatch(String(values.tier), ['free', 'premium', 'ultimate']);
    throw new UsageError({ summary: `--tier must be free, premium or ultimate, not "${String(values.tier)}"`, suggestion: guess ? `did you mean "${guess}"?` : help });
  }
  const cache = values['cache-seconds'] === undefined ? 0 : Number(values['cache-seconds']);
  if (!Number.isFinite(cache) || cache < 0) {
    throw new UsageError({ summary: `--cache-seconds must be a number of seconds, 0 or more, not "${String(values['cache-seconds'])}"`, suggestion: help });
  }
  const latency = values['latency-ms'] === undefined ? 0 : Number(values['latency-ms']);
  if (values['latency-ms'] === '' || !Number.isFinite(latency) || latency < 0) {
    throw new UsageError({ summary: `--latency-ms must be a number of milliseconds, 0 or more, not "${String(values['latency-ms'])}"`, suggestion: `20 models a remote instance (${help})` });
  }
}

interface CommonValues {
  config: string[];
  cdktf?: CdktfFlags;
  now?: string;
  state?: string;
  instance?: string;
  json: boolean;
  debug: boolean;
  concurrency?: number;
  maxChanges?: number;
  /** `--max-match-change`: percent a selector's count may move before selector-match-count-changed. */
  maxMatchChange?: number;
  targets: string[];
  allowUrls: string[];
  unavailableSecrets: boolean;
}

/** The options every configuration command shares, from parsed flags. */
function common(command: CommandName, values: Values, paths: readonly string[]): CommonValues {
  const str = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
  const raw = str('concurrency');
  const concurrency = raw === undefined ? undefined : Number(raw);
  if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= 64)) {
    throw new UsageError({
      summary: `--concurrency must be a whole number from 1 to 64, not "${raw}"`,
      suggestion: `leave it out for the default (8), or see plumb ${command} --help`,
    });
  }
  const rawMax = str('max-changes');
  const maxChanges = rawMax === undefined ? undefined : Number(rawMax);
  if (maxChanges !== undefined && !(Number.isInteger(maxChanges) && maxChanges >= 1 && rawMax!.trim() !== '')) {
    throw new UsageError({
      summary: `--max-changes must be a whole number of 1 or more, not "${rawMax}"`,
      suggestion: `leave it out for the default (100), or see plumb ${command} --help`,
    });
  }
  const rawMatch = str('max-match-change');
  const maxMatchChange = rawMatch === undefined ? undefined : Number(rawMatch);
  if (maxMatchChange !== undefined && !(Number.isInteger(maxMatchChange) && maxMatchChange >= 0 && maxMatchChange <= 100 && rawMatch!.trim() !== '')) {
    throw new UsageError({
      summary: `--max-match-change must be a whole number of percent from 0 to 100, not "${rawMatch}"`,
      ...(maxMatchChange > 100 && { detail: 'A selector that loses every match moves by 100%: above 100, a selector emptied by a moved group or a changed pattern would never be the risk selector-match-count-changed.' }),
      suggestion: `leave it out for the default (10), or see plumb ${command} --help`,
    });
  }
  const cdktf = str('cdktf');
  const rawTimeout = str('cdktf-timeout');
  const timeout = rawTimeout === undefined ? undefined : Number(rawTimeout);
  if (timeout !== undefined && !(Number.isFinite(timeout) && timeout > 0 && timeout <= 86_400 && rawTimeout!.trim() !== '')) {
    throw new UsageError({
      summary: `--cdktf-timeout must be a number of seconds above 0, not "${rawTimeout}"`,
      suggestion: `leave it out for the default (120), or see plumb ${command} --help`,
    });
  }
  if (timeout !== undefined && cdktf === undefined) {
    throw new UsageError({ summary: '--cdktf-timeout applies only with --cdktf DIR', suggestion: `give the app with --cdktf DIR, or leave --cdktf-timeout out (plumb ${command} --help)` });
  }
  return {
    config: [...((values.config as string[] | undefined) ?? []), ...paths],
    cdktf: cdktf === undefined ? undefined : { dir: cdktf, ...(timeout !== undefined && { timeoutMs: Math.round(timeout * 1000) }) },
    now: str('now'),
    state: str('state'),
    instance: str('instance'),
    json: values.json === true,
    debug: values.debug === true,
    concurrency,
    ...(maxChanges !== undefined && { maxChanges }),
    ...(maxMatchChange !== undefined && { maxMatchChange }),
    targets: checkTargets(command, values.target as string[] | undefined),
    allowUrls: checkAllowUrls(command, values['allow-url'] as string[] | undefined),
    unavailableSecrets: unavailableSecrets(command, str('unavailable-secrets')),
  };
}

/** `--allow-url` values: absolute http(s) URLs (docs/config.md#where-the-token-may-go). */
function checkAllowUrls(command: CommandName, urls: readonly string[] = []): string[] {
  for (const u of urls) {
    let ok = false;
    try {
      const url = new URL(u);
      ok = (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === '' && url.search === '' && url.hash === '';
    } catch {
      ok = false;
    }
    if (!ok) {
      throw new UsageError({
        summary: `--allow-url ${JSON.stringify(u)} is not an instance's base URL`,
        suggestion: `write the URL as the configuration's url, e.g. --allow-url https://code.example.com (plumb ${command} --help)`,
      });
    }
  }
  return [...urls];
}

/** `--unavailable-secrets skip|error`. */
function unavailableSecrets(command: CommandName, raw: string | undefined): boolean {
  if (raw === undefined || raw === 'error') return false;
  if (raw === 'skip') return true;
  throw new UsageError({ summary: `--unavailable-secrets must be skip or error, not "${raw}"`, suggestion: `plumb ${command} --help` });
}

/** `--target` values, each checked (docs/plans.md#targeting). */
function checkTargets(command: CommandName, targets: readonly string[] = []): string[] {
  for (const t of targets) {
    const problem = targetProblem(t);
    if (problem) {
      throw new UsageError({
        summary: `--target ${JSON.stringify(t)} is not an address: ${problem}`,
        suggestion: `write an address as the plan shows it, e.g. --target 'prod.group["platform/*"]' (plumb ${command} --help)`,
      });
    }
  }
  return [...targets];
}

async function runReconcile(command: 'plan' | 'apply' | 'drift', rest: readonly string[], io: Io, hooks: CommandHooks): Promise<number> {
  const { values, positionals } = parse(command, rest);
  if (values.help) return usage(command, io);
  if (command === 'plan') {
    const flags = {
      ...common(command, values, positionals),
      out: values.out as string | undefined,
      markdown: values.markdown as string | undefined,
      report: values.report as string | undefined,
      detailedExitcode: values['detailed-exitcode'] === true,
      showContent: values['show-content'] === true || values['show-private-content'] === true,
      showPrivateContent: values['show-private-content'] === true,
      ...(values['withhold-matches'] === true ? { matches: 'withhold' as const } : values['show-matches'] === true ? { matches: 'show' as const } : {}),
    };
    if (values['withhold-matches'] === true && values['show-matches'] === true) {
      throw new UsageError({ summary: '--withhold-matches and --show-matches cannot be given together', suggestion: 'give one: --withhold-matches replaces the names selectors found, --show-matches shows them' });
    }
    const { runPlan } = await import('./commands/reconcile.js');
    return runPlan(flags, io, hooks);
  }
  if (command === 'apply') {
    // A positional ending in .json is a saved plan; anything else is configuration.
    const planFiles = positionals.filter((p) => p.endsWith('.json'));
    if (planFiles.length > 1) {
      throw new UsageError({
        summary: `plumb apply takes one plan file, not ${planFiles.length} (${planFiles.join(', ')})`,
        suggestion: 'apply one saved plan at a time',
      });
    }
    const flags = {
      ...common(command, values, positionals.filter((p) => !p.endsWith('.json'))),
      planFile: planFiles[0],
      autoApprove: values['auto-approve'] === true,
      allowRisky: values['allow-risky'] === true,
      allowDestroy: values['allow-destroy'] === true,
      lockTimeoutMs: lockTimeout(values['lock-timeout'] as string | undefined),
    };
    const { runApply } = await import('./commands/reconcile.js');
    return runApply(flags, io, hooks);
  }
  const flags = { ...common(command, values, positionals), junit: values.junit as string | undefined };
  const { runDrift } = await import('./commands/reconcile.js');
  return runDrift(flags, io, hooks);
}

/** `--lock-timeout`, checked: a duration such as 0, 30s, 5m, 1h (a bare number is seconds). */
function lockTimeout(raw: string | undefined): number {
  if (raw === undefined) return 0;
  const ms = parseDuration(raw);
  if (ms === undefined) {
    throw new UsageError({ summary: `--lock-timeout must be a duration such as 0, 30s, 5m or 1h, not "${raw}"`, suggestion: 'leave it out to fail at once when another apply holds the lock (plumb apply --help)' });
  }
  return ms;
}

/** `plumb export`: its options checked here, so a mistake is a PLUMB_USAGE diagnostic. */
async function runExportCommand(rest: readonly string[], io: Io, hooks: CommandHooks): Promise<number> {
  // The exporters own their flags: those of the registry export runs with. The built-in registry is
  // loaded only for export (not for --version), through the command's module, which loads the
  // configuration side before the kinds' providers.
  const { runExport, EXPORTERS } = await import('./commands/export.js');
  const exporters = hooks.kinds?.exporters ?? EXPORTERS;
  const spec = exportSpec(exporters);
  const { values } = parse('export', rest, spec);
  if (values.help) return usage('export', io, spec);
  const help = 'plumb export --help lists the options';
  const flags = common('export', values, []);
  const out = values.out as string | undefined;
  if (out === undefined) throw new UsageError({ summary: 'plumb export needs --out DIR (where to write plumb.yaml)', suggestion: help });
  const options = new Map<string, unknown>();
  for (const e of exporters) {
    try {
      options.set(e.kind, e.parseOptions(values));
    } catch (err) {
      if (err instanceof ExportOptionError) throw new UsageError({ summary: err.summary, suggestion: err.suggestion });
      throw err;
    }
  }
  return runExport(
    {
      config: flags.config,
      cdktf: flags.cdktf,
      instance: flags.instance,
      instanceUrl: values['instance-url'] as string | undefined,
      tokenEnv: values['token-env'] as string | undefined,
      allowUrls: flags.allowUrls,
      out,
      now: flags.now,
      json: flags.json,
      concurrency: flags.concurrency,
      options,
      exporters,
      ...(hooks.kinds && { kinds: hooks.kinds }),
      force: values.force === true,
    },
    io,
  );
}
