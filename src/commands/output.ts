import type { KindSet } from '../resources/index.js';

/**
 * What every command takes besides its flags and its Io: the registry it runs with (`main`'s third
 * argument hands it to each). Absent: the built-in kinds; a test adds one (test/fixtures/kinds/).
 */
export interface CommandHooks {
  readonly kinds?: KindSet;
}

/** Where commands write, injectable so tests can run the CLI in-process and read what it printed. */
export interface Io {
  readonly stdout: (s: string) => void;
  readonly stderr: (s: string) => void;
  readonly isTTY: boolean;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
}

export function processIo(): Io {
  return {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    isTTY: !!process.stdout.isTTY,
    env: process.env,
    cwd: process.cwd(),
  };
}

/** Colour only on a terminal and never when NO_COLOR is set (https://no-color.org). */
export function useColor(io: Io): boolean {
  return io.isTTY && !io.env.NO_COLOR && io.env.TERM !== 'dumb';
}
