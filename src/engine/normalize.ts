import type { SettingSpec } from '../catalogue/types.js';

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

/** Deep copy with object keys sorted, so JSON.stringify gives one form for equal values. */
export function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

export function sameValue(spec: SettingSpec | undefined, a: unknown, b: unknown): boolean {
  return JSON.stringify(normalizeSetting(spec, a)) === JSON.stringify(normalizeSetting(spec, b));
}
