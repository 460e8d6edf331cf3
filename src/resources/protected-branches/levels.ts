/**
 * Access levels of a protected branch, as the real API names them: `push_access_level`,
 * `merge_access_level` and `unprotect_access_level` take 0 (No one), 30 (Developers +
 * Maintainers), 40 (Maintainers) or 60 (Admins). The configuration accepts the numbers and their
 * words; plans, drift and export always show the words (docs/config.md#protected-branches).
 */

export const LEVEL_WORDS = { no_access: 0, developer: 30, maintainer: 40, admin: 60 } as const;

export type LevelWord = keyof typeof LEVEL_WORDS;
export type Level = (typeof LEVEL_WORDS)[LevelWord];

export const LEVEL_NUMBERS: readonly Level[] = Object.values(LEVEL_WORDS);

/** What a configuration may write for a level: the words, then the numbers (the schema's enum). */
export const LEVEL_VALUES: readonly (LevelWord | Level)[] = [...(Object.keys(LEVEL_WORDS) as LevelWord[]), ...LEVEL_NUMBERS];

/** The level a configuration value or an API value stands for; undefined when it is none. */
export function parseLevel(v: unknown): Level | undefined {
  if (typeof v === 'string' && Object.hasOwn(LEVEL_WORDS, v)) return LEVEL_WORDS[v as LevelWord];
  return typeof v === 'number' && (LEVEL_NUMBERS as readonly number[]).includes(v) ? (v as Level) : undefined;
}

/** The canonical spelling of a level (plans, drift, export): its word. */
export function levelWord(level: Level): LevelWord {
  return (Object.keys(LEVEL_WORDS) as LevelWord[]).find((w) => LEVEL_WORDS[w] === level)!;
}

/** The three levels a rule has, by their request parameter names. */
export const LEVEL_FIELDS = ['push_access_level', 'merge_access_level', 'unprotect_access_level'] as const;
export type LevelField = (typeof LEVEL_FIELDS)[number];

/** The two flags a rule has. */
export const FLAG_FIELDS = ['allow_force_push', 'code_owner_approval_required'] as const;
export type FlagField = (typeof FLAG_FIELDS)[number];

/** The service's defaults for a rule created without a value (POST /protected_branches). */
export const API_DEFAULTS = { push_access_level: 40, merge_access_level: 40, unprotect_access_level: 40, allow_force_push: false, code_owner_approval_required: false } as const;
