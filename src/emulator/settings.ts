/**
 * GET/PUT /application/settings, driven entirely by the field catalogue: names, response names,
 * types, enums, bounds, steps, lengths, patterns, item limits, object keys, tiers, secrets,
 * read-only and removed fields, deprecated aliases and the cross-field rules. No per-setting fact
 * lives here; the few settings that change the emulator's own behaviour (token prefix and lifetime,
 * admin mode, ...) are read where that behaviour is implemented.
 */
import {
  RESPONSE_ONLY_SETTINGS,
  SETTING_RULES,
  SETTINGS,
  settingByName,
  type SettingSpec,
  type ValueType,
} from '../catalogue/index.js';
import { json, paramErrors, validationErrors, type ApiResponse, type Params } from './http.js';
import type { EmulatorState } from './state.js';
import { isoDateTime } from './time.js';
import type { EmulatorTier } from './types.js';
import { humanDurationSeconds } from '../util/human-duration.js';

// ---------------------------------------------------------------------------------------------
// Tiers
// ---------------------------------------------------------------------------------------------

const TIER_RANK: Readonly<Record<EmulatorTier, number>> = { free: 0, premium: 1, ultimate: 2 };

function requiredTier(spec: SettingSpec): EmulatorTier {
  if (spec.tiers?.includes('TT')) return 'ultimate';
  if (spec.tiers?.includes('HT')) return 'premium';
  return 'free';
}

/** Whether the instance's tier shows (`read`) or accepts (`update`) the setting. */
export function tierAllows(spec: SettingSpec, tier: EmulatorTier, op: 'read' | 'update'): boolean {
  if (TIER_RANK[tier] >= TIER_RANK[requiredTier(spec)]) return true;
  const applies = spec.tierApplies ?? 'both';
  return applies !== 'both' && applies !== op;
}

/**
 * The value of a setting as the emulator's own behaviour sees it: undefined when the setting is not
 * available on the instance's tier (so the feature behaves as if unset).
 */
export function effectiveSetting(state: EmulatorState, name: string): unknown {
  const spec = settingByName(name);
  if (spec && !tierAllows(spec, state.tier, 'update')) return undefined;
  return state.settings[name];
}

// ---------------------------------------------------------------------------------------------
// Aliases: deprecated settings whose replacement is another setting of a compatible type read and
// write the replacement (admin_notification_email -> abuse_notification_email, ...).
// ---------------------------------------------------------------------------------------------

function kind(t: ValueType): string {
  switch (t) {
    case 'integer':
    case 'float':
      return 'number';
    case 'string':
    case 'text':
      return 'string';
    case 'string[]':
    case 'string|string[]':
      return 'string-list';
    case 'hash':
    case 'object':
      return 'object';
    default:
      return t;
  }
}

