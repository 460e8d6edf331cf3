/**
 * Settings' part of `plumb export`: the live record, reduced to what differs from the spec's
 * defaults (every setting with `--all-settings`), each with its meaning and default as a comment.
 *
 * - A setting the spec gives no default for is exported when its value is not "empty" (false, 0,
 *   "", null, [], {}): an admin who changed it most likely made it non-empty.
 * - Deprecated aliases, removed, fixed and read-only settings are never exported (their replacement
 *   is, when it differs).
 * - A token that is not an administrator's cannot read settings (403): none are exported, with a
 *   note, and the rest of the export goes on.
 * - Secrets are not returned by the instance. One is exported as `${env:NAME}` when the
 *   configuration needs it to validate: its flag is on (`captcha_enabled` → `captcha_private_key`)
 *   or its partner is set (`external_auth_client_cert` → `external_auth_client_key`), or the
 *   configuration given with `-c` declares it (then under the variable name it uses).
 */
import { SETTINGS, SETTING_RULES, settingByName } from '../../catalogue/index.js';
import type { SettingSpec } from '../../catalogue/types.js';
import { getApplicationSettings } from '../../api/settings.js';
import { ApiForbiddenError } from '../../api/errors.js';
import type { ExportEntry, ExportEnv, ExportResult, ResourceExporter } from '../../engine/export.js';
import { normalizeSetting } from './normalize.js';
import { settingsOf } from './model.js';

/** The environment variable an exported secret setting reads. */
export function secretEnvName(setting: string): string {
  return setting.toUpperCase();
}

function isEmpty(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.keys(v).length === 0;
  return false;
}

function differsFromDefault(spec: SettingSpec, value: unknown): boolean {
  const live = normalizeSetting(spec, value);
  if (!('default' in spec)) return !isEmpty(live);
  return JSON.stringify(live) !== JSON.stringify(normalizeSetting(spec, spec.default));
}

function describeDefault(spec: SettingSpec): string {
  return 'default' in spec ? `default ${JSON.stringify(spec.default)}` : 'the spec states no default';
}

function comment(spec: SettingSpec): string {
  return ` ${spec.description} (${describeDefault(spec)})`;
}

/** Whether plumb can declare the setting at all. */
function exportable(spec: SettingSpec): boolean {
  return !spec.removed && !spec.fixed && !spec.readOnly && !spec.deprecated;
}

/** `--all-settings`: every setting, not only those that differ from the spec's defaults. */
interface SettingsExportOptions {
  readonly all: boolean;
}

export const settingsExporter: ResourceExporter<SettingsExportOptions> = {
  kind: 'application_settings',
  flags: [{ name: 'all-settings', type: 'boolean', help: 'every setting the instance returns, not only those differing from defaults' }],
  parseOptions: (values) => ({ all: values['all-settings'] === true }),

  async export(ctx): Promise<ExportResult> {
    let raw;
    try {
      raw = await getApplicationSettings(ctx.client);
    } catch (err) {
      // Only administrators read settings; a group Owner can still export its groups' tokens.
      if (!(err instanceof ApiForbiddenError)) throw err;
      return { entries: [], counts: { settings: 0 }, summary: '0 setting(s)', notes: ["settings not exported: the token's user is not an administrator (GET /application/settings answered 403)"] };
    }
    const live = new Map<string, unknown>();
    for (const [k, v] of Object.entries(raw)) {
      const spec = settingByName(k);
      if (spec) live.set(spec.name, v);
    }
    const chosen = new Map<string, unknown>();
    for (const spec of SETTINGS) {
      if (!exportable(spec) || spec.secret || !live.has(spec.name)) continue;
      const value = live.get(spec.name);
      // null is "not set": declaring it would write "" or [] where the instance keeps nothing.
      if (value === null) continue;
      if (ctx.options.all || differsFromDefault(spec, value)) chosen.set(spec.name, normalizeSetting(spec, value));
    }
    // The partners a rule needs, so the export validates: non-secret ones from the live record,
    // secret ones as environment references.
    const secrets = new Set<string>();
    const need = (names: readonly string[]): void => {
      for (const name of names) {
        const spec = settingByName(name);
        if (!spec || chosen.has(name)) continue;
        if (spec.secret) secrets.add(name);
        else if (live.has(name)) chosen.set(name, normalizeSetting(spec, live.get(name)));
      }
    };
    // Secrets the configuration in use (-c) declares as a plain `${env:NAME}` stay declared, under the same variable.
    const settingEnv = new Map<string, string>();
    for (const [name, d] of ctx.declared ? settingsOf(ctx.declared.instance) : []) {
      const ref = d.secret ? ctx.declared?.envReference(d.pointer) : undefined;
      if (ref) settingEnv.set(name, ref);
    }
    for (const name of settingEnv.keys()) if (settingByName(name)?.secret && exportable(settingByName(name)!)) secrets.add(name);
    for (const rule of SETTING_RULES) {
      if (rule.kind === 'required-when-enabled' && chosen.get(rule.flag) === true) need(rule.requires);
      if (rule.kind === 'required-with' && !isEmpty(chosen.get(rule.field))) need(rule.requires);
    }
    const entries: ExportEntry[] = [...chosen].map(([name, value]) => ({ path: ['settings', name], value, comment: comment(settingByName(name)!) }));
    const env: ExportEnv[] = [];
    for (const name of secrets) {
      const spec = settingByName(name)!;
      const variable = settingEnv.get(name) ?? secretEnvName(name);
      entries.push({ path: ['settings', name], value: `\${env:${variable}}`, reference: true, comment: `${comment(spec)}; write-only: the instance never returns it` });
      env.push({ name: variable, why: `application setting ${name} (${spec.description})` });
    }
    const count = entries.length;
    return { entries, env, counts: { settings: count }, summary: `${count} setting(s)` };
  },
};
