/**
 * `npm start` (scripts/start.js) as a newcomer runs it: on a machine where port 8929 is taken it
 * still runs every step (on a free port, saying so, without editing examples/), the export infers
 * the token's declared 90-day lifetime (the emulator's clock moves with --now), and it leaves
 * nothing in the temporary directory.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '../..');

describe('npm start', () => {
  it('survives a busy port, infers the declared lifetime, and leaves nothing in the temp dir', async () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'plumb-start-test-'));
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as AddressInfo).port;
    const instance = readFileSync(path.join(root, 'examples/plumb/instance.yaml'), 'utf8');
    try {
      const child = spawn(process.execPath, [path.join(root, 'scripts/start.js')], { cwd: root, env: { PATH: process.env.PATH ?? '', TMPDIR: tmp, NO_COLOR: '1', PLUMB_EMULATOR_PORT: String(port) } });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code, out).toBe(0);
      expect(out).toContain(`Port ${port} is busy: the emulator listens on http://127.0.0.1:`);
      expect(out).toContain("This run uses a copy of examples/");
      expect(out).toContain('All steps behaved as expected.');
      expect(out).toMatch(/lifetime_days: 90\b/);
      expect(out).not.toMatch(/lifetime_days: 1[0-9]{2}\b/);
      expect(readdirSync(tmp)).toEqual([]);
      expect(readFileSync(path.join(root, 'examples/plumb/instance.yaml'), 'utf8')).toBe(instance);
    } finally {
      busy.close();
      rmSync(tmp, { recursive: true, force: true });
    }
  }, 120_000);
});
