/**
 * Text the instance's own users write — a group token's name, the host in a lock file a Developer of
 * the lock project can write — reaches the CI log through every human output cleaned of control
 * characters (issue 28, item 5): drift's report and apply's "waiting for the lock" line, as the plan,
 * markdown and JUnit already were. ESC sequences would erase or recolour lines, and the service's
 * collapsible-section markers (`section_start:…\r\x1b[0K`) would fold or hide them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { addDays, BASE_DAY, harness, seedToken } from '../resources/group-access-tokens/helpers.js';
import type { Harness } from '../resources/group-access-tokens/helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Erase the line, a forged section end, a C1 CSI and a right-to-left override. */
const HOSTILE = 'x\u001b[2K\rsection_end:1700000000:plumb_read\r\u001b[0K\u009b31m\u202eevil';
const SHOWN = 'x[2Ksection_end:1700000000:plumb_read[0K31mevil';
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe('instance text in human output', () => {
  it("drift's report shows a token name without its control characters", async () => {
    h = await harness({ groups: [{ full_path: 'platform', access_tokens: [seedToken('ci', 'seeded-ci-00000000001', { id: 7, expires_at: addDays(BASE_DAY, 50) }), seedToken(HOSTILE, 'seeded-hostile-0000001', { id: 9, expires_at: addDays(BASE_DAY, 90) })] }] });
    h.config({ platform: { tokens: { ci: {} } } });
    const r = await h.run(['drift']);
    expect(r.stdout, r.stdout + r.stderr).toContain(SHOWN);
    expect(r.stdout).not.toMatch(CONTROL);
    expect(r.stderr).not.toMatch(CONTROL);
  });

  it("apply's waiting-for-the-lock line shows the holder's host without its control characters", async () => {
    h = await harness({ groups: [{ full_path: 'platform' }, { full_path: 'ops' }], projects: [{ path_with_namespace: 'ops/locks', files: { 'README.md': 'locks\n' } }] });
    h.config({ platform: { tokens: {} } });
    h.wd.write('plumb.yaml', h.wd.read('plumb.yaml').replace('    token_env: PLUMB_TOKEN\n', '    token_env: PLUMB_TOKEN\n    lock: {project: ops/locks, path: locks/plumb.json}\n'));
    const now = Date.now();
    const lock = { plumb_lock: 1, holder: { id: 'elsewhere-0001', host: HOSTILE, pid: 4242, command: 'plumb apply' }, acquired_at: new Date(now - 60_000).toISOString(), expires_at: new Date(now + 3_600_000).toISOString() };
    const harnessed = h;
    harnessed.emu.state.pushFile('ops/locks', { path: 'locks/plumb.json', content: JSON.stringify(lock), message: 'plumb: lock apply' });
    setTimeout(() => harnessed.emu.state.pushFile('ops/locks', { path: 'locks/plumb.json', content: null, message: 'plumb: unlock' }), 1500);
    const r = await h.run(['apply', '--auto-approve', '--lock-timeout', '60s']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`waiting for the lock on the instance "local"`);
    expect(r.stderr).toContain(`on host ${SHOWN}`);
    expect(r.stderr).not.toMatch(CONTROL);
    expect(r.stdout).not.toMatch(CONTROL);
  });
});
