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
  /**
   * Whether standard output's reader went away (`plumb plan | head`): what is still written there
   * is dropped, and output that must arrive (an issued secret, `machineOutput`) fails instead.
   */
  readonly stdoutClosed?: () => boolean;
}

/** A pipe whose reader closed: Node reports EPIPE on the stream, after the write that met it. */
const closedPipe = (stream: NodeJS.WriteStream): boolean => stream.destroyed || (stream.errored as NodeJS.ErrnoException | null)?.code === 'EPIPE';

let pipesWatched = false;

/**
 * A reader that goes away early (`plumb plan | head`) is not a failure of plumb: the EPIPE Node
 * reports on stdout or stderr is taken in (no stack trace), later output to that stream is
 * dropped, and the command ends as it would have, exit code included. Another write error is
 * rethrown as before. Installed once per process.
 */
function watchPipes(): void {
  if (pipesWatched) return;
  pipesWatched = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
    });
  }
}

export function processIo(): Io {
  watchPipes();
  return {
    stdout: (s) => {
      if (!closedPipe(process.stdout)) process.stdout.write(s);
    },
    stderr: (s) => {
      if (!closedPipe(process.stderr)) process.stderr.write(s);
    },
    stdoutClosed: () => closedPipe(process.stdout),
    isTTY: !!process.stdout.isTTY,
    env: process.env,
    cwd: process.cwd(),
  };
}

/** Colour only on a terminal and never when NO_COLOR is set (https://no-color.org). */
export function useColor(io: Io): boolean {
  return io.isTTY && !io.env.NO_COLOR && io.env.TERM !== 'dumb';
}
