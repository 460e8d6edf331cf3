/**
 * The DynamicValue codec: cty values as msgpack, typed by the schema, with unknowns (extension 0,
 * and Terraform's refined unknowns, extension 12) and nulls. Bytes built by hand with
 * @msgpack/msgpack stand in for what Terraform sends.
 */
import { ExtData, decode, encode } from '@msgpack/msgpack';
import { describe, expect, it } from 'vitest';
import { CtyError, UNKNOWN, containsUnknown, decodeDynamic, decodeValue, encodeValue } from '../../src/provider/cty.js';
import type { CtyType } from '../../src/provider/cty.js';

const OBJ: CtyType = [
  'object',
  {
    name: 'string',
    count: 'number',
    on: 'bool',
    tags: ['list', 'string'],
    ids: ['set', 'number'],
    labels: ['map', 'string'],
    nested: ['object', { a: 'string', b: 'number' }],
    pair: ['tuple', ['string', 'bool']],
    any: 'dynamic',
  },
];

describe('msgpack cty codec', () => {
  it('round-trips every kind of type, nulls included', () => {
    const v = { name: 'x', count: 1.5, on: false, tags: ['a', 'b'], ids: [3, 4], labels: { k: 'v' }, nested: { a: 'y', b: null }, pair: ['p', true], any: null };
    expect(decodeValue(encodeValue(v, OBJ), OBJ)).toEqual(v);
  });

  it('fills attributes an object value leaves out with null, as Terraform expects every attribute present', () => {
    const wire = decode(encodeValue({ name: 'only' }, OBJ)) as Record<string, unknown>;
    expect(Object.keys(wire).sort()).toEqual(['any', 'count', 'ids', 'labels', 'name', 'nested', 'on', 'pair', 'tags']);
    expect(wire.count).toBeNull();
  });

  it('encodes an unknown value as extension 0 and decodes it back, at any depth', () => {
    const bytes = encodeValue({ name: UNKNOWN, tags: ['a', UNKNOWN] }, OBJ);
    const wire = decode(bytes) as Record<string, unknown>;
    expect(wire.name).toBeInstanceOf(ExtData);
    expect((wire.name as ExtData).type).toBe(0);
    const back = decodeValue(bytes, OBJ) as Record<string, unknown>;
    expect(back.name).toBe(UNKNOWN);
    expect(back.tags).toEqual(['a', UNKNOWN]);
    expect(containsUnknown(back as never)).toBe(true);
  });

  it('reads a refined unknown (extension 12 with refinements) as unknown', () => {
    const refined = encode({ name: new ExtData(12, encode({ 1: false, 2: 'pre' })) });
    expect((decodeValue(refined, ['object', { name: 'string' }]) as Record<string, unknown>).name).toBe(UNKNOWN);
  });

  it('reads numbers Terraform sends as strings (beyond a float64 mantissa) and as 64-bit integers', () => {
    expect(decodeValue(encode('12345678901234567890'), 'number')).toBe(12345678901234567890);
    expect(decodeValue(encode(2 ** 40), 'number')).toBe(2 ** 40);
  });

  it('encodes a dynamic value as [type JSON, value] and reads it back', () => {
    const bytes = encodeValue({ allowed_to_push: [{ access_level: 40 }], allow_force_push: false }, 'dynamic');
    const wire = decode(bytes) as [Uint8Array, unknown];
    expect(JSON.parse(Buffer.from(wire[0]).toString())).toEqual(['object', { allowed_to_push: ['tuple', [['object', { access_level: 'number' }]]], allow_force_push: 'bool' }]);
    expect(decodeValue(bytes, 'dynamic')).toEqual({ allowed_to_push: [{ access_level: 40 }], allow_force_push: false });
  });

  it('falls back to the JSON encoding when msgpack is absent', () => {
    const json = Buffer.from(JSON.stringify({ name: 'j', count: 2, any: { type: 'string', value: 's' } }));
    expect(decodeDynamic({ json }, OBJ)).toMatchObject({ name: 'j', count: 2, any: 's', tags: null });
    expect(decodeDynamic({}, OBJ)).toBeNull();
  });

  it('refuses a value of the wrong type with the attribute it is at', () => {
    expect(() => encodeValue({ nested: { a: 5 } }, OBJ)).toThrow(CtyError);
    expect(() => encodeValue({ nested: { a: 5 } }, OBJ)).toThrow(/nested\.a must be a string/);
    expect(() => decodeValue(encode({ on: 'yes' }), ['object', { on: 'bool' }])).toThrow(/on must be a bool/);
  });
});
