/**
 * Grape-style coercion of single request parameters, shared by the handlers: a string as Grape
 * takes it, Booleans (`true`/`t`/`1`/`yes`/`y`/`on` and their opposites), enums. Each parser
 * answers a value, nothing (absent or blank), or the Grape error text (`protected is invalid`).
 */
import type { Params } from './http.js';

export type Parsed<T> = { value?: T; error?: string };

/** A scalar as the string Grape sees; undefined for arrays, hashes and null. */
export function str(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

export function boolParam(params: Params, name: string): Parsed<boolean> {
  const raw = params[name];
  if (raw === undefined || raw === null || raw === '') return {};
  if (typeof raw === 'boolean') return { value: raw };
  const s = str(raw)?.toLowerCase();
  if (s && ['true', 't', '1', 'yes', 'y', 'on'].includes(s)) return { value: true };
  if (s && ['false', 'f', '0', 'no', 'n', 'off'].includes(s)) return { value: false };
  return { error: `${name} is invalid` };
}

export function enumParam(params: Params, name: string, values: readonly string[]): Parsed<string> {
  const raw = params[name];
  if (raw === undefined || raw === null) return {};
  const s = str(raw);
  if (s === undefined) return { error: `${name} is invalid` };
  return values.includes(s) ? { value: s } : { error: `${name} does not have a valid value` };
}

/** A String parameter: absent stays undefined, a non-scalar is `name is invalid`. */
export function stringParam(params: Params, name: string): Parsed<string> {
  const raw = params[name];
  if (raw === undefined || raw === null) return {};
  const s = str(raw);
  return s === undefined ? { error: `${name} is invalid` } : { value: s };
}
