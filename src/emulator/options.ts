/**
 * The emulator command's options and usage: one table for `plumb emulator`'s parser (src/cli.ts)
 * and the emulator's own (cli.ts here). Imports nothing, so the CLI can read it without loading
 * the emulator.
 */
export const EMULATOR_USAGE = `Usage: plumb emulator [--port N] [--seed FILE] [--host HOST [--allow-remote]] [--tier TIER] [--cache-seconds N] [--latency-ms N]

Runs a local emulator of the instance's interface at http://HOST:PORT/api/v4, seeded from a YAML or
JSON file (docs/emulator.md, examples/emulator-seed.yaml), until interrupted (Ctrl-C or SIGTERM).

  -p, --port N          port to listen on (default: any free port)
  -s, --seed FILE       seed file (default: the example seed)
  --host HOST           address to listen on (default: loopback); another address is refused
                        while the seed holds a token of the example seed (published in plumb's
                        repository), unless --allow-remote
  --allow-remote        listen on a non-loopback --host even with the example seed's tokens
  --tier TIER           free, premium or ultimate (default ultimate)
  --cache-seconds N     how long settings reads may be stale (default 0)
  --latency-ms N        answer every request N ms after it arrives, like a remote instance;
                        concurrent requests wait side by side, not in turn (default 0)
  -h, --help            this help
`;

export const EMULATOR_OPTIONS = {
  port: { type: 'string', short: 'p' },
  seed: { type: 'string', short: 's' },
  host: { type: 'string' },
  'allow-remote': { type: 'boolean', default: false },
  tier: { type: 'string' },
  'cache-seconds': { type: 'string' },
  'latency-ms': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;
