/**
 * The application settings' part of resolving a configuration: `instances.<name>.settings`.
 * (The schema pass reports unknown and mistyped settings; this resolves the valid ones.)
 */
import { SETTINGS, settingByName } from '../../catalogue/index.js';
import type { KindConfig, KindSchema, ResolveAt } from '../../config/kinds.js';
import { settingsObjectSchema } from './schema.js';
import type { DesiredValue } from '../../config/model.js';
import { joinPointer } from '../../config/pointer.js';
import type { KindPointer } from '../../config/pointer.js';
import { at, obj, push } from '../../config/resolve-context.js';
import type { Ctx } from '../../config/resolve-context.js';
import { humanDurationSeconds } from '../../util/human-duration.js';

/**
 * Each setting is a key of `settings`; settings merge key by key across files. Only the settings
 * the catalogue marks secret (write-only) may be interpolated: any other setting is a value the
 * instance shows (many of them to signed-out visitors: `home_page_url`, the help texts), so a
 * variable read into one would be published (docs/security.md#what-a-value-may-interpolate).
 */
export const SETTINGS_POINTERS: readonly KindPointer[] = [
  { pattern: ['instances', '*', 'settings', '*'], resource: false, describe: (s) => `setting "${s[3]}" of instance "${s[1]}"` },
  {
    pattern: ['instances', '*', 'settings'],
    resource: false,
    describe: (s) => `the settings of instance "${s[1]}"`,
    interpolation: SETTINGS.filter((s) => s.secret).map((s) => [s.name]),
  },
];

/**
 * A deprecated setting stands for its replacement on the instance: declaring both (or two
 * deprecated names of one replacement) makes each apply set one and then the other. Refused
 * whatever the values, at the deprecated name, naming the other place.
 */
function checkAliasConflicts(raw: Record<string, unknown>, p: string, ctx: Ctx): void {
  const byTarget = new Map<string, string[]>();
  for (const key of Object.keys(raw)) {
    const spec = settingByName(key);
    if (!spec || spec.name !== key || spec.removed) continue;
    const target = spec.deprecated?.replacement ?? key;
    byTarget.set(target, [...(byTarget.get(target) ?? []), key]);
  }
  for (const [target, keys] of byTarget) {
    if (keys.length < 2) continue;
    // Report at the deprecated names; the replacement (if declared) is the place kept.
    const kept = keys.includes(target) ? target : keys[0]!;
    for (const key of keys) {
      if (key === kept) continue;
      push(ctx, {
        severity: 'error',
        code: 'PLUMB_ALIAS_CONFLICT',
        summary: `"${key}" and "${kept}" are ${kept === target ? 'the old and the new name of one setting' : `two old names of "${target}"`}`,
        detail: 'The instance stores one value for both names; declaring both would make every apply set one and then the other, even when the values agree today.',
        suggestion: kept === target ? `remove "${key}" and keep "${target}"` : `remove both and declare "${target}" once`,
        pointer: joinPointer(p, key),
        on: 'key',
        related: [{ message: `"${kept}" is declared here`, location: at(ctx, joinPointer(p, kept), 'key') }],
      });
    }
  }
}

export function resolveSettings(raw: Record<string, unknown>, p: string, ctx: Ctx): Map<string, DesiredValue> {
  checkAliasConflicts(raw, p, ctx);
  const out = new Map<string, DesiredValue>();
  for (const [key, value] of Object.entries(raw)) {
    const spec = settingByName(key);
    if (!spec || spec.name !== key || spec.removed) continue; // reported by the schema pass
    const pointer = joinPointer(p, key);
    if (spec.deprecated) {
      push(ctx, {
        severity: 'warning',
        code: 'PLUMB_SETTING_DEPRECATED',
        summary: `Setting "${key}" is deprecated${spec.deprecated.since ? ` since ${spec.deprecated.since}` : ''}`,
        detail: spec.deprecated.note,
        suggestion: spec.deprecated.replacement ? `use "${spec.deprecated.replacement}" instead` : 'plan to remove it',
        pointer,
        on: 'key',
      });
    }
    if (spec.readOnly) {
      push(ctx, {
        severity: 'error',
        code: 'PLUMB_SETTING_READ_ONLY',
        summary: `Setting "${key}" cannot be updated through the interface`,
        detail: 'The instance ignores it in an update, so declaring it would report a perpetual difference.',
        suggestion: 'remove it from the configuration',
        pointer,
        on: 'key',
      });
    }
    const interpolated = ctx.sources.secrets.isSecretPointer(pointer);
    if (spec.secret && !interpolated && value !== null && value !== '') {
      push(ctx, {
        severity: 'error',
        code: 'PLUMB_SECRET_INLINE',
        summary: `Secret setting "${key}" is written in clear in the configuration`,
        detail: 'Secrets in a Git repository are leaked secrets. plumb reads them from the environment or a file.',
        suggestion: `write it as \${env:${key.toUpperCase()}} and provide that variable when running plumb`,
        pointer,
      });
    }
    if (!interpolated) checkValue(key, value, pointer, ctx);
    out.set(key, { value, secret: !!spec.secret || interpolated, pointer });
  }
  return out;
}


/** Values the schema cannot judge and the instance would refuse at apply. */
function checkValue(key: string, value: unknown, pointer: string, ctx: Ctx): void {
  if (key === 'archive_builds_in_human_readable' && typeof value === 'string' && value.trim() !== '') {
    const seconds = humanDurationSeconds(value);
    if (seconds !== undefined && seconds < 86_400) {
      push(ctx, {
        severity: 'error',
        code: 'PLUMB_OUT_OF_RANGE',
        summary: `archive_builds_in_human_readable "${value}" is shorter than one day, the shortest the instance accepts`,
        suggestion: 'write "1 day" or longer (e.g. "30 days", "1 year"), or "" to never archive',
        pointer,
      });
    }
  }
  if (key === 'email_restrictions' && typeof value === 'string' && value !== '') {
    try {
      new RegExp(value);
    } catch (err) {
      push(ctx, {
        severity: 'error',
        code: 'PLUMB_STRING_FORMAT',
        summary: `email_restrictions is not a valid regular expression: ${err instanceof Error ? err.message.replace(/^Invalid regular expression: /, '') : String(err)}`,
        detail: 'The instance matches it against the email address of every sign-up and refuses an update whose expression does not compile.',
        suggestion: 'fix the expression (escape literal dots and brackets: \\.)',
        pointer,
      });
    }
  }
}

/** This kind's configuration side, carried by its registry entry (./index.ts). */
export const SETTINGS_CONFIG: KindConfig = { kind: 'application_settings', pointers: SETTINGS_POINTERS, mount: { keys: ['settings'] }, schema, resolve };

function resolve(raw: Readonly<Record<string, unknown>>, where: ResolveAt, ctx: Ctx): Map<string, DesiredValue> {
  return resolveSettings(obj(raw.settings), joinPointer(where.pointer, 'settings'), ctx);
}

function schema(): KindSchema {
  return {
    properties: { settings: { $ref: '#/definitions/settings' } },
    definitions: { settings: settingsObjectSchema() },
    defaults: { settings: { ...settingsObjectSchema(), allOf: undefined, description: 'Settings every instance inherits; an instance overrides one by declaring it.' } },
    standalone: { title: 'Application settings', file: 'application-settings.schema.json', body: settingsObjectSchema() },
  };
}
