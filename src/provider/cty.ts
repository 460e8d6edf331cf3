/**
 * Terraform's values on the wire (`DynamicValue`): cty values encoded as MessagePack, driven by the
 * type the schema declared (docs/plugin-protocol/object-wire-format.md in Terraform's repository).
 *
 * In plumb a value is plain data: null, string, number, boolean, arrays (list, set, tuple), plain
 * objects (map, object), and {@link UNKNOWN} for a value decided only at apply. Unknown values are
 * MessagePack extensions: Terraform sends code 0 (or 12, a "refined" unknown whose refinements plumb
 * ignores, as the protocol allows); plumb always sends code 0.
 */
import { ExtData, decode, encode } from '@msgpack/msgpack';
import { PlumbError } from '../diagnostics/error.js';

// The value model lives with the kinds' Terraform contract (no msgpack there), so a kind's
// terraform.ts can use it without loading the wire format.
import { UNKNOWN, containsUnknown, isUnknown } from '../resources/terraform.js';
import type { CtyType, CtyValue, Unknown } from '../resources/terraform.js';
export { UNKNOWN, containsUnknown, isUnknown };
export type { CtyType, CtyValue, Unknown };

/** A value Terraform sent that is not of its schema's type; the summary names where ("config.a.b must be …"). */
export class CtyError extends PlumbError {
  declare readonly code: 'PLUMB_TF_VALUE';
  constructor(summary: string) {
    super('PLUMB_TF_VALUE', summary);
  }
}

/** Encodes a value of the given type as MessagePack. */
export function encodeValue(value: CtyValue, type: CtyType): Uint8Array {
  return encode(toWire(value, type, ''));
}

/** Decodes a MessagePack value of the given type. */
export function decodeValue(bytes: Uint8Array, type: CtyType): CtyValue {
  return fromWire(decode(bytes), type, '');
}

/** Decodes a DynamicValue message: MessagePack when present, otherwise JSON (which has no unknowns). */
export function decodeDynamic(dv: { msgpack?: Uint8Array | null; json?: Uint8Array | null } | null | undefined, type: CtyType): CtyValue {
  if (dv?.msgpack && dv.msgpack.length > 0) return decodeValue(dv.msgpack, type);
  if (dv?.json && dv.json.length > 0) return fromJson(JSON.parse(Buffer.from(dv.json).toString('utf8')), type, '');
  return null;
}

function where(path: string): string {
  return path === '' ? 'the value' : path;
}

function toWire(v: CtyValue, type: CtyType, path: string): unknown {
  if (v === null || v === undefined) return null;
  if (v === UNKNOWN) return new ExtData(0, new Uint8Array([0]));
  if (type === 'dynamic') {
    const actual = typeOf(v);
    return [new TextEncoder().encode(JSON.stringify(actual)), toWire(v, actual, path)];
  }
  if (typeof type === 'string') {
    const want = type === 'bool' ? 'boolean' : type;
    if (typeof v !== want) throw new CtyError(`${where(path)} must be a ${type}, not ${describe(v)}`);
    return v;
  }
  const [kind, arg] = type;
  switch (kind) {
    case 'list':
    case 'set':
      if (!Array.isArray(v)) throw new CtyError(`${where(path)} must be a ${kind}, not ${describe(v)}`);
      return (v as CtyValue[]).map((e, i) => toWire(e, arg as CtyType, `${path}[${i}]`));
    case 'tuple':
      if (!Array.isArray(v)) throw new CtyError(`${where(path)} must be a tuple, not ${describe(v)}`);
      return (arg as readonly CtyType[]).map((t, i) => toWire((v as CtyValue[])[i] ?? null, t, `${path}[${i}]`));
    case 'map': {
      if (!isRecord(v)) throw new CtyError(`${where(path)} must be a map, not ${describe(v)}`);
      const out: Record<string, unknown> = {};
      for (const [k, e] of Object.entries(v)) out[k] = toWire(e, arg as CtyType, `${path}[${JSON.stringify(k)}]`);
      return out;
    }
    case 'object': {
      if (!isRecord(v)) throw new CtyError(`${where(path)} must be an object, not ${describe(v)}`);
      const out: Record<string, unknown> = {};
      for (const [k, t] of Object.entries(arg as Record<string, CtyType>)) out[k] = toWire(v[k] ?? null, t, path ? `${path}.${k}` : k);
      return out;
    }
  }
}

