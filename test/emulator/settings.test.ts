/** Conformance: application settings (GET/PUT /application/settings), spec sections 2, 2.1, 2.2, 4, 5, 8. */
import { SECRET_SETTINGS } from '../helpers/secret-settings.js';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SETTINGS, type SettingSpec } from '../../src/catalogue/index.js';
import { createEmulatorState } from '../../src/emulator/index.js';
import { ADMIN, ADMIN_READ, OWNER, SEED, start, type Api, type Clock } from './helpers.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
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
  type SpecSettingRow,
} from '../helpers/spec-names.js';

const settingsSpecPath = join(specDir() ?? SPEC_DIR, 'application-settings.md');
const settingsSpec = existsSync(settingsSpecPath) ? readFileSync(settingsSpecPath, 'utf8') : '';
/** The spec's facts (section 2, 2.1 and 2.2): skipped without the documents on a user's machine, failing without them in CI. */
const SPEC_SKIP = specTestMode(settingsSpec !== '') === 'skip';
const read = <T>(f: (markdown: string) => T, none: T): T => (settingsSpec === '' ? none : f(settingsSpec));
/** Every setting of the tables of section 2.1 (the removed ones are not there). */
const rows: SpecSettingRow[] = read(specSettingRows, []);
const higher = read(specHigherTierFields, new Map<string, 'read' | 'update' | 'both'>());
const renamed = read(specResponseNames, new Map<string, string>());
const responseName = (name: string): string => renamed.get(name) ?? name;
const tierOf = (r: SpecSettingRow): 'free' | 'premium' | 'ultimate' => specRowTier(r, higher);
/**
 * Not from the spec: the spec does not say whether keys, passwords and tokens are returned. The
 * emulator omits them (docs/emulator.md, "Settings: secrets in responses"), which is what plumb
 * treats as write-only.
 */
const SECRETS = new Set(SECRET_SETTINGS);
/**
 * Not from the spec: deprecated rows that name no single replacement ("use the web_hooks variant",
 * "use the web or api variants"); the real API copies them to these (its legacy-parameter handling).
 */
const ALIASES_NOT_FROM_SPEC: Record<string, string> = {
  allow_local_requests_from_hooks_and_services: 'allow_local_requests_from_web_hooks_and_services',
  throttle_unauthenticated_enabled: 'throttle_unauthenticated_web_enabled',
  throttle_unauthenticated_period_in_seconds: 'throttle_unauthenticated_web_period_in_seconds',
  throttle_unauthenticated_requests_per_period: 'throttle_unauthenticated_web_requests_per_period',
};
const aliases = new Map([...read(specAliases, new Map<string, string>()), ...Object.entries(ALIASES_NOT_FROM_SPEC)]);
/** The dependency rules of section 2.2, read from the tables. */
const rules = read(specSettingRules, []);

// The value bounds of the validation tests below are still the catalogue's (not yet read from the spec).
const current = SETTINGS.filter((s) => !s.removed);
const isAlias = (s: SettingSpec): boolean => {
  const r = s.deprecated?.replacement;
  return r !== undefined && SETTINGS.some((x) => x.name === r);
};
/** Settings a test may write directly (not aliases, not read-only). */
const writable = current.filter((s) => !s.readOnly && !isAlias(s));
const catalogueResponseName = (s: SettingSpec): string => s.responseName ?? s.name;
/** "Removed from the interface" (application-settings.md, section 2), written from the spec, not the catalogue. */
const REMOVED = ['delayed_project_deletion', 'delayed_group_deletion', 'in_product_marketing_emails_enabled', 'repository_storages', 'user_email_lookup_limit'];

let emulator: RunningEmulator;
let api: Api;
let clock: Clock;

beforeAll(async () => {
  ({ emulator, api, clock } = await start());
});
afterAll(() => emulator.close());

