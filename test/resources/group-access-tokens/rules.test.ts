/**
 * The token rules on their own: identity, rotation timing, attribute differences, the offline
 * checks of the configuration, the state notes, and swapping the client's credential.
 */
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { groupsOf } from '../../../src/resources/group-access-tokens/model.js';
import { ApiClient } from '../../../src/api/client.js';
import { ApiUnauthorizedError } from '../../../src/api/errors.js';
import { listGroupAccessTokens } from '../../../src/api/group-access-tokens.js';
import type { GroupAccessToken } from '../../../src/api/group-access-tokens.js';
import type { DesiredAccessToken } from '../../../src/resources/group-access-tokens/model.js';
import { loadConfig } from '../../helpers/kinds.js';
import { startTestEmulator } from '../../helpers/emulator.js';
import { StateStore } from '../../../src/engine/state.js';
import { TokenState } from '../../../src/resources/group-access-tokens/state.js';
import { attributeDiffs, daysBetween, identify, rotationReason } from '../../../src/resources/group-access-tokens/identity.js';

const live = (over: Partial<GroupAccessToken>): GroupAccessToken => ({
  id: 1,
  user_id: 100,
  name: 'ci',
  description: null,
  scopes: ['read_api'],
  access_level: 30,
  active: true,
  revoked: false,
  created_at: '2026-01-01T00:00:00.000Z',
  expires_at: '2026-05-01',
  ...over,
});

const declared = (over: Partial<DesiredAccessToken> = {}): DesiredAccessToken => ({
  name: 'ci',
  pointer: '/instances/local/groups/platform/access_tokens/ci',
  scopes: ['read_api'],
  accessLevel: 30,
  rotation: { lifetimeDays: 60, rotateBeforeDays: 7 },
  sinks: [{ kind: 'stdout' }],
  self: false,
  ...over,
});

describe('identity', () => {
  it('is the active token with the name, ignoring revoked and expired ones', () => {
    const id = identify(declared(), [live({ id: 1, revoked: true, active: false }), live({ id: 2 }), live({ id: 3, active: false })], new Set());
    expect(id).toMatchObject({ kind: 'found', live: { id: 2 } });
  });

  it('is ambiguous with two active tokens of one name, and an id pin chooses', () => {
    const tokens = [live({ id: 1 }), live({ id: 2 })];
    expect(identify(declared(), tokens, new Set())).toMatchObject({ kind: 'ambiguous' });
    expect(identify(declared({ id: 2 }), tokens, new Set())).toMatchObject({ kind: 'found', live: { id: 2 } });
  });

  it('falls back to the name when the pin names a revoked token, and refuses a pin on another name', () => {
    expect(identify(declared({ id: 1 }), [live({ id: 1, revoked: true, active: false }), live({ id: 5 })], new Set())).toMatchObject({ kind: 'found', live: { id: 5 }, staleId: 1 });
    expect(identify(declared({ id: 9 }), [live({ id: 9, name: 'other' })], new Set())).toMatchObject({ kind: 'id-mismatch' });
  });

  it('never takes a replaced token waiting for revocation as the declared one', () => {
    expect(identify(declared(), [live({ id: 1 }), live({ id: 2 })], new Set([1]))).toMatchObject({ kind: 'found', live: { id: 2 } });
  });

  it('says why it is absent: the most recent inactive token with the name', () => {
    const id = identify(declared(), [live({ id: 1, active: false }), live({ id: 4, revoked: true, active: false })], new Set());
    expect(id).toMatchObject({ kind: 'absent', previous: { id: 4 } });
  });
});

describe('rotation timing and differences', () => {
  it('rotates inside the window, including its last day, and not a day before', () => {
    expect(daysBetween('2026-03-01', '2026-03-08')).toBe(7);
    expect(rotationReason(declared(), live({ expires_at: '2026-03-08' }), '2026-03-01')).toBe('expiring-soon');
    expect(rotationReason(declared(), live({ expires_at: '2026-03-09' }), '2026-03-01')).toBeUndefined();
  });

  it('rotates a token without expiry, or one that outlives a shortened lifetime, with expiry-changed', () => {
    expect(rotationReason(declared(), live({ expires_at: null }), '2026-03-01')).toBe('expiry-changed');
    expect(rotationReason(declared(), live({ expires_at: '2026-06-01' }), '2026-03-01')).toBe('expiry-changed');
    expect(rotationReason(declared({ rotation: undefined, expiresAt: '2026-05-01' }), live({}), '2026-03-01')).toBeUndefined();
    expect(rotationReason(declared({ rotation: undefined, expiresAt: '2026-05-02' }), live({}), '2026-03-01')).toBe('expiry-changed');
  });

  it('compares scopes as sets and manages the description only when declared', () => {
    expect(attributeDiffs(declared({ scopes: ['b', 'a'] }), live({ scopes: ['a', 'b'] }))).toEqual([]);
    expect(attributeDiffs(declared(), live({ description: 'anything' }))).toEqual([]);
    expect(attributeDiffs(declared({ description: '' }), live({ description: null }))).toEqual([]);
    expect(attributeDiffs(declared({ accessLevel: 40 }), live({}))).toEqual([{ name: 'access_level', before: 30, after: 40 }]);
  });
});