/** The setting a deprecated setting stands for, when it is a plain alias of it. */
export function aliasTarget(spec: SettingSpec): SettingSpec | undefined {
  const replacement = spec.deprecated?.replacement;
  if (!replacement) return undefined;
  const target = settingByName(replacement);
  if (!target || target.removed || target.name === spec.name) return undefined;
  // A loosely typed (string) alias carries any scalar replacement, e.g. signin_enabled.
  const a = kind(spec.type);
  const b = kind(target.type);
  if (a === b || (spec.type === 'string' && (b === 'boolean' || b === 'number'))) return target;
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Defaults
// ---------------------------------------------------------------------------------------------

function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/** Default request and period of a throttle family of the real service, by family stem. */
const THROTTLE_DEFAULTS: Readonly<Record<string, readonly [number, number]>> = {
  authenticated_api: [7200, 3600],
  authenticated_web: [7200, 3600],
  authenticated_packages_api: [1000, 15],
  unauthenticated_api: [3600, 3600],
  unauthenticated_web: [3600, 3600],
  unauthenticated_packages_api: [800, 15],
};

/**
 * The real service's defaults for the few settings whose spec row states none but whose stored
 * value must be meaningful for the default record to be valid (a flag that defaults to on needs its
 * partner) or for a feature the emulator enforces (a throttle switched on without its numbers).
 * Everything else without a stated default gets a plausible value of its type.
 */
export const INSTANCE_DEFAULTS: Readonly<Record<string, unknown>> = {
  diagram_editor_url: 'https://embed.diagrams.net',
  // Blank: no limit (a lifetime must be at least 1 day, so 0 is not a valid stored value).
  max_ssh_key_lifetime: null,
  ...Object.fromEntries(
    Object.entries(THROTTLE_DEFAULTS).flatMap(([stem, [requests, period]]) => [
      [`throttle_${stem}_requests_per_period`, requests],
      [`throttle_${stem}_period_in_seconds`, period],
    ]),
  ),
};

/**
 * The catalogue default, else the real service's (INSTANCE_DEFAULTS), else a plausible value of
 * the right type that satisfies the bounds.
 */
export function defaultSettingValue(spec: SettingSpec): unknown {
  if ('default' in spec) return clone(spec.default);
  if (spec.name in INSTANCE_DEFAULTS) return clone(INSTANCE_DEFAULTS[spec.name]);
  switch (spec.type) {
    case 'boolean':
      return false;
    case 'integer':
    case 'float': {
      if (spec.enum && spec.enum.length > 0) return spec.enum[0];
      if (spec.minimum !== undefined && spec.minimum > 0) return spec.minimum;
      if (spec.maximum !== undefined && spec.maximum < 0) return spec.maximum;
      return 0;
    }
    case 'string':
    case 'text': {
      if (spec.enum && spec.enum.length > 0) return spec.enum[0];
      return validateModel(spec, '').length === 0 ? '' : null;
    }
    case 'string[]':
    case 'integer[]':
    case 'string|string[]':
      return [];
    case 'hash':
    case 'object':
      return {};
  }
  return null;
}

export function defaultSettings(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const spec of SETTINGS) {
    if (spec.removed || aliasTarget(spec)) continue;
    out[spec.name] = defaultSettingValue(spec);
  }
  return out;
}

export function defaultSettingsRecord(now: Date): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const responseNames = new Set(SETTINGS.map((s) => s.responseName).filter(Boolean));
  for (const f of RESPONSE_ONLY_SETTINGS) {
    if (responseNames.has(f.name)) continue;
    if (f.type === 'datetime') out[f.name] = isoDateTime(now);
    else if (f.name === 'id') out[f.name] = 1;
    else if (f.type === 'boolean') out[f.name] = false;
    else if (f.type === 'integer' || f.type === 'float') out[f.name] = 0;
    else out[f.name] = null;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// GET
// ---------------------------------------------------------------------------------------------

/** The settings object: response-only fields, then every visible, non-secret setting by response name. */
export function renderSettings(state: EmulatorState, values: Record<string, unknown>, record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if ('id' in record) out['id'] = record['id'];
  for (const spec of SETTINGS) {
    if (spec.removed || spec.secret || !tierAllows(spec, state.tier, 'read')) continue;
    const target = aliasTarget(spec) ?? spec;
    if (target.secret || !tierAllows(target, state.tier, 'read')) continue;
    // A fixed setting ("always on") reads its one value, whatever the record holds.
    out[spec.responseName ?? spec.name] =
      target.fixed || !(target.name in values) ? defaultSettingValue(target) : values[target.name];
  }
  for (const [k, v] of Object.entries(record)) if (k !== 'id') out[k] = v;
  return out;
}

export function getSettings(state: EmulatorState): ApiResponse {
  const cache = state.settingsCache;
  if (cache && state.now().getTime() < cache.until) {
    return json(200, renderSettings(state, cache.values, { ...state.settingsRecord, updated_at: isoDateTime(cache.updatedAt) }));
  }
  state.settingsCache = null;
  return json(200, renderSettings(state, state.settings, state.settingsRecord));
}

// ---------------------------------------------------------------------------------------------
// Coercion (the API layer: Grape types and `values`)
// ---------------------------------------------------------------------------------------------

const TRUE = new Set(['true', 't', '1', 'yes', 'y', 'on']);
const FALSE = new Set(['false', 'f', '0', 'no', 'n', 'off']);

type Coerced = { ok: true; value: unknown } | { ok: false; error: 'invalid' | 'values' };

const invalid: Coerced = { ok: false, error: 'invalid' };

function coerceInteger(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v) && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^\s*[+-]?\d+\s*$/.test(v)) return Number(v.trim());
  return undefined;
}

function coerceFloat(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(v)) return Number(v.trim());
  return undefined;
}