describe('GET /application/settings', () => {
  it.skipIf(SPEC_SKIP)('returns 200 with every non-secret setting of the spec tables under its response name', async () => {
    const r = await api.get('/application/settings', { token: ADMIN });
    expect(r.status).toBe(200);
    expect(rows.length).toBeGreaterThan(300);
    const missing = rows.filter((s) => !SECRETS.has(s.name) && !(responseName(s.name) in r.body)).map((s) => s.name);
    expect(missing).toEqual([]);
  });

  it('omits the settings removed from the interface', async () => {
    const r = await api.get('/application/settings', { token: ADMIN });
    for (const name of REMOVED) expect(r.body).not.toHaveProperty(name);
  });

  it.skipIf(SPEC_SKIP)('omits secret settings from the response', async () => {
    const r = await api.get('/application/settings', { token: ADMIN });
    // Every secret is a setting of the spec tables (the list itself is not from the spec: see SECRETS).
    expect([...SECRETS].filter((n) => !rows.some((s) => s.name === n))).toEqual([]);
    for (const name of SECRETS) expect(r.body).not.toHaveProperty(responseName(name));
  });

  it.skipIf(SPEC_SKIP)('includes the response-only fields of section 2 (id, created_at, updated_at, the prompt-cache flags)', async () => {
    const r = await api.get('/application/settings', { token: ADMIN });
    const fields = read(specResponseOnlyFields, []);
    expect(fields).toEqual(expect.arrayContaining(['id', 'created_at', 'updated_at']));
    for (const f of fields) expect(r.body).toHaveProperty(f);
    expect(r.body.id).toBe(1);
    expect(r.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('names the SSH key limits users_api_limit_ssh_keys and users_api_limit_ssh_key in responses', async () => {
    const r = await api.get('/application/settings', { token: ADMIN });
    if (!SPEC_SKIP) expect(Object.fromEntries(renamed)).toEqual({ users_api_limit_keys: 'users_api_limit_ssh_keys', users_api_limit_key: 'users_api_limit_ssh_key' });
    expect(r.body.users_api_limit_ssh_keys).toBe(120);
    expect(r.body.users_api_limit_ssh_key).toBe(120);
    expect(r.body).not.toHaveProperty('users_api_limit_keys');
  });

  it('returns the catalogue default of every setting that has one', async () => {
    const r = await api.get('/application/settings', { token: ADMIN });
    for (const s of writable.filter((x) => 'default' in x && !x.secret)) {
      expect(r.body[catalogueResponseName(s)], s.name).toEqual(s.default);
    }
  });

  it('returns a value of the right type for settings without a stated default', async () => {
    const r = await api.get('/application/settings', { token: ADMIN });
    for (const s of writable.filter((x) => !('default' in x) && !x.secret)) {
      const v = r.body[catalogueResponseName(s)];
      if (v === null) continue;
      if (s.type === 'boolean') expect(typeof v, s.name).toBe('boolean');
      if (s.type === 'integer') expect(Number.isInteger(v), s.name).toBe(true);
      if (s.type === 'float') expect(typeof v, s.name).toBe('number');
      if (s.type === 'string' || s.type === 'text') expect(typeof v, s.name).toBe('string');
      if (s.type.endsWith('[]')) expect(Array.isArray(v), s.name).toBe(true);
      if (s.type === 'hash' || s.type === 'object') expect(typeof v, s.name).toBe('object');
    }
  });

  it('shows a deprecated alias with the value of the setting it stands for', async () => {
    const r = await api.get('/application/settings', { token: ADMIN });
    expect(r.body.signin_enabled).toBe(r.body.password_authentication_enabled_for_web);
    expect(r.body.admin_notification_email).toBe(r.body.abuse_notification_email);
  });

  it('is refused with 401 without a token', async () => {
    const r = await api.get('/application/settings');
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ message: '401 Unauthorized' });
  });

  it('is refused with 401 for an unknown token', async () => {
    const r = await api.get('/application/settings', { token: 'nope-nope-nope' });
    expect(r.status).toBe(401);
  });

  it('is refused with 403 for a non-administrator', async () => {
    const r = await api.get('/application/settings', { token: OWNER });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ message: '403 Forbidden' });
  });

  it('is allowed with a read_api token of an administrator', async () => {
    expect((await api.get('/application/settings', { token: ADMIN_READ })).status).toBe(200);
  });

  it('accepts the Authorization: Bearer header as well as PRIVATE-TOKEN', async () => {
    const r = await api.get('/application/settings', { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(r.status).toBe(200);
  });
});

describe('PUT /application/settings: encodings and coercion', () => {
  beforeEach(() => {
    emulator.state.settingsCache = null;
  });

  it('accepts a JSON body and returns 200 with the full updated object', async () => {
    const r = await api.put('/application/settings', { token: ADMIN, json: { signup_enabled: false, max_login_attempts: 7 } });
    expect(r.status).toBe(200);
    expect(r.body.signup_enabled).toBe(false);
    expect(r.body.max_login_attempts).toBe(7);
    expect(Object.keys(r.body).length).toBeGreaterThan(300);
    expect(emulator.state.settings['signup_enabled']).toBe(false);
  });

  it('accepts query-string parameters as in the reference request', async () => {
    const r = await api.put('/application/settings', { token: ADMIN, query: 'signup_enabled=true&max_login_attempts=9' });
    expect(r.status).toBe(200);
    expect(r.body.signup_enabled).toBe(true);
    expect(r.body.max_login_attempts).toBe(9);
  });

  it('accepts a form body with key[]= arrays and key[sub]= hashes', async () => {
    const r = await api.put('/application/settings', {
      token: ADMIN,
      form: {
        'import_sources[]': ['git', 'manifest'],
        'diagram_render_formats[bpmn]': 'true',
        'repository_storages_weighted[default]': '100',
        first_day_of_week: '1',
      },
    });
    expect(r.status).toBe(200);
    expect(r.body.import_sources).toEqual(['git', 'manifest']);
    expect(r.body.diagram_render_formats).toEqual({ bpmn: 'true' });
    // The real API coerces each weight to an integer.
    expect(r.body.repository_storages_weighted).toEqual({ default: 100 });
    expect(r.body.first_day_of_week).toBe(1);
  });

  it('accepts a multipart form body', async () => {
    const form = new FormData();
    form.append('after_sign_up_text', 'Welcome!');
    const res = await fetch(`${emulator.url}/api/v4/application/settings`, { method: 'PUT', headers: { 'PRIVATE-TOKEN': ADMIN }, body: form });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Record<string, unknown>)['after_sign_up_text']).toBe('Welcome!');
  });

  it("coerces 'true'/'false', '1'/'0' and numeric strings like the real API", async () => {
    const r = await api.put('/application/settings', { token: ADMIN, query: 'signup_enabled=0&user_oauth_applications=1&max_artifacts_size=250&polling_interval_multiplier=1.5' });
    expect(r.status).toBe(200);
    expect(r.body.signup_enabled).toBe(false);
    expect(r.body.user_oauth_applications).toBe(true);
    expect(r.body.max_artifacts_size).toBe(250);
    expect(r.body.polling_interval_multiplier).toBe(1.5);
  });

  it('splits a comma-separated string for an array setting', async () => {
    const r = await api.put('/application/settings', { token: ADMIN, query: 'domain_denylist=a.test,b.test' });
    expect(r.body.domain_denylist).toEqual(['a.test', 'b.test']);
  });

  it('ignores unknown parameters', async () => {
    const r = await api.put('/application/settings', { token: ADMIN, json: { no_such_setting: 1, session_expire_delay: 100 } });
    expect(r.status).toBe(200);
    expect(r.body).not.toHaveProperty('no_such_setting');
    expect(r.body.session_expire_delay).toBe(100);
  });

  it('ignores read-only settings (outbound_local_requests_whitelist cannot be updated)', async () => {
    const before = (await api.get('/application/settings', { token: ADMIN })).body.outbound_local_requests_whitelist;
    const r = await api.put('/application/settings', { token: ADMIN, json: { outbound_local_requests_whitelist: ['10.0.0.1'] } });
    expect(r.status).toBe(200);
    expect(r.body.outbound_local_requests_whitelist).toEqual(before);
  });

  it('ignores settings removed from the interface', async () => {
    const r = await api.put('/application/settings', { token: ADMIN, json: { user_email_lookup_limit: 5, delayed_project_deletion: true, repository_storages: ['default'] } });
    expect(r.status).toBe(200);
    for (const name of REMOVED) expect(r.body).not.toHaveProperty(name);
  });

  it('accepts the response name users_api_limit_ssh_keys as well as users_api_limit_keys', async () => {
    let r = await api.put('/application/settings', { token: ADMIN, json: { users_api_limit_keys: 50 } });
    expect(r.body.users_api_limit_ssh_keys).toBe(50);
    r = await api.put('/application/settings', { token: ADMIN, json: { users_api_limit_ssh_keys: 60 } });
    expect(r.body.users_api_limit_ssh_keys).toBe(60);
  });

  it('writes a deprecated alias through to its replacement (admin_notification_email)', async () => {
    const r = await api.put('/application/settings', { token: ADMIN, json: { admin_notification_email: 'abuse@example.test' } });
    expect(r.body.abuse_notification_email).toBe('abuse@example.test');
    expect(r.body.admin_notification_email).toBe('abuse@example.test');
  });

  it('coerces a deprecated string alias with its replacement type (signin_enabled)', async () => {
    const r = await api.put('/application/settings', { token: ADMIN, query: 'signin_enabled=false' });
    expect(r.body.password_authentication_enabled_for_web).toBe(false);
    await api.put('/application/settings', { token: ADMIN, json: { password_authentication_enabled_for_web: true } });
  });

  it('stores null for a nullable setting and reports can\'t be blank for one with a default', async () => {
    let r = await api.put('/application/settings', { token: ADMIN, json: { domain_allowlist: null } });
    expect(r.status).toBe(200);
    expect(r.body.domain_allowlist).toBeNull();
    r = await api.put('/application/settings', { token: ADMIN, json: { deletion_adjourned_period: null } });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ message: { deletion_adjourned_period: ["can't be blank"] } });
  });

  it('bumps updated_at when something changed', async () => {
    const before = (await api.get('/application/settings', { token: ADMIN })).body.updated_at;
    clock.advance(1000);
    const r = await api.put('/application/settings', { token: ADMIN, json: { home_page_url: `https://x.test/${Date.now()}` } });
    expect(r.body.updated_at).not.toBe(before);
  });

  it('is refused with 403 for a non-administrator, changing nothing', async () => {
    const r = await api.put('/application/settings', { token: OWNER, json: { signup_enabled: false } });
    expect(r.status).toBe(403);
  });

  it('is refused with 403 insufficient_scope for an administrator read_api token', async () => {
    const r = await api.put('/application/settings', { token: ADMIN_READ, json: { signup_enabled: false } });
    expect(r.status).toBe(403);
    expect(r.body.error).toBe('insufficient_scope');
  });
});

