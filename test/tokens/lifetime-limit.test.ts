/**
 * Lowering max_personal_access_token_lifetime: the instance revokes every token that outlives the
 * new limit. plumb flags it as a risk naming the tokens it revokes (its own first), refuses it
 * unless accepted, and after applying it reports which managed tokens the instance revoked.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { secret } from '../helpers/cli.js';
import { BASE_DAY, addDays, harness, seedToken } from './helpers.js';
import type { Harness } from './helpers.js';

const OPS_TOKEN = secret('ops-admin-token-lifetime-000001');

let h: Harness;
afterEach(async () => {
  await h?.close();
});

async function start(opts: { ownExpires?: string } = {}): Promise<void> {
  h = await harness({
    users: opts.ownExpires ? [{ username: 'ops', admin: true, personal_access_tokens: [{ name: 'plumb-ops', token: OPS_TOKEN, scopes: ['api'], expires_at: opts.ownExpires }] }] : [],
    groups: [
      {
        full_path: 'platform',
        access_tokens: [
          seedToken('deployer', 'seeded-deployer-00001', { id: 11, expires_at: addDays(BASE_DAY, 60) }),
          seedToken('short', 'seeded-short-0000001', { id: 12, expires_at: addDays(BASE_DAY, 10) }),
        ],
      },
    ],
  });
  h.wd.write(
    'plumb.yaml',
    `version: 1
instances:
  local:
    url: ${h.emu.url}
    token_env: PLUMB_TOKEN
    settings_verify_seconds: 0
    settings:
      max_personal_access_token_lifetime: 30
    groups:
      platform:
        access_tokens:
          short:
            scopes: [read_api]
            access_level: 30
            expires_at: ${addDays(BASE_DAY, 10)}
            sink: {file: secrets/short.token}
`,
  );
  h.allow('secrets/short.token');
}

const env = (): Record<string, string> => (h.emu.state.tokenByValue(OPS_TOKEN) ? { PLUMB_TOKEN: OPS_TOKEN } : {});

describe('lowering the token lifetime limit', () => {
  it('is a risk naming the managed tokens it revokes, refused at apply until accepted', async () => {
    await start({ ownExpires: addDays(BASE_DAY, 20) });
    const plan = await h.run(['plan', '--json'], env());
    expect(plan.code).toBe(0);
    const risks = JSON.parse(plan.stdout).risks;
    expect(risks).toHaveLength(1);
    expect(risks[0]).toMatchObject({ id: 'token-lifetime-lowered', address: 'local.application_settings', acknowledged: false });
    expect(risks[0].summary).toContain('"deployer" of group "platform" (id 11');
    expect(risks[0].summary).not.toContain('"short"');
    expect(risks[0].summary).not.toContain("plumb's own");

    const refused = await h.run(['apply', '--auto-approve'], env());
    expect(refused.code).toBe(1);
    expect(refused.stderr + refused.stdout).toContain('token-lifetime-lowered');
    expect(h.active('platform', 'deployer')).toHaveLength(1);
  });

  it("names plumb's own token first when it outlives the limit", async () => {
    await start();
    const plan = await h.run(['plan', '--json']);
    const risks = JSON.parse(plan.stdout).risks;
    expect(risks.map((r: { id: string }) => r.id)).toEqual(['token-lifetime-revokes-credential']);
    const summary: string = risks[0].summary;
    expect(summary.indexOf("plumb's own token")).toBeGreaterThan(-1);
    expect(summary.indexOf("plumb's own token")).toBeLessThan(summary.indexOf('"deployer"'));
  });

  it('reports after apply which managed tokens the instance revoked', async () => {
    await start({ ownExpires: addDays(BASE_DAY, 20) });
    const r = await h.run(['apply', '--auto-approve', '--allow-risky'], env());
    expect(h.active('platform', 'deployer')).toHaveLength(0);
    expect(h.active('platform', 'short')).toHaveLength(1);
    const out = r.stdout + r.stderr;
    expect(out).toContain('PLUMB_TOKENS_REVOKED_BY_LIMIT');
    expect(out).toMatch(/revoke 1 managed token\(s\): "deployer" of group "platform" \(id 11/);
  });
});
