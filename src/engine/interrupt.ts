/**
 * Apply's side of an interruption (docs/plans.md#interrupted-applies): the front-end that owns the
 * process (the CLI: src/commands/interrupt.ts) says when a stop was asked for; apply then starts no
 * new change, lets the ones in flight finish for at most a grace period, records every outcome in
 * the state and reports. If the process must end at once (a second signal), what apply registered
 * with `atHardExit` runs first, synchronously: the state is written.
 */
export interface ApplyInterrupt {
  /** Apply is about to write: from now on a stop lets the changes in flight finish. */
  writing(): void;
  /** The signal that asked apply to stop (`SIGINT`, `SIGTERM`), once one did. */
  stopRequested(): string | undefined;
  /** Called once when a stop is asked for; returns the function that unsubscribes. */
  onStop(callback: () => void): () => void;
  /** Runs synchronously before the process ends at once; returns the function that unregisters it. */
  atHardExit(callback: () => void): () => void;
  /** How long the changes in flight may take once a stop was asked for, in milliseconds. */
  readonly graceMs: number;
}

/** Milliseconds apply waits for its changes in flight after a stop was asked for (PLUMB_STOP_GRACE_SECONDS overrides). */
export const DEFAULT_STOP_GRACE_MS = 10_000;

/** The exit code of a command a signal interrupted: 128 + the signal's number, as a shell reports it (130 SIGINT, 143 SIGTERM). */
export function interruptedExitCode(signal: string): number {
  return signal === 'SIGINT' ? 130 : signal === 'SIGTERM' ? 143 : signal === 'SIGHUP' ? 129 : 130;
}
