/**
 * How the settings' live record is read and compared, shared by the plan and the apply: the record
 * keyed by the names updates use, deprecated aliases standing in for their targets, and the
 * fingerprint of the declared keys a saved plan is checked with.
 */
import { settingByName } from '../../catalogue/index.js';
import type { SettingSpec } from '../../catalogue/types.js';
import type { DesiredInstance } from '../../config/model.js';
import { settingsOf } from './model.js';
import { holdsDeclared, normalizeSetting } from './normalize.js';
import { stateFingerprint } from '../../engine/fingerprint.js';

/** Live record keyed by the names updates use (response aliases folded back). */
export function liveByName(live: Readonly<Record<string, unknown>>): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [k, v] of Object.entries(live)) {
    const spec = settingByName(k);
    out.set(spec?.name ?? k, v);
  }
  return out;
}

/**
 * A deprecated alias the instance stands in for its replacement (`signin_enabled` for
 * `password_authentication_enabled_for_web`): the target, when the alias is a plain alias.
 */
export function aliasTargetOf(spec: SettingSpec | undefined): SettingSpec | undefined {
  const replacement = spec?.deprecated?.replacement;
  const target = replacement ? settingByName(replacement) : undefined;
  return target && !target.removed && target.name !== spec?.name ? target : undefined;
}

/**
 * The spec a declared value is compared with. A loosely typed (string) alias of a boolean or numeric
 * setting compares as its target: the instance returns the target's typed value under the alias name.
 */
export function comparisonSpec(spec: SettingSpec | undefined): SettingSpec | undefined {
  const target = aliasTargetOf(spec);
  if (spec?.type === 'string' && target && ['boolean', 'integer', 'float'].includes(target.type)) return target;
  return spec;
}

/** Whether the instance returns the setting, under its own name or (for an alias) its target's. */
export function returnsSetting(live: Map<string, unknown>, name: string): boolean {
  if (live.has(name)) return true;
  const target = aliasTargetOf(settingByName(name));
  return !!target && live.has(target.name);
}

/** The live value of a setting: by its own name, else (for an alias) by its target's. */
export function liveSettingValue(live: Map<string, unknown>, name: string): unknown {
  if (live.has(name)) return live.get(name);
  const target = aliasTargetOf(settingByName(name));
  return target ? live.get(target.name) : undefined;
}

/** Whether the instance holds the declared value of `name` (hashes on the declared keys only). */
export function holdsSetting(live: Map<string, unknown>, name: string, declared: unknown): boolean {
  return holdsDeclared(comparisonSpec(settingByName(name)), liveSettingValue(live, name), declared);
}

export function looksMasked(v: unknown): boolean {
  return v === null || v === undefined || v === '' || (typeof v === 'string' && /^\*+$/.test(v));
}


export function settingsAddress(instance: DesiredInstance): string {
  return `${instance.name}.application_settings`;
}

export function declaredFingerprint(instance: DesiredInstance, live: Map<string, unknown>): string {
  const view: Record<string, unknown> = {};
  for (const [name] of settingsOf(instance)) {
    const spec = settingByName(name);
    // Secrets enter as "present or not" only: their values never reach a fingerprint in clear.
    view[name] = spec?.secret ? live.has(name) && !looksMasked(live.get(name)) : normalizeSetting(comparisonSpec(spec), liveSettingValue(live, name));
  }
  return stateFingerprint(view);
}
