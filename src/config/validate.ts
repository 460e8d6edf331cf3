import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ErrorObject } from 'ajv';
import type { Diagnostic } from '../diagnostics/index.js';
import { hasErrors } from '../diagnostics/index.js';
import { settingByName, suggestSettingName, SETTING_RULES } from '../catalogue/index.js';
import { validate as generatedValidate } from '../generated/config-validator.js';
import { SETTINGS_RULE_INDEX } from '../generated/settings-rule-index.js';
import { closestMatch } from '../util/suggest.js';
import { DESTROY_IDS, isDestroyId, isRiskId, RISK_IDS } from '../engine/risk-ids.js';
import { ownText } from '../util/own-files.js';
import { canonicalInstanceUrl, isLoopbackHost } from '../util/url.js';
import { loadSources, resolveConfigFiles, describePointer } from './load.js';
import { resolveInstanceLock } from './instance-lock.js';
import { at, checkRef, obj, push, relativeToFile } from './resolve-context.js';
import type { Ctx } from './resolve-context.js';
import { KIND_CONFIGS } from '../resources/config.js';
import type { KindConfig } from '../resources/kind-config.js';
import { CONTAINERS, CONTAINER_NAMES } from '../catalogue/containers.js';
import type { LoadedSources, LoadOptions } from './load.js';
import { joinPointer, splitPointer } from './pointer.js';
import type { DesiredConfig, DesiredContainer, DesiredInstance } from './model.js';

/** The ajv standalone validator generated at build time (no schema compilation at start-up). */
const validateSchema = generatedValidate as unknown as ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

export interface ValidateOptions extends LoadOptions {
  /** Today's date for date checks (YYYY-MM-DD); defaults to the current UTC date. */
  readonly today?: string;
}

export interface ConfigResult {
  /** Present only when there are no errors. */
  readonly config?: DesiredConfig;
  readonly diagnostics: Diagnostic[];
  readonly sources: LoadedSources;
}

/** Loads, merges, validates and resolves a configuration; never touches the network. */
export function loadConfig(paths: readonly string[], opts: ValidateOptions = {}): ConfigResult {
  const cwd = opts.cwd ?? process.cwd();
  const resolved = resolveConfigFiles(paths, cwd);
  const sources = loadSources(resolved.files, opts, opts.root === undefined ? resolved.roots : undefined);
  const files = new Map(resolved.files.map((abs) => [displayOf(abs, cwd), abs]));
  return validateLoaded(sources, files, resolved.diagnostics, opts);
}

/**
 * Validates and resolves documents already loaded (YAML files, or a CDKTF app's resources turned
 * into the same documents): every check of {@link loadConfig}. `files` maps each shown file name to
 * the absolute path relative paths are resolved against; `earlier` are diagnostics found before
 * loading (they come first, and later checks stay silent where `sources.reported` says so).
 */
export function validateLoaded(sources: LoadedSources, files: Map<string, string>, earlier: readonly Diagnostic[], opts: ValidateOptions = {}): ConfigResult {
  const cwd = opts.cwd ?? process.cwd();
  const diagnostics: Diagnostic[] = [...earlier, ...sources.diagnostics];
  const ctx: Ctx = { sources, diagnostics, today: opts.today ?? new Date().toISOString().slice(0, 10), files, cwd, localReads: new Map() };
  if (!validateSchema(sources.data)) {
    for (const e of dedupeErrors(validateSchema.errors ?? [])) mapSchemaError(e, ctx);
  }
  const config = resolveConfig(sources.data, ctx);
  // What the loader reported (an unusable number, an empty interpolation…) is reported once.
  const first = earlier.length + sources.diagnostics.length;
  const later = diagnostics.splice(first).filter((d) => d.pointer === undefined || !(sources.reported.covers(d.pointer) || sources.reported.covers(sources.locations.written(d.pointer))));
  diagnostics.push(...later);
  if (sources.defaults.size > 0) diagnostics.splice(0, diagnostics.length, ...withDefaultsOrigins(diagnostics, sources));
  if (hasErrors(diagnostics)) return { diagnostics, sources };
  return { config, diagnostics, sources };
}

