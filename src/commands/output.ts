import { fstatSync, writeSync } from 'node:fs';
import type { Stats } from 'node:fs';
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
 * rethrown as before. Installed once per process: by `processIo` when it writes through node's
 * streams, and by the emulator and provider commands (src/cli.ts), which write to
 * `process.stdout` themselves.
 */
export function watchPipes(): void {
  if (pipesWatched) return;
  pipesWatched = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
    });
  }
}

/** One of the process's standard outputs, as `processIo` writes to it. */
interface Out {
  write(s: string): void;
  /** Whether its reader went away (EPIPE): what is still written is dropped. */
  closed(): boolean;
}

/** Blocks the thread for `ms` (a write into a full non-blocking pipe waits for its reader). */
const pause = (ms: number): void => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Standard output or error written with write(2) on its descriptor, when that is a pipe, a socket
 * or a file (never a terminal): as synchronous as node's own stream for it on POSIX, but without
 * `process.stdout`, whose creation loads node's streams and sockets (net, stream and ~30 more of
 * node's modules: about a tenth of a cold `plumb validate`, bench/run.js). A reader that went away
 * (EPIPE) closes it, as `watchPipes` does for the stream. Undefined for a terminal, a descriptor
 * that is not open, any other kind of file, and on Windows: node's stream then, as before.
 */
function directOut(fd: 1 | 2): Out | undefined {
  if (process.platform === 'win32') return undefined;
  let kind: Stats;
  try {
    kind = fstatSync(fd);
  } catch {
    return undefined;
  }
  if (!kind.isFIFO() && !kind.isSocket() && !kind.isFile()) return undefined;
  let closed = false;
  return {
    write: (s) => {
      const bytes = Buffer.from(s, 'utf8');
      for (let done = 0; done < bytes.length && !closed; ) {
        try {
          done += writeSync(fd, bytes, done);
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === 'EPIPE') closed = true;
          else if (code === 'EAGAIN') pause(1); // a non-blocking pipe we inherited is full
          else throw err;
        }
      }
    },
    closed: () => closed,
  };
}

/** Node's stream for the descriptor (a terminal, or where `directOut` does not apply). */
function streamOut(stream: NodeJS.WriteStream): Out {
  watchPipes();
  return {
    write: (s) => {
      if (!closedPipe(stream)) stream.write(s);
    },
    closed: () => closedPipe(stream),
  };
}

export function processIo(): Io {
  const direct = directOut(1);
  const stdout = direct ?? streamOut(process.stdout);
  const stderr = directOut(2) ?? streamOut(process.stderr);
  return {
    stdout: (s) => {
      if (!stdout.closed()) stdout.write(s);
    },
    stderr: (s) => {
      if (!stderr.closed()) stderr.write(s);
    },
    stdoutClosed: () => stdout.closed(),
    // A pipe, a socket or a file is no terminal; anything else asks node's stream, as before.
    isTTY: direct ? false : !!process.stdout.isTTY,
    env: process.env,
    cwd: process.cwd(),
  };
}

/** Colour only on a terminal and never when NO_COLOR is set (https://no-color.org). */
export function useColor(io: Io): boolean {
  return io.isTTY && !io.env.NO_COLOR && io.env.TERM !== 'dumb';
}