describe('PUT /application/settings: validation, row by row', () => {
  const byType = (t: string) => writable.filter((s) => s.type === t && !s.enum);

  it.each(byType('boolean').slice(0, 5).map((s) => [s.name]))('rejects a non-boolean for %s with {"error":"<name> is invalid"}', async (name) => {
    const r = await api.put('/application/settings', { token: ADMIN, json: { [name]: 'maybe' } });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: `${name} is invalid` });
  });

  it.each(byType('integer').slice(0, 5).map((s) => [s.name]))('rejects a non-integer for %s with {"error":"<name> is invalid"}', async (name) => {
    const r = await api.put('/application/settings', { token: ADMIN, json: { [name]: '12abc' } });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: `${name} is invalid` });
  });

  it.each(writable.filter((s) => s.maximum !== undefined).map((s) => [s.name, s.maximum!, s]))(
    'rejects %s above its maximum %s with a field-keyed message',
    async (name, maximum, spec) => {
      const value = spec.type === 'float' ? maximum + 0.001 : maximum + 1;
      const r = await api.put('/application/settings', { token: ADMIN, json: { [name]: value } });
      expect(r.status).toBe(400);
      expect(r.body.message[catalogueResponseName(spec)]).toContain(`must be less than or equal to ${maximum}`);
    },
  );

  // Setting the lifetime limit at all (365 where it was blank) revokes the never-expiring ADMIN token
  // of every later test, as the real service does: the tests of the lifetime limit accept it instead.
  it.each(writable.filter((s) => s.maximum !== undefined && s.name !== 'max_personal_access_token_lifetime').map((s) => [s.name, s.maximum!]))('accepts %s at its maximum %s', async (name, maximum) => {
    const r = await api.put('/application/settings', { token: ADMIN, json: { [name]: maximum } });
    expect(r.status).toBe(200);
  });

  const LIFETIMES = new Set(['max_personal_access_token_lifetime', 'max_ssh_key_lifetime']);
  it.each(writable.filter((s) => s.minimum !== undefined).map((s) => [s.name, s.minimum!, s]))(
    'rejects %s below its minimum %s with a field-keyed message',
    async (name, minimum, spec) => {
      const value = spec.type === 'float' ? minimum - 0.001 : minimum - 1;
      const r = await api.put('/application/settings', { token: ADMIN, json: { [name]: value } });
      expect(r.status).toBe(400);
      // The lifetimes use the real service's own words (Rails' greater_than: 0; test/emulator/fidelity.test.ts).
      const words = LIFETIMES.has(name) ? 'must be greater than 0' : `must be greater than or equal to ${minimum}`;
      expect(r.body.message[catalogueResponseName(spec)]).toContain(words);
    },
  );

  // A lifetime limit of 1 day revokes the never-expiring ADMIN token of every later test: that one
  // is accepted by the tests of the lifetime limit instead.
  it.each(writable.filter((s) => s.minimum !== undefined && s.name !== 'max_personal_access_token_lifetime').map((s) => [s.name, s.minimum!]))('accepts %s at its minimum %s', async (name, minimum) => {
    const r = await api.put('/application/settings', { token: ADMIN, json: { [name]: minimum } });
    expect(r.status).toBe(200);
  });

  it.each(writable.filter((s) => s.enum && !s.type.endsWith('[]')).map((s) => [s.name, s]))(
    'rejects a value of %s outside its enumeration with "does not have a valid value"',
    async (name, spec) => {
      const bad = spec.type === 'integer' ? 99 : 'not-a-value';
      const r = await api.put('/application/settings', { token: ADMIN, json: { [name]: bad } });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ error: `${name} does not have a valid value` });
    },
  );

  it.each(writable.filter((s) => s.enum && s.type.endsWith('[]')).map((s) => [s.name]))(
    'rejects an item of %s outside its enumeration',
    async (name) => {
      const r = await api.put('/application/settings', { token: ADMIN, json: { [name]: ['not-a-value'] } });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ error: `${name} does not have a valid value` });
    },
  );

  it('accepts every enumerated value of first_day_of_week and email_confirmation_setting', async () => {
    for (const s of writable.filter((x) => x.name === 'first_day_of_week' || x.name === 'email_confirmation_setting')) {
      for (const v of s.enum!) {
        const r = await api.put('/application/settings', { token: ADMIN, json: { [s.name]: v } });
        expect(r.status, `${s.name}=${v}`).toBe(200);
      }
    }
  });

  it.each(writable.filter((s) => s.multipleOf !== undefined).map((s) => [s.name, s.multipleOf!, s]))(
    'rejects %s off its step %s',
    async (name, step, spec) => {
      const value = (spec.minimum ?? 0) + step * 1.5;
      const r = await api.put('/application/settings', { token: ADMIN, json: { [name]: value } });
      expect(r.status).toBe(400);
      expect(r.body.message[name]).toContain(`must be a multiple of ${step}`);
      const ok = await api.put('/application/settings', { token: ADMIN, json: { [name]: (spec.minimum ?? 0) + step * 2 } });
      expect(ok.status).toBe(200);
    },
  );

  it.each(writable.filter((s) => s.maxItems !== undefined).map((s) => [s.name, s.maxItems!, s]))(
    'rejects %s with more than %s entries',
    async (name, max, spec) => {
      const items = Array.from({ length: max + 1 }, (_, i) => (spec.type === 'integer[]' ? i + 1 : `user${i}`));
      const r = await api.put('/application/settings', { token: ADMIN, json: { [name]: items } });
      expect(r.status).toBe(400);
      expect(r.body.message[name][0]).toMatch(/too long/);
      const ok = await api.put('/application/settings', { token: ADMIN, json: { [name]: items.slice(0, max) } });
      expect(ok.status).toBe(200);
    },
  );

  it.each(writable.filter((s) => s.pattern !== undefined).map((s) => [s.name]))('rejects a value of %s that does not match its pattern', async (name) => {
    const r = await api.put('/application/settings', { token: ADMIN, json: { [name]: '-Bad Value-' } });
    expect(r.status).toBe(400);
    expect(r.body.message[name]).toContain('is invalid');
  });

  it('enforces the length bounds of search_engine_prefix', async () => {
    const spec = writable.find((s) => s.name === 'search_engine_prefix')!;
    const r = await api.put('/application/settings', { token: ADMIN, json: { search_engine_prefix: 'a'.repeat(spec.maxLength! + 1) } });
    expect(r.status).toBe(400);
    expect(r.body.message.search_engine_prefix[0]).toMatch(/too long/);
    expect((await api.put('/application/settings', { token: ADMIN, json: { search_engine_prefix: 'my-prefix_1' } })).status).toBe(200);
  });

  it('rejects unknown keys of an object setting with known keys (diagram_render_formats)', async () => {
    const r = await api.put('/application/settings', { token: ADMIN, json: { diagram_render_formats: { bpmn: true, svgbob: true } } });
    expect(r.status).toBe(400);
    expect(r.body.message.diagram_render_formats[0]).toMatch(/svgbob/);
  });

  it('reports every invalid field of one request together', async () => {
    const r = await api.put('/application/settings', { token: ADMIN, json: { deletion_adjourned_period: 0, asciidoc_max_includes: 65 } });
    expect(r.status).toBe(400);
    expect(Object.keys(r.body.message).sort()).toEqual(['asciidoc_max_includes', 'deletion_adjourned_period']);
  });

  it('changes nothing when a request is rejected', async () => {
    const before = emulator.state.settings['deletion_adjourned_period'];
    await api.put('/application/settings', { token: ADMIN, json: { deletion_adjourned_period: 91, signup_enabled: false } });
    expect(emulator.state.settings['deletion_adjourned_period']).toBe(before);
  });
});