/**
 * With `defaults:`: a value every instance inherits is one place in the files, so a problem with it
 * is reported once (at the default), not once per instance; a problem with an instance's value that
 * overrides a default names the default too (`related`), so both places are in the message.
 */
function withDefaultsOrigins(diagnostics: readonly Diagnostic[], sources: LoadedSources): Diagnostic[] {
  const seen = new Map<string, number>();
  const out: Diagnostic[] = [];
  for (const d of diagnostics) {
    if (d.pointer === undefined) {
      out.push(d);
      continue;
    }
    const written = sources.locations.written(d.pointer);
    if (written !== d.pointer) {
      const key = `${d.code}\0${written}`;
      const first = seen.get(key);
      const instance = splitPointer(d.pointer)[1] ?? '';
      if (first === undefined) {
        seen.set(key, out.length);
        out.push({ ...d, related: [...(d.related ?? []), { message: `declared in defaults; instance "${instance}" inherits it` }] });
      } else {
        const kept = out[first]!;
        out[first] = { ...kept, related: [...(kept.related ?? []), { message: `instance "${instance}" inherits it too` }] };
      }
      continue;
    }
    const over = sources.defaults.overrideOver(d.pointer);
    if (!over) {
      out.push(d);
      continue;
    }
    const at = sources.locations.get(over.defaults);
    out.push({ ...d, related: [...(d.related ?? []), { message: 'this overrides the value in defaults declared here', location: at?.key ?? at?.value }] });
  }
  return out;
}

function displayOf(abs: string, cwd: string): string {
  const rel = path.relative(cwd, abs);
  return rel.startsWith('..') || path.isAbsolute(rel) ? abs : rel.split(path.sep).join('/');
}

