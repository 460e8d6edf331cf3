/**
 * Checks for a kind's payload parser (`ResourceProvider.parsePayload`). A payload comes back from a
 * plan file on disk, which anybody can edit: each field is checked before apply reads it, and the
 * first wrong one is named.
 */
import { PlumbError } from '../diagnostics/error.js';

/** A payload that is not what its kind planned. The summary names the field. */
export class PayloadError extends PlumbError {
  declare readonly code: 'PLUMB_PLAN_INVALID';
  constructor(summary: string) {
    super('PLUMB_PLAN_INVALID', summary);
  }
}

export type Json = Readonly<Record<string, unknown>>;

export function record(v: unknown, what: string): Json {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new PayloadError(`${what} is not an object`);
  return v as Json;
}

export function string(o: Json, key: string, what = key): string {
  const v = o[key];
  if (typeof v !== 'string') throw new PayloadError(`${what} is not a string`);
  return v;
}

export function optionalString(o: Json, key: string, what = key): string | undefined {
  return o[key] === undefined ? undefined : string(o, key, what);
}

export function number(o: Json, key: string, what = key): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new PayloadError(`${what} is not a number`);
  return v;
}

export function optionalNumber(o: Json, key: string, what = key): number | undefined {
  return o[key] === undefined ? undefined : number(o, key, what);
}

export function optionalBoolean(o: Json, key: string, what = key): boolean | undefined {
  const v = o[key];
  if (v !== undefined && typeof v !== 'boolean') throw new PayloadError(`${what} is not true or false`);
  return v;
}

export function stringArray(o: Json, key: string, what = key): string[] {
  const v = o[key];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw new PayloadError(`${what} is not a list of strings`);
  return v as string[];
}

export function oneOf<T extends string>(o: Json, key: string, allowed: readonly T[], what = key): T {
  const v = o[key];
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) throw new PayloadError(`${what} is not one of ${allowed.join(', ')}`);
  return v as T;
}
