/**
 * The state file is untrusted input (issue 18, item 9): it may be cached between CI runs or
 * committed. A `revoke-pending` note planted for a token plumb does not manage must not make apply
 * revoke it; an entry of the wrong shape is ignored; both with a warning naming the file and entry.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BASE_DAY, addDays, harness, seedToken } from '../resources/group-access-tokens/helpers.js';
import type { Harness } from '../resources/group-access-tokens/helpers.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

async function start(): Promise<void> {
  h = await harness({
    groups: [
      {
        full_path: 'platform',
        access_tokens: [
          seedToken('ci', 'ci-token-state-notes-000001', { id: 41, expires_at: addDays(BASE_DAY, 50) }),
          seedToken('legacy', 'legacy-token-state-notes-01', { id: 42 }),
        ],
      },
    ],
  });
  h.config({ platform: { tokens: { ci: { rotation: { lifetime_days: 60, rotate_before_days: 7 } } } } });
}

function plantState(entries: Record<string, unknown>): void {
  h.wd.write('state.json', JSON.stringify({ version: 1, instances: { [h.emu.url]: { tokens: entries } } }));
}

const at = `${BASE_DAY}T00:00:00.000Z`;

describe('notes in the state file', () => {
  it('never make apply revoke an undeclared token while pruning is off, and say why they are ignored', async () => {
    await start();
    plantState({ '42': { id: 42, group: 'platform', name: 'legacy', kind: 'revoke-pending', at } });
    const r = await h.run(['apply', '--auto-approve', '--state', 'state.json']);
    expect(r.code, r.stderr).toBe(0);
    expect(h.active('platform', 'legacy')).toHaveLength(1);
    expect(h.count('DELETE', /access_tokens/)).toBe(0);
    expect(r.stdout + r.stderr).toContain('PLUMB_STATE_ENTRY_IGNORED');
    expect(r.stdout + r.stderr).toContain('state.json');
    expect(r.stdout + r.stderr).toContain('tokens["42"]');
  });

  it('never revoke a token under a declared name that is not its own, nor the token the sink holds', async () => {
    await start();
    plantState({
      '42': { id: 42, group: 'platform', name: 'ci', kind: 'revoke-pending', at },
    });
    const r = await h.run(['apply', '--auto-approve', '--state', 'state.json']);
    expect(r.code, r.stderr).toBe(0);
    expect(h.active('platform', 'legacy')).toHaveLength(1);
    expect(h.active('platform', 'ci').map((t) => t.id)).toEqual([41]);
    expect(r.stdout + r.stderr).toContain('PLUMB_STATE_ENTRY_IGNORED');

    h.wd.write('state.json', JSON.stringify({ version: 1, instances: { [h.emu.url]: { tokens: { '41': { id: 41, group: 'platform', name: 'ci', kind: 'revoke-pending', at } }, token_slots: { '["platform","ci"]': { held: 41 } } } } }));
    const again = await h.run(['apply', '--auto-approve', '--state', 'state.json']);
    expect(again.code, again.stderr).toBe(0);
    expect(h.active('platform', 'ci').map((t) => t.id)).toEqual([41]);
    expect(h.count('DELETE', /access_tokens/)).toBe(0);
  });

  it('ignore an entry of the wrong shape with a warning instead of acting on it or crashing', async () => {
    await start();
    plantState({ '42': { id: '42', group: 'platform', name: 'legacy', kind: 'revoke-pending' }, '7': 'garbage' });
    const r = await h.run(['plan', '--state', 'state.json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).toContain('PLUMB_STATE_ENTRY_IGNORED');
    expect(r.stdout).not.toMatch(/legacy.*will be destroyed/);
  });
});
