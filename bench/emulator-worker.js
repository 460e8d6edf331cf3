// The emulator of the whole-process benchmarks (bench/wire.js), in a worker thread: a remote
// instance runs on another machine, so its CPU must not share an event loop with what is measured.
// Plumb and the baseline script run as child processes and talk to it over loopback. The main
// thread drives it by messages: start (a fresh instance from a seed, on a clock the bench moves),
// stats (requests counted by the emulator itself), close.
import { parentPort, workerData } from 'node:worker_threads';

const { startEmulator } = await import(workerData.emulatorUrl);
let emu;
let now = new Date();

async function handle(op, arg) {
  switch (op) {
    case 'start':
      await emu?.close();
      now = new Date(arg.now);
      emu = await startEmulator({ seed: arg.seed, now: () => now, latencyMs: workerData.latencyMs });
      return emu.url;
    case 'setNow':
      now = new Date(arg);
      return undefined;
    case 'stats': {
      const byMethod = {};
      for (const r of emu.requests) byMethod[r.method] = (byMethod[r.method] ?? 0) + 1;
      const failed = emu.requests.filter((r) => r.status >= 400 || r.status === 0).length;
      // Epoch milliseconds, comparable with the main thread's clock (each thread has its own timeOrigin).
      const first = emu.requests.reduce((m, r) => Math.min(m, r.receivedMs), Infinity);
      const last = emu.requests.reduce((m, r) => Math.max(m, r.answeredMs), -Infinity);
      // Requests in flight on average between the first arrival and the last answer.
      const avgInFlight = emu.requests.reduce((sum, r) => sum + (r.answeredMs - r.receivedMs), 0) / (last - first);
      // Milliseconds from a request's arrival to its answer, on average (the latency plus the emulator's own time).
      const avgServerMs = emu.requests.reduce((sum, r) => sum + (r.answeredMs - r.receivedMs), 0) / emu.requests.length;
      return { requests: emu.requests.length, byMethod, failed, maxInFlight: emu.maxInFlight, avgInFlight, avgServerMs, spanMs: last - first, firstAt: performance.timeOrigin + first, lastAt: performance.timeOrigin + last };
    }
    case 'resetRequests':
      emu.resetRequests();
      return undefined;
    case 'close':
      await emu?.close();
      emu = undefined;
      return undefined;
    default:
      throw new Error(`unknown op ${op}`);
  }
}

parentPort.on('message', ({ id, op, arg }) => {
  handle(op, arg).then(
    (value) => parentPort.postMessage({ id, value }),
    (err) => parentPort.postMessage({ id, error: String(err?.stack ?? err) }),
  );
});
parentPort.postMessage({ ready: true });
