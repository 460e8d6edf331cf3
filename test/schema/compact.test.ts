// The validator is compiled from a rearranged copy of the configuration schema (src/schema/compact.ts,
// its name patterns matched by sets, src/schema/name-patterns.ts) and its schema constants pruned
// (scripts/prune-schema-constants.ts). Both must change nothing a user sees: the same data is
// accepted, and a rejected one gets the same errors (keyword, place, parameters).
import { describe, expect, it } from 'vitest';
import Ajv from 'ajv';
import type { ErrorObject } from 'ajv';
import { configSchema } from '../../src/schema/build.js';
import { VALIDATOR_OPTIONS, validationSchema } from '../../src/schema/compact.js';
import { namePatterns } from '../../src/schema/name-patterns.js';
import { validate as generated } from '../../src/generated/config-validator.js';
import { pruneSchemaConstants } from '../../scripts/prune-schema-constants.js';
import { BUILT_IN_CONFIG_KINDS } from '../../src/resources/index.js';
import { SETTINGS } from '../../src/catalogue/index.js';

const schema = configSchema(BUILT_IN_CONFIG_KINDS.configs);
/** The schema as written, compiled as it is: what the rearranged copy must agree with. */
const { code: _code, ...plainOptions } = VALIDATOR_OPTIONS;
const original = new Ajv.default({ ...plainOptions, strict: false }).compile(schema);
const compact = new Ajv.default(VALIDATOR_OPTIONS).compile(validationSchema(schema));

type Validator = { (data: unknown): boolean; errors?: ErrorObject[] | null };

/** What a diagnostic is made of (src/config/schema-errors.ts), in a stable order. */
function errorsOf(validate: Validator, data: unknown): string[] {
  validate(data);
  return (validate.errors ?? [])
    .map((e) => JSON.stringify([e.instancePath, e.keyword, e.params, /\/settings\/allOf\/\d+\//.exec(e.schemaPath)?.[0] ?? '']))
    .sort();
}

/** A value of the wrong type for every setting, and one the schema does not know. */
function wrongSettings(): Record<string, unknown> {
  const out: Record<string, unknown> = { not_a_setting: 1 };
  for (const s of SETTINGS.filter((x) => !x.removed)) out[s.name] = s.type === 'boolean' ? 'yes' : s.type === 'string' ? 12 : true;
  return out;
}

const instance = (settings: unknown) => ({ version: 1, instances: { local: { url: 'https://code.example', settings } } });

describe('the validator compiled from the rearranged schema', () => {
  it('groups the settings keys that share a leaf schema, so that most of them have no block of their own', () => {
    const settings = (validationSchema(schema).definitions as Record<string, { properties: object; patternProperties?: object }>).settings!;
    expect(Object.keys(settings.properties).length).toBeLessThan(60);
    expect(Object.keys(settings.patternProperties ?? {}).length).toBeGreaterThan(5);
  });

  it.each([
    ['every setting of the wrong type, and an unknown one', instance(wrongSettings())],
    ['a rule broken (a flag on, what it requires missing)', instance({ email_restrictions_enabled: true, domain_denylist_enabled: true, domain_denylist: [] })],
    ['bounds and enums', instance({ max_login_attempts: -4, default_project_visibility: 'secret', import_sources: ['nowhere'], restricted_visibility_levels: 'public' })],
    ['a valid block', instance({ signup_enabled: false, max_login_attempts: 7, default_project_visibility: 'private' })],
    ['not an object', instance(['signup_enabled'])],
  ])('reports %s exactly as the schema as written does', (name, data) => {
    const expected = errorsOf(original as Validator, data);
    if (name.startsWith('every')) expect(expected.length).toBeGreaterThan(SETTINGS.length * 0.9);
    else if (name.startsWith('a valid')) expect(expected).toEqual([]);
    else expect(expected.length).toBeGreaterThan(0);
    expect(errorsOf(compact as Validator, data)).toEqual(expected);
    expect(errorsOf(generated as Validator, data)).toEqual(expected);
  });
});

describe('name patterns', () => {
  it('match exactly the names of an anchored alternation, and leave any other pattern to RegExp', () => {
    const names = namePatterns('^(?:signup_enabled|admin_mode)$', 'u');
    expect(['signup_enabled', 'admin_mode', 'admin_mode2', 'xsignup_enabled', ''].map((s) => names.test(s))).toEqual([true, true, false, false, false]);
    expect(String(names)).toBe('/^(?:signup_enabled|admin_mode)$/u');
    expect(namePatterns('^(?:a|b.c)$', 'u')).toBeInstanceOf(RegExp);
    expect(namePatterns('^[a-z]+$', 'u').test('abc')).toBe(true);
  });
});

describe('pruning the schema constants of ajv standalone code', () => {
  const declare = (v: unknown) => `const schema13 = ${JSON.stringify(v)};`;
  const big = { properties: { a: { enum: [1, 2] }, b: { type: 'string' } }, allOf: [{ if: {}, then: {} }], type: 'object' };

  it('keeps only the paths the code reads, each whole from where it ends', () => {
    const out = pruneSchemaConstants(`${declare(big)}f(schema13.properties.a.enum);`);
    expect(out).toBe(`${declare({ properties: { a: { enum: [1, 2] } } })}f(schema13.properties.a.enum);`);
  });

  it('keeps a map whole when the code reads it whole (an own-property check)', () => {
    const out = pruneSchemaConstants(`${declare(big)}func2.call(schema13.properties, key0);x(schema13["type"]);`);
    expect(out).toContain(declare({ properties: big.properties, type: 'object' }));
  });

  it('leaves a constant as it is when the code uses it whole or reads a path that is not there', () => {
    for (const use of ['g(schema13);', 'g(schema13.nothere.x);', 'g(schema13.properties.a.enum.length);']) {
      const src = `${declare(big)}${use}`;
      expect(pruneSchemaConstants(src), use).toBe(src);
    }
  });
});