describe('PUT /application/settings: dependencies between settings (2.2), on the resulting record', () => {
  const typeOf = (name: string): string => rows.find((s) => s.name === name)?.type ?? '';
  // An alias's flag writes its replacement's (the deprecated throttle_unauthenticated_* family writes the web family): its rule is that one's.
  const whenEnabled = rules.flatMap((r) => (r.kind === 'required-when-enabled' && !aliases.has(r.flag) ? [r] : []));
  const requiredWith = rules.flatMap((r) => (r.kind === 'required-with' ? [r] : []));
  /** A valid, non-blank value of a partner setting (no partner of the spec has a lower bound above 1). */
  const filled = (name: string): unknown => {
    const t = typeOf(name);
    if (t === 'integer' || t === 'float') return 1;
    if (t.startsWith('array')) return ['example.test'];
    return 'https://partner.example.test';
  };
  let e: RunningEmulator;
  let a: Api;
  beforeEach(async () => {
    ({ emulator: e, api: a } = await start());
  });
  afterEach(() => e.close());

  it.each(whenEnabled.map((r) => [r.flag, r.requires]))(
    'refuses to enable %s while %s are blank in the record, and changes nothing',
    async (flag, requires) => {
      e.state.settings[flag] = false;
      for (const p of requires) e.state.settings[p] = null;
      const before = (await a.get('/application/settings', { token: ADMIN })).body;
      const r = await a.put('/application/settings', { token: ADMIN, json: { [flag]: true } });
      expect(r.status).toBe(400);
      expect(r.headers.get('content-type')).toMatch(/application\/json/);
      expect(r.body).toEqual({ message: Object.fromEntries(requires.map((p) => [responseName(p), ["can't be blank"]])) });
      expect((await a.get('/application/settings', { token: ADMIN })).body).toEqual(before);
    },
  );

  it.each(whenEnabled.map((r) => [r.flag, r.requires]))(
    'enables %s alone when %s are already stored',
    async (flag, requires) => {
      e.state.settings[flag] = false;
      for (const p of requires) e.state.settings[p] = filled(p);
      const r = await a.put('/application/settings', { token: ADMIN, json: { [flag]: true } });
      expect(r.status).toBe(200);
      expect(e.state.settings[flag]).toBe(true);
    },
  );

  it.skipIf(SPEC_SKIP)('reads the dependency rules of section 2.2 from the spec tables', () => {
    expect(whenEnabled.length).toBeGreaterThanOrEqual(20);
    expect(requiredWith.map((r) => r.field).sort()).toEqual(['external_auth_client_cert', 'static_objects_external_storage_url']);
  });

  it('turns require_two_factor_authentication on alone when the grace period is stored', async () => {
    e.state.settings['two_factor_grace_period'] = 48;
    const r = await a.put('/application/settings', { token: ADMIN, query: 'require_two_factor_authentication=true' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ require_two_factor_authentication: true, two_factor_grace_period: 48 });
  });

  it('refuses to turn captcha on with blank keys, naming both', async () => {
    const r = await a.put('/application/settings', { token: ADMIN, json: { captcha_enabled: true, captcha_site_key: '' } });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ message: { captcha_private_key: ["can't be blank"], captcha_site_key: ["can't be blank"] } });
    expect(e.state.settings['captcha_enabled']).toBe(false);
  });

  it('refuses to clear captcha_private_key while captcha stays on', async () => {
    let r = await a.put('/application/settings', { token: ADMIN, json: { captcha_enabled: true, captcha_private_key: 'priv', captcha_site_key: 'site' } });
    expect(r.status).toBe(200);
    expect(r.body).not.toHaveProperty('captcha_private_key');
    r = await a.put('/application/settings', { token: ADMIN, json: { captcha_private_key: '' } });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ message: { captcha_private_key: ["can't be blank"] } });
    expect(e.state.settings['captcha_private_key']).toBe('priv');
    r = await a.put('/application/settings', { token: ADMIN, json: { captcha_enabled: false, captcha_private_key: '' } });
    expect(r.status).toBe(200);
  });

  it('accepts the flag as the string "true" and checks the record', async () => {
    const r = await a.put('/application/settings', { token: ADMIN, query: 'enforce_terms=true' });
    expect(r).toMatchObject({ status: 400, body: { message: { terms: ["can't be blank"] } } });
  });

  it('does not require anything when the flag is disabled', async () => {
    const r = await a.put('/application/settings', { token: ADMIN, json: { captcha_enabled: false } });
    expect(r.status).toBe(200);
  });

  it.each(requiredWith.map((r) => [r.field, r.requires]))('requires %s to have %s in the record', async (field, requires) => {
    let r = await a.put('/application/settings', { token: ADMIN, json: { [field]: 'value' } });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ message: Object.fromEntries(requires.map((p) => [p, ["can't be blank"]])) });
    for (const p of requires) e.state.settings[p] = 'stored-partner';
    r = await a.put('/application/settings', { token: ADMIN, json: { [field]: 'value' } });
    expect(r.status).toBe(200);
  });

  it('reports a rule broken by the stored record on any update (the whole record is validated)', async () => {
    e.state.settings['enforce_terms'] = true;
    e.state.settings['terms'] = '';
    const r = await a.put('/application/settings', { token: ADMIN, json: { signup_enabled: false } });
    expect(r).toMatchObject({ status: 400, body: { message: { terms: ["can't be blank"] } } });
    expect(e.state.settings['signup_enabled']).toBe(true);
  });
});

