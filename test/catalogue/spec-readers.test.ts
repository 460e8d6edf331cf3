/**
 * The settings spec readers of test/helpers/spec-names.ts that the emulator's conformance tests use
 * (response names, response-only fields, tiers, aliases, the rules of section 2.2): on small
 * documents, and on the real one against the catalogue, which records the same reading.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RESPONSE_ONLY_SETTINGS, SETTING_RULES, SETTINGS } from '../../src/catalogue/index.js';
import {
  SPEC_DIR,
  specAliases,
  specDir,
  specHigherTierFields,
  specResponseNames,
  specResponseOnlyFields,
  specRowTier,
  specSettingRows,
  specSettingRules,
  specTestMode,
} from '../helpers/spec-names.js';

const doc = (table: string, extra = ''): string =>
  [
    '## 2. Resources',
    'The resource is the settings record. Response-only fields: `id` (integer), `created_at` (datetime). The update response also shows `x_ssh_keys` and `x_ssh_key`, while the settings table names the same limits `x_keys` and `x_key`.',
    'Fields only returned on higher tiers: b_enabled, c (update).',
    '### 2.1 Settings',
    '**Main**',
    '| Name | Type | Meaning / constraints |',
    '|---|---|---|',
    table,
    '### 2.2 Dependencies',
    `Master flags and their required settings are listed in the tables above: a_enabled, b_enabled and each throttle_*_enabled flag.${extra}`,
    '## 9. Versioning',
    'The path prefix is `/api/v4`; old_x is deprecated since 17.0 in favour of new_x.',
  ].join('\n');

describe('the settings spec readers', () => {
  it('read the response-only fields and the renamed limits of section 2', () => {
    const md = doc('| a | boolean | |');
    expect(specResponseOnlyFields(md)).toEqual(['id', 'created_at']);
    expect(Object.fromEntries(specResponseNames(md))).toEqual({ x_keys: 'x_ssh_keys', x_key: 'x_ssh_key' });
  });

  it('give a row the top tier for [TT], a higher tier for [HT] or the higher-tier list, else every tier', () => {
    const md = doc('| a | boolean | [TT] |\n| b_enabled | boolean | |\n| d | integer | [SM][HT] |\n| e | string | |');
    const higher = specHigherTierFields(md);
    expect(specSettingRows(md).map((r) => [r.name, specRowTier(r, higher)])).toEqual([
      ['a', 'ultimate'],
      ['b_enabled', 'premium'],
      ['d', 'premium'],
      ['e', 'free'],
    ]);
  });

  it('read aliases from "deprecated; use x", a replaced last word and section 9, but not an open choice', () => {
    const md = doc(
      [
        '| old_email | string | deprecated; use email |',
        '| email | string | |',
        '| proxy_whitelist | string | deprecated; use allowlist |',
        '| proxy_allowlist | string | |',
        '| old_x, new_x | integer | |',
        '| t_enabled | boolean | deprecated 14.3; use the web or api variants |',
      ].join('\n'),
    );
    expect(Object.fromEntries(specAliases(md))).toEqual({ old_email: 'email', proxy_whitelist: 'proxy_allowlist', old_x: 'new_x' });
  });

  it('read the rules from req-by, requires, the (+ …) rows and the throttle flags of section 2.2', () => {
    const md = doc(
      [
        '| a_enabled | boolean | requires default_label, url |',
        '| a_default_label | string | req-by the enabled flag |',
        '| a_url | string | req-by a_enabled |',
        '| b_enabled | boolean | requires the next one |',
        '| b_key | string | req-by b_enabled |',
        '| cert | string | requires key |',
        '| key | string | req-by cert |',
        '| throttle_x_enabled (+ period_in_seconds, requests_per_period) | boolean, integer | same pattern |',
        '| throttle_y_enabled | boolean | conditionally required |',
        '| throttle_y_period_in_seconds, throttle_y_requests_per_period | integer | |',
      ].join('\n'),
    );
    expect(specSettingRules(md)).toEqual([
      { kind: 'required-when-enabled', flag: 'a_enabled', requires: ['a_default_label', 'a_url'] },
      { kind: 'required-when-enabled', flag: 'b_enabled', requires: ['b_key'] },
      { kind: 'required-with', field: 'cert', requires: ['key'] },
      { kind: 'required-when-enabled', flag: 'throttle_x_enabled', requires: ['throttle_x_period_in_seconds', 'throttle_x_requests_per_period'] },
      { kind: 'required-when-enabled', flag: 'throttle_y_enabled', requires: ['throttle_y_period_in_seconds', 'throttle_y_requests_per_period'] },
    ]);
  });

  it('refuse a requires they cannot read and a req-by naming no setting', () => {
    expect(() => specSettingRules(doc('| a_enabled | boolean | requires nothing_known |'))).toThrow(/cannot read "nothing_known"/);
    expect(() => specSettingRules(doc('| a | string | req-by ghost_enabled |'))).toThrow(/unknown setting ghost_enabled/);
  });
});

const dir = specDir();
const path = join(dir ?? SPEC_DIR, 'application-settings.md');
const md = dir && existsSync(path) ? readFileSync(path, 'utf8') : '';

describe.skipIf(specTestMode(md !== '') === 'skip')('the settings spec readers on the settings document', () => {
  const key = (r: { kind: string; flag?: string; field?: string; requires: readonly string[] }): string =>
    JSON.stringify([r.kind, r.flag ?? r.field, [...r.requires].sort()]);

  it('read the same dependency rules as the catalogue records', () => {
    const catalogue = SETTING_RULES.flatMap((r) => (r.kind === 'not-in-list' ? [] : [key(r)])).sort();
    expect(specSettingRules(md).map(key).sort()).toEqual(catalogue);
  });

  it('read aliases the catalogue records as replacements', () => {
    const aliases = specAliases(md);
    expect(aliases.size).toBeGreaterThanOrEqual(8);
    for (const [name, target] of aliases) expect([name, SETTINGS.find((s) => s.name === name)?.deprecated?.replacement]).toEqual([name, target]);
  });

  it('read the response-only fields and response names the catalogue records', () => {
    expect(specResponseOnlyFields(md)).toEqual(RESPONSE_ONLY_SETTINGS.map((f) => f.name));
    const names = Object.fromEntries(SETTINGS.filter((s) => s.responseName).map((s) => [s.name, s.responseName]));
    expect(Object.fromEntries(specResponseNames(md))).toEqual(names);
  });
});
