/**
 * A token revoked between plan and apply (outside plumb, or by a concurrent run): the instance
 * answers 400 to revoking it again (spec: "400 when not revoked successfully"). That is the outcome
 * apply wanted, so apply re-lists the group and reports it as already revoked, not as a failure.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runApply } from '../../../src/commands/reconcile.js';
import { ADMIN_TOKEN, harness, ISSUED, seedToken } from './helpers.js';
import type { Harness } from './helpers.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** An unsaved apply whose confirmation first runs `between`: something happens between plan and apply. */
async function applyWithBetween(between: () => void): Promise<{ code: number; out: string }> {
  let out = '';
  const code = await runApply(
    {
      config: [path.join(h.wd.dir, 'plumb.yaml')],
      json: false,
      autoApprove: false,
      now: h.today,
      confirm: async () => {
        between();
        return true;
      },
    },
    { stdout: (s) => (out += s), stderr: (s) => (out += s), isTTY: false, env: { PLUMB_TOKEN: ADMIN_TOKEN, PATH: process.env.PATH ?? '' }, cwd: h.wd.dir },
  );
  expect(out.match(ISSUED), 'no issued secret in the output').toBeNull();
  return { code, out };
}

describe('a token revoked between plan and apply', () => {
  it('that pruning revokes: apply succeeds and says it was already revoked', async () => {
    h = await harness({ groups: [{ full_path: 'platform', access_tokens: [seedToken('keep', 'seeded-keep-00000011'), seedToken('stray', 'seeded-stray-0000011', { id: 40 })] }] });
    h.config({ platform: { prune: true, tokens: { keep: {} } } });
    const r = await applyWithBetween(() => h.emu.state.revoke(h.emu.state.tokenById(40)!));
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('id 40 was already revoked (outside plumb, or by a concurrent run)');
    expect(h.emu.requests.filter((q) => q.method === 'DELETE').map((q) => q.status)).toEqual([400]);
    expect(h.active('platform', 'keep')).toHaveLength(1);
  });

  it('that a replacement revokes: apply succeeds, the new token is delivered, and says the old one was already revoked', async () => {
    h = await harness({ groups: [{ full_path: 'platform', access_tokens: [seedToken('ci', 'seeded-ci-000000011', { id: 11, scopes: ['read_api'] })] }] });
    h.config({ platform: { tokens: { ci: { scopes: ['api'] } } } });
    const r = await applyWithBetween(() => h.emu.state.revoke(h.emu.state.tokenById(11)!));
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('the old token id 11 was already revoked (outside plumb, or by a concurrent run)');
    expect(r.out).not.toContain('PLUMB_TOKEN_REVOKE_FAILED');
    const fresh = h.tokenInSink('ci')!;
    expect(h.emu.state.isActive(fresh)).toBe(true);
    expect(fresh.scopes).toEqual(['api']);
  });

  it('still fails when the instance refuses to revoke a token that stays active', async () => {
    h = await harness({ groups: [{ full_path: 'platform', access_tokens: [seedToken('keep', 'seeded-keep-00000012'), seedToken('stray', 'seeded-stray-0000012', { id: 41 })] }] });
    h.config({ platform: { prune: true, tokens: { keep: {} } } });
    h.addFault({ method: 'DELETE', path: '/groups/platform/access_tokens/41', action: { kind: 'status', status: 400 } });
    const r = await applyWithBetween(() => {});
    expect(r.code).toBe(1);
    expect(r.out).toContain('PLUMB_TOKEN_REVOKE_FAILED');
    expect(h.emu.requests.filter((q) => q.method === 'DELETE'), 'a 400 for an active token is not repeated').toHaveLength(1);
  });
});
