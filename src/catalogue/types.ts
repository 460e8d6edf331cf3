/**
 * The field catalogue: one machine-readable description of every field of the interface in
 * `shared/spec/`. Schemas, TS types, docs/settings.md, the emulator's validation and plumb's own
 * diagnostics are all derived from it, so a fact about a field is written down exactly once.
 */

/** Tier tags from the spec: [HT] higher tiers only, [TT] top tier only, [SM] self-managed only. */
export type Tier = 'HT' | 'TT' | 'SM';

/**
 * Value types. `float` is a JSON number that may have a fraction; `text` is a long string (Markdown);
 * `hash` is a JSON object whose inner structure the spec does not show (accepted as any object).
 */
export type ValueType =
  | 'boolean'
  | 'integer'
  | 'float'
  | 'string'
  | 'text'
  | 'string[]'
  | 'integer[]'
  | 'string|string[]'
  | 'hash'
  | 'object';

export interface Deprecation {
  /** Service version that deprecated it, when the spec gives one. */
  readonly since?: string;
  /** The setting to use instead, when there is one. */
  readonly replacement?: string;
  /** Free-form note from the spec ("always true", "pass X as nil"). */
  readonly note?: string;
}

export interface Removal {
  /** Service version that removed the field from the interface. */
  readonly version: string;
  readonly replacement?: string;
}

export interface SettingSpec {
  /** The name exactly as the spec writes it (and as the PUT parameter is named). */
  readonly name: string;
  readonly type: ValueType;
  /** Allowed values (scalar settings) or allowed item values (array settings). */
  readonly enum?: readonly (string | number)[];
  readonly minimum?: number;
  readonly maximum?: number;
  /** For floats with a step (external_authorization_service_timeout: 0.001). */
  readonly multipleOf?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  /** ECMAScript regex (without slashes) the string must match. */
  readonly pattern?: string;
  readonly maxItems?: number;
  /** Hash settings whose values are integers within bounds (repository_storages_weighted: 0–100). */
  readonly values?: { readonly minimum?: number; readonly maximum?: number };
  /** Object settings whose keys are known (diagram_render_formats): allowed keys. */
  readonly keys?: readonly string[];
  /** Default value the spec states; absent when the spec shows none. */
  readonly default?: unknown;
  readonly tiers?: readonly Tier[];
  /**
   * For fields only returned on higher tiers, whether the tier rule applies to reading, updating or
   * both (the spec marks `secret_push_protection_available (read)` and `lock_memberships_to_saml
   * (update)`).
   */
  readonly tierApplies?: 'read' | 'update' | 'both';
  /** Service version that introduced it ("16.1"). */
  readonly since?: string;
  readonly deprecated?: Deprecation;
  readonly removed?: Removal;
  /**
   * The name the instance uses for this field in responses when it differs
   * (users_api_limit_keys is returned as users_api_limit_ssh_keys).
   */
  readonly responseName?: string;
  /**
   * Secret values (keys, passwords, tokens, `stored encrypted`): write-only for plumb. Never shown,
   * never compared in clear; a GET may omit or mask them.
   */
  readonly secret?: boolean;
  /**
   * The spec says the value never changes ("always on", "always true"): the setting always reads
   * its `default`. The instance refuses another value, or ignores it when the setting is deprecated.
   */
  readonly fixed?: boolean;
  /** The spec says it cannot be updated through the interface (outbound_local_requests_whitelist). */
  readonly readOnly?: boolean;
  /** The spec says a restart is required for a change to apply. */
  readonly restartRequired?: boolean;
  /** Section heading of the spec table the row comes from. */
  readonly section: string;
  /** One-line meaning, from the spec's "Meaning / constraints" column. */
  readonly description: string;
  /** Decisions plumb took about an odd row, for docs/settings.md. */
  readonly note?: string;
}

/**
 * Cross-field rules (spec section 2.2 and every `req-by` / `requires` note, plus the visibility
 * rule). Kept as data so the JSON Schema, plumb's diagnostics and the emulator share them.
 */
export type SettingRule =
  /** When `flag` is true in the same update, every name in `requires` must be given too. */
  | { readonly kind: 'required-when-enabled'; readonly flag: string; readonly requires: readonly string[] }
  /** When `field` is given (non-empty), every name in `requires` must be given too. */
  | { readonly kind: 'required-with'; readonly field: string; readonly requires: readonly string[] }
  /** The scalar `field` must not be one of the values of the array setting `list`. */
  | { readonly kind: 'not-in-list'; readonly field: string; readonly list: string };

/** Response-only fields of the settings record (never sent in an update). */
export interface ResponseOnlyField {
  readonly name: string;
  readonly type: ValueType | 'datetime';
}

/** A field of one of the other resources (group access token, repository file, Pages). */
export interface ResourceFieldSpec {
  readonly name: string;
  readonly type: ValueType | 'date' | 'datetime' | 'object[]';
  readonly enum?: readonly (string | number)[];
  readonly default?: unknown;
  readonly nullable?: boolean;
  /** Only in responses. */
  readonly readOnly?: boolean;
  /** Returned once and never again (the token value). */
  readonly secret?: boolean;
  readonly since?: string;
  readonly description: string;
}
