import { parseArgs } from 'node:util';
import { VERSION } from './version.js';
import type { Io } from './commands/output.js';
import { processIo } from './commands/output.js';

const HELP = `plumb ${VERSION} — keep a code-hosting instance's configuration in Git

Usage:
  plumb validate [PATHS...] [--json]        check configuration offline (exit 0 valid, 1 invalid)
  plumb emulator [--port N] [--seed FILE]   run a local emulator of the instance interface
  plumb --version

PATHS are YAML files or directories of YAML files (default: plumb.yaml, plumb.yml or plumb/).
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
      case 'emulator': {
        const { runEmulatorCommand } = await import('./emulator/cli.js');
        return await runEmulatorCommand([...rest]);
      }
      default:
        io.stderr(`plumb: unknown command "${command}"\n\n${HELP}`);
        return 1;
    }
  } catch (err) {
    if (err instanceof TypeError && 'code' in err && String((err as { code: unknown }).code).startsWith('ERR_PARSE_ARGS')) {
      io.stderr(`plumb: ${err.message}\nRun \`plumb --help\` for usage.\n`);
      return 1;
    }
    throw err;
  }
}
