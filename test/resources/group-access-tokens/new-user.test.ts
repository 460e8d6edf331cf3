/**
 * The "done when", as a new user would do it: three tokens with a rotation policy, apply,
 * time passes (--now), drift says so, apply rotates them, the new secrets are in their files, and
 * nothing secret ever shows on screen (the harness checks every output and file).
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { BASE_DAY, addDays, expectNoFamilyRevoked, expectNoRepeatedRotation, harness } from './helpers.js';
import type { Harness } from './helpers.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

it('declares three tokens with a rotation policy, applies them, and rotates them once --now passes the window', async () => {
  h = await harness({ groups: [{ full_path: 'platform' }, { full_path: 'platform/infra' }] });
  const rotation = { lifetime_days: 30, rotate_before_days: 7 };
  h.config({
    platform: { tokens: { 'ci-deployer': { scopes: ['api'], access_level: 'maintainer', rotation }, 'registry-reader': { scopes: ['read_registry'], rotation } } },
    'platform/infra': { tokens: { 'docs-bot': { scopes: ['read_repository', 'write_repository'], rotation } } },
  });
  const names = ['ci-deployer', 'registry-reader', 'docs-bot'];

  expect((await h.run(['validate'])).code).toBe(0);
  const plan = await h.run(['plan']);
  expect(plan.stdout).toContain('Plan: 3 to add, 0 to change, 0 to destroy.');
  expect(plan.stdout).toContain('+ token = "(sensitive value)"');
  const first = await h.run(['apply', '--auto-approve']);
  expect(first.code).toBe(0);
  const before = new Map(names.map((n) => [n, h.sinkValue(n)!]));
  for (const n of names) {
    expect(before.get(n)).toMatch(/^svc-/);
    expect(statSync(path.join(h.wd.dir, 'secrets', `${n}.token`)).mode & 0o777).toBe(0o600);
  }
  expect((await h.run(['drift'])).code).toBe(0);

  // Three weeks and two days later: every token expires within a week.
  const later = addDays(BASE_DAY, 23);
  const drift = await h.run(['drift', '--now', later]);
  expect(drift.code).toBe(2);
  expect(drift.stdout.match(/within rotate_before_days \(7\)/g)).toHaveLength(3);
  const apply = await h.run(['apply', '--auto-approve', '--now', later]);
  expect(apply.code).toBe(0);
  expect(apply.stdout).toContain('Apply complete: 3 applied, 0 failed, 0 skipped.');
  for (const n of names) {
    const now = h.sinkValue(n)!;
    expect(now).not.toBe(before.get(n));
    const t = h.tokenInSink(n)!;
    expect(h.emu.state.isActive(t)).toBe(true);
    expect(t.expiresAt).toBe(addDays(later, 30));
    expect(h.emu.state.tokenByValue(before.get(n)!)!.revoked).toBe(true);
  }
  expect((await h.run(['drift', '--now', later])).code).toBe(0);
  expectNoRepeatedRotation(h.emu);
  expectNoFamilyRevoked(h.emu);
});