describe('deprecated and canonical names sent together', () => {
  it('lets the deprecated name win, as the real API copies the legacy parameter over the current one', async () => {
    const r = await api.put('/application/settings', {
      token: ADMIN,
      json: { abuse_notification_email: 'new@example.test', admin_notification_email: 'old@example.test' },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ abuse_notification_email: 'old@example.test', admin_notification_email: 'old@example.test' });
  });

  it('refuses signin_enabled beside password_authentication_enabled_for_web: the real API declares them mutually_exclusive', async () => {
    const r = await api.put('/application/settings', { token: ADMIN, json: { signin_enabled: false, password_authentication_enabled_for_web: true } });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: 'password_authentication_enabled_for_web, signin_enabled are mutually exclusive' });
  });
});

describe('the default record', () => {
  it('is a valid record: an update of one unrelated setting succeeds on a fresh instance', async () => {
    const { emulator: e, api: a } = await start({ seed: { users: SEED.users! } });
    try {
      const r = await a.put('/application/settings', { token: ADMIN, json: { signup_enabled: false } });
      expect(r.status).toBe(200);
    } finally {
      await e.close();
    }
  });

  it.skipIf(SPEC_SKIP)('satisfies every dependency rule of the spec (diagram_editor_enabled comes with the real default URL)', async () => {
    const r = await api.get('/application/settings', { token: ADMIN });
    const fresh = createEmulatorState({});
    const blank = (v: unknown): boolean =>
      v === null || v === undefined || (typeof v === 'string' && v.trim() === '') || (Array.isArray(v) && v.length === 0);
    const broken: string[] = [];
    expect(rules.length).toBeGreaterThan(20);
    for (const rule of rules) {
      if (rule.kind === 'required-when-enabled' && fresh.settings[rule.flag] === true) {
        broken.push(...rule.requires.filter((p) => blank(fresh.settings[p])).map((p) => `${rule.flag} -> ${p}`));
      }
    }
    expect(broken).toEqual([]);
    expect(r.body.diagram_editor_enabled).toBe(true);
    expect(r.body.diagram_editor_url).toBe('https://embed.diagrams.net');
  });
});

