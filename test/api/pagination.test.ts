/** Pagination of lists against the emulator (offset pages with Link and X-Next-Page headers). */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiPath, listGroupAccessTokens } from '../../src/api/index.js';
import type { GroupAccessToken } from '../../src/api/index.js';
import { startHarness } from './emulator-fixture.js';
import type { Harness } from './emulator-fixture.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ tokens: 250 });
});
afterAll(async () => {
  await h.close();
});
beforeEach(() => {
  h.emulator.clearFaults();
  h.emulator.resetRequests();
});

const listRequests = () => h.emulator.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/access_tokens'));

describe('pagination against the emulator', () => {
  it('collects all 250 tokens of a group over three pages of 100', async () => {
    const { items, pages } = await h.client.listAll<GroupAccessToken>({ path: apiPath`/groups/${'platform'}/access_tokens` });
    expect(pages).toBe(3);
    expect(items).toHaveLength(250);
    expect(new Set(items.map((t) => t.id)).size).toBe(250);
    expect(listRequests().map((r) => new URLSearchParams(r.query).get('page'))).toEqual([null, '2', '3']);
    expect(listRequests().every((r) => new URLSearchParams(r.query).get('per_page') === '100')).toBe(true);
  });

  it('keeps the filters on every page it follows', async () => {
    const tokens = await listGroupAccessTokens(h.client, 'platform', { search: 'ci-', sort: 'name_desc', state: 'active' });
    expect(tokens).toHaveLength(250);
    expect(tokens[0]?.name).toBe('ci-249');
    expect(tokens.at(-1)?.name).toBe('ci-000');
    for (const r of listRequests()) {
      const q = new URLSearchParams(r.query);
      expect([q.get('search'), q.get('sort'), q.get('state')]).toEqual(['ci-', 'name_desc', 'active']);
    }
  });

  it('stops after one page when the list fits in it', async () => {
    const tokens = await listGroupAccessTokens(h.client, 'platform', { search: 'ci-1' });
    expect(tokens.map((t) => t.name)).toEqual(Array.from({ length: 100 }, (_, i) => `ci-${100 + i}`));
    expect(listRequests()).toHaveLength(1);
  });

  it('fetches only the pages an async iterator consumer reads', async () => {
    const names: string[] = [];
    for await (const token of h.client.paginate<GroupAccessToken>({ path: apiPath`/groups/${'platform'}/access_tokens` })) {
      names.push(token.name);
      if (names.length === 120) break;
    }
    expect(names).toHaveLength(120);
    expect(listRequests()).toHaveLength(2);
  });

  it('retries a page that fails in the middle of the walk without losing or repeating items', async () => {
    h.emulator.addFault({ method: 'GET', path: '/groups/*/access_tokens', nth: 2, action: { kind: 'status', status: 503 } });
    const tokens = await listGroupAccessTokens(h.client, 'platform');
    expect(tokens).toHaveLength(250);
    expect(new Set(tokens.map((t) => t.id)).size).toBe(250);
    expect(listRequests().map((r) => r.status)).toEqual([200, 503, 200, 200]);
  });
});
