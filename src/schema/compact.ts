/**
 * The configuration schema as the validator is compiled from it: the same assertions, arranged so
 * that the code ajv generates checks the keys an object *has* rather than every key it *may* have.
 *
 * Why: ajv turns `properties` into one `if (data.k !== undefined) {…}` block per known key. The
 * application settings know ~380 keys, so their block was most of the precompiled validator
 * (src/generated/config-validator.ts), and a cold `plumb validate` paid for reading and
 * deserializing its compiled code whether the configuration set three settings or three hundred
 * (issue 30). Most of those keys share one of a few leaf schemas (`{type: boolean}`,
 * `{type: integer}`, `{type: string}`), and `patternProperties` with an anchored alternation of
 * exactly those names asserts the same thing with one loop over the object's own keys per shared
 * leaf (a set lookup, not a regular expression: ./name-patterns.ts).
 *
 * Same acceptance, same errors (keyword, params, instancePath; only the schemaPath of a grouped
 * key's error differs, and nothing reads it but the settings rules' `allOf` index, which is kept).
 * The schema published for editors (schemas/) is not rearranged: it keeps one described entry per key.
 */
import type { JsonSchema } from './build.js';
import { namePatterns } from './name-patterns.js';

/** A `properties` map smaller than this is left as it is: its per-key code is already small. */
const MIN_PROPERTIES = 32;
/** A leaf schema shared by fewer keys than this keeps its per-key entries. */
const MIN_SHARED = 2;

const NAME = /^[A-Za-z0-9_]+$/;

/**
 * The options both validators are compiled with: the precompiled one (scripts/artifacts.ts, which
 * adds code generation) and the one compiled at run time for other kinds (./compile.ts). No
 * `messages`: the diagnostics say things their own way (src/config/schema-errors.ts).
 */
export const VALIDATOR_OPTIONS = {
  allErrors: true,
  strict: true,
  allowUnionTypes: true,
  // `if` blocks test properties without repeating `type: object`; the enclosing schema has it.
  strictTypes: false,
  // A rule's `then: {required: [...]}` names properties defined by the enclosing schema.
  strictRequired: false,
  multipleOfPrecision: 9,
  messages: false,
  code: { regExp: namePatterns },
} as const;

/** What ajv compiles: `schema` without annotations, its large `properties` maps rearranged. */
export function validationSchema(schema: JsonSchema): JsonSchema {
  return compact(stripAnnotations(schema)) as JsonSchema;
}

const ANNOTATIONS = new Set(['description', 'default', 'examples', 'title', 'writeOnly', 'readOnly', '$comment', 'deprecated']);
const SCHEMA_MAPS = new Set(['properties', 'definitions', 'patternProperties']);

/**
 * The schema without annotations: the validator only needs assertions, and leaving the ~400
 * descriptions out keeps the generated module (loaded on every `plumb validate`) small.
 */
function stripAnnotations(schema: unknown, isMap = false): unknown {
  if (Array.isArray(schema)) return schema.map((s) => stripAnnotations(s));
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (!isMap && ANNOTATIONS.has(k)) continue;
    out[k] = isMap ? stripAnnotations(v) : stripAnnotations(v, SCHEMA_MAPS.has(k));
  }
  return out;
}

function compact(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compact);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = SCHEMA_MAPS.has(k) ? mapValues(v, compact) : compact(v);
  return groupProperties(out);
}

function mapValues(v: unknown, f: (x: unknown) => unknown): unknown {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, f(x)]));
}

function groupProperties(schema: Record<string, unknown>): Record<string, unknown> {
  const properties = schema.properties as Record<string, unknown> | undefined;
  if (!properties || schema.patternProperties !== undefined || Object.keys(properties).length < MIN_PROPERTIES) return schema;
  const byLeaf = new Map<string, string[]>();
  for (const [key, leaf] of Object.entries(properties)) {
    if (!NAME.test(key) || !isLeaf(leaf)) continue;
    const id = JSON.stringify(leaf);
    byLeaf.set(id, [...(byLeaf.get(id) ?? []), key]);
  }
  const grouped = [...byLeaf].filter(([, keys]) => keys.length >= MIN_SHARED);
  if (grouped.length === 0) return schema;
  const moved = new Set(grouped.flatMap(([, keys]) => keys));
  const patternProperties = Object.fromEntries(grouped.map(([leaf, keys]) => [`^(?:${keys.join('|')})$`, JSON.parse(leaf) as unknown]));
  return { ...schema, properties: Object.fromEntries(Object.entries(properties).filter(([k]) => !moved.has(k))), patternProperties };
}

/** A schema without references or nested subschemas that could carry a path-dependent meaning. */
function isLeaf(s: unknown): boolean {
  if (!s || typeof s !== 'object' || Array.isArray(s)) return false;
  return Object.keys(s).every((k) => k === 'type' || k === 'minimum' || k === 'maximum' || k === 'enum' || k === 'minLength' || k === 'maxLength' || k === 'pattern');
}
