/**
 * The rules of CI/CD variables (project and group), as the real v4 API has them (the models'
 * concerns HasVariable, Maskable; Gitlab::Regex.environment_scope_regex): pure data, read by the
 * emulator (src/emulator/variables.ts), which answers with them, and by the variables kind
 * (its kind, `cicd_variable`), which checks a declaration with them before any request. One copy.
 */

/** `variable_type`: an environment variable, or a file whose path the variable holds. */
export const VARIABLE_TYPES = ['env_var', 'file'] as const;
export type VariableType = (typeof VARIABLE_TYPES)[number];

/** HasVariable: `key` presence, at most 255 characters, this alphabet. */
export const VARIABLE_KEY_PATTERN = /^[a-zA-Z0-9_]+$/;
export const VARIABLE_KEY_MAX = 255;
/** The same rule as a JSON Schema pattern (a token's `ci_variable` sink's `key`). */
export const VARIABLE_KEY_SCHEMA_PATTERN = '^[A-Za-z0-9_]{1,255}$';
/** The documented limit on a variable's value, in characters. */
export const VARIABLE_VALUE_MAX = 10_000;
/** Maskable::REGEX (masked and expanded): at least 8 characters of the Base64 alphabet plus `@:.~`. */
export const MASK_REGEX = /^[a-zA-Z0-9_+=/@:.~-]{8,}$/;
/** Maskable::MASK_AND_RAW_REGEX (masked and raw): at least 8 characters, none of them whitespace (Ruby's `\S`). */
export const MASK_AND_RAW_REGEX = /^[^ \t\r\n\f\v]{8,}$/;
/** Gitlab::Regex.environment_scope_regex and its message. */
export const ENVIRONMENT_SCOPE_PATTERN = /^[a-zA-Z0-9_/${}. *-]+$/;
export const ENVIRONMENT_SCOPE_MESSAGE = "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', '*' and spaces";
export const ENVIRONMENT_SCOPE_MAX = 255;

/**
 * Which variable a declaration writes, the same words in every kind that writes variables (the
 * variables kind, a token's `ci_variable` sink: `KindConfig.claims`): the instance, the owner (its
 * path compared without case, as the service finds it), the key and the environment scope.
 */
export function ciVariableClaim(instance: string, owner: 'project' | 'group', ref: string, key: string, scope: string): string {
  return JSON.stringify([instance, 'variable', owner, ref.toLowerCase(), key, scope]);
}

/** Whether a masked variable may hold `value` (Maskable: the raw rule when `raw`, the expanded one otherwise). */
export function maskable(value: string, raw: boolean): boolean {
  return (raw ? MASK_AND_RAW_REGEX : MASK_REGEX).test(value);
}

/** The masking rule in words, for a message about a value that breaks it. */
export function maskRuleText(raw: boolean): string {
  return raw
    ? 'a masked raw value needs at least 8 characters and no whitespace'
    : "a masked value needs at least 8 characters, all of them letters, digits or one of _ + = / @ : . ~ - (a raw variable, raw: true, allows any character but whitespace)";
}
