/**
 * The schema pass's errors as plumb's diagnostics: one per place and problem (ajv repeats some),
 * each keyword's errors read by a small function of their own (`BY_KEYWORD`), with did-you-mean
 * suggestions and where a misplaced key belongs read from the configuration's JSON Schema.
 */
import type { ErrorObject } from 'ajv';
import type { Diagnostic } from '../diagnostics/index.js';
import { settingByName, suggestSettingName, SETTING_RULES } from '../catalogue/index.js';
import { SETTINGS_RULE_INDEX } from '../generated/settings-rule-index.js';
import { closestMatch } from '../util/suggest.js';
import { ownText } from '../util/own-files.js';
import { describePointer } from './places.js';
import { at, push } from './resolve-context.js';
import type { Ctx } from './resolve-context.js';
import { joinPointer, splitPointer } from './pointer.js';
import { whereKeyBelongs } from './key-places.js';
import type { JsonSchemaNode } from './key-places.js';
import type { ConfigKinds } from './kinds.js';

export type { JsonSchemaNode };

/** One diagnostic for one ajv error (without its severity and pointer: the error's place, unless it says). */
type Mapped = Omit<Diagnostic, 'severity' | 'location' | 'pointer'> & { pointer?: string; on?: 'key' | 'value' };
/** How one keyword's errors read, given the error, the context and the place's name for people. */
type Mapper = (e: ErrorObject, ctx: Ctx, where: string) => Mapped | undefined;

/**
 * Maps one ajv error to plumb's diagnostic for it (none for an error another one already says).
 * `kinds`: the registry validated with (its places name the error's place; its mounts say where a
 * misplaced key belongs).
 */
export function mapSchemaError(e: ErrorObject, ctx: Ctx, schema: () => JsonSchemaNode, kinds: Pick<ConfigKinds, 'configs' | 'pointers'>): void {
  // A key that breaks `propertyNames` (an instance name): located at that key.
  const d = e.propertyName !== undefined ? badName(e, e.propertyName) : (BY_KEYWORD[e.keyword] ?? otherValue)(e, { ...ctx, schema, kinds } as SchemaCtx, capitalize(describePointer(e.instancePath, kinds.pointers)));
  if (d) push(ctx, { severity: 'error', pointer: e.instancePath, ...d });
}

interface SchemaCtx extends Ctx {
  readonly schema: () => JsonSchemaNode;
  readonly kinds: Pick<ConfigKinds, 'configs'>;
}

function badName(e: ErrorObject, name: string): Mapped | undefined {
  if (e.keyword === 'propertyNames') return undefined;
  return {
    code: 'PLUMB_STRING_FORMAT',
    summary: `"${name}" is not a valid name here`,
    detail: 'Instance names start with a letter or digit and use letters, digits, ".", "_" and "-".',
    suggestion: `rename it, e.g. "${name.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '')}"`,
    pointer: joinPointer(e.instancePath, name),
    on: 'key',
  };
}

function unknownKey(e: ErrorObject, ctx: Ctx): Mapped {
  const key = (e.params as { additionalProperty: string }).additionalProperty;
  const pointer = joinPointer(e.instancePath, key);
  const schema = (ctx as SchemaCtx).schema();
  const configs = (ctx as SchemaCtx).kinds.configs;
  if (isSettingsPointer(e.instancePath)) return unknownSetting(key, pointer, schema, configs);
  if (key === 'token' && splitPointer(e.instancePath).length === 2) {
    return {
      code: 'PLUMB_TOKEN_INLINE',
      summary: 'The access token is written in the configuration',
      detail: 'A token in a Git repository is a leaked token. plumb reads it from an environment variable instead.',
      suggestion: 'replace `token:` with `token_env: NAME` and export NAME (revoke the token that was committed)',
      pointer,
      on: 'key',
    };
  }
  const known = knownKeysAt(schema, e.instancePath);
  const guess = closestMatch(key, known);
  const belongs = belongsAt(schema, key, configs);
  return {
    code: 'PLUMB_UNKNOWN_KEY',
    summary: belongs ? `"${key}" does not belong here` : `Unknown key "${key}"`,
    detail: `Allowed here: ${known.join(', ') || '(none)'}.`,
    suggestion: guess ? `did you mean "${guess}"?` : belongs ? `move it ${belongs}` : 'remove it',
    pointer,
    on: 'key',
  };
}