describe('configuration checks', () => {
  function validate(tokens: string, extraGroups = ''): ReturnType<typeof loadConfig> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-rules-'));
    mkdirSync(path.join(dir, 'hooks'));
    writeFileSync(
      path.join(dir, 'plumb.yaml'),
      `version: 1
instances:
  local:
    url: http://127.0.0.1:1
    token_env: PLUMB_TOKEN
    groups:
      platform:
        access_tokens:
${tokens}
${extraGroups}`,
    );
    return loadConfig([], { cwd: dir, today: '2026-03-01' });
  }
  const codes = (r: ReturnType<typeof loadConfig>) => r.diagnostics.map((d) => d.code);

  it('accepts an id pin and refuses one that is not a positive integer', () => {
    const ok = validate('          ci: {id: 12, scopes: [api], expires_at: 2026-06-01, sink: {stdout: true}}');
    expect(codes(ok)).toEqual([]);
    expect(groupsOf(ok.config!.instances[0]!)[0]!.accessTokens[0]!.id).toBe(12);
    expect(codes(validate('          ci: {id: 0, scopes: [api], expires_at: 2026-06-01, sink: {stdout: true}}'))).toContain('PLUMB_OUT_OF_RANGE');
  });

  it('refuses two tokens delivering into the same file', () => {
    const r = validate('          a: {scopes: [api], expires_at: 2026-06-01, sink: {file: s/t.token}}\n          b: {scopes: [api], expires_at: 2026-06-01, sink: {file: s/t.token}}');
    expect(codes(r)).toContain('PLUMB_TOKEN_SINK_SHARED');
  });

  it("refuses plumb's own credential marked in two groups of one instance", () => {
    const r = validate(
      '          a: {scopes: [api], expires_at: 2026-06-01, sink: {stdout: true}, self: true}',
      '      other:\n        access_tokens:\n          b: {scopes: [self_rotate], expires_at: 2026-06-01, sink: {stdout: true}, self: true}\n',
    );
    expect(codes(r)).toContain('PLUMB_TOKEN_SELF_TWICE');
  });

  it('resolves a command written as a relative path against the YAML file, and leaves a bare name for PATH', () => {
    const r = validate('          a: {scopes: [api], expires_at: 2026-06-01, sink: {command: [./hooks/store.sh, x]}}\n          b: {scopes: [api], expires_at: 2026-06-01, sink: {command: [vault, put]}}');
    const [a, b] = groupsOf(r.config!.instances[0]!)[0]!.accessTokens;
    expect(a!.sinks[0]).toMatchObject({ kind: 'command', argv: [expect.stringMatching(/plumb-rules-[^/]+\/hooks\/store\.sh$/), 'x'] });
    expect(b!.sinks[0]).toMatchObject({ kind: 'command', argv: ['vault', 'put'] });
    expect(codes(validate('          a: {scopes: [api], expires_at: 2026-06-01, sink: {command: [""]}}'))).toContain('PLUMB_STRING_FORMAT');
  });
});

describe('state notes', () => {
  it('round-trips token notes and reads a state file written before tokens existed', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-state-'));
    const file = path.join(dir, 'state.json');
    writeFileSync(file, JSON.stringify({ version: 1, instances: { 'https://x': { settings: {} } } }));
    const store = StateStore.open(file);
    const s = new TokenState(store);
    expect(s.tokenNotes('https://x')).toEqual([]);
    s.recordTokenNote('https://x', { id: 7, group: 'g', name: 'ci', kind: 'secret-not-received', at: '2026-03-01T00:00:00.000Z' });
    store.save();
    const again = new TokenState(StateStore.open(file));
    expect(again.tokenNote('https://x', 7)?.kind).toBe('secret-not-received');
    expect(again.clearTokenNote('https://x', 7)).toBe(true);
    expect(again.clearTokenNote('https://x', 7)).toBe(false);
  });
});

describe('the client credential', () => {
  it('sends the new credential after replaceToken', async () => {
    const emu = await startTestEmulator({
      seed: {
        users: [
          { username: 'root', admin: true, personal_access_tokens: [{ name: 'a', token: 'first-credential-000001', scopes: ['api'] }, { name: 'b', token: 'second-credential-00002', scopes: ['api'] }] },
        ],
        groups: [{ full_path: 'platform' }],
      },
    });
    const client = new ApiClient({ baseUrl: emu.url, token: 'first-credential-000001', maxAttempts: 1 });
    try {
      await listGroupAccessTokens(client, 'platform');
      emu.state.tokens.find((t) => t.name === 'a')!.revoked = true;
      client.replaceToken('second-credential-00002');
      await expect(listGroupAccessTokens(client, 'platform')).resolves.toEqual([]);
      client.replaceToken('not-a-known-credential');
      const err = await listGroupAccessTokens(client, 'platform').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiUnauthorizedError);
    } finally {
      await client.close();
      await emu.close();
    }
  });
});
