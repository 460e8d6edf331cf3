/** Progress of apply (done/total) and of a plan's reading: on a terminal only, on stderr, never in piped output. */
import { afterEach, describe, expect, it } from 'vitest';
import { harness } from './helpers.js';
import type { Harness } from './helpers.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

describe('apply progress', () => {
  it('shows done/total on a terminal and nothing when piped', async () => {
    h = await harness();
    h.config({ platform: { tokens: { a: {}, b: {} } } });
    const tty = await h.wd.run(['apply', '--auto-approve', '--now', h.today], {}, { isTTY: true });
    expect(tty.code).toBe(0);
    expect(tty.stderr).toContain('[1/2] ');
    expect(tty.stderr).toContain('[2/2] ');
    expect(tty.stdout).not.toContain('[2/2]');
    h.config({ platform: { tokens: { a: {}, b: {}, c: {} } } });
    const piped = await h.wd.run(['apply', '--auto-approve', '--now', h.today]);
    expect(piped.code).toBe(0);
    expect(piped.stderr + piped.stdout).not.toMatch(/\[\d+\/\d+\]/);
  });

  it('shows reading progress (requests answered, the last one, elapsed) while a plan reads, on a terminal only', async () => {
    h = await harness();
    h.config({ platform: { tokens: { a: {} } } });
    const tty = await h.wd.run(['plan', '--now', h.today], {}, { isTTY: true });
    expect(tty.code).toBe(0);
    expect(tty.stderr).toMatch(/\[reading\] 1 request\(s\) · GET \/groups\/platform\/access_tokens · \d+\.\d s/);
    expect(tty.stdout).not.toContain('[reading]');
    const piped = await h.wd.run(['plan', '--now', h.today]);
    expect(piped.stderr + piped.stdout).not.toContain('[reading]');
  });
});
