import { parseArgs } from 'node:util';
import { VERSION } from './version.js';
import type { Io } from './commands/output.js';
import { processIo } from './commands/output.js';

const HELP = `plumb ${VERSION} — keep a code-hosting instance's configuration in Git

Usage:
  plumb validate [PATHS...] [--json]        check configuration offline (exit 0 valid, 1 invalid)
  plumb plan [PATHS...] [--out FILE] [--json] [--markdown FILE] [--report FILE] [--detailed-exitcode]
                                            show what apply would change (exit 0; 2 = changes with
                                            --detailed-exitcode; 1 = error)
  plumb apply [PLAN.json] [-c PATH...] [--auto-approve] [--allow-risky] [--json]
                                            carry out a saved plan, or plan and apply (asks on a TTY);
                                            --allow-risky accepts changes that can lock people out
  plumb drift [PATHS...] [--json]           exit 0 in sync, 2 drift, 1 error
  plumb emulator [--port N] [--seed FILE]   run a local emulator of the instance interface
  plumb --version

PATHS are YAML files or directories of YAML files (default: plumb.yaml, plumb.yml or plumb/).
Common options: -c/--config PATH (repeatable), --instance NAME, --now DATE (or PLUMB_NOW),
--state FILE (or PLUMB_STATE; default .plumb/state.json), --concurrency N (API requests in flight,
default 8), --debug (one line per API call on stderr; never tokens or bodies).
Documentation: README.md and docs/ in the plumb repository.
`;

/**
 * Entry point. Each command's module is imported only when that command runs, so `plumb --version`
 * and `plumb validate` never load the HTTP client, the emulator or cdktf.
 */
export async function main(argv: readonly string[], io: Io = processIo()): Promise<number> {
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
        const { values, positionals } = parseArgs({
          args: [...rest],
          allowPositionals: true,
          options: { json: { type: 'boolean', default: false }, today: { type: 'string' } },
        });
        const { runValidate } = await import('./commands/validate.js');
        return runValidate(positionals, { json: !!values.json, today: values.today }, io);
      }
      case 'plan':
      case 'apply':
      case 'drift':
        return await runReconcile(command, rest, io);
      case 'emulator': {
        const { runEmulatorCommand } = await import('./emulator/cli.js');
        return await runEmulatorCommand([...rest]);
      }
      default:
        io.stderr(`plumb: unknown command "${command}"\n\n${HELP}`);
        return 1;
    }
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`plumb: ${err.message}\n`);
      return 1;
    }
    if (err instanceof TypeError && 'code' in err && String((err as { code: unknown }).code).startsWith('ERR_PARSE_ARGS')) {
      io.stderr(`plumb: ${err.message}\nRun \`plumb --help\` for usage.\n`);
      return 1;
    }
    throw err;
  }
}

const COMMON_OPTIONS = {
  config: { type: 'string', short: 'c', multiple: true },
  now: { type: 'string' },
  state: { type: 'string' },
  instance: { type: 'string' },
  json: { type: 'boolean', default: false },
  debug: { type: 'boolean', default: false },
  concurrency: { type: 'string' },
} as const;

/** The options every reconcile command shares, from parsed flags. */
function common(values: { config?: string[]; now?: string; state?: string; instance?: string; json?: boolean; debug?: boolean; concurrency?: string }, paths: readonly string[]) {
  const concurrency = values.concurrency === undefined ? undefined : Number(values.concurrency);
  if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= 64)) {
    throw new UsageError(`--concurrency must be a whole number from 1 to 64, got "${values.concurrency}"`);
  }
  return {
    config: [...(values.config ?? []), ...paths],
    now: values.now,
    state: values.state,
    instance: values.instance,
    json: !!values.json,
    debug: !!values.debug,
    concurrency,
  };
}

class UsageError extends Error {}

async function runReconcile(command: 'plan' | 'apply' | 'drift', rest: readonly string[], io: Io): Promise<number> {
  const { runPlan, runApply, runDrift } = await import('./commands/reconcile.js');
  if (command === 'plan') {
    const { values, positionals } = parseArgs({
      args: [...rest],
      allowPositionals: true,
      options: {
        ...COMMON_OPTIONS,
        out: { type: 'string' },
        markdown: { type: 'string' },
        report: { type: 'string' },
        'detailed-exitcode': { type: 'boolean', default: false },
      },
    });
    return runPlan(
      {
        ...common(values, positionals),
        out: values.out,
        markdown: values.markdown,
        report: values.report,
        detailedExitcode: !!values['detailed-exitcode'],
      },
      io,
    );
  }
  if (command === 'apply') {
    const { values, positionals } = parseArgs({
      args: [...rest],
      allowPositionals: true,
      options: { ...COMMON_OPTIONS, 'auto-approve': { type: 'boolean', default: false }, 'allow-risky': { type: 'boolean', default: false } },
    });
    // A positional ending in .json is a saved plan; anything else is configuration.
    const planFiles = positionals.filter((p) => p.endsWith('.json'));
    if (planFiles.length > 1) {
      io.stderr('plumb: apply takes one plan file\n');
      return 1;
    }
    return runApply(
      {
        ...common(values, positionals.filter((p) => !p.endsWith('.json'))),
        planFile: planFiles[0],
        autoApprove: !!values['auto-approve'],
        allowRisky: !!values['allow-risky'],
      },
      io,
    );
  }
  const { values, positionals } = parseArgs({ args: [...rest], allowPositionals: true, options: COMMON_OPTIONS });
  return runDrift(common(values, positionals), io);
}