describe('defaults and fixed fields (item 3)', () => {
  let e: RunningEmulator;
  let a: Api;
  beforeEach(async () => {
    ({ emulator: e, api: a } = await start());
  });
  afterEach(() => e.close());

  it('reads hashed_storage_enabled true ("always on") and refuses false with the real message', async () => {
    expect((await a.get('/application/settings', { token: ADMIN })).body.hashed_storage_enabled).toBe(true);
    const r = await a.put('/application/settings', { token: ADMIN, json: { hashed_storage_enabled: false } });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ message: { hashed_storage_enabled: ["Hashed storage can't be disabled anymore for new projects"] } });
    expect((await a.put('/application/settings', { token: ADMIN, json: { hashed_storage_enabled: true } })).status).toBe(200);
  });

  it('reads housekeeping_bitmaps_enabled true ("always true") and ignores a write of false', async () => {
    expect((await a.get('/application/settings', { token: ADMIN })).body.housekeeping_bitmaps_enabled).toBe(true);
    const r = await a.put('/application/settings', { token: ADMIN, json: { housekeeping_bitmaps_enabled: false } });
    expect(r.status).toBe(200);
    expect(r.body.housekeeping_bitmaps_enabled).toBe(true);
    expect((await a.get('/application/settings', { token: ADMIN })).body.housekeeping_bitmaps_enabled).toBe(true);
  });

  it('reads max_personal_access_token_lifetime blank (null), which means 365', async () => {
    const r = await a.get('/application/settings', { token: ADMIN });
    expect(r.body.max_personal_access_token_lifetime).toBeNull();
    const t = await a.post('/groups/platform/access_tokens', { token: ADMIN, json: { name: 'n', scopes: ['api'] } });
    expect(t.body.expires_at).toBe('2026-06-15');
    expect((await a.put('/application/settings', { token: ADMIN, json: { max_personal_access_token_lifetime: null } })).status).toBe(200);
  });

  it('reads default_branch_protection_defaults as the object shape of the spec', async () => {
    const r = await a.get('/application/settings', { token: ADMIN });
    expect(r.body.default_branch_protection_defaults).toEqual({
      allowed_to_push: [{ access_level: 40 }],
      allow_force_push: false,
      allowed_to_merge: [{ access_level: 40 }],
    });
  });

  it('changes only the sent keys of default_branch_protection_defaults on a partial update', async () => {
    const r = await a.put('/application/settings', { token: ADMIN, json: { default_branch_protection_defaults: { allow_force_push: true } } });
    expect(r.status).toBe(200);
    expect(r.body.default_branch_protection_defaults).toEqual({
      allowed_to_push: [{ access_level: 40 }],
      allow_force_push: true,
      allowed_to_merge: [{ access_level: 40 }],
    });
    const f = await a.put('/application/settings', { token: ADMIN, query: 'default_branch_protection_defaults[allowed_to_push][][access_level]=30' });
    expect(f.body.default_branch_protection_defaults.allowed_to_push).toEqual([{ access_level: '30' }]);
    expect(f.body.default_branch_protection_defaults.allow_force_push).toBe(true);
  });

  it('gives every catalogued setting with a stated default that default on GET', async () => {
    const r = await a.get('/application/settings', { token: ADMIN });
    const wrong = writable
      .filter((s) => 'default' in s && !s.secret)
      .filter((s) => JSON.stringify(r.body[catalogueResponseName(s)]) !== JSON.stringify(s.default))
      .map((s) => s.name);
    expect(wrong).toEqual([]);
  });
});

