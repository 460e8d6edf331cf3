/** Processes a test started, and whether they are gone. */
import { readFileSync } from 'node:fs';

/** Whether a process still runs: a killed one may linger as a zombie until its new parent reaps it. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true; // it answered the signal: count it as running
  }
}

/** Waits (bounded, without an event loop turn) for a process to be gone: SIGKILL is delivered asynchronously. */
export function goneWithin(pid: number, ms: number): boolean {
  const until = Date.now() + ms;
  while (alive(pid)) {
    if (Date.now() > until) return false;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
  }
  return true;
}
