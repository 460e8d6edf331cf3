/**
 * `plumb emulator --port N --seed FILE [--host H] [--tier T] [--cache-seconds S] [--latency-ms N]`: runs the local
 * emulator until SIGINT/SIGTERM. Prints the base URL and the names of the seeded tokens (never
 * their values: those are in the seed file the user wrote).
 */
import { parseArgs } from 'node:util';
import { ownPath } from '../util/own-files.js';
import { EMULATOR_OPTIONS, EMULATOR_USAGE } from './options.js';
import { SeedError, loadSeedFile } from './seed.js';
import type { EmulatorSeed } from './types.js';
import { isLoopbackHost } from '../util/url.js';
import { startEmulator } from './server.js';
import type { EmulatorTier } from './types.js';

const USAGE = EMULATOR_USAGE;

export interface EmulatorCommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Resolves when the process is asked to stop (default: SIGINT or SIGTERM). */
  waitForStop?(): Promise<string>;
}

const defaultIo: EmulatorCommandIo = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
};

/** The example seed shipped with plumb (examples/ is next to src/ or dist/). */
export function exampleSeedPath(): string | undefined {
  return ownPath('examples/emulator-seed.yaml', import.meta.url);
}

/**
 * Names of the seed's tokens whose values are those of a seed published in plumb's repository: the
 * example seed and the CI walkthrough's (examples/ci/emulator-seed.yaml). An unreadable seed: none;
 * starting reports it.
 */
async function publishedTokensIn(seedPath: string): Promise<string[]> {
  const published = [exampleSeedPath(), ownPath('examples/ci/emulator-seed.yaml', import.meta.url)].filter((p): p is string => p !== undefined);
  const tokens = (seed: EmulatorSeed) => [
    ...(seed.users ?? []).flatMap((u) => u.personal_access_tokens ?? []),
    ...(seed.groups ?? []).flatMap((g) => g.access_tokens ?? []),
    ...(seed.projects ?? []).flatMap((p) => (p.ci_job_tokens ?? []).map((j) => ({ name: `${p.path_with_namespace} job token`, token: j.token }))),
  ];
  try {
    const known = new Set((await Promise.all(published.map(loadSeedFile))).flatMap(tokens).map((t) => t.token));
    return tokens(await loadSeedFile(seedPath)).filter((t) => known.has(t.token)).map((t) => t.name);
  } catch (e) {
    if (e instanceof SeedError) return [];
    throw e;
  }
}

function waitForSignal(): Promise<string> {
  return new Promise((resolve) => {
    const onSignal = (signal: string): void => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

export async function runEmulatorCommand(argv: string[], io: EmulatorCommandIo = defaultIo): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      allowPositionals: false,
      options: EMULATOR_OPTIONS,
    }));
  } catch (e) {
    io.stderr(`plumb emulator: ${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values['help']) {
    io.stdout(USAGE);
    return 0;
  }
  const problems: string[] = [];
  const port = values['port'] === undefined ? 0 : Number(values['port']);
  if (!Number.isInteger(port) || port < 0 || port > 65535) problems.push(`--port must be an integer 0-65535, got "${String(values['port'])}"`);
  const tier = (values['tier'] ?? 'ultimate') as string;
  if (!['free', 'premium', 'ultimate'].includes(tier)) problems.push(`--tier must be free, premium or ultimate, got "${tier}"`);
  const cache = values['cache-seconds'] === undefined ? 0 : Number(values['cache-seconds']);
  if (!Number.isFinite(cache) || cache < 0) problems.push(`--cache-seconds must be a number >= 0, got "${String(values['cache-seconds'])}"`);
  const latency = values['latency-ms'] === undefined ? 0 : Number(values['latency-ms']);
  if (!Number.isFinite(latency) || latency < 0) problems.push(`--latency-ms must be a number >= 0, got "${String(values['latency-ms'])}"`);
  const seed = typeof values['seed'] === 'string' && values['seed'] !== '' ? values['seed'] : exampleSeedPath();
  if (seed === undefined) problems.push('--seed FILE is required (the example seed was not found)');
  if (problems.length > 0) {
    io.stderr(`plumb emulator: ${problems.join('\nplumb emulator: ')}\n\n${USAGE}`);
    return 2;
  }

  const host = typeof values['host'] === 'string' ? values['host'] : undefined;
  if (host !== undefined && !isLoopbackHost(host.includes(':') && !host.startsWith('[') ? `[${host}]` : host) && values['allow-remote'] !== true) {
    const published = await publishedTokensIn(seed!);
    if (published.length > 0) {
      io.stderr(
        `plumb emulator: refusing to listen on ${host}: the seed holds the example seed's token(s) ${published.map((n) => `"${n}"`).join(', ')}, ` +
          `whose values are published in plumb's repository, so anyone who can reach ${host} would be its administrator.\n` +
          '  help: give every token in your seed a value of your own (--seed FILE), or pass --allow-remote if the network is yours alone\n',
      );
      return 1;
    }
  }

  let emulator;
  try {
    emulator = await startEmulator({
      seed: seed!,
      port,
      ...(typeof values['host'] === 'string' ? { host: values['host'] } : {}),
      tier: tier as EmulatorTier,
      settingsCacheSeconds: cache,
      latencyMs: latency,
    });
  } catch (e) {
    if (e instanceof SeedError) {
      io.stderr(`plumb emulator: ${e.message}\n`);
      return 1;
    }
    io.stderr(`plumb emulator: cannot start: ${(e as Error).message}\n`);
    return 1;
  }

  const { state } = emulator;
  const lines = [
    `plumb emulator listening on ${emulator.url} (API at ${emulator.url}/api/v4, tier ${tier})`,
    `  seed: ${seed!}`,
    ...(latency > 0 ? [`  every answer ${latency} ms after its request (--latency-ms)`] : []),
  ];
  for (const user of state.users.filter((u) => !u.bot)) {
    for (const t of state.tokens.filter((x) => x.userId === user.id)) {
      lines.push(`  ${user.admin ? 'admin' : 'user'} ${user.username}: personal access token "${t.name}" [${t.scopes.join(', ')}] (value from the seed file)`);
    }
  }
  for (const group of state.groups) {
    for (const t of state.tokens.filter((x) => x.groupId === group.id)) {
      lines.push(`  group ${group.fullPath}: access token "${t.name}" [${t.scopes.join(', ')}] (value from the seed file)`);
    }
  }
  lines.push('Press Ctrl-C to stop.');
  io.stdout(`${lines.join('\n')}\n`);

  const signal = await (io.waitForStop ?? waitForSignal)();
  await emulator.close();
  io.stdout(`plumb emulator stopped (${signal})\n`);
  return 0;
}
