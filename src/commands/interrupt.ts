/**
 * SIGINT (Ctrl-C) and SIGTERM (a cancelled CI job: the service's runner sends SIGTERM, then kills)
 * for plan, apply and drift (docs/plans.md#interrupted-applies).
 *
 * - While plumb only reads (plan, drift, apply before its first write): it says it was interrupted
 *   and that nothing was changed, gives back its locks, and exits 130 (SIGINT) or 143 (SIGTERM).
 * - Once apply writes: it starts no new change, lets those in flight finish (at most the grace
 *   period, 10 s, or PLUMB_STOP_GRACE_SECONDS), records every outcome in the state, prints its usual
 *   report with an "interrupted" summary, gives back its locks and exits 130 or 143.
 * - A second signal ends the process at once, after writing the state (synchronously).
 */
import { ownSignals, releaseHeldLocks } from '../engine/lock.js';
import { DEFAULT_STOP_GRACE_MS, interruptedExitCode } from '../engine/interrupt.js';
import type { ApplyInterrupt } from '../engine/interrupt.js';
import type { Io } from './output.js';
import { problemView } from './views/problem.js';

export class Interrupts implements ApplyInterrupt {
  #signal: NodeJS.Signals | undefined;
  #writing = false;
  readonly #onStop = new Set<() => void>();
  readonly #hard = new Set<() => void>();
  readonly graceMs: number;

  /** `json`: the command was asked for one JSON document on stdout, which an interruption while reading is too. */
  constructor(
    private readonly io: Io,
    private readonly command: 'plan' | 'apply' | 'drift',
    private readonly json = false,
  ) {
    const raw = io.env.PLUMB_STOP_GRACE_SECONDS;
    this.graceMs = raw && /^\d+(\.\d+)?$/.test(raw) ? Number(raw) * 1000 : DEFAULT_STOP_GRACE_MS;
  }

  /** Answers SIGINT and SIGTERM until the returned function is called (at the end of the command). */
  watch(): () => void {
    const giveBack = ownSignals();
    const handler = (signal: NodeJS.Signals): void => this.#received(signal);
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
    return () => {
      process.removeListener('SIGINT', handler);
      process.removeListener('SIGTERM', handler);
      giveBack();
    };
  }

  writing(): void {
    this.#writing = true;
  }

  stopRequested(): string | undefined {
    return this.#signal;
  }

  onStop(callback: () => void): () => void {
    this.#onStop.add(callback);
    return () => this.#onStop.delete(callback);
  }

  atHardExit(callback: () => void): () => void {
    this.#hard.add(callback);
    return () => this.#hard.delete(callback);
  }

  #received(signal: NodeJS.Signals): void {
    const code = interruptedExitCode(signal);
    if (this.#signal !== undefined) {
      // The second signal: at once, with the state written.
      for (const h of this.#hard) {
        try {
          h();
        } catch {
          // end anyway
        }
      }
      this.io.stderr(
        this.#writing
          ? `plumb ${this.command}: stopped at once by a second ${signal}. What apply recorded is in the state; a change in flight may or may not have happened: \`plumb plan\` reads the instance and shows what is left.\n`
          : `plumb ${this.command}: stopped at once by a second ${signal}.\n`,
      );
      process.exit(code);
    }
    this.#signal = signal;
    if (!this.#writing) {
      problemView(this.json, this.io).problem([
        {
          severity: 'error',
          code: 'PLUMB_INTERRUPTED',
          summary: `plumb ${this.command} was interrupted by ${signal} while reading the instance; nothing was changed`,
          suggestion: `run plumb ${this.command} again`,
        },
      ]);
      void releaseHeldLocks().then(() => process.exit(code));
      return;
    }
    this.io.stderr(
      `plumb apply: ${signal} received: starting no new change, letting those in flight finish (at most ${Math.round(this.graceMs / 1000)} s), then recording and reporting what happened. A second ${signal} stops at once.\n`,
    );
    for (const cb of this.#onStop) cb();
  }
}