function required(e: ErrorObject, _ctx: Ctx, where: string): Mapped {
  const missing = (e.params as { missingProperty: string }).missingProperty;
  const rule = ruleOf(e.schemaPath);
  if (!rule || rule.kind === 'not-in-list') return { code: 'PLUMB_MISSING_FIELD', summary: `${where} lacks the required key "${missing}"`, suggestion: `add "${missing}"`, on: 'key' };
  const enabled = rule.kind === 'required-when-enabled';
  const trigger = enabled ? rule.flag : rule.field;
  return {
    code: 'PLUMB_DEPENDENCY_MISSING',
    summary: `"${missing}" is required when "${trigger}" is ${enabled ? 'true' : 'set'}`,
    detail: `The instance rejects an update that sets ${trigger}${enabled ? ': true' : ''} without ${rule.requires.join(', ')} in the same request.`,
    suggestion: `add "${missing}" next to "${trigger}"${settingByName(missing)?.secret ? ' (as ${env:NAME}: it is a secret)' : ''}, or ${enabled ? `set "${trigger}" to false` : `remove "${trigger}"`}`,
    pointer: joinPointer(e.instancePath, trigger),
    on: 'key',
  };
}

function notInList(e: ErrorObject, ctx: Ctx): Mapped | undefined {
  const rule = ruleOf(e.schemaPath);
  if (rule?.kind !== 'not-in-list') return undefined;
  const listPointer = joinPointer(joinPointer('', ...splitPointer(e.instancePath).slice(0, -1)), rule.list);
  return {
    code: 'PLUMB_VISIBILITY_CONFLICT',
    summary: `"${rule.field}" is a level listed in "${rule.list}"`,
    detail: `A default visibility cannot be a restricted level; the instance rejects this combination.`,
    suggestion: `choose another ${rule.field} or remove that level from ${rule.list}`,
    related: [{ message: `${rule.list} is set here`, location: at(ctx, listPointer) }],
  };
}

function wrongType(e: ErrorObject, ctx: Ctx, where: string): Mapped {
  const t = (e.params as { type: string | string[] }).type;
  const v = valueAt(ctx, e.instancePath);
  return { code: 'PLUMB_TYPE_MISMATCH', summary: `${where} must be ${article(t)}`, detail: `Found ${describeValue(v)}.`, suggestion: typeHint(t, v) };
}

function notAllowed(e: ErrorObject, ctx: Ctx, where: string): Mapped {
  const allowed = e.keyword === 'enum' ? (e.params as { allowedValues: unknown[] }).allowedValues : [(e.params as { allowedValue: unknown }).allowedValue];
  const v = valueAt(ctx, e.instancePath);
  const guess = typeof v === 'string' ? closestMatch(v, allowed.map(String)) : undefined;
  const unquoted = typeof v === 'string' && allowed.some((a) => typeof a === 'number' && String(a) === v);
  const shown = allowed.map((a) => JSON.stringify(a));
  const last = splitPointer(e.instancePath).at(-1);
  const one = allowed.length === 1;
  return {
    code: 'PLUMB_ENUM_VALUE',
    summary: one ? `${where} must be ${shown[0]}, not ${JSON.stringify(v)}` : `${where} has a value that is not allowed: ${JSON.stringify(v)}`,
    detail: one ? (last === 'version' ? 'This is the only configuration format plumb reads.' : undefined) : `Allowed: ${shown.join(', ')}.`,
    suggestion: unquoted
      ? `write ${String(v)} without quotes: it is a number`
      : guess && !one
        ? `did you mean ${JSON.stringify(guess)}?`
        : one
          ? `write ${last !== undefined && !/^\d+$/.test(last) ? `${last}: ` : ''}${shown[0]}`
          : `use one of ${shown.join(', ')}`,
  };
}

