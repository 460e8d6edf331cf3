/**
 * The state lock (issue 22, defect 2a): two applies with a rotation due must not both rotate, or
 * the instance revokes the whole token family. apply takes `<state>.lock` before it plans.
 */
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileStateLock, LockHeld } from '../../src/engine/lock.js';
import { addDays, BASE_DAY, expectNoFamilyRevoked, expectNoRepeatedRotation, harness, seedToken } from '../resources/group-access-tokens/helpers.js';
import type { Harness } from '../resources/group-access-tokens/helpers.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const LOCK = '.plumb/state.json.lock';

/** A pid that is not running on this machine. */
function deadPid(): number {
  for (let pid = 4_000_000; pid > 1000; pid -= 7919) {
    try {
      process.kill(pid, 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ESRCH') return pid;
    }
  }
  throw new Error('no free pid found');
}

function plantLock(h: Harness, holder: Record<string, unknown>): string {
  const file = path.join(h.wd.dir, LOCK);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(holder));
  return file;
}

describe('apply holds a lock on the state file', () => {
  it('lets only one of two concurrent applies with a rotation due run, names the holder to the other, and keeps the token family intact', async () => {
    h = await harness({
      groups: [{ full_path: 'platform', access_tokens: [seedToken('ci', 'seeded-ci-000000001', { id: 7, expires_at: addDays(BASE_DAY, 3) })] }],
      latencyMs: 20,
    });
    h.config({ platform: { tokens: { ci: {} } } });
    const [a, b] = await Promise.all([h.run(['apply', '--auto-approve']), h.run(['apply', '--auto-approve'])]);
    const codes = [a.code, b.code].sort();
    expect(codes).toEqual([0, 1]);
    const loser = a.code === 1 ? a : b;
    expect(loser.stderr).toContain('PLUMB_STATE_LOCKED');
    expect(loser.stderr).toContain(`pid ${process.pid} on host ${os.hostname()}`);
    expect(loser.stderr).toContain('plumb apply');
    expect(h.count('POST', /\/access_tokens\/7\/rotate$/)).toBe(1);
    expectNoRepeatedRotation(h.emu);
    expectNoFamilyRevoked(h.emu);
    const fresh = h.tokenInSink('ci')!;
    expect(h.emu.state.isActive(fresh)).toBe(true);
    expect(existsSync(path.join(h.wd.dir, LOCK)), 'the lock is released after apply').toBe(false);
  });

  it('waits for the holder with --lock-timeout and then applies', async () => {
    h = await harness({ groups: [{ full_path: 'platform', access_tokens: [seedToken('ci', 'seeded-ci-000000001', { id: 7, expires_at: addDays(BASE_DAY, 3) })] }] });
    h.config({ platform: { tokens: { ci: {} } } });
    const other = new FileStateLock(path.join(h.wd.dir, '.plumb/state.json'));
    await other.acquire({ timeoutMs: 0, log: () => {} });
    setTimeout(() => void other.release(), 400);
    const r = await h.run(['apply', '--auto-approve', '--lock-timeout', '10s']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('waiting for the lock');
    expect(h.count('POST', /\/access_tokens\/7\/rotate$/)).toBe(1);
  });

  it('fails at once without --lock-timeout, and after the timeout with it, sending nothing', async () => {
    h = await harness({ groups: [{ full_path: 'platform', access_tokens: [seedToken('ci', 'seeded-ci-000000001', { id: 7, expires_at: addDays(BASE_DAY, 3) })] }] });
    h.config({ platform: { tokens: { ci: {} } } });
    const other = new FileStateLock(path.join(h.wd.dir, '.plumb/state.json'), 'plumb apply (other)');
    await other.acquire({ timeoutMs: 0, log: () => {} });
    try {
      h.emu.resetRequests();
      const r = await h.run(['apply', '--auto-approve']);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('PLUMB_STATE_LOCKED');
      expect(r.stderr).toContain('plumb apply (other)');
      expect(r.stderr).toMatch(/started \S+ \(\d+ s ago\)/);
      const t0 = Date.now();
      const w = await h.run(['apply', '--auto-approve', '--lock-timeout', '600ms']);
      expect(w.code).toBe(1);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(550);
      expect(w.stderr).toContain('after waiting');
      expect(h.emu.requests, 'nothing was sent').toEqual([]);
    } finally {
      await other.release();
    }
    expect(existsSync(path.join(h.wd.dir, LOCK))).toBe(false);
  });

  it('takes over a stale lock of a process of this host that is gone, with a warning', async () => {
    h = await harness({ groups: [{ full_path: 'platform', access_tokens: [seedToken('ci', 'seeded-ci-000000001', { id: 7, expires_at: addDays(BASE_DAY, 3) })] }] });
    h.config({ platform: { tokens: { ci: {} } } });
    const pid = deadPid();
    plantLock(h, { id: 'dead', host: os.hostname(), pid, startedAt: '2026-03-01T10:00:00Z', command: 'plumb apply' });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`took over a stale lock`);
    expect(r.stderr).toContain(`pid ${pid}`);
    expect(existsSync(path.join(h.wd.dir, LOCK))).toBe(false);
  });

  it('never takes over the lock of another host, and says how to remove it', async () => {
    h = await harness();
    h.config({ platform: { tokens: { ci: {} } } });
    const file = plantLock(h, { id: 'far', host: 'ci-runner-elsewhere', pid: deadPid(), startedAt: '2026-03-01T10:00:00Z', command: 'plumb apply' });
    h.emu.resetRequests();
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('host ci-runner-elsewhere');
    expect(r.stderr).toContain(`delete ${file}`);
    expect(readFileSync(file, 'utf8')).toContain('"far"');
    expect(h.emu.requests).toEqual([]);
  });

  it('rejects a --lock-timeout that is not a duration', async () => {
    h = await harness();
    h.config({ platform: { tokens: {} } });
    const r = await h.run(['apply', '--auto-approve', '--lock-timeout', 'soon']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--lock-timeout must be a duration');
  });
});

describe('FileStateLock', () => {
  it('releases only its own lock', async () => {
    const dir = path.join(os.tmpdir(), `plumb-lock-${process.pid}-${Date.now()}`);
    const a = new FileStateLock(path.join(dir, 'state.json'));
    await a.acquire({ timeoutMs: 0, log: () => {} });
    const b = new FileStateLock(path.join(dir, 'state.json'));
    await expect(b.acquire({ timeoutMs: 0, log: () => {} })).rejects.toBeInstanceOf(LockHeld);
    await b.release();
    expect(existsSync(a.file)).toBe(true);
    await a.release();
    expect(existsSync(a.file)).toBe(false);
  });
});
