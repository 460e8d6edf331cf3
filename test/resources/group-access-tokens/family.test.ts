/**
 * Two applies rotating the same token at once: the second rotation is a reuse, and the instance
 * revokes the whole token family. After a rotation, apply confirms with a list that the new token
 * is active before it reports success, and a family revocation is reported loudly either way.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, BASE_DAY, addDays, harness, seedToken } from './helpers.js';
import type { Harness } from './helpers.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const LIST = '/groups/platform/access_tokens';

async function rotateOutside(id: number): Promise<number> {
  const res = await fetch(`${h.emu.url}/api/v4/groups/platform/access_tokens/${id}/rotate`, {
    method: 'POST',
    headers: { 'PRIVATE-TOKEN': ADMIN_TOKEN, 'content-type': 'application/json' },
    body: JSON.stringify({ expires_at: addDays(h.today, 30) }),
  });
  await res.arrayBuffer();
  return res.status;
}

/** Waits for `cond`, up to 30 s: a busy machine may take far longer than an idle one to get there, and giving up early turns the race the test stages around. */
async function until(cond: () => boolean): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > 30_000) throw new Error('the apply never reached the point the test waits for');
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function start(): Promise<void> {
  h = await harness({ groups: [{ full_path: 'platform', access_tokens: [seedToken('ci', 'seeded-ci-family-0001', { id: 7, expires_at: addDays(BASE_DAY, 3) })] }] });
  h.config({ platform: { tokens: { ci: {} } } });
}

describe('a rotation repeated by another apply', () => {
  it('is caught by the list that confirms the rotation, and reported as a family revocation', async () => {
    await start();
    // The confirming list (the third list of the run: plan, apply, confirm) waits while "another
    // apply" rotates id 7 again.
    h.addFault({ method: 'GET', path: LIST, nth: 3, action: { kind: 'latency', ms: 1500 } });
    const run = h.run(['apply', '--auto-approve']);
    await until(() => h.emu.state.tokens.some((t) => t.id === 7 && t.revoked));
    expect(await rotateOutside(7)).toBe(401);
    const r = await run;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_TOKEN_FAMILY_REVOKED');
    expect(r.stderr).toContain('TOKEN FAMILY REVOKED');
    expect(r.stderr).toContain('only one `plumb apply` runs at a time');
    expect(h.active('platform', 'ci')).toEqual([]);
  });

  it('is reported as a family revocation by the apply whose rotation was the reuse', async () => {
    await start();
    // plumb's rotation waits while "another apply" rotates id 7 first.
    h.addFault({ method: 'POST', path: `${LIST}/7/rotate`, nth: 1, action: { kind: 'latency', ms: 1500 } });
    const run = h.run(['apply', '--auto-approve']);
    // Both lists answered and plumb's rotation in flight (held by the latency): it was written to the
    // state file first, asynchronously, so "the lists answered" alone does not mean it was sent.
    await until(() => h.emu.requests.filter((q) => q.method === 'GET' && q.path === LIST).length >= 2 && h.emu.inFlight >= 1);
    expect(await rotateOutside(7)).toBe(200);
    const r = await run;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_TOKEN_FAMILY_REVOKED');
    expect(r.stderr).not.toContain('the instance did not issue a token');
    expect(h.active('platform', 'ci')).toEqual([]);
  });

  it('confirms an ordinary rotation with one list for the group', async () => {
    h = await harness({
      groups: [
        {
          full_path: 'platform',
          access_tokens: [seedToken('a', 'seeded-a-family-00001', { id: 7, expires_at: addDays(BASE_DAY, 3) }), seedToken('b', 'seeded-b-family-00001', { id: 8, expires_at: addDays(BASE_DAY, 3) })],
        },
      ],
    });
    h.config({ platform: { tokens: { a: {}, b: {} } } });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).toMatch(/confirmed id \d+ is active/);
    expect(h.count('GET', /^\/groups\/platform\/access_tokens$/)).toBe(3);
  });
});

describe('a create lost before the instance acted', () => {
  it('is told as a failure with the state plumb found, not as "outcome unknown"', async () => {
    h = await harness();
    h.config({ platform: { tokens: { fresh: {} } } });
    h.addFault({ method: 'POST', path: LIST, nth: 1, action: { kind: 'drop', when: 'before' } });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no token was created');
    expect(r.stderr).not.toMatch(/outcome unknown/i);
  });
});
