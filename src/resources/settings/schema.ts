/**
 * The application settings' JSON Schema, built from the catalogue: each setting's value, the rules
 * between settings (`allOf`), and the `settings:` block (build time: src/schema/build.ts and
 * scripts/artifacts.ts).
 */
import type { SettingSpec, SettingRule } from '../../catalogue/types.js';
import { SETTINGS, SETTING_RULES } from '../../catalogue/index.js';
import type { JsonSchema } from '../../config/kinds.js';

function tierText(s: SettingSpec): string {
  const tags = (s.tiers ?? []).map((t) => `[${t}]`).join('');
  return tags ? ` ${tags}` : '';
}

/** Human description for editors: meaning, tier, version notes, secrecy. */
export function settingDescription(s: SettingSpec): string {
  const parts = [s.description + tierText(s)];
  if (s.since) parts.push(`Since ${s.since}.`);
  if (s.deprecated) {
    parts.push(
      `Deprecated${s.deprecated.since ? ` since ${s.deprecated.since}` : ''}${s.deprecated.replacement ? `; use ${s.deprecated.replacement}` : ''}${s.deprecated.note ? ` (${s.deprecated.note})` : ''}.`,
    );
  }
  if (s.secret) parts.push('Secret: write it as ${env:NAME}; plumb never shows it.');
  if (s.readOnly) parts.push('Cannot be updated through the interface.');
  if (s.restartRequired) parts.push('Restart required to apply.');
  return parts.join(' ');
}

/** The JSON Schema of one setting's value. */
export function settingValueSchema(s: SettingSpec): JsonSchema {
  const out: JsonSchema = {};
  const nullable = s.default === null;
  switch (s.type) {
    case 'boolean':
      out.type = 'boolean';
      break;
    case 'integer':
    case 'float':
      out.type = s.type === 'integer' ? 'integer' : 'number';
      if (s.enum) out.enum = [...s.enum];
      if (s.minimum !== undefined) out.minimum = s.minimum;
      if (s.maximum !== undefined) out.maximum = s.maximum;
      if (s.multipleOf !== undefined) out.multipleOf = s.multipleOf;
      break;
    case 'string':
    case 'text':
      out.type = nullable ? ['string', 'null'] : 'string';
      if (s.enum) out.enum = nullable ? [...s.enum, null] : [...s.enum];
      if (s.minLength !== undefined) out.minLength = s.minLength;
      if (s.maxLength !== undefined) out.maxLength = s.maxLength;
      if (s.pattern !== undefined) out.pattern = s.pattern;
      break;
    case 'string[]':
    case 'integer[]':
      out.type = nullable ? ['array', 'null'] : 'array';
      out.items = { type: s.type === 'string[]' ? 'string' : 'integer', ...(s.enum && { enum: [...s.enum] }) };
      if (s.enum) out.uniqueItems = true;
      if (s.maxItems !== undefined) out.maxItems = s.maxItems;
      break;
    case 'string|string[]':
      out.type = ['string', 'array'];
      out.items = { type: 'string' };
      break;
    case 'hash':
    case 'object':
      out.type = nullable ? ['object', 'null'] : 'object';
      if (s.keys) {
        out.properties = Object.fromEntries(s.keys.map((k) => [k, { type: 'boolean' }]));
        out.additionalProperties = false;
      } else if (s.values) {
        out.additionalProperties = { type: 'integer', ...(s.values.minimum !== undefined && { minimum: s.values.minimum }), ...(s.values.maximum !== undefined && { maximum: s.values.maximum }) };
      }
      break;
  }
  out.description = settingDescription(s);
  if (s.default !== undefined) out.default = s.default;
  if (s.secret) out.writeOnly = true;
  return out;
}

/** What "given" means for a rule's partner: a non-empty list or string (any value for the rest). */
function nonEmpty(name: string): JsonSchema {
  const t = SETTINGS.find((x) => x.name === name)?.type;
  if (t === 'string[]' || t === 'integer[]') return { minItems: 1 };
  if (t === 'string' || t === 'text') return { minLength: 1 };
  return {};
}

const VISIBILITY_LEVELS = ['private', 'internal', 'public'] as const;

/**
 * Each catalogue rule as JSON Schema, in a fixed order; `ruleIndex[i]` names the catalogue rule the
 * i-th `allOf` entry came from, so a validation error can name both keys of the rule it broke.
 */
export function ruleSchemas(rules: readonly SettingRule[] = SETTING_RULES): { allOf: JsonSchema[]; ruleIndex: number[] } {
  const allOf: JsonSchema[] = [];
  const ruleIndex: number[] = [];
  rules.forEach((r, i) => {
    switch (r.kind) {
      case 'required-when-enabled':
        allOf.push({
          if: { properties: { [r.flag]: { const: true } }, required: [r.flag] },
          // A partner given empty (`domain_denylist: []`) is refused by the instance like a missing one.
          then: { required: [...r.requires], properties: Object.fromEntries(r.requires.map((n) => [n, nonEmpty(n)])) },
        });
        ruleIndex.push(i);
        break;
      case 'required-with':
        allOf.push({
          if: { properties: { [r.field]: { type: 'string', minLength: 1 } }, required: [r.field] },
          then: { required: [...r.requires] },
        });
        ruleIndex.push(i);
        break;
      case 'not-in-list':
        for (const level of VISIBILITY_LEVELS) {
          allOf.push({
            if: { properties: { [r.list]: { type: 'array', contains: { const: level } } }, required: [r.list] },
            then: { properties: { [r.field]: { not: { const: level } } } },
          });
          ruleIndex.push(i);
        }
        break;
    }
  });
  return { allOf, ruleIndex };
}

/** Settings that may appear in a desired-state document: current, updatable ones. */
export function writableSettings(): SettingSpec[] {
  return SETTINGS.filter((s) => !s.removed);
}

export function settingsObjectSchema(): JsonSchema {
  const { allOf } = ruleSchemas();
  return {
    type: 'object',
    description: 'Instance-wide application settings (PUT /application/settings). Only the keys you declare are managed.',
    additionalProperties: false,
    properties: Object.fromEntries(writableSettings().map((s) => [s.name, settingValueSchema(s)])),
    allOf,
  };
}