const BOUND_WORDS: Record<string, string> = { '>=': 'at least', '<=': 'at most', '>': 'more than', '<': 'less than' };

function outOfRange(e: ErrorObject, ctx: Ctx, where: string): Mapped {
  const p = e.params as { comparison?: string; limit?: number; multipleOf?: number };
  const bound = e.keyword === 'multipleOf' ? `a multiple of ${p.multipleOf}` : `${BOUND_WORDS[p.comparison ?? ''] ?? p.comparison} ${p.limit}`;
  return {
    code: 'PLUMB_OUT_OF_RANGE',
    summary: `${where} is out of range: ${JSON.stringify(valueAt(ctx, e.instancePath))}`,
    detail: `It must be ${bound}${rangeOf(e.instancePath)}.`,
    suggestion: `use a value ${bound}`,
  };
}

function listSize(e: ErrorObject, ctx: Ctx, where: string): Mapped {
  const limit = (e.params as { limit: number }).limit;
  const list = valueAt(ctx, e.instancePath);
  const n = Array.isArray(list) ? list.length : 0;
  const min = e.keyword === 'minItems';
  const empty = min && limit === 1;
  return {
    code: 'PLUMB_ARRAY_SIZE',
    summary: empty ? `${where} is an empty list` : `${where} lists ${n} item${n === 1 ? '' : 's'}; ${min ? 'at least' : 'at most'} ${limit} ${min ? 'are' : 'are allowed'}`,
    detail: empty ? 'It needs at least one item.' : undefined,
    suggestion: empty ? 'add an item, or remove the key' : min ? `list at least ${limit}` : `remove ${n - limit} of them`,
  };
}

function duplicateItem(e: ErrorObject, ctx: Ctx, where: string): Mapped {
  const { i, j } = e.params as { i: number; j: number };
  const list = valueAt(ctx, e.instancePath);
  const item = Array.isArray(list) ? list[j] : undefined;
  return { code: 'PLUMB_DUPLICATE_ITEM', summary: `${where} lists ${JSON.stringify(item)} twice (items ${j + 1} and ${i + 1})`, suggestion: 'remove the repeated item' };
}

const badForm: Mapper = (e, _ctx, where) => ({ code: 'PLUMB_STRING_FORMAT', summary: `${where} is not in the expected form`, detail: formatDetail(e), suggestion: formatSuggestion(e) });

const badSink: Mapper = (_e, _ctx, where) => ({
  code: 'PLUMB_SINK_INVALID',
  summary: `${where} must name exactly one of file, command, stdout or ci_variable`,
  suggestion: 'keep one way of delivering the secret, e.g. `sink: {file: secrets/deployer.token}`',
});

const otherValue: Mapper = (_e, _ctx, where) => ({ code: 'PLUMB_SCHEMA', summary: `${where} does not have a value plumb accepts here`, suggestion: 'see docs/config.md for the form of this key' });