function coerceString(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

/** `a,b` or ['a', 'b'] (form `key[]=a&key[]=b`); empty items are dropped. */
function listItems(v: unknown): unknown[] | undefined {
  if (Array.isArray(v)) return v.filter((x) => x !== '');
  if (typeof v === 'string') return v.split(',').map((s) => s.trim()).filter((s) => s !== '');
  return undefined;
}

/**
 * Values the real API's parameter declaration allows where the spec gives no list (Grape `values:`):
 * `default_branch_protection` is one of the five protection levels, 0 (none) to 4 (developers may
 * push the initial commit).
 */
const API_VALUES: Readonly<Record<string, readonly unknown[]>> = {
  default_branch_protection: [0, 1, 2, 3, 4],
};

/** Sent together, a parameter error (lib/api/settings.rb: `mutually_exclusive`). */
const MUTUALLY_EXCLUSIVE = ['password_authentication_enabled_for_web', 'password_authentication_enabled', 'signin_enabled'] as const;

/** Replacements the real API copies over their legacy names (the reverse of the other aliases). */
const CURRENT_NAME_WINS = /^throttle_unauthenticated_web_/;

/**
 * Hash parameters declared with their keys (`type: Hash do … end`): `declared_params` keeps only
 * those, so an unknown key is dropped, not stored and not an error.
 */
const DECLARED_HASH_KEYS: Readonly<Record<string, readonly string[]>> = {
  default_branch_protection_defaults: ['allowed_to_push', 'allow_force_push', 'allowed_to_merge', 'code_owner_approval_required', 'developer_can_initial_push'],
};

/** Visibility levels by number, as the model's `restricted_visibility_levels=` reads them (`Gitlab::VisibilityLevel.level_value`). */
const VISIBILITY_LEVELS: Readonly<Record<string, string>> = { '0': 'private', '10': 'internal', '20': 'public' };

/** Hash settings whose values the real API coerces to integers (`coerce_with: HashOfIntegerValues`). */
const INTEGER_VALUED_HASHES: ReadonlySet<string> = new Set(['repository_storages_weighted']);

function inEnum(spec: SettingSpec, v: unknown): boolean {
  const values = spec.enum ?? API_VALUES[spec.name];
  return !values || values.some((e) => e === v || String(e) === String(v));
}

export function coerceSetting(spec: SettingSpec, raw: unknown): Coerced {
  if (raw === null) return { ok: true, value: null };
  // Grape turns an empty form value into nil for non-string types.
  if (raw === '' && spec.type !== 'string' && spec.type !== 'text') {
    return { ok: true, value: spec.type.endsWith('[]') || spec.type === 'string|string[]' ? [] : null };
  }
  switch (spec.type) {
    case 'boolean': {
      if (typeof raw === 'boolean') return { ok: true, value: raw };
      const s = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim().toLowerCase() : undefined;
      if (s !== undefined && TRUE.has(s)) return { ok: true, value: true };
      if (s !== undefined && FALSE.has(s)) return { ok: true, value: false };
      return invalid;
    }
    case 'integer': {
      const n = coerceInteger(raw);
      if (n === undefined) return invalid;
      return inEnum(spec, n) ? { ok: true, value: n } : { ok: false, error: 'values' };
    }
    case 'float': {
      const n = coerceFloat(raw);
      if (n === undefined) return invalid;
      return inEnum(spec, n) ? { ok: true, value: n } : { ok: false, error: 'values' };
    }
    case 'string':
    case 'text': {
      const s = coerceString(raw);
      if (s === undefined) return invalid;
      return inEnum(spec, s) ? { ok: true, value: s } : { ok: false, error: 'values' };
    }
    case 'string[]':
    case 'string|string[]': {
      const items = listItems(raw);
      if (!items) return invalid;
      const strings = items.map(coerceString).map((s) => (spec.name === 'restricted_visibility_levels' && s !== undefined ? (VISIBILITY_LEVELS[s.trim()] ?? s) : s));
      if (strings.some((s) => s === undefined)) return invalid;
      if (!strings.every((s) => inEnum(spec, s))) return { ok: false, error: 'values' };
      return { ok: true, value: strings };
    }
    case 'integer[]': {
      const items = listItems(raw);
      if (!items) return invalid;
      const ints = items.map(coerceInteger);
      if (ints.some((n) => n === undefined)) return invalid;
      if (!ints.every((n) => inEnum(spec, n))) return { ok: false, error: 'values' };
      return { ok: true, value: ints };
    }
    case 'hash':
    case 'object': {
      if (typeof raw !== 'object' || Array.isArray(raw)) return invalid;
      const declared = DECLARED_HASH_KEYS[spec.name];
      if (declared) return { ok: true, value: Object.fromEntries(Object.entries(raw as Record<string, unknown>).filter(([k]) => declared.includes(k))) };
      if (!INTEGER_VALUED_HASHES.has(spec.name)) return { ok: true, value: raw };
      // The real API coerces each value to an integer (HashOfIntegerValues).
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
        const n = v === null ? null : coerceInteger(v);
        if (n === undefined) return invalid;
        out[k] = n;
      }
      return { ok: true, value: out };
    }
  }
  return invalid;
}