/** One error per place and keyword; ajv repeats some errors for every branch it tried. */
function dedupeErrors(errors: readonly ErrorObject[]): ErrorObject[] {
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

let schemaCache: Record<string, unknown> | undefined;
/** The committed config schema, read only on the error path (for did-you-mean suggestions). */
function configSchemaJson(): Record<string, unknown> {
  if (!schemaCache) {
    const text = ownText('schemas/plumb-config.schema.json', import.meta.url);
    schemaCache = text !== undefined ? (JSON.parse(text) as Record<string, unknown>) : {};
  }
  return schemaCache;
}

/**
 * Keys the schema allows at a place in the data, found by walking the schema along the data's
 * pointer (ajv's schemaPath is relative to a $ref'd definition, so it cannot be used here).
 */
function knownKeysAt(instancePath: string): string[] {
  const root = configSchemaJson() as SchemaNode;
  const deref = (n: SchemaNode | undefined): SchemaNode | undefined => {
    const ref = n?.$ref;
    if (!ref) return n;
    let node: unknown = root;
    for (const s of ref.replace(/^#\//, '').split('/')) node = (node as Record<string, unknown> | undefined)?.[s];
    return node as SchemaNode | undefined;
  };
  let node = deref(root);
  for (const seg of splitPointer(instancePath)) {
    node = deref(node?.properties?.[seg] ?? (typeof node?.additionalProperties === 'object' ? node.additionalProperties : undefined));
  }
  return Object.keys(node?.properties ?? {});
}

interface SchemaNode {
  $ref?: string;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
}

function isSettingsPointer(pointer: string): boolean {
  const s = splitPointer(pointer);
  return s.length === 3 && s[0] === 'instances' && s[2] === 'settings';
}

function mapSchemaError(e: ErrorObject, ctx: Ctx): void {
  if (e.propertyName !== undefined) {
    // A key that breaks `propertyNames` (an instance name): located at that key.
    if (e.keyword === 'propertyNames') return;
    return push(ctx, {
      severity: 'error',
      code: 'PLUMB_STRING_FORMAT',
      summary: `"${e.propertyName}" is not a valid name here`,
      detail: 'Instance names start with a letter or digit and use letters, digits, ".", "_" and "-".',
      suggestion: `rename it, e.g. "${e.propertyName.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '')}"`,
      pointer: joinPointer(e.instancePath, e.propertyName),
      on: 'key',
    });
  }
  const where = describePointer(e.instancePath);
  switch (e.keyword) {
    case 'additionalProperties': {
      const key = (e.params as { additionalProperty: string }).additionalProperty;
      const pointer = joinPointer(e.instancePath, key);
      if (isSettingsPointer(e.instancePath)) return unknownSetting(key, pointer, ctx);
      if (key === 'token' && splitPointer(e.instancePath).length === 2) {
        return push(ctx, {
          severity: 'error',
          code: 'PLUMB_TOKEN_INLINE',
          summary: 'The access token is written in the configuration',
          detail: 'A token in a Git repository is a leaked token. plumb reads it from an environment variable instead.',
          suggestion: 'replace `token:` with `token_env: NAME` and export NAME (revoke the token that was committed)',
          pointer,
          on: 'key',
        });
      }
      const known = knownKeysAt(e.instancePath);
      const guess = closestMatch(key, known);
      const belongs = whereKeyBelongs(key);
      return push(ctx, {
        severity: 'error',
        code: 'PLUMB_UNKNOWN_KEY',
        summary: belongs ? `"${key}" does not belong here` : `Unknown key "${key}"`,
        detail: `Allowed here: ${known.join(', ') || '(none)'}.`,
        suggestion: guess ? `did you mean "${guess}"?` : belongs ? `move it ${belongs}` : 'remove it',
        pointer,
        on: 'key',
      });
    }
    case 'required': {
      const missing = (e.params as { missingProperty: string }).missingProperty;
      const rule = ruleOf(e.schemaPath);
      if (rule && rule.kind !== 'not-in-list') {
        const trigger = rule.kind === 'required-when-enabled' ? rule.flag : rule.field;
        const triggerPointer = joinPointer(e.instancePath, trigger);
        return push(ctx, {
          severity: 'error',
          code: 'PLUMB_DEPENDENCY_MISSING',
          summary: `"${missing}" is required when "${trigger}" is ${rule.kind === 'required-when-enabled' ? 'true' : 'set'}`,
          detail: `The instance rejects an update that sets ${trigger}${rule.kind === 'required-when-enabled' ? ': true' : ''} without ${rule.requires.join(', ')} in the same request.`,
          suggestion: `add "${missing}" next to "${trigger}"${settingByName(missing)?.secret ? ' (as ${env:NAME}: it is a secret)' : ''}, or ${rule.kind === 'required-when-enabled' ? `set "${trigger}" to false` : `remove "${trigger}"`}`,
          pointer: triggerPointer,
          on: 'key',
        });
      }
      return push(ctx, {
        severity: 'error',
        code: 'PLUMB_MISSING_FIELD',
        summary: `${capitalize(where)} lacks the required key "${missing}"`,
        suggestion: `add "${missing}"`,
        pointer: e.instancePath,
        on: 'key',
      });
    }
    case 'not': {
      const rule = ruleOf(e.schemaPath);
      if (rule?.kind === 'not-in-list') {
        const listPointer = joinPointer(splitPointer(e.instancePath).slice(0, -1).reduce((p, s) => joinPointer(p, s), ''), rule.list);
        return push(ctx, {
          severity: 'error',
          code: 'PLUMB_VISIBILITY_CONFLICT',
          summary: `"${rule.field}" is a level listed in "${rule.list}"`,
          detail: `A default visibility cannot be a restricted level; the instance rejects this combination.`,
          suggestion: `choose another ${rule.field} or remove that level from ${rule.list}`,
          pointer: e.instancePath,
          related: [{ message: `${rule.list} is set here`, location: at(ctx, listPointer) }],
        });
      }
      break;
    }
    case 'type':
      return push(ctx, {
        severity: 'error',
        code: 'PLUMB_TYPE_MISMATCH',
        summary: `${capitalize(where)} must be ${article((e.params as { type: string | string[] }).type)}`,
        detail: `Found ${describeValue(valueAt(ctx, e.instancePath))}.`,
        suggestion: typeHint((e.params as { type: string | string[] }).type, valueAt(ctx, e.instancePath)),
        pointer: e.instancePath,
      });
    case 'enum':
    case 'const': {
      const allowed = e.keyword === 'enum' ? (e.params as { allowedValues: unknown[] }).allowedValues : [(e.params as { allowedValue: unknown }).allowedValue];
      const v = valueAt(ctx, e.instancePath);
      const guess = typeof v === 'string' ? closestMatch(v, allowed.map(String)) : undefined;
      const unquoted = typeof v === 'string' && allowed.some((a) => typeof a === 'number' && String(a) === v);
      const shown = allowed.map((a) => JSON.stringify(a));
      const last = splitPointer(e.instancePath).at(-1);
      return push(ctx, {
        severity: 'error',
        code: 'PLUMB_ENUM_VALUE',
        summary:
          allowed.length === 1
            ? `${capitalize(where)} must be ${shown[0]}, not ${JSON.stringify(v)}`
            : `${capitalize(where)} has a value that is not allowed: ${JSON.stringify(v)}`,
        detail: allowed.length === 1 ? (last === 'version' ? 'This is the only configuration format plumb reads.' : undefined) : `Allowed: ${shown.join(', ')}.`,
        suggestion: unquoted
          ? `write ${v} without quotes: it is a number`
          : guess && allowed.length > 1
            ? `did you mean ${JSON.stringify(guess)}?`
            : allowed.length === 1
              ? `write ${last !== undefined && !/^\d+$/.test(last) ? `${last}: ` : ''}${shown[0]}`
              : `use one of ${shown.join(', ')}`,
        pointer: e.instancePath,
      });
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
    case 'multipleOf': {
      const p = e.params as { comparison?: string; limit?: number; multipleOf?: number };
      const words: Record<string, string> = { '>=': 'at least', '<=': 'at most', '>': 'more than', '<': 'less than' };
      const bound = e.keyword === 'multipleOf' ? `a multiple of ${p.multipleOf}` : `${words[p.comparison ?? ''] ?? p.comparison} ${p.limit}`;
      return push(ctx, {
        severity: 'error',
        code: 'PLUMB_OUT_OF_RANGE',
        summary: `${capitalize(where)} is out of range: ${JSON.stringify(valueAt(ctx, e.instancePath))}`,
        detail: `It must be ${bound}${rangeOf(e.instancePath)}.`,
        suggestion: `use a value ${bound}`,
        pointer: e.instancePath,
      });
    }
    case 'maxItems':
    case 'minItems': {
      const limit = (e.params as { limit: number }).limit;
      const n = Array.isArray(valueAt(ctx, e.instancePath)) ? (valueAt(ctx, e.instancePath) as unknown[]).length : 0;
      const empty = e.keyword === 'minItems' && limit === 1;
      return push(ctx, {
        severity: 'error',
        code: 'PLUMB_ARRAY_SIZE',
        summary: empty
          ? `${capitalize(where)} is an empty list`
          : `${capitalize(where)} lists ${n} item${n === 1 ? '' : 's'}; ${e.keyword === 'minItems' ? 'at least' : 'at most'} ${limit} ${e.keyword === 'minItems' ? 'are' : 'are allowed'}`,
        detail: empty ? 'It needs at least one item.' : undefined,
        suggestion: empty ? 'add an item, or remove the key' : e.keyword === 'minItems' ? `list at least ${limit}` : `remove ${n - limit} of them`,
        pointer: e.instancePath,
      });
    }
    case 'uniqueItems': {
      const { i, j } = e.params as { i: number; j: number };
      const list = valueAt(ctx, e.instancePath);
      const item = Array.isArray(list) ? list[j] : undefined;
      return push(ctx, {
        severity: 'error',
        code: 'PLUMB_DUPLICATE_ITEM',
        summary: `${capitalize(where)} lists ${JSON.stringify(item)} twice (items ${j + 1} and ${i + 1})`,
        suggestion: 'remove the repeated item',
        pointer: e.instancePath,
      });
    }
    case 'pattern':
    case 'minLength':
    case 'maxLength':
    case 'format':
      return push(ctx, {
        severity: 'error',
        code: 'PLUMB_STRING_FORMAT',
        summary: `${capitalize(where)} is not in the expected form`,
        detail: formatDetail(e),
        suggestion: formatSuggestion(e),
        pointer: e.instancePath,
      });
    case 'minProperties':
    case 'maxProperties':
      return push(ctx, {
        severity: 'error',
        code: 'PLUMB_SINK_INVALID',
        summary: `${capitalize(where)} must name exactly one of file, command or stdout`,
        suggestion: 'keep one way of delivering the secret, e.g. `sink: {file: secrets/deployer.token}`',
        pointer: e.instancePath,
      });
    case 'propertyNames':
      return;
    default:
      return push(ctx, {
        severity: 'error',
        code: 'PLUMB_SCHEMA',
        summary: `${capitalize(where)} does not have a value plumb accepts here`,
        suggestion: 'see docs/config.md for the form of this key',
        pointer: e.instancePath,
      });
  }
}

function ruleOf(schemaPath: string) {
  const m = /\/settings\/allOf\/(\d+)\//.exec(schemaPath);
  if (!m) return undefined;
  const idx = SETTINGS_RULE_INDEX[Number(m[1])];
  return idx === undefined ? undefined : SETTING_RULES[idx];
}

function unknownSetting(key: string, pointer: string, ctx: Ctx): void {
  const spec = settingByName(key);
  if (spec?.removed) {
    return push(ctx, {
      severity: 'error',
      code: 'PLUMB_SETTING_REMOVED',
      summary: `Setting "${key}" was removed from the interface in ${spec.removed.version}`,
      detail: 'The instance ignores it; keeping it would hide that the configuration no longer does anything.',
      suggestion: spec.removed.replacement ? `use "${spec.removed.replacement}" instead` : 'remove it',
      pointer,
      on: 'key',
    });
  }
  if (spec && spec.name !== key) {
    return push(ctx, {
      severity: 'error',
      code: 'PLUMB_SETTING_RESPONSE_NAME',
      summary: `"${key}" is the name the instance uses in responses; updates use "${spec.name}"`,
      suggestion: `rename it to "${spec.name}"`,
      pointer,
      on: 'key',
    });
  }
  const guess = suggestSettingName(key);
  const belongs = guess ? undefined : whereKeyBelongs(key);
  push(ctx, {
    severity: 'error',
    code: 'PLUMB_UNKNOWN_SETTING',
    summary: belongs ? `"${key}" is not an application setting` : `Unknown application setting "${key}"`,
    detail: 'See docs/settings.md for every setting plumb knows.',
    suggestion: guess ? `did you mean "${guess}"?` : belongs ? `move it ${belongs}` : 'check the spelling against docs/settings.md',
    pointer,
    on: 'key',
  });
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
 * "under a group (next to access_tokens)". Read from the schema, on the error path only.
 */
function whereKeyBelongs(key: string): string | undefined {
  if (settingByName(key) && !settingByName(key)?.removed) return 'under `settings:` of the instance: it is an application setting';
  const root = configSchemaJson() as SchemaNode & { definitions?: Record<string, SchemaNode> };
  const places: [SchemaNode | undefined, string][] = [
    [root, 'to the top level of the file'],
    [root.definitions?.instance, 'directly under an instance (next to url and token_env)'],
    [root.definitions?.group, 'under a group (next to access_tokens)'],
    [root.definitions?.access_token, 'under an access token (next to scopes)'],
    [root.definitions?.access_token?.properties?.rotation, 'under rotation: of an access token'],
    [root.definitions?.access_token?.properties?.sink, 'under sink: of an access token'],
    [root.definitions?.project, 'under a project (next to files and pages)'],
    [root.definitions?.file, 'under a file of a project'],
    [root.definitions?.pages, 'under pages: of a project'],
  ];
  return places.find(([node]) => node?.properties?.[key] !== undefined)?.[1];
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

// ---------------------------------------------------------------------------------------------
// Semantic checks and resolution into the desired-state model

/**
 * What the client would refuse before its first request, refused offline: plain HTTP to a host
 * that is not loopback (unless the instance opts in), credentials or a query in the URL. And two
 * instances that are one (the same URL spelled differently): each apply would undo the other.
 */
function checkInstanceUrl(name: string, inst: Record<string, unknown>, p: string, seen: Map<string, string>, ctx: Ctx): void {
  if (typeof inst.url !== 'string' || ctx.sources.reported.covers(joinPointer(p, 'url'))) return;
  const up = joinPointer(p, 'url');
  let url: URL;
  try {
    url = new URL(inst.url);
  } catch {
    return; // the schema's pattern reports it
  }
  if (url.username !== '' || url.password !== '') {
    for (const v of [url.password, decodeURIComponent(url.password), `${url.username}:${url.password}`]) if (v) ctx.sources.secrets.add(v);
    push(ctx, {
      severity: 'error',
      code: 'PLUMB_URL_CREDENTIALS',
      summary: `The url of instance "${name}" carries a user name or password`,
      detail: 'Credentials in a URL end up in logs and in Git. plumb authenticates with the token named by token_env only.',
      suggestion: `write the URL without "user:password@" (and change that password: it was committed)`,
      pointer: up,
    });
  }
  if (url.search !== '' || url.hash !== '') {
    push(ctx, {
      severity: 'error',
      code: 'PLUMB_STRING_FORMAT',
      summary: `The url of instance "${name}" has a ${url.search !== '' ? 'query (?…)' : 'fragment (#…)'}`,
      detail: 'The url is the base of every API path; a query or fragment has no meaning there.',
      suggestion: `write the base URL only, e.g. ${url.protocol}//${url.host}`,
      pointer: up,
    });
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && inst.allow_insecure_http !== true) {
    push(ctx, {
      severity: 'error',
      code: 'PLUMB_INSECURE_HTTP',
      summary: `Instance "${name}" is reached over plain HTTP at ${url.hostname}`,
      detail: 'The access token would cross the network unencrypted. Plain HTTP is allowed without asking only to loopback (localhost, 127.0.0.1, ::1).',
      suggestion: `use https://${url.host}${url.pathname === '/' ? '' : url.pathname}, or set \`allow_insecure_http: true\` on the instance if you accept the risk`,
      pointer: up,
    });
  }
  const key = canonicalInstanceUrl(inst.url);
  if (key === undefined) return;
  const first = seen.get(key);
  if (first === undefined) {
    seen.set(key, name);
    return;
  }
  push(ctx, {
    severity: 'error',
    code: 'PLUMB_DUPLICATE_INSTANCE_URL',
    summary: `Instances "${first}" and "${name}" are the same instance (${key})`,
    detail: 'URLs are compared without case in the scheme and host, without the default port, trailing slash or /api/v4. Two declarations of one instance would undo each other on every apply.',
    suggestion: `declare the instance once: merge "${name}" into "${first}"`,
    pointer: up,
    related: [{ message: `"${first}" has this URL here`, location: at(ctx, joinPointer('/instances', first, 'url')) }],
  });
}

/** Whether the file (read up to 1 MB: a bundle is far smaller) holds a PEM certificate; unreadable: no. */
function holdsPemCertificate(file: string): boolean {
  let fd: number | undefined;
  try {
    if (!statSync(file).isFile()) return false;
    fd = openSync(file, 'r');
    const buf = Buffer.alloc(1024 * 1024);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).includes('-----BEGIN CERTIFICATE-----');
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function resolveConfig(data: Record<string, unknown>, ctx: Ctx): DesiredConfig {
  const instances: DesiredInstance[] = [];
  const urls = new Map<string, string>();
  for (const [name, raw] of Object.entries(obj(data.instances))) {
    const p = joinPointer('/instances', name);
    const inst = obj(raw);
    checkInstanceUrl(name, inst, p, urls, ctx);
    const caBundle = typeof inst.ca_bundle === 'string' ? relativeToFile(ctx, joinPointer(p, 'ca_bundle'), inst.ca_bundle) : undefined;
    if (caBundle !== undefined && !existsSync(caBundle)) {
      push(ctx, {
        severity: 'error',
        code: 'PLUMB_FILE_MISSING',
        summary: `CA bundle "${String(inst.ca_bundle)}" does not exist`,
        suggestion: 'give the path of a PEM file, relative to this YAML file',
        pointer: joinPointer(p, 'ca_bundle'),
      });
    } else if (caBundle !== undefined && !holdsPemCertificate(caBundle)) {
      push(ctx, {
        severity: 'error',
        code: 'PLUMB_CA_BUNDLE_NOT_PEM',
        summary: `CA bundle "${String(inst.ca_bundle)}" holds no PEM certificate`,
        detail: 'plumb trusts the certificates of this file instead of the system CAs; a file without a "-----BEGIN CERTIFICATE-----" line (a DER file, a key, the wrong file) would make every connection fail.',
        suggestion: 'give the PEM file of your CA (convert a DER file with `openssl x509 -inform der -in ca.cer -out ca.pem`)',
        pointer: joinPointer(p, 'ca_bundle'),
      });
    }
    if (inst.url === undefined && Object.keys(inst).length > 0) {
      push(ctx, {
        severity: 'error',
        code: 'PLUMB_MISSING_FIELD',
        summary: `Instance "${name}" has no url`,
        suggestion: 'add `url: https://code.example.com` to the instance',
        pointer: p,
        on: 'key',
      });
    }
    if (inst.token_env === undefined && inst.token === undefined && Object.keys(inst).length > 0) {
      push(ctx, {
        severity: 'error',
        code: 'PLUMB_MISSING_FIELD',
        summary: `Instance "${name}" does not say where its access token comes from`,
        suggestion: 'add `token_env: PLUMB_TOKEN` (the name of an environment variable holding an administrator token)',
        pointer: p,
        on: 'key',
      });
    }
    const { resources, containers } = resolveKinds(name, inst, p, KIND_CONFIGS, ctx);
    const lock = resolveInstanceLock(inst.lock, joinPointer(p, 'lock'), ctx);
    instances.push({
      name,
      pointer: p,
      // One spelling per instance, so state recorded under it survives a respelling of the URL.
      url: typeof inst.url === 'string' ? (canonicalInstanceUrl(inst.url) ?? inst.url.replace(/\/+$/, '')) : '',
      tokenEnv: typeof inst.token_env === 'string' ? inst.token_env : '',
      caBundle,
      allowInsecureHttp: inst.allow_insecure_http === true,
      settingsVerifySeconds: typeof inst.settings_verify_seconds === 'number' ? inst.settings_verify_seconds : 90,
      allowRisky: resolveAllowRisky(inst.allow_risky, joinPointer(p, 'allow_risky'), ctx),
      ...(lock && { lock }),
      resources,
      containers,
    });
  }
  for (const k of KIND_CONFIGS) k.check?.(instances, ctx);
  if (instances.length === 0 && !hasErrors(ctx.diagnostics)) {
    ctx.diagnostics.push({
      severity: 'warning',
      code: 'PLUMB_NOTHING_DECLARED',
      summary: 'The configuration declares no instance',
      suggestion: 'add an `instances:` mapping (see docs/config.md)',
    });
  }
  return { instances };
}

/** `allow_risky`: known risk ids only (a typo would silently accept nothing). */
function resolveAllowRisky(raw: unknown, p: string, ctx: Ctx): string[] {
  if (!Array.isArray(raw)) return [];
  const ids: string[] = [];
  raw.forEach((id, i) => {
    if (typeof id !== 'string') return; // reported by the schema pass
    if (isDestroyId(id)) {
      push(ctx, {
        severity: 'error',
        code: 'PLUMB_UNKNOWN_RISK',
        summary: `"${id}" in allow_risky is a destroy, which allow_risky does not accept`,
        detail: 'A destroy removes something people use; plumb applies it only when asked for that resource or that run, never through the lock-out risks of allow_risky.',
        suggestion: `accept it with ${DESTROY_IDS[id].cli} (or plumb apply --allow-destroy), and remove it from allow_risky`,
        pointer: joinPointer(p, String(i)),
      });
      return;
    }
    if (!isRiskId(id)) {
      const guess = closestMatch(id, RISK_IDS);
      push(ctx, {
        severity: 'error',
        code: 'PLUMB_UNKNOWN_RISK',
        summary: `Unknown risk id "${id}" in allow_risky`,
        detail: `plumb knows: ${RISK_IDS.join(', ')}.`,
        suggestion: guess ? `did you mean "${guess}"?` : 'use one of the ids docs/plans.md lists under "Risky changes"',
        pointer: joinPointer(p, String(i)),
      });
      return;
    }
    ids.push(id);
  });
  return ids;
}

/**
 * Each kind's part of one instance, by kind name: a kind mounted directly under the instance is
 * resolved once, a kind under a container once per entry (a group, a project) that writes one of its
 * keys. Each container entry's reference is checked once, whatever kinds live under it; the entries
 * under which some kind declares something are the instance's `containers`.
 */
function resolveKinds(
  name: string,
  inst: Record<string, unknown>,
  p: string,
  kinds: readonly KindConfig[],
  ctx: Ctx,
): { resources: Map<string, unknown>; containers: Map<string, DesiredContainer[]> } {
  const resources = new Map<string, unknown>();
  const containers = new Map<string, DesiredContainer[]>();
  const has = (raw: Record<string, unknown>, k: KindConfig) => k.mount.keys.some((key) => raw[key] !== undefined);
  for (const k of kinds.filter((x) => !x.mount.container)) {
    if (!has(inst, k)) continue;
    const part = k.resolve(inst, { pointer: p, instance: name }, ctx);
    if (part !== undefined) resources.set(k.kind, part);
  }
  for (const c of CONTAINER_NAMES) {
    const under = kinds.filter((x) => x.mount.container === c);
    const held: DesiredContainer[] = [];
    for (const [ref, raw] of Object.entries(obj(inst[c]))) {
      const cp = joinPointer(p, c, ref);
      checkRef(ref, cp, CONTAINERS[c].noun, ctx);
      const entry = obj(raw);
      let holds = false;
      for (const k of under.filter((x) => has(entry, x))) {
        const part = k.resolve(entry, { pointer: cp, instance: name, ref }, ctx);
        if (part === undefined) continue;
        resources.set(k.kind, [...((resources.get(k.kind) as unknown[] | undefined) ?? []), part]);
        holds = true;
      }
      if (holds) held.push({ ref, pointer: cp });
    }
    if (held.length > 0) containers.set(c, held);
  }
  return { resources, containers };
}
