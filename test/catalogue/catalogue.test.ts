import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, expect } from 'vitest';
import {
  ACCESS_LEVELS,
  ACCESS_LEVEL_BY_ROLE,
  DEFAULT_TOKEN_ACCESS_LEVEL,
  FILE_METADATA_HEADERS,
  FILE_WRITE_FIELDS,
  GROUP_ACCESS_TOKEN_FIELDS,
  GROUP_TOKEN_SCOPES,
  LIMITS,
  NON_SETTING_ROWS,
  PAGES_SETTINGS_FIELDS,
  PAGES_UPDATE_FIELDS,
  PAGES_UPDATE_RESPONSE_FIELD,
  REPOSITORY_FILE_FIELDS,
  RESPONSE_ONLY_SETTINGS,
  REVOKE_ERRORS,
  ROTATE_ERRORS,
  SETTINGS,
  SETTING_RULES,
  TOKEN_LIST_SORTS,
  TOKEN_LIST_STATES,
  isSecretSetting,
  responseNameOf,
  settingByName,
  settingNames,
  suggestSettingName,
} from '../../src/catalogue/index.js';
import type { SettingRule, SettingSpec, Tier, ValueType } from '../../src/catalogue/index.js';
import { SECRET_SETTINGS } from '../helpers/secret-settings.js';
import {
  SPEC_DIR,
  specDir,
  specTestMode,
  specHigherTierFields,
  specNonSettingRows,
  specRemovedSettings,
  specSettingNames,
  specSettingRows,
} from '../helpers/spec-names.js';

function setting(name: string): SettingSpec {
  const s = settingByName(name);
  if (!s) throw new Error(`no setting ${name} in the catalogue`);
  return s;
}

function ruleNames(rule: SettingRule): string[] {
  switch (rule.kind) {
    case 'required-when-enabled':
      return [rule.flag, ...rule.requires];
    case 'required-with':
      return [rule.field, ...rule.requires];
    case 'not-in-list':
      return [rule.field, rule.list];
  }
}

const SPEC_TYPES: Record<string, ValueType> = {
  boolean: 'boolean',
  integer: 'integer',
  float: 'float',
  string: 'string',
  text: 'text',
  'array of string': 'string[]',
  'array of integer': 'integer[]',
  'string or array of string': 'string|string[]',
  hash: 'hash',
  'hash of string to integer': 'hash',
  object: 'object',
};

const EXPECTED_SECRETS = SECRET_SETTINGS;

const dir = specDir();
const markdownPath = join(dir ?? SPEC_DIR, 'application-settings.md');
const markdown = dir && existsSync(markdownPath) ? readFileSync(markdownPath, 'utf8') : '';

describe('when the catalogue is checked against the spec', () => {
  it('runs the checks whenever the documents are present', () => {
    expect(specTestMode(true, {})).toBe('run');
    expect(specTestMode(true, { CI: 'true' })).toBe('run');
  });

  it('runs them in CI even without the documents, so they fail rather than skip', () => {
    expect(specTestMode(false, { CI: 'true' })).toBe('run');
    expect(specTestMode(false, { CI: '1' })).toBe('run');
  });

  it('skips them in a checkout without the documents outside CI', () => {
    expect(specTestMode(false, {})).toBe('skip');
    expect(specTestMode(false, { CI: '' })).toBe('skip');
    expect(specTestMode(false, { CI: 'false' })).toBe('skip');
  });
});

