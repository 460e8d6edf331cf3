import type { SettingSpec } from '../../catalogue/types.js';
import { canonical } from '../../util/canonical.js';

/**
 * Puts a setting's value in one canonical form so that a value read from the instance and the same
 * value written in YAML compare equal: number/boolean/string forms, null vs empty, arrays that are
 * sets, comma-separated lists, key order of hashes. Without this every plan after an apply would
 * show perpetual differences.
 */
export function normalizeSetting(spec: SettingSpec | undefined, value: unknown): unknown {
  if (value === undefined) return undefined;
  switch (spec?.type) {
    case 'boolean':
      if (typeof value === 'string') return value === 'true' ? true : value === 'false' ? false : value;
      return value;
    case 'integer':
    case 'float':
      if (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))) return Number(value);
      return value;
    case 'string':
    case 'text':
      if (value === null) return '';
      return typeof value === 'string' ? value.replace(/\r\n/g, '\n') : value;
    case 'string[]':
    case 'integer[]':
    case 'string|string[]':
      return normalizeList(value, spec.type === 'integer[]');
    case 'hash':
    case 'object':
      if (value === null) return {};
      return canonical(value);
    default:
      return canonical(value);
  }
}

function normalizeList(value: unknown, numeric: boolean): unknown {
  if (value === null || value === '') return [];
  let items: unknown[];
  if (Array.isArray(value)) items = value;
  else if (typeof value === 'string') items = value.split(/[\s,]+/).filter(Boolean);
  else return value;
  const mapped = items.map((v) => (numeric && typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v));
  return [...new Set(mapped.map((v) => JSON.stringify(v)))].sort().map((s) => JSON.parse(s) as unknown);
}

export function sameValue(spec: SettingSpec | undefined, a: unknown, b: unknown): boolean {
  return JSON.stringify(normalizeSetting(spec, a)) === JSON.stringify(normalizeSetting(spec, b));
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Whether the live value holds what the configuration declares. A hash setting is owned key by key:
 * only the declared keys are compared (recursively), so `diagram_render_formats: {bpmn: true}`
 * converges whatever the instance holds for the other formats. Everything else compares whole.
 */
export function holdsDeclared(spec: SettingSpec | undefined, live: unknown, declared: unknown): boolean {
  if ((spec?.type === 'hash' || spec?.type === 'object') && isPlainObject(declared)) {
    const l = live === null || live === undefined ? {} : live;
    return isPlainObject(l) && subsetOf(l, declared);
  }
  return sameValue(spec, live, declared);
}

function subsetOf(live: Record<string, unknown>, declared: Record<string, unknown>): boolean {
  return Object.entries(declared).every(([k, v]) => {
    const l = live[k];
    if (isPlainObject(v) && isPlainObject(l)) return subsetOf(l, v);
    return JSON.stringify(canonical(l) ?? null) === JSON.stringify(canonical(v) ?? null);
  });
}

/**
 * What to send for a declared value: for a hash setting, the live hash with the declared keys laid
 * over it (recursively), so an instance that replaces the whole hash keeps the undeclared keys.
 */
export function withDeclared(spec: SettingSpec | undefined, live: unknown, declared: unknown): unknown {
  if ((spec?.type === 'hash' || spec?.type === 'object') && isPlainObject(declared) && isPlainObject(live)) return overlay(live, declared);
  return declared;
}

function overlay(base: Record<string, unknown>, top: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(top)) {
    const b = base[k];
    out[k] = isPlainObject(v) && isPlainObject(b) ? overlay(b, v) : v;
  }
  return out;
}