describe('archive_builds_in_human_readable (>= 1 day)', () => {
  it.each([['12 hours'], ['3600'], ['23h']])('refuses %s, under one day', async (value) => {
    const r = await api.put('/application/settings', { token: ADMIN, json: { archive_builds_in_human_readable: value } });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ message: { archive_builds_in_human_readable: ['must be at least 1 day'] } });
  });

  it('refuses a value that is not a duration', async () => {
    const r = await api.put('/application/settings', { token: ADMIN, json: { archive_builds_in_human_readable: 'soon' } });
    expect(r.body).toEqual({ message: { archive_builds_in_human_readable: ['is not a correct duration'] } });
  });

  it.each([['1 day'], ['2 weeks'], ['1 year'], ['']])('accepts %j', async (value) => {
    const r = await api.put('/application/settings', { token: ADMIN, json: { archive_builds_in_human_readable: value } });
    expect(r.status).toBe(200);
    expect(r.body.archive_builds_in_human_readable).toBe(value);
  });
});

describe('PUT /application/settings: the visibility rule', () => {
  it('rejects a default visibility listed in restricted_visibility_levels, against the resulting record', async () => {
    let r = await api.put('/application/settings', { token: ADMIN, json: { restricted_visibility_levels: ['private'] } });
    expect(r.status).toBe(400);
    expect(r.body.message.default_project_visibility).toEqual(['cannot be set to a restricted visibility level']);
    expect(r.body.message.default_group_visibility).toEqual(['cannot be set to a restricted visibility level']);
    r = await api.put('/application/settings', {
      token: ADMIN,
      json: { restricted_visibility_levels: ['public'], default_project_visibility: 'internal' },
    });
    expect(r.status).toBe(200);
    r = await api.put('/application/settings', { token: ADMIN, json: { default_project_visibility: 'public' } });
    expect(r.status).toBe(400);
    expect(Object.keys(r.body.message)).toEqual(['default_project_visibility']);
    await api.put('/application/settings', { token: ADMIN, json: { restricted_visibility_levels: [] } });
  });
});

describe('tiers', () => {
  /** The rows of the spec a tier does not show: tagged [HT]/[TT] in the row or heading, or listed as higher-tier fields (section 2). */
  const hidden = (tier: 'free' | 'premium') =>
    rows.filter((s) => !SECRETS.has(s.name) && (tier === 'free' ? tierOf(s) !== 'free' : tierOf(s) === 'ultimate'));

  it.skipIf(SPEC_SKIP)('hides higher-tier ([HT]/[TT]) fields from GET on the free tier', async () => {
    const { emulator: e, api: a } = await start({ tier: 'free' });
    try {
      const r = await a.get('/application/settings', { token: ADMIN });
      expect(hidden('free').length).toBeGreaterThan(40);
      expect(higher.get('lock_memberships_to_saml')).toBe('update');
      for (const s of hidden('free')) {
        if (higher.get(s.name) === 'update') expect(r.body, s.name).toHaveProperty(responseName(s.name));
        else expect(r.body, s.name).not.toHaveProperty(responseName(s.name));
      }
      expect(r.body).toHaveProperty('signup_enabled');
    } finally {
      await e.close();
    }
  });

  it.skipIf(SPEC_SKIP)('hides only top-tier ([TT]) fields on the premium tier', async () => {
    const { emulator: e, api: a } = await start({ tier: 'premium' });
    try {
      const r = await a.get('/application/settings', { token: ADMIN });
      expect(hidden('premium').length).toBeGreaterThan(10);
      for (const s of hidden('premium')) {
        if (higher.get(s.name) === 'update') continue;
        expect(r.body, s.name).not.toHaveProperty(responseName(s.name));
      }
      const premium = rows.filter((s) => tierOf(s) === 'premium' && !SECRETS.has(s.name) && higher.get(s.name) !== 'update');
      expect(premium.length).toBeGreaterThan(10);
      for (const s of premium) expect(r.body, s.name).toHaveProperty(responseName(s.name));
    } finally {
      await e.close();
    }
  });

  it('ignores higher-tier fields on PUT on a lower tier', async () => {
    const { emulator: e, api: a } = await start({ tier: 'free' });
    try {
      // Both are "Fields only returned on higher tiers" (section 2); lock_memberships_to_saml's rule applies to update.
      if (!SPEC_SKIP) expect([higher.get('security_approval_policies_limit'), higher.get('lock_memberships_to_saml')]).toEqual(['both', 'update']);
      const r = await a.put('/application/settings', { token: ADMIN, json: { security_approval_policies_limit: 9, lock_memberships_to_saml: true, signup_enabled: false } });
      expect(r.status).toBe(200);
      expect(e.state.settings['security_approval_policies_limit']).toBe(5);
      expect(e.state.settings['lock_memberships_to_saml']).toBe(false);
      expect(r.body.lock_memberships_to_saml).toBe(false);
      expect(r.body.signup_enabled).toBe(false);
    } finally {
      await e.close();
    }
  });

  it('accepts an update of a field whose tier rule applies to reading only (secret_push_protection_available)', async () => {
    const { emulator: e, api: a } = await start({ tier: 'free' });
    try {
      const r = await a.put('/application/settings', { token: ADMIN, json: { secret_push_protection_available: true } });
      expect(r.body).not.toHaveProperty('secret_push_protection_available');
      expect(e.state.settings['secret_push_protection_available']).toBe(true);
    } finally {
      await e.close();
    }
  });
});