describe.skipIf(specTestMode(markdown !== '') === 'skip')('the catalogue against the settings document', () => {
  it(`finds the settings document at ${markdownPath}`, () => {
    expect(markdown, `${markdownPath} is missing: CI must have ../shared/spec next to the repository`).not.toBe('');
  });

  const rows = markdown ? specSettingRows(markdown) : [];

  it('contains every setting name of the spec', () => {
    const known = new Set(settingNames());
    const missing = specSettingNames(markdown).filter((n) => !known.has(n));
    expect(missing).toEqual([]);
  });

  it('has no current setting that the spec lacks', () => {
    const spec = new Set(specSettingNames(markdown));
    expect(settingNames().filter((n) => !spec.has(n))).toEqual([]);
  });

  it('lists the settings in the order of the spec', () => {
    expect(settingNames()).toEqual(specSettingNames(markdown));
  });

  it('records the removed settings with the versions of the spec', () => {
    const removed = Object.fromEntries(SETTINGS.filter((s) => s.removed).map((s) => [s.name, s.removed!.version]));
    expect(removed).toEqual(Object.fromEntries(specRemovedSettings(markdown)));
  });

  it('gives every setting the type of its spec row (deprecated aliases take the type of their target)', () => {
    const wrong = rows
      .filter((r) => setting(r.name).type !== SPEC_TYPES[r.type])
      .filter((r) => {
        const replacement = setting(r.name).deprecated?.replacement;
        return !(replacement && setting(replacement).type === setting(r.name).type);
      })
      .map((r) => `${r.name}: spec ${r.type}, catalogue ${setting(r.name).type}`);
    expect(wrong).toEqual([]);
  });

  it('puts every setting in the section of its spec table', () => {
    const wrong = rows.filter((r) => setting(r.name).section !== r.section).map((r) => r.name);
    expect(wrong).toEqual([]);
  });

  it('derives tiers from the row tags, the heading tags and the higher-tier list', () => {
    const higher = specHigherTierFields(markdown);
    const wrong: string[] = [];
    for (const r of rows) {
      const tags = new Set<Tier>([...`${r.meaning} ${r.heading}`.matchAll(/\[(HT|TT|SM)\]/g)].map((m) => m[1] as Tier));
      if (higher.has(r.name) && tags.size === 0) tags.add('HT');
      const got = new Set(setting(r.name).tiers ?? []);
      if ([...tags].sort().join() !== [...got].sort().join()) wrong.push(`${r.name}: spec ${[...tags]}, catalogue ${[...got]}`);
    }
    expect(wrong).toEqual([]);
  });

  it('marks the higher-tier fields with tierApplies as the spec qualifies them', () => {
    const higher = specHigherTierFields(markdown);
    for (const [name, applies] of higher) expect([name, setting(name).tierApplies]).toEqual([name, applies]);
    expect(setting('secret_push_protection_available').tierApplies).toBe('read');
    expect(setting('lock_memberships_to_saml').tierApplies).toBe('update');
    expect(SETTINGS.filter((s) => s.tierApplies).map((s) => s.name).sort()).toEqual([...higher.keys()].sort());
  });

  it('takes the introduction version from the row', () => {
    const wrong: string[] = [];
    for (const r of rows) {
      // "ssh, http, all (all since 16.9)" dates a value, not the setting.
      const m = r.name === 'enabled_git_access_protocol' ? null : /\b(?:since|introduced) (\d+\.\d+)/.exec(r.meaning);
      if (setting(r.name).since !== m?.[1]) wrong.push(`${r.name}: spec ${m?.[1]}, catalogue ${setting(r.name).since}`);
    }
    expect(wrong).toEqual([]);
  });

  it('gives default_branch_protection_defaults the response shape of section 2', () => {
    const line = /^- Options of `default_branch_protection_defaults`:(.*)$/m.exec(markdown)?.[1] ?? '';
    const keys = [...line.matchAll(/`([a-z_]+)` \((array|boolean)/g)].map((m) => m[1]);
    expect(keys).toEqual(['allowed_to_push', 'allow_force_push', 'allowed_to_merge']);
    expect(Object.keys(setting('default_branch_protection_defaults').default as object)).toEqual(keys);
  });

  it('fixes exactly the rows the spec calls always on or always true', () => {
    const spec = rows.filter((r) => /\balways (on|true)\b/.test(r.meaning)).map((r) => r.name).sort();
    expect(SETTINGS.filter((s) => s.fixed).map((s) => s.name).sort()).toEqual(spec);
  });

  it('marks exactly the rows the spec calls deprecated', () => {
    const spec = rows.filter((r) => /\bdeprecated\b/.test(r.meaning)).map((r) => r.name).sort();
    const cat = settingNames().filter((n) => setting(n).deprecated).sort();
    expect(cat).toEqual(spec);
  });

  it('marks exactly the rows that need a restart', () => {
    const spec = rows.filter((r) => /restart required/.test(r.meaning)).map((r) => r.name).sort();
    const cat = settingNames().filter((n) => setting(n).restartRequired).sort();
    expect(cat).toEqual(spec);
  });

  it('has a rule for every req-by note that names its master', () => {
    const missing: string[] = [];
    for (const r of rows) {
      const m = /req-by ([a-z0-9_]+)/.exec(r.meaning);
      if (!m || !settingByName(m[1]!)) continue;
      const covered = SETTING_RULES.some(
        (rule) =>
          (rule.kind === 'required-when-enabled' && rule.flag === m[1] && rule.requires.includes(r.name)) ||
          (rule.kind === 'required-with' && rule.field === m[1] && rule.requires.includes(r.name)),
      );
      if (!covered) missing.push(`${m[1]} -> ${r.name}`);
    }
    expect(missing).toEqual([]);
  });

  it('has a required-when-enabled rule for every master flag of section 2.2', () => {
    const text = /Master flags and their required settings are listed in the tables above: ([^.]*)\./.exec(markdown)![1]!;
    const flags = text
      .replace(/ and each throttle_\*_enabled flag$/, '')
      .split(/, | and /)
      .map((s) => s.trim());
    expect(flags.length).toBeGreaterThanOrEqual(17);
    const throttleFlags = settingNames().filter((n) => /^throttle_.*_enabled$/.test(n));
    expect(throttleFlags).toHaveLength(9);
    const ruled = new Set(SETTING_RULES.filter((r) => r.kind === 'required-when-enabled').map((r) => (r.kind === 'required-when-enabled' ? r.flag : '')));
    expect([...flags, ...throttleFlags].filter((f) => !ruled.has(f))).toEqual([]);
  });

  it('records the cross-reference rows as non-settings', () => {
    expect(NON_SETTING_ROWS.map((r) => r.row)).toEqual(specNonSettingRows(markdown));
  });
});

describe('the settings catalogue', () => {
  it('has between 370 and 420 current settings', () => {
    expect(settingNames().length).toBeGreaterThanOrEqual(370);
    expect(settingNames().length).toBeLessThanOrEqual(420);
    expect(settingNames()).toHaveLength(384);
  });

  it('has no duplicate names and no name equal to a response alias of another', () => {
    const names = SETTINGS.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    for (const s of SETTINGS) if (s.responseName) expect(names).not.toContain(s.responseName);
  });

  it('has the five removed settings, out of the current names', () => {
    const removed = SETTINGS.filter((s) => s.removed).map((s) => `${s.name}@${s.removed!.version}`);
    expect(removed).toEqual([
      'delayed_project_deletion@16.0',
      'delayed_group_deletion@16.0',
      'in_product_marketing_emails_enabled@16.6',
      'repository_storages@16.6',
      'user_email_lookup_limit@16.7',
    ]);
    expect(settingNames()).not.toContain('repository_storages');
    expect(settingByName('repository_storages')?.removed?.version).toBe('16.6');
  });

  it('resolves the odd rows to the settings decided', () => {
    expect(setting('service_dedicated_instance').type).toBe('boolean');
    expect(setting('service_dedicated_instance').note).toMatch(/gitlab_dedicated_instance/);
    expect(settingByName('gitlab_dedicated_instance')).toBeUndefined();
    expect(setting('worker_job_limiter_mode')).toMatchObject({ type: 'string', enum: ['track', 'compress'], default: 'compress' });
    expect(setting('dashboard_enabled').type).toBe('boolean');
    expect(setting('dashboard_url').type).toBe('string');
    expect(setting('throttle_authenticated_web_enabled').type).toBe('boolean');
    expect(setting('throttle_authenticated_web_period_in_seconds').type).toBe('integer');
    expect(setting('throttle_authenticated_web_requests_per_period').type).toBe('integer');
    expect(NON_SETTING_ROWS.map((r) => r.row)).toEqual(['eks-style search engine settings', 'container for misc: container_registry..., see above']);
    expect(setting('search_engine_prefix').default).toBeUndefined();
    expect(setting('search_engine_prefix').note).toBeTruthy();
  });

  it('references only known current settings in rules', () => {
    const current = new Set(settingNames());
    const unknown = SETTING_RULES.flatMap(ruleNames).filter((n) => !current.has(n));
    expect(unknown).toEqual([]);
  });

  it('has the rules the spec implies', () => {
    expect(SETTING_RULES).toContainEqual({ kind: 'required-when-enabled', flag: 'captcha_enabled', requires: ['captcha_private_key', 'captcha_site_key'] });
    expect(SETTING_RULES).toContainEqual({
      kind: 'required-when-enabled',
      flag: 'external_authorization_service_enabled',
      requires: ['external_authorization_service_default_label', 'external_authorization_service_timeout', 'external_authorization_service_url'],
    });
    expect(SETTING_RULES).toContainEqual({ kind: 'required-when-enabled', flag: 'throttle_unauthenticated_enabled', requires: ['throttle_unauthenticated_period_in_seconds', 'throttle_unauthenticated_requests_per_period'] });
    expect(SETTING_RULES).toContainEqual({ kind: 'required-with', field: 'external_auth_client_cert', requires: ['external_auth_client_key'] });
    expect(SETTING_RULES).toContainEqual({ kind: 'required-with', field: 'static_objects_external_storage_url', requires: ['static_objects_external_storage_auth_token'] });
    expect(SETTING_RULES).toContainEqual({ kind: 'not-in-list', field: 'default_group_visibility', list: 'restricted_visibility_levels' });
    expect(SETTING_RULES).toContainEqual({ kind: 'not-in-list', field: 'default_project_visibility', list: 'restricted_visibility_levels' });
    const flags = SETTING_RULES.map((r) => (r.kind === 'required-when-enabled' ? r.flag : r.field));
    expect(new Set(flags).size).toBe(flags.length);
  });

  it('points every deprecation replacement at a current, non-deprecated setting', () => {
    const replacements = SETTINGS.flatMap((s) => (s.deprecated?.replacement ? [[s.name, s.deprecated.replacement] as const] : []));
    expect(replacements.length).toBeGreaterThanOrEqual(11);
    for (const [name, replacement] of replacements) {
      const target = settingByName(replacement);
      expect({ name, replacement, found: Boolean(target && !target.removed && !target.deprecated) }).toEqual({ name, replacement, found: true });
    }
    expect(setting('admin_notification_email').deprecated?.replacement).toBe('abuse_notification_email');
    expect(setting('signin_enabled').deprecated?.replacement).toBe('password_authentication_enabled_for_web');
    expect(setting('default_branch_protection').deprecated).toEqual({ since: '17.0', replacement: 'default_branch_protection_defaults' });
    expect(setting('housekeeping_gc_period').deprecated).toEqual({ since: '15.8', replacement: 'housekeeping_optimize_repository_period' });
    expect(setting('housekeeping_bitmaps_enabled').deprecated?.note).toBe('always true');
    expect(setting('throttle_unauthenticated_requests_per_period').deprecated).toMatchObject({ since: '14.3', replacement: 'throttle_unauthenticated_web_requests_per_period' });
    expect(setting('asset_proxy_whitelist').deprecated?.replacement).toBe('asset_proxy_allowlist');
  });

  it('types every deprecated alias like the setting it stands for (signin_enabled is a boolean)', () => {
    // A replacement with a different shape is not an alias: the old integer level and the new hash.
    const notAliases = new Set(['default_branch_protection']);
    const wrong = SETTINGS.filter((s) => s.deprecated?.replacement && !notAliases.has(s.name))
      .filter((s) => setting(s.deprecated!.replacement!).type !== s.type)
      .map((s) => `${s.name}: ${s.type}, but ${s.deprecated!.replacement}: ${setting(s.deprecated!.replacement!).type}`);
    expect(wrong).toEqual([]);
    expect(setting('signin_enabled').type).toBe('boolean');
  });

  it('marks exactly the known secrets as secret', () => {
    const secrets = SETTINGS.filter((s) => s.secret).map((s) => s.name);
    expect([...secrets].sort()).toEqual([...EXPECTED_SECRETS].sort());
    for (const name of EXPECTED_SECRETS) expect(isSecretSetting(name)).toBe(true);
    for (const name of ['captcha_site_key', 'managed_k8s_access_key_id', 'search_engine_aws_access_key', 'chat_app_id', 'tracker_connect_application_key', 'external_auth_client_cert', 'personal_access_token_prefix']) {
      expect({ name, secret: isSecretSetting(name) }).toEqual({ name, secret: false });
    }
    expect(isSecretSetting('no_such_setting')).toBe(false);
    expect(secrets.every((n) => setting(n).type === 'string')).toBe(true);
  });

  it('carries the numeric bounds of the spec', () => {
    expect(setting('deletion_adjourned_period')).toMatchObject({ minimum: 1, maximum: 90, default: 30 });
    expect(setting('wiki_page_max_content_bytes')).toMatchObject({ minimum: 1024, default: 5242880 });
    expect(setting('asciidoc_max_includes')).toMatchObject({ maximum: 64, default: 32 });
    expect(setting('security_approval_policies_limit')).toMatchObject({ maximum: 20, default: 5 });
    expect(setting('scan_execution_policies_schedule_limit')).toMatchObject({ maximum: 20, default: 0 });
    for (const name of ['runner_token_expiration_interval', 'group_runner_token_expiration_interval', 'project_runner_token_expiration_interval']) {
      expect(setting(name).minimum).toBe(7200);
    }
    expect(setting('git_rate_limit_users_allowlist')).toMatchObject({ type: 'string[]', maxItems: 100, default: [] });
    expect(setting('git_rate_limit_users_alertlist')).toMatchObject({ type: 'integer[]', maxItems: 100, default: [] });
    expect(setting('external_authorization_service_timeout')).toMatchObject({ type: 'float', minimum: 0.001, maximum: 10, multipleOf: 0.001 });
    expect(setting('polling_interval_multiplier')).toMatchObject({ type: 'float', minimum: 0 });
    expect(setting('max_personal_access_token_lifetime').maximum).toBe(365);
    expect(setting('max_ssh_key_lifetime').maximum).toBe(365);
    expect(setting('unconfirmed_users_delete_after_days')).toMatchObject({ minimum: 1, default: 7 });
    expect(setting('chart_max_packages_count')).toMatchObject({ minimum: 1, default: 1000 });
    expect(setting('max_number_of_repository_downloads').maximum).toBe(10000);
    expect(setting('max_number_of_repository_downloads_within_time_period').maximum).toBe(864000);
    expect(setting('ed25519_sk_key_restriction')).toMatchObject({ minimum: -1, default: 0 });
  });

  it('carries enums, keys and string constraints', () => {
    expect(setting('email_confirmation_setting').enum).toEqual(['off', 'soft', 'hard']);
    expect(setting('default_project_visibility')).toMatchObject({ enum: ['private', 'internal', 'public'], default: 'private' });
    expect(setting('restricted_visibility_levels')).toMatchObject({ type: 'string[]', enum: ['private', 'internal', 'public'], default: null });
    expect(setting('valid_runner_registrars').enum).toEqual(['group', 'project']);
    expect(setting('import_sources').enum).toContain('code_host_b_server');
    expect(setting('default_project_creation').enum).toEqual([0, 1, 2, 3, 4]);
    expect(setting('first_day_of_week')).toMatchObject({ enum: [0, 1, 6], default: 0 });
    expect(setting('enabled_git_access_protocol').enum).toEqual(['ssh', 'http', 'all']);
    expect(setting('whats_new_variant').enum).toEqual(['all_tiers', 'current_tier', 'disabled']);
    expect(setting('diagram_render_formats')).toMatchObject({ type: 'object', keys: ['bpmn', 'blockdiag', 'excalidraw'] });
    expect(setting('asset_proxy_allowlist').type).toBe('string|string[]');
    expect(setting('terms').type).toBe('text');
    const prefix = setting('search_engine_prefix');
    expect(prefix).toMatchObject({ minLength: 1, maxLength: 100 });
    const re = new RegExp(prefix.pattern!);
    for (const ok of ['a', 'instance', 'my-index_1', 'a_b']) expect(re.test(ok)).toBe(true);
    for (const bad of ['-a', 'a-', '_a', 'a_', 'A', 'a.b', '']) expect(re.test(bad)).toBe(false);
  });

  it('keeps every default consistent with its type and enum', () => {
    const bad: string[] = [];
    for (const s of SETTINGS) {
      if (!('default' in s)) continue;
      const d = s.default;
      const ok =
        d === null ||
        (s.type === 'boolean' && typeof d === 'boolean') ||
        (s.type === 'integer' && Number.isInteger(d)) ||
        (s.type === 'float' && typeof d === 'number') ||
        ((s.type === 'string' || s.type === 'text') && typeof d === 'string') ||
        (s.type.endsWith('[]') && Array.isArray(d)) ||
        ((s.type === 'hash' || s.type === 'object') && typeof d === 'object' && !Array.isArray(d));
      if (!ok) bad.push(`${s.name}: ${JSON.stringify(d)} is not ${s.type}`);
      if (s.enum && d !== null && !Array.isArray(d) && !s.enum.includes(d as string | number)) bad.push(`${s.name}: default outside enum`);
      if (typeof d === 'number' && ((s.minimum !== undefined && d < s.minimum) || (s.maximum !== undefined && d > s.maximum))) bad.push(`${s.name}: default out of bounds`);
    }
    expect(bad).toEqual([]);
    expect(setting('signup_enabled').default).toBe(true);
    expect(setting('inactive_resource_access_tokens_delete_after_days').default).toBe(30);
    expect(setting('domain_allowlist').default).toBeNull();
    expect('default' in setting('pipeline_limit_per_project_user_sha')).toBe(false);
    expect('default' in setting('issues_create_limit')).toBe(false);
  });

  it('fixes the settings the spec calls always on or always true, with that value as default', () => {
    expect(SETTINGS.filter((s) => s.fixed).map((s) => [s.name, s.default])).toEqual([
      ['hashed_storage_enabled', true],
      ['housekeeping_bitmaps_enabled', true],
    ]);
  });

  it('reads a blank max_personal_access_token_lifetime (365) and the shape of default_branch_protection_defaults as defaults', () => {
    expect(setting('max_personal_access_token_lifetime').default).toBeNull();
    expect(Object.keys(setting('default_branch_protection_defaults').default as object)).toEqual(['allowed_to_push', 'allow_force_push', 'allowed_to_merge']);
  });

  it('gives every setting a section and a description', () => {
    expect(SETTINGS.filter((s) => !s.section || !s.description).map((s) => s.name)).toEqual([]);
    expect(setting('search_engine_url').section).toBe('Search engine');
    expect(setting('search_engine_url').tiers).toEqual(['HT']);
  });

  it('marks the read-only and restart-required settings', () => {
    expect(setting('outbound_local_requests_whitelist').readOnly).toBe(true);
    expect(SETTINGS.filter((s) => s.readOnly).map((s) => s.name)).toEqual(['outbound_local_requests_whitelist']);
    expect(setting('session_expire_delay').restartRequired).toBe(true);
    expect(setting('asset_proxy_url').restartRequired).toBe(true);
  });

  it('resolves the response aliases of the users API limits', () => {
    expect(settingByName('users_api_limit_ssh_keys')?.name).toBe('users_api_limit_keys');
    expect(settingByName('users_api_limit_ssh_key')?.name).toBe('users_api_limit_key');
    expect(responseNameOf('users_api_limit_keys')).toBe('users_api_limit_ssh_keys');
    expect(responseNameOf('users_api_limit_key')).toBe('users_api_limit_ssh_key');
    expect(responseNameOf('signup_enabled')).toBe('signup_enabled');
    expect(settingNames()).not.toContain('users_api_limit_ssh_keys');
  });

  it('lists the response-only fields of the settings record', () => {
    expect(RESPONSE_ONLY_SETTINGS.map((f) => `${f.name}:${f.type}`)).toEqual([
      'id:integer',
      'created_at:datetime',
      'updated_at:datetime',
      'model_prompt_cache_enabled:boolean',
      'lock_model_prompt_cache_enabled:boolean',
    ]);
  });

  it('suggests the closest setting name for a typo', () => {
    expect(suggestSettingName('signup_enabeld')).toBe('signup_enabled');
    expect(suggestSettingName('deletion_adjourned_perod')).toBe('deletion_adjourned_period');
    expect(suggestSettingName('completely_unrelated_words')).toBeUndefined();
    expect(suggestSettingName('zz')).toBeUndefined();
  });
});

describe('the resource catalogue', () => {
  it('maps access levels both ways with 40 as the token default', () => {
    expect(ACCESS_LEVELS).toEqual({ 10: 'guest', 15: 'planner', 20: 'reporter', 30: 'developer', 40: 'maintainer', 50: 'owner' });
    for (const [level, role] of Object.entries(ACCESS_LEVELS)) expect(ACCESS_LEVEL_BY_ROLE[role]).toBe(Number(level));
    expect(DEFAULT_TOKEN_ACCESS_LEVEL).toBe(40);
    expect(GROUP_ACCESS_TOKEN_FIELDS.find((f) => f.name === 'access_level')).toMatchObject({ enum: [10, 15, 20, 30, 40, 50], default: 40 });
  });

  it('marks only the token value as secret and last_used_at as nullable', () => {
    expect(GROUP_ACCESS_TOKEN_FIELDS.filter((f) => f.secret).map((f) => f.name)).toEqual(['token']);
    expect(GROUP_ACCESS_TOKEN_FIELDS.find((f) => f.name === 'last_used_at')).toMatchObject({ type: 'datetime', nullable: true });
    expect(GROUP_ACCESS_TOKEN_FIELDS.find((f) => f.name === 'expires_at')?.type).toBe('date');
  });

  it('knows the group token scopes, list sorts and states', () => {
    expect(GROUP_TOKEN_SCOPES).toHaveLength(15);
    for (const s of ['api', 'read_api', 'read_repository', 'self_rotate']) expect(GROUP_TOKEN_SCOPES).toContain(s);
    expect(TOKEN_LIST_SORTS).toHaveLength(8);
    expect(TOKEN_LIST_STATES).toEqual(['active', 'inactive']);
  });

  it('maps every metadata header to a repository file field', () => {
    const fields = new Set(REPOSITORY_FILE_FIELDS.map((f) => f.name));
    expect(Object.keys(FILE_METADATA_HEADERS)).toHaveLength(10);
    for (const field of Object.values(FILE_METADATA_HEADERS)) expect(fields.has(field)).toBe(true);
    expect(FILE_METADATA_HEADERS['X-Service-Content-Sha256']).toBe('content_sha256');
    expect([...fields].filter((f) => !Object.values<string>(FILE_METADATA_HEADERS).includes(f))).toEqual(['content']);
  });

  it('records per-method presence of the file write fields', () => {
    const byName = Object.fromEntries(FILE_WRITE_FIELDS.map((f) => [f.name, f.methods]));
    expect(byName['content']).toEqual({ POST: 'required', PUT: 'required', DELETE: 'absent' });
    expect(byName['last_commit_id']).toEqual({ POST: 'absent', PUT: 'optional', DELETE: 'optional' });
    expect(byName['commit_message']).toEqual({ POST: 'required', PUT: 'required', DELETE: 'required' });
    expect(FILE_WRITE_FIELDS.find((f) => f.name === 'encoding')).toMatchObject({ enum: ['base64', 'text'], default: 'text' });
    expect(FILE_WRITE_FIELDS).toHaveLength(9);
  });

  it('relates the Pages update fields to the settings they change', () => {
    const response = new Set(PAGES_SETTINGS_FIELDS.map((f) => f.name));
    expect(PAGES_UPDATE_FIELDS.map((f) => f.name)).toEqual(Object.keys(PAGES_UPDATE_RESPONSE_FIELD));
    for (const target of Object.values(PAGES_UPDATE_RESPONSE_FIELD)) expect(response.has(target)).toBe(true);
    expect(PAGES_SETTINGS_FIELDS.find((f) => f.name === 'primary_domain')).toMatchObject({ nullable: true, since: '17.8' });
  });

  it('keeps the limits and error tables of the spec', () => {
    expect(LIMITS.largeBlobRateLimit.requestsPerMinute).toBe(5);
    expect(LIMITS.rotationDefaultExpiryDays).toBe(7);
    expect(LIMITS.defaultLifetimeDays).toBe(365);
    expect(Object.keys(ROTATE_ERRORS).map(Number)).toEqual([400, 401, 403, 404, 405]);
    expect(ROTATE_ERRORS[405]).toMatch(/not an access token/);
    expect(Object.keys(REVOKE_ERRORS).map(Number)).toEqual([400, 404]);
  });
});