function fromWire(w: unknown, type: CtyType, path: string): CtyValue {
  if (w === null || w === undefined) return null;
  if (w instanceof ExtData) return UNKNOWN;
  if (type === 'dynamic') {
    if (!Array.isArray(w) || w.length !== 2) throw new CtyError(`${where(path)}: a dynamic value must be a [type, value] pair`);
    const t = JSON.parse(Buffer.from(w[0] as Uint8Array).toString('utf8')) as CtyType;
    return fromWire(w[1], t, path);
  }
  if (typeof type === 'string') {
    switch (type) {
      case 'string':
        if (typeof w !== 'string') throw new CtyError(`${where(path)} must be a string`);
        return w;
      case 'bool':
        if (typeof w !== 'boolean') throw new CtyError(`${where(path)} must be a bool`);
        return w;
      case 'number':
        if (typeof w === 'number') return w;
        if (typeof w === 'bigint') return Number(w);
        if (typeof w === 'string' && w.trim() !== '' && Number.isFinite(Number(w))) return Number(w);
        throw new CtyError(`${where(path)} must be a number`);
    }
  }
  const [kind, arg] = type as Exclude<CtyType, string>;
  switch (kind) {
    case 'list':
    case 'set':
      if (!Array.isArray(w)) throw new CtyError(`${where(path)} must be a ${kind}`);
      return w.map((e, i) => fromWire(e, arg as CtyType, `${path}[${i}]`));
    case 'tuple':
      if (!Array.isArray(w)) throw new CtyError(`${where(path)} must be a tuple`);
      return (arg as readonly CtyType[]).map((t, i) => fromWire(w[i], t, `${path}[${i}]`));
    case 'map': {
      if (!isPlainMap(w)) throw new CtyError(`${where(path)} must be a map`);
      const out: Record<string, CtyValue> = {};
      for (const [k, e] of Object.entries(w)) out[k] = fromWire(e, arg as CtyType, `${path}[${JSON.stringify(k)}]`);
      return out;
    }
    case 'object': {
      if (!isPlainMap(w)) throw new CtyError(`${where(path)} must be an object`);
      const out: Record<string, CtyValue> = {};
      for (const [k, t] of Object.entries(arg as Record<string, CtyType>)) out[k] = fromWire(w[k], t, path ? `${path}.${k}` : k);
      return out;
    }
  }
}

function fromJson(j: unknown, type: CtyType, path: string): CtyValue {
  if (j === null || j === undefined) return null;
  if (type === 'dynamic') {
    const d = j as { type: CtyType; value: unknown };
    return fromJson(d.value, d.type, path);
  }
  if (typeof type === 'string') return fromWire(j, type, path);
  const [kind, arg] = type as Exclude<CtyType, string>;
  if (kind === 'list' || kind === 'set') return (j as unknown[]).map((e, i) => fromJson(e, arg as CtyType, `${path}[${i}]`));
  if (kind === 'tuple') return (arg as readonly CtyType[]).map((t, i) => fromJson((j as unknown[])[i], t, `${path}[${i}]`));
  const out: Record<string, CtyValue> = {};
  if (kind === 'map') for (const [k, e] of Object.entries(j as Record<string, unknown>)) out[k] = fromJson(e, arg as CtyType, path);
  else for (const [k, t] of Object.entries(arg as Record<string, CtyType>)) out[k] = fromJson((j as Record<string, unknown>)[k], t, path);
  return out;
}

/** The type a dynamic value is sent with: the most specific one its JS shape allows. */
export function typeOf(v: CtyValue): CtyType {
  if (v === null || v === UNKNOWN) return 'dynamic';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return ['tuple', (v as CtyValue[]).map(typeOf)];
  return ['object', Object.fromEntries(Object.entries(v as Record<string, CtyValue>).map(([k, e]) => [k, typeOf(e)]))];
}

function isRecord(v: CtyValue): v is { readonly [key: string]: CtyValue } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isPlainMap(w: unknown): w is Record<string, unknown> {
  return typeof w === 'object' && w !== null && !Array.isArray(w) && !(w instanceof Uint8Array);
}

function describe(v: CtyValue): string {
  if (Array.isArray(v)) return 'a list';
  if (v === null) return 'null';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}