describe('settings cache (section 8)', () => {
  it('returns the pre-PUT values for settingsCacheSeconds after a PUT, then the new ones', async () => {
    const { emulator: e, api: a, clock: c } = await start({ settingsCacheSeconds: 60 });
    try {
      const put = await a.put('/application/settings', { token: ADMIN, json: { signup_enabled: false } });
      expect(put.body.signup_enabled).toBe(false);
      expect((await a.get('/application/settings', { token: ADMIN })).body.signup_enabled).toBe(true);
      c.advance(59_000);
      expect((await a.get('/application/settings', { token: ADMIN })).body.signup_enabled).toBe(true);
      c.advance(1_000);
      expect((await a.get('/application/settings', { token: ADMIN })).body.signup_enabled).toBe(false);
      expect(e.state.settings['signup_enabled']).toBe(false);
    } finally {
      await e.close();
    }
  });

  it('has no cache by default in-process', async () => {
    const r1 = await api.put('/application/settings', { token: ADMIN, json: { after_sign_out_path: '/bye' } });
    expect(r1.status).toBe(200);
    expect((await api.get('/application/settings', { token: ADMIN })).body.after_sign_out_path).toBe('/bye');
  });
});

describe('out-of-band state and admin mode', () => {
  it('reflects a setting changed directly in the state', async () => {
    emulator.state.settings['home_page_url'] = 'https://changed.example.test';
    expect((await api.get('/application/settings', { token: ADMIN })).body.home_page_url).toBe('https://changed.example.test');
  });

  it('with admin_mode on, treats an administrator token without the admin_mode scope as a regular user', async () => {
    const { emulator: e, api: a } = await start();
    try {
      expect((await a.put('/application/settings', { token: ADMIN, json: { admin_mode: true } })).status).toBe(200);
      expect((await a.get('/application/settings', { token: ADMIN })).status).toBe(403);
      e.state.tokens.find((t) => t.name === 'admin-api')!.scopes.push('admin_mode');
      expect((await a.get('/application/settings', { token: ADMIN })).status).toBe(200);
    } finally {
      await e.close();
    }
  });

  it('rejects personal access tokens once disable_personal_access_tokens is set (and it cannot be undone through the API)', async () => {
    const { emulator: e, api: a } = await start();
    try {
      expect((await a.put('/application/settings', { token: ADMIN, json: { disable_personal_access_tokens: true } })).status).toBe(200);
      expect((await a.put('/application/settings', { token: ADMIN, json: { disable_personal_access_tokens: false } })).status).toBe(401);
      expect(e.state.settings['disable_personal_access_tokens']).toBe(true);
    } finally {
      await e.close();
    }
  });
});

describe('seeded settings', () => {
  it('applies seed settings by request or response name', () => {
    const state = createEmulatorState({ ...SEED, settings: { signup_enabled: false, users_api_limit_ssh_keys: 7 } });
    expect(state.settings['signup_enabled']).toBe(false);
    expect(state.settings['users_api_limit_keys']).toBe(7);
  });

  it('rejects an unknown or invalid seeded setting with a clear error', () => {
    expect(() => createEmulatorState({ settings: { signup_enabeld: false } })).toThrow(/unknown settings: signup_enabeld/);
    expect(() => createEmulatorState({ settings: { deletion_adjourned_period: 500 } })).toThrow(/deletion_adjourned_period must be less than or equal to 90/);
  });
});

describe.skipIf(specTestMode(settingsSpec !== '') === 'skip')('the defaults of the settings document', () => {
  /** Rows whose meaning states a plain `default true|false|N`: the spec's value, not the catalogue's. */
  const stated = (settingsSpec === '' ? [] : specSettingRows(settingsSpec)).flatMap((row) => {
    const m = /\bdefault (true|false|\d+)\s*(?:[);,.]|$)/.exec(row.meaning);
    return m ? [{ name: row.name, value: JSON.parse(m[1]!) as boolean | number }] : [];
  });

  let fresh: RunningEmulator;
  let freshApi: Api;
  beforeAll(async () => {
    ({ emulator: fresh, api: freshApi } = await start());
  });
  afterAll(() => fresh.close());

  it('reads stated defaults from the spec', () => {
    expect(stated.length).toBeGreaterThan(10);
  });

  /** Section 2: "the update response also shows `users_api_limit_ssh_keys` and `users_api_limit_ssh_key`" for these rows. */
  const responseNames: Record<string, string> = { users_api_limit_keys: 'users_api_limit_ssh_keys', users_api_limit_key: 'users_api_limit_ssh_key' };

  it.each(stated.map((s) => [s.name, s.value]))('answers GET with the default the spec states for %s (%s)', async (name, value) => {
    const r = await freshApi.get('/application/settings', { token: ADMIN });
    expect(r.body[responseNames[name as string] ?? (name as string)]).toEqual(value);
  });
});