// ---------------------------------------------------------------------------------------------
// Model validation (Rails messages)
// ---------------------------------------------------------------------------------------------

function fmt(n: number): string {
  return String(n);
}

export function validateModel(spec: SettingSpec, value: unknown): string[] {
  const errors: string[] = [];
  if (value === null || value === undefined) {
    if ('default' in spec && spec.default !== null && spec.default !== undefined) errors.push("can't be blank");
    return errors;
  }
  if (typeof value === 'number') {
    if (spec.minimum !== undefined && value < spec.minimum) errors.push(`must be greater than or equal to ${fmt(spec.minimum)}`);
    if (spec.maximum !== undefined && value > spec.maximum) errors.push(`must be less than or equal to ${fmt(spec.maximum)}`);
    if (spec.multipleOf !== undefined) {
      const q = value / spec.multipleOf;
      if (Math.abs(q - Math.round(q)) > 1e-9) errors.push(`must be a multiple of ${fmt(spec.multipleOf)}`);
    }
  }
  if (typeof value === 'string') {
    if (spec.minLength !== undefined && value.length < spec.minLength) {
      errors.push(`is too short (minimum is ${spec.minLength} character${spec.minLength === 1 ? '' : 's'})`);
    }
    if (spec.maxLength !== undefined && value.length > spec.maxLength) {
      errors.push(`is too long (maximum is ${spec.maxLength} characters)`);
    }
    if (spec.pattern !== undefined && !new RegExp(spec.pattern).test(value)) errors.push('is invalid');
  }
  if (Array.isArray(value) && spec.maxItems !== undefined && value.length > spec.maxItems) {
    errors.push(`is too long (maximum is ${spec.maxItems} entries)`);
  }
  if (spec.keys && typeof value === 'object' && !Array.isArray(value)) {
    const unknown = Object.keys(value).filter((k) => !spec.keys!.includes(k));
    if (unknown.length > 0) errors.push(`has unknown keys: ${unknown.join(', ')}`);
  }
  return errors;
}

// ---------------------------------------------------------------------------------------------
// PUT
// ---------------------------------------------------------------------------------------------

export interface UpdateOptions {
  /** 'seed': unknown names are errors, read-only and tier-gated fields are accepted. */
  readonly mode: 'api' | 'seed';
}

export class SettingsSeedError extends Error {}

/**
 * Validates and applies an update. Returns the changed setting names; throws the API's 400 errors
 * (or a SettingsSeedError in seed mode).
 */
