/**
 * The field catalogue: data re-exported from the per-document files, plus the look-ups every
 * consumer needs (by name or response alias, secrets, "did you mean").
 */
import { SETTINGS } from './application-settings.js';
import type { SettingSpec } from './types.js';
import { editDistance } from '../util/suggest.js';

export * from './types.js';
export * from './application-settings.js';
export * from './resources.js';
export * from './kinds.js';
export * from './data-sources.js';

let byName: ReadonlyMap<string, SettingSpec> | undefined;
let current: readonly string[] | undefined;

/** Name and response alias → spec. Names win over aliases (no alias equals another name). */
function index(): ReadonlyMap<string, SettingSpec> {
  if (!byName) {
    // Indexed loops: in a cold start for-of made an iterator result per row (~30 KB of garbage).
    const map = new Map<string, SettingSpec>();
    for (let i = 0; i < SETTINGS.length; i++) if (SETTINGS[i]!.responseName) map.set(SETTINGS[i]!.responseName!, SETTINGS[i]!);
    for (let i = 0; i < SETTINGS.length; i++) map.set(SETTINGS[i]!.name, SETTINGS[i]!);
    byName = map;
  }
  return byName;
}

/** The setting called `name`, or whose response name is `name`; `undefined` when unknown. */
export function settingByName(name: string): SettingSpec | undefined {
  return index().get(name);
}

/** Names of the current settings (removed ones excluded), in spec order. */
export function settingNames(): readonly string[] {
  current ??= SETTINGS.filter((s) => !s.removed).map((s) => s.name);
  return current;
}

/** True for a known setting whose value is secret (write-only for plumb). */
export function isSecretSetting(name: string): boolean {
  return settingByName(name)?.secret === true;
}

/** The name a response uses for the setting `name` (itself unless the spec gives an alias). */
export function responseNameOf(name: string): string {
  return settingByName(name)?.responseName ?? name;
}

/**
 * The current setting name closest to `typo`, when it is within max(2, ⌊length/3⌋) edits; ties go to
 * the non-deprecated name, then to spec order. `undefined` when nothing is that close.
 */
export function suggestSettingName(typo: string): string | undefined {
  const limit = Math.max(2, Math.floor(typo.length / 3));
  let best: SettingSpec | undefined;
  let bestDistance = Infinity;
  for (const name of settingNames()) {
    const spec = settingByName(name)!;
    // Bounded: a typo as long as a paragraph is compared in time proportional to the names, not to its length.
    const d = editDistance(typo, name, Math.min(limit, bestDistance));
    if (d < bestDistance || (d === bestDistance && best?.deprecated && !spec.deprecated)) {
      best = spec;
      bestDistance = d;
    }
  }
  return best && bestDistance <= limit ? best.name : undefined;
}
