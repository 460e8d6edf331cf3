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

/** The catalogue default, else a plausible value of the right type that satisfies the bounds. */
export function defaultSettingValue(spec: SettingSpec): unknown {
  if ('default' in spec) return clone(spec.default);
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
    out[spec.responseName ?? spec.name] = target.name in values ? values[target.name] : defaultSettingValue(target);
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

function inEnum(spec: SettingSpec, v: unknown): boolean {
  return !spec.enum || spec.enum.some((e) => e === v || String(e) === String(v));
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
      const strings = items.map(coerceString);
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
    case 'object':
      return typeof raw === 'object' && !Array.isArray(raw) ? { ok: true, value: raw } : invalid;
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

function given(params: Params, spec: SettingSpec): boolean {
  return spec.name in params || (spec.responseName !== undefined && spec.responseName in params);
}

function paramValue(params: Params, spec: SettingSpec): unknown {
  return spec.name in params ? params[spec.name] : spec.responseName ? params[spec.responseName] : undefined;
}

/**
 * Validates and applies an update. Returns the changed setting names; throws the API's 400 errors
 * (or a SettingsSeedError in seed mode).
 */
export function applySettingsUpdate(state: EmulatorState, params: Params, opts: UpdateOptions): string[] {
  const seed = opts.mode === 'seed';
  const direct = new Map<string, unknown>(); // target name -> value
  const viaAlias = new Map<string, unknown>();
  const grape: string[] = [];
  const unknownNames: string[] = [];
  const sent = new Set<string>(); // names (as catalogued) present in the request

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
    sent.add(spec.name);
    const coerced = coerceSetting(target, raw);
    if (!coerced.ok) {
      grape.push(`${key} ${coerced.error === 'invalid' ? 'is invalid' : 'does not have a valid value'}`);
      continue;
    }
    (target === spec ? direct : viaAlias).set(target.name, coerced.value);
  }
  if (unknownNames.length > 0) throw new SettingsSeedError(`unknown settings: ${unknownNames.join(', ')}`);

  // Cross-field "required" rules, on what this request sends (Grape `given` blocks).
  const isGiven = (name: string): boolean => {
    const s = settingByName(name);
    return s ? given(params, s) : name in params;
  };
  if (!seed) {
    for (const rule of SETTING_RULES) {
      if (rule.kind === 'required-when-enabled') {
        const flag = settingByName(rule.flag);
        if (!flag || !sent.has(flag.name)) continue;
        const v = coerceSetting(flag, paramValue(params, flag));
        if (!v.ok || v.value !== true) continue;
        for (const r of rule.requires) if (!isGiven(r)) grape.push(`${r} is missing`);
      } else if (rule.kind === 'required-with') {
        const field = settingByName(rule.field);
        if (!field || !sent.has(field.name)) continue;
        const v = paramValue(params, field);
        if (v === null || v === undefined || v === '') continue;
        for (const r of rule.requires) if (!isGiven(r)) grape.push(`${r} is missing`);
      }
    }
  }
  if (grape.length > 0) {
    if (seed) throw new SettingsSeedError(grape.join(', '));
    throw paramErrors([...new Set(grape)]);
  }

  // Legacy names win over the current ones, as in the real API.
  const changes = new Map([...direct, ...viaAlias]);
  const next = { ...state.settings };
  for (const [name, value] of changes) next[name] = value;

  const errors: Record<string, string[]> = {};
  const addError = (field: string, message: string): void => {
    (errors[field] ??= []).push(message);
  };
  for (const [name, value] of changes) {
    const spec = settingByName(name)!;
    for (const e of validateModel(spec, value)) addError(spec.responseName ?? name, e);
  }
  for (const rule of SETTING_RULES) {
    if (rule.kind !== 'not-in-list') continue;
    const list = next[rule.list];
    const value = next[rule.field];
    if (Array.isArray(list) && value !== null && value !== undefined && list.includes(value)) {
      addError(rule.field, 'cannot be set to a restricted visibility level');
    }
  }
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

export function putSettings(state: EmulatorState, params: Params): { response: ApiResponse; changed: string[] } {
  const changed = applySettingsUpdate(state, params, { mode: 'api' });
  return { response: json(200, renderSettings(state, state.settings, state.settingsRecord)), changed };
}