export function applySettingsUpdate(state: EmulatorState, params: Params, opts: UpdateOptions): string[] {
  const seed = opts.mode === 'seed';
  // Grape's `mutually_exclusive` of the web password flag and its two legacy names.
  const exclusive = MUTUALLY_EXCLUSIVE.filter((k) => k in params);
  if (!seed && exclusive.length > 1) throw paramErrors([`${exclusive.join(', ')} are mutually exclusive`]);
  const direct = new Map<string, unknown>(); // target name -> value
  const viaAlias = new Map<string, unknown>();
  const grape: string[] = [];
  const unknownNames: string[] = [];

  for (const [key, raw] of Object.entries(params)) {
    const spec = settingByName(key);
    if (!spec) {
      if (seed && !RESPONSE_ONLY_SETTINGS.some((f) => f.name === key)) unknownNames.push(key);
      continue;
    }
    if (spec.removed) {
      if (seed) unknownNames.push(`${key} (removed in ${spec.removed.version})`);
      continue;
    }
    const target = aliasTarget(spec) ?? spec;
    if (!seed && (spec.readOnly || target.readOnly)) continue;
    if (!seed && (!tierAllows(spec, state.tier, 'update') || !tierAllows(target, state.tier, 'update'))) continue;
    const coerced = coerceSetting(target, raw);
    if (!coerced.ok) {
      grape.push(`${key} ${coerced.error === 'invalid' ? 'is invalid' : 'does not have a valid value'}`);
      continue;
    }
    (target === spec ? direct : viaAlias).set(target.name, coerced.value);
  }
  if (unknownNames.length > 0) throw new SettingsSeedError(`unknown settings: ${unknownNames.join(', ')}`);

  if (grape.length > 0) {
    if (seed) throw new SettingsSeedError(grape.join(', '));
    throw paramErrors([...new Set(grape)]);
  }

  // Legacy names win over the current ones, as in the real API, which copies each legacy parameter
  // over its replacement; but `throttle_unauthenticated_web_*` is copied over the legacy
  // `throttle_unauthenticated_*`, so there the current name wins.
  const changes = new Map([...direct, ...viaAlias]);
  for (const [name, value] of direct) if (CURRENT_NAME_WINS.test(name)) changes.set(name, value);
  const next = { ...state.settings };
  for (const [name, value] of changes) {
    const spec = settingByName(name)!;
    // A deprecated fixed setting ignores writes; a hash with a default shape merges a partial update.
    if (spec.fixed && spec.deprecated) continue;
    next[name] = mergesPartially(spec) && isPlainObject(value) && isPlainObject(next[name]) ? { ...next[name], ...value } : value;
  }

  // The whole resulting record is validated, as a model is: a PUT that would leave it invalid
  // changes nothing.
  const errors = recordErrors(state, next);
  if (Object.keys(errors).length > 0) {
    if (seed) {
      throw new SettingsSeedError(
        Object.entries(errors)
          .map(([k, v]) => `${k} ${v.join(', ')}`)
          .join('; '),
      );
    }
    throw validationErrors(errors);
  }

  const changed = [...changes.keys()].filter((k) => JSON.stringify(state.settings[k]) !== JSON.stringify(next[k]));
  if (changed.length > 0 && !seed) {
    const cacheSeconds = state.settingsCacheSeconds;
    if (cacheSeconds > 0 && !(state.settingsCache && state.now().getTime() < state.settingsCache.until)) {
      state.settingsCache = {
        values: clone(state.settings),
        updatedAt: new Date(String(state.settingsRecord['updated_at'] ?? isoDateTime(state.now()))),
        until: state.now().getTime() + cacheSeconds * 1000,
      };
    }
    if ('updated_at' in state.settingsRecord) state.settingsRecord['updated_at'] = isoDateTime(state.now());
  }
  state.settings = next;
  return changed;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Hash settings whose default has a shape (default_branch_protection_defaults) merge updates key by key. */
function mergesPartially(spec: SettingSpec): boolean {
  return (spec.type === 'hash' || spec.type === 'object') && isPlainObject(spec.default);
}

/** Rails' `blank?` for the values a setting can hold. */
export function isBlank(v: unknown): boolean {
  if (v === null || v === undefined) return true;
  if (typeof v === 'string') return v.trim() === '';
  if (Array.isArray(v)) return v.length === 0;
  if (isPlainObject(v)) return Object.keys(v).length === 0;
  return false;
}

/**
 * The real service's model rules for settings whose spec row states no bound (or states only one
 * side of it), keyed by setting; each returns its Rails messages. A setting the catalogue already
 * bounds is checked by the catalogue first and only then by these (so a bound added to the
 * catalogue later does not report twice).
 */
const MODEL_RULES: Readonly<Record<string, (value: unknown, record: Record<string, unknown>) => string[]>> = {
  // `numericality: { greater_than: 0, less_than_or_equal_to: 365 }, allow_blank: true`
  max_personal_access_token_lifetime: (v) => (typeof v === 'number' && v <= 0 ? ['must be greater than 0'] : []),
  max_ssh_key_lifetime: (v) => (typeof v === 'number' && v <= 0 ? ['must be greater than 0'] : []),
  // Each weight an integer from 0 to 100.
  repository_storages_weighted: (v) => {
    if (!isPlainObject(v)) return [];
    const out: string[] = [];
    for (const [storage, weight] of Object.entries(v)) {
      if (weight === null || weight === '') continue;
      if (typeof weight !== 'number' || !Number.isInteger(weight)) out.push(`value for '${storage}' must be an integer`);
      else if (weight < 0 || weight > 100) out.push(`value for '${storage}' must be between 0 and 100`);
    }
    return out;
  },
  // An untrusted (RE2) regular expression, checked while the restriction is on.
  email_restrictions: (v, record) => {
    if (record['email_restrictions_enabled'] !== true || typeof v !== 'string' || v === '') return [];
    const problem = regexProblem(v);
    return problem === undefined ? [] : [`not valid RE2 syntax: ${problem}`];
  },
};

/**
 * Why a pattern does not compile, or undefined. JavaScript's syntax stands in for RE2's; the
 * constructs RE2 refuses and JavaScript accepts (backreferences, lookaround) are refused too.
 */
export function regexProblem(pattern: string): string | undefined {
  if (/\\[1-9]|\(\?<?[=!]/.test(pattern)) return 'invalid or unsupported Perl syntax';
  try {
    new RegExp(pattern);
    return undefined;
  } catch (e) {
    return (e as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /, '').toLowerCase();
  }
}

/** Settings whose value is a human-readable duration with a lower bound (ChronicDuration in the real service). */
const DURATIONS: Readonly<Record<string, { readonly minSeconds: number; readonly message: string }>> = {
  archive_builds_in_human_readable: { minSeconds: 86_400, message: 'must be at least 1 day' },
};

/**
 * Every model error of a settings record, keyed by response name: each value against its bounds,
 * fixed values, durations, the dependency rules of section 2.2 (a partner of an enabled flag, or
 * of a given certificate, must not be blank) and the visibility rule.
 */
export function recordErrors(state: EmulatorState, record: Record<string, unknown>): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const addError = (name: string, message: string): void => {
    const key = settingByName(name)?.responseName ?? name;
    const list = (errors[key] ??= []);
    if (!list.includes(message)) list.push(message);
  };
  for (const spec of SETTINGS) {
    if (spec.removed || !(spec.name in record)) continue;
    const value = record[spec.name];
    // The real service's own wording of a rule wins over the catalogue's generic bound message
    // (a lifetime of 0: "must be greater than 0", Rails' greater_than: 0).
    const real = MODEL_RULES[spec.name]?.(value, record) ?? [];
    for (const e of real.length > 0 ? real : validateModel(spec, value)) addError(spec.name, e);
    if (spec.fixed && !spec.deprecated && value !== spec.default) {
      addError(spec.name, FIXED_MESSAGES[spec.name] ?? `must be ${JSON.stringify(spec.default)}`);
    }
    const duration = DURATIONS[spec.name];
    if (duration && typeof value === 'string' && value.trim() !== '') {
      const seconds = humanDurationSeconds(value);
      if (seconds === undefined) addError(spec.name, 'is not a correct duration');
      else if (seconds < duration.minSeconds) addError(spec.name, duration.message);
    }
  }
  // Rules name settings as the spec does; a deprecated alias stands for the setting it writes.
  const stored = (name: string): string => {
    const spec = settingByName(name);
    return spec ? (aliasTarget(spec) ?? spec).name : name;
  };
  const applies = (name: string): boolean => {
    const spec = settingByName(name);
    return spec !== undefined && tierAllows(spec, state.tier, 'update');
  };
  for (const rule of SETTING_RULES) {
    if (rule.kind === 'required-when-enabled' || rule.kind === 'required-with') {
      const trigger = stored(rule.kind === 'required-when-enabled' ? rule.flag : rule.field);
      if (!applies(trigger)) continue;
      const on = rule.kind === 'required-when-enabled' ? record[trigger] === true : !isBlank(record[trigger]);
      if (!on) continue;
      for (const partner of rule.requires.map(stored)) if (applies(partner) && isBlank(record[partner])) addError(partner, "can't be blank");
    } else {
      const list = record[rule.list];
      const value = record[rule.field];
      if (Array.isArray(list) && value !== null && value !== undefined && list.includes(value)) {
        addError(rule.field, 'cannot be set to a restricted visibility level');
      }
    }
  }
  return errors;
}

/** The real service's message for a fixed setting given another value. */
const FIXED_MESSAGES: Readonly<Record<string, string>> = {
  hashed_storage_enabled: "Hashed storage can't be disabled anymore for new projects",
};

export function putSettings(state: EmulatorState, params: Params): { response: ApiResponse; changed: string[] } {
  const changed = applySettingsUpdate(state, params, { mode: 'api' });
  return { response: json(200, renderSettings(state, state.settings, state.settingsRecord)), changed };
}
