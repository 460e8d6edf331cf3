import { HOMEPAGE, VERSION } from './version.js';
import type { CommandHooks, Io } from './commands/output.js';
import { processIo, watchPipes } from './commands/output.js';
import { problemView } from './commands/views/problem.js';
import { closestMatch } from './util/suggest.js';
import { usageProblem } from './commands/args.js';
import type { Parsed } from './commands/args.js';
import { VALIDATE_USAGE, parseValidateArgs } from './commands/validate-args.js';
import { PLAN_USAGE, parsePlanArgs } from './commands/plan-args.js';
import { APPLY_USAGE, parseApplyArgs } from './commands/apply-args.js';
import { DRIFT_USAGE, parseDriftArgs } from './commands/drift-args.js';
import { SHOW_USAGE, parseShowArgs } from './commands/show-args.js';
import { COMMENT_USAGE, parseCommentArgs } from './commands/comment-args.js';
import { exportUsage, parseExportArgs } from './commands/export-args.js';
import { EMULATOR_USAGE, parseEmulatorArgs } from './commands/emulator-args.js';
import { PROVIDER_USAGE, parseProviderArgs } from './commands/provider-args.js';
import { REPORT_USAGE, parseReportArgs } from './commands/report-args.js';

const HELP = `plumb ${VERSION} — keep a code-hosting instance's configuration in Git

Usage:
  plumb validate [PATHS...] [--json | --format codequality]
                                            check configuration offline (exit 0 valid, 1 invalid)
  plumb plan [PATHS...] [--out FILE] [--json] [--markdown FILE] [--report FILE] [--html FILE]
             [--detailed-exitcode]
                                            show what apply would change (exit 0; 2 = changes with
                                            --detailed-exitcode; 1 = error)
  plumb apply [PLAN.json] [-c PATH...] [--auto-approve] [--allow-risky] [--allow-destroy]
              [--lock-timeout DURATION] [--json]
                                            carry out a saved plan, or plan and apply (asks on a TTY);
                                            --allow-risky accepts changes that can lock people out,
                                            --allow-destroy destroys (unpublishing Pages)
  plumb drift [PATHS...] [--json] [--junit FILE] [--html FILE]
                                            exit 0 in sync, 2 drift, 1 error
  plumb report [PATHS...] [--json] [--out FILE] [--markdown FILE] [--html FILE] [--max-requests N]
               [--expiring-within 30d]
                                            read-only compliance report of every declared resource
                                            (exit 0 compliant, 2 not, 1 error; docs/report.md)
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

type Run = (rest: readonly string[], io: Io, hooks: CommandHooks) => Promise<number>;

/**
 * The commands: each parses its arguments in its own module (src/commands/*-args.ts) and imports
 * its body only when it runs, so `plumb --version` and `plumb validate` never load the HTTP client,
 * the engine, the emulator, cdktf or the provider's gRPC stack.
 */
const COMMANDS: Readonly<Record<string, Run>> = {
  validate: (rest, io, hooks) =>
    command(rest, io, parseValidateArgs(rest), VALIDATE_USAGE, async (args) => {
      const { runValidate } = await import('./commands/validate.js');
      return runValidate(args.config, args, io, hooks);
    }),
  plan: (rest, io, hooks) => command(rest, io, parsePlanArgs(rest), PLAN_USAGE, async (args) => (await import('./commands/reconcile.js')).runPlan(args, io, hooks)),
  apply: (rest, io, hooks) => command(rest, io, parseApplyArgs(rest), APPLY_USAGE, async (args) => (await import('./commands/reconcile.js')).runApply(args, io, hooks)),
  drift: (rest, io, hooks) => command(rest, io, parseDriftArgs(rest), DRIFT_USAGE, async (args) => (await import('./commands/reconcile.js')).runDrift(args, io, hooks)),
  report: (rest, io, hooks) => command(rest, io, parseReportArgs(rest), REPORT_USAGE, async (args) => (await import('./commands/report.js')).runReport(args, io, hooks)),
  export: async (rest, io, hooks) => {
    // The exporters own their flags: those of the registry export runs with, loaded only for export.
    const { runExport, builtInExporters } = await import('./commands/export.js');
    const exporters = hooks.kinds?.exporters ?? (await builtInExporters());
    return command(rest, io, parseExportArgs(rest, exporters), exportUsage(exporters), (args) => runExport({ ...args, ...(hooks.kinds && { kinds: hooks.kinds }) }, io));
  },
  show: (rest, io, hooks) => command(rest, io, parseShowArgs(rest), SHOW_USAGE, async (args) => (await import('./commands/show.js')).runShow(args, io, hooks)),
  comment: (rest, io, hooks) => command(rest, io, parseCommentArgs(rest), COMMENT_USAGE, async (args) => (await import('./commands/comment.js')).runComment(args, io, hooks)),
  emulator: (rest, io) =>
    command(rest, io, parseEmulatorArgs(rest), EMULATOR_USAGE, async (args) => {
      // The emulator writes its log to process.stdout itself: a reader going away ends it quietly.
      watchPipes();
      return (await import('./emulator/cli.js')).runEmulatorCommand([...args.argv]);
    }),
  provider: (rest, io) =>
    command(rest, io, parseProviderArgs(rest), PROVIDER_USAGE, async (args) => {
      if (args.action === 'mirror') {
        const { runMirrorCommand } = await import('./provider/mirror.js');
        const r = runMirrorCommand(args, io, { version: VERSION, execPath: process.execPath });
        if (r.stderr) io.stderr(r.stderr);
        if (r.stdout) io.stdout(r.stdout);
        return r.code;
      }
      // gRPC, protobuf and msgpack load here only: no other command pays for them. The handshake
      // goes to process.stdout itself: a reader going away ends it quietly, as before.
      watchPipes();
      const { runProvider } = await import('./provider/server.js');
      return runProvider({ env: io.env, stdout: io.stdout, stderr: io.stderr, cwd: io.cwd });
    }),
};

/**
 * Entry point. `hooks.kinds`: the registry every command runs with, export's flags included
 * (default the built-in kinds; test/resources/fifth-kind.test.ts adds one).
 */
export async function main(argv: readonly string[], io: Io = processIo(), hooks: CommandHooks = {}): Promise<number> {
  const [name, ...rest] = argv;
  switch (name) {
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
      return name === undefined ? 1 : 0;
  }
  const run = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (run) return run(rest, io, hooks);
  const guess = closestMatch(name, Object.keys(COMMANDS));
  const unknown = usageProblem(`Unknown command "${name}"`, guess ? `did you mean "${guess}"?` : 'run `plumb --help` for usage', `plumb's commands: ${Object.keys(COMMANDS).join(', ')}.`);
  return problemView(asksForJson(rest), io).problem([unknown]);
}

/** Every mistake on the command line at once, else `--help`'s usage, else the command. */
async function command<A extends { readonly help: boolean }>(rest: readonly string[], io: Io, parsed: Parsed<A>, usage: string, body: (args: A) => Promise<number> | number): Promise<number> {
  if (parsed.diagnostics.length > 0) return problemView(asksForJson(rest), io).problem(parsed.diagnostics);
  if (parsed.args.help) {
    io.stdout(usage.trimEnd() + '\n');
    return 0;
  }
  return body(parsed.args);
}

/**
 * Whether a command line that could not be parsed asked for JSON (`--json`, or validate's
 * `--format json`): its usage error is then the error document on stdout, like any other error.
 */
function asksForJson(rest: readonly string[]): boolean {
  return rest.some((a, i) => a === '--json' || a === '--format=json' || (a === '--format' && rest[i + 1] === 'json'));
}