const BY_KEYWORD: Readonly<Record<string, Mapper>> = {
  additionalProperties: unknownKey,
  required,
  not: notInList,
  type: wrongType,
  enum: notAllowed,
  const: notAllowed,
  ...Object.fromEntries(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'].map((k) => [k, outOfRange])),
  maxItems: listSize,
  minItems: listSize,
  uniqueItems: duplicateItem,
  ...Object.fromEntries(['pattern', 'minLength', 'maxLength', 'format'].map((k) => [k, badForm])),
  minProperties: badSink,
  maxProperties: badSink,
  propertyNames: () => undefined,
};

/** One error per place and keyword; ajv repeats some errors for every branch it tried. */
export function dedupeErrors(errors: readonly ErrorObject[]): ErrorObject[] {
  const seen = new Set<string>();
  const out: ErrorObject[] = [];
  for (const e of errors) {
    if (e.keyword === 'if') continue; // the `then` error that follows says it better
    const key = `${e.instancePath}|${e.keyword}|${JSON.stringify(e.params)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(e);
  }
  return out;
}

let schemaCache: JsonSchemaNode | undefined;
/** The committed config schema, read only on the error path (for did-you-mean suggestions). */
export function committedSchema(): JsonSchemaNode {
  if (!schemaCache) {
    const text = ownText('schemas/plumb-config.schema.json', import.meta.url);
    schemaCache = text !== undefined ? (JSON.parse(text) as JsonSchemaNode) : {};
  }
  return schemaCache;
}

/**
 * Keys the schema allows at a place in the data, found by walking the schema along the data's
 * pointer (ajv's schemaPath is relative to a $ref'd definition, so it cannot be used here).
 */
function knownKeysAt(root: JsonSchemaNode, instancePath: string): string[] {
  const deref = (n: JsonSchemaNode | undefined): JsonSchemaNode | undefined => {
    const ref = n?.$ref;
    if (!ref) return n;
    let node: unknown = root;
    for (const s of ref.replace(/^#\//, '').split('/')) node = (node as Record<string, unknown> | undefined)?.[s];
    return node as JsonSchemaNode | undefined;
  };
  let node = deref(root);
  for (const seg of splitPointer(instancePath)) {
    node = deref(node?.properties?.[seg] ?? (typeof node?.additionalProperties === 'object' ? node.additionalProperties : undefined));
  }
  return Object.keys(node?.properties ?? {});
}


function isSettingsPointer(pointer: string): boolean {
  const s = splitPointer(pointer);
  return s.length === 3 && s[0] === 'instances' && s[2] === 'settings';
}

function ruleOf(schemaPath: string) {
  const m = /\/settings\/allOf\/(\d+)\//.exec(schemaPath);
  if (!m) return undefined;
  const idx = SETTINGS_RULE_INDEX[Number(m[1])];
  return idx === undefined ? undefined : SETTING_RULES[idx];
}

function unknownSetting(key: string, pointer: string, schema: JsonSchemaNode, configs: ConfigKinds['configs']): Mapped {
  const spec = settingByName(key);
  if (spec?.removed) {
    return {
      code: 'PLUMB_SETTING_REMOVED',
      summary: `Setting "${key}" was removed from the interface in ${spec.removed.version}`,
      detail: 'The instance ignores it; keeping it would hide that the configuration no longer does anything.',
      suggestion: spec.removed.replacement ? `use "${spec.removed.replacement}" instead` : 'remove it',
      pointer,
      on: 'key',
    };
  }
  if (spec && spec.name !== key) {
    return {
      code: 'PLUMB_SETTING_RESPONSE_NAME',
      summary: `"${key}" is the name the instance uses in responses; updates use "${spec.name}"`,
      suggestion: `rename it to "${spec.name}"`,
      pointer,
      on: 'key',
    };
  }
  const guess = suggestSettingName(key);
  const belongs = guess ? undefined : belongsAt(schema, key, configs);
  return {
    code: 'PLUMB_UNKNOWN_SETTING',
    summary: belongs ? `"${key}" is not an application setting` : `Unknown application setting "${key}"`,
    detail: 'See docs/settings.md for every setting plumb knows.',
    suggestion: guess ? `did you mean "${guess}"?` : belongs ? `move it ${belongs}` : 'check the spelling against docs/settings.md',
    pointer,
    on: 'key',
  };
}

function valueAt(ctx: Ctx, pointer: string): unknown {
  let node: unknown = ctx.sources.data;
  for (const s of splitPointer(pointer)) node = (node as Record<string, unknown> | undefined)?.[s];
  return node;
}

function article(t: string | string[]): string {
  const list = Array.isArray(t) ? t : [t];
  const words = list.map((x) => (x === 'integer' ? 'an integer' : x === 'array' ? 'a list' : x === 'object' ? 'a mapping' : x === 'null' ? 'null' : `a ${x}`));
  return words.join(' or ');
}

function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  return `${typeof v} ${JSON.stringify(v)}`;
}

function typeHint(t: string | string[], v: unknown): string {
  const list = Array.isArray(t) ? t : [t];
  if (list.includes('boolean') && typeof v === 'string' && /^(true|false|yes|no|on|off)$/i.test(v)) return `write ${/^(true|yes|on)$/i.test(v) ? 'true' : 'false'} without quotes`;
  if ((list.includes('integer') || list.includes('number')) && typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)) return `write ${v} without quotes`;
  if (list.includes('integer') && typeof v === 'number') return `use a whole number such as ${Math.round(v)}`;
  if (list.includes('array') && !Array.isArray(v)) return `write a list, e.g. [${v === undefined ? '' : JSON.stringify(v)}]`;
  if (list.includes('string') && typeof v !== 'string') return 'quote the value';
  return `change it to ${article(t)}`;
}

function rangeOf(pointer: string): string {
  const s = splitPointer(pointer);
  if (s[2] !== 'settings' || s.length !== 4) return '';
  const spec = settingByName(s[3]!);
  if (!spec) return '';
  const lo = spec.minimum;
  const hi = spec.maximum;
  return lo !== undefined && hi !== undefined ? ` (allowed ${lo}–${hi})` : '';
}

/** What a pattern or length asks for, in words (never the raw regular expression). */
const FORMS: Record<string, string> = {
  url: 'an absolute http or https URL, such as https://code.example.com',
  token_env: 'the name of an environment variable: letters, digits and underscores, not starting with a digit',
  expires_at: 'a date written YYYY-MM-DD',
  pages_primary_domain: 'a host name such as docs.example.com (no scheme, path, port or spaces)',
  search_engine_prefix: 'lowercase letters, digits, hyphens and underscores, starting and ending with a letter or digit',
  spam_check_endpoint_url: 'a grpc:// or tls:// URL, or empty',
};

function formatDetail(e: ErrorObject): string {
  const p = e.params as { limit?: number };
  const last = splitPointer(e.instancePath).at(-1) ?? '';
  if (e.keyword === 'minLength') return p.limit === 1 ? 'It must not be empty.' : `It must be at least ${p.limit} characters long.`;
  if (e.keyword === 'maxLength') return `It must be at most ${p.limit} characters long.`;
  const form = FORMS[last];
  return form ? `It must be ${form}.` : 'It does not have the form this key takes (see docs/config.md and docs/settings.md).';
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/**
 * Where a key misplaced at one level belongs, e.g. `prune_access_tokens` written under a token:
 * "under a group (next to access_tokens)": an application setting by the catalogue, any other key
 * by the schema and the kinds' mounts (./key-places.ts). On the error path only.
 */
function belongsAt(root: JsonSchemaNode, key: string, configs: ConfigKinds['configs']): string | undefined {
  if (settingByName(key) && !settingByName(key)?.removed) return 'under `settings:` of the instance: it is an application setting';
  return whereKeyBelongs(root, key, configs);
}

function formatSuggestion(e: ErrorObject): string {
  const last = splitPointer(e.instancePath).at(-1);
  if (e.keyword === 'minLength') return 'give it a value, or remove the key';
  if (e.keyword === 'maxLength') return 'shorten it';
  if (last === 'pages_primary_domain') return 'write the domain alone, e.g. docs.example.com';
  if (last === 'expires_at') return 'write the date as YYYY-MM-DD';
  if (last === 'url') return 'write the base URL with its scheme, e.g. https://code.example.com';
  if (last === 'token_env') return 'write the name of an environment variable, e.g. PLUMB_TOKEN';
  return 'fix the value';
}

