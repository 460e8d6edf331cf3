/**
 * `latencyMs` / `plumb emulator --latency-ms N`: every request is answered N ms after it arrives, as
 * a remote instance answers; requests in flight wait side by side. The emulator also counts the
 * requests in flight and records when each arrived and was answered, in real time.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runEmulatorCommand } from '../../src/emulator/cli.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { main } from '../../src/cli.js';
import { ADMIN, start, type Api } from './helpers.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/emulator-seed.yaml', import.meta.url));
const SETTINGS = '/application/settings';

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function started(latencyMs: number): Promise<Api> {
  const s = await start({ latencyMs });
  emulator = s.emulator;
  return s.api;
}

describe('latency of every request', () => {
  it('answers every request, refused and unknown ones too, latencyMs after it arrived', async () => {
    const api = await started(80);
    for (const [path, token, status] of [
      [SETTINGS, ADMIN, 200],
      [SETTINGS, undefined, 401],
      ['/no/such/endpoint', ADMIN, 404],
    ] as const) {
      const t0 = performance.now();
      expect((await api.get(path, token ? { token } : {})).status).toBe(status);
      expect(performance.now() - t0).toBeGreaterThanOrEqual(75);
    }
    for (const r of emulator!.requests) expect(r.answeredMs - r.receivedMs).toBeGreaterThanOrEqual(75);
  });

  it('lets concurrent requests wait side by side: 8 at once take one latency, not eight', async () => {
    const api = await started(150);
    const t0 = performance.now();
    const replies = await Promise.all(Array.from({ length: 8 }, () => api.get(SETTINGS, { token: ADMIN })));
    const ms = performance.now() - t0;
    expect(replies.every((r) => r.status === 200)).toBe(true);
    expect(ms).toBeGreaterThanOrEqual(145);
    expect(ms).toBeLessThan(600);
    expect(emulator!.maxInFlight).toBe(8);
    expect(emulator!.inFlight).toBe(0);
  });

  it('adds up with a latency fault on the same request', async () => {
    const api = await started(60);
    emulator!.addFault({ path: SETTINGS, action: { kind: 'latency', ms: 60 } });
    const t0 = performance.now();
    expect((await api.get(SETTINGS, { token: ADMIN })).status).toBe(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(115);
  });

  it('answers at once without latencyMs, and refuses a negative one', async () => {
    const api = await started(0);
    const t0 = performance.now();
    await api.get(SETTINGS, { token: ADMIN });
    expect(performance.now() - t0).toBeLessThan(60);
    await expect(start({ latencyMs: -1 })).rejects.toThrow(/latencyMs must be a number of milliseconds >= 0/);
  });
});

describe('requests in flight', () => {
  it('counts the peak of requests in flight and starts counting again at resetRequests()', async () => {
    const api = await started(50);
    await Promise.all(Array.from({ length: 3 }, () => api.get(SETTINGS, { token: ADMIN })));
    expect(emulator!.maxInFlight).toBe(3);
    emulator!.resetRequests();
    expect(emulator!.maxInFlight).toBe(0);
    await api.get(SETTINGS, { token: ADMIN });
    await api.get(SETTINGS, { token: ADMIN });
    expect(emulator!.maxInFlight).toBe(1);
  });

  it('records arrival and answer in real time even when the emulator clock stands still', async () => {
    const api = await started(40);
    await api.get(SETTINGS, { token: ADMIN });
    await api.get(SETTINGS, { token: ADMIN });
    const [a, b] = emulator!.requests;
    expect(a!.at.getTime()).toBe(b!.at.getTime()); // the test clock does not move
    expect(b!.receivedMs).toBeGreaterThanOrEqual(a!.answeredMs);
  });
});

describe('plumb emulator --latency-ms', () => {
  it('serves with the latency given on the command line and says so', async () => {
    let out = '';
    let ms = 0;
    const code = await runEmulatorCommand(['--seed', EXAMPLE, '--latency-ms', '120'], {
      stdout: (t) => (out += t),
      stderr: (t) => (out += t),
      waitForStop: async () => {
        const url = /listening on (http:\/\/\S+)/.exec(out)![1]!;
        const t0 = performance.now();
        await fetch(`${url}/api/v4/version`);
        ms = performance.now() - t0;
        return 'SIGTERM';
      },
    });
    expect(code).toBe(0);
    expect(ms).toBeGreaterThanOrEqual(115);
    expect(out).toContain('every answer 120 ms after its request (--latency-ms)');
  });

  it('refuses a value that is not a number of milliseconds, as a usage diagnostic', async () => {
    for (const bad of ['-5', 'fast', '']) {
      let err = '';
      const code = await main(['emulator', `--latency-ms=${bad}`], { stdout: () => undefined, stderr: (s) => (err += s), isTTY: false, env: {}, cwd: process.cwd() });
      expect(code).toBe(1);
      expect(err).toContain(`error[PLUMB_USAGE]: --latency-ms must be a number of milliseconds, 0 or more, not "${bad}"`);
    }
  });

  it('lists --latency-ms in the help of plumb emulator', async () => {
    let out = '';
    expect(await main(['emulator', '--help'], { stdout: (s) => (out += s), stderr: () => undefined, isTTY: false, env: {}, cwd: process.cwd() })).toBe(0);
    expect(out).toMatch(/--latency-ms N +answer every request N ms after it arrives/);
  });
});
