/**
 * The ids of risky changes: stable names that configurations (`allow_risky`) and scripts use.
 * Kept free of imports so offline validation can check `allow_risky` without loading the engine.
 * A kind that detects a new risk adds its id here with a one-line meaning.
 */

/** Every risk id plumb knows, with a one-line meaning (docs and did-you-mean read this). */
export const RISKS = {
  'admin-mode-without-scope': "turning on admin_mode while plumb's token lacks the admin_mode scope",
  'personal-tokens-disabled': 'disable_personal_access_tokens while plumb authenticates with a personal access token',
  'password-sign-in-off': 'turning off password sign-in for both the web and Git over HTTP(S)',
  'token-lifetime-revokes-credential': "lowering max_personal_access_token_lifetime below the remaining life of plumb's token",
  'token-lifetime-lowered': 'lowering max_personal_access_token_lifetime below the remaining life of tokens plumb manages (the instance revokes them)',
  'two-factor-without-grace': 'requiring two-factor authentication with a grace period of 0 hours',
  'prune-own-credential': "pruning (or superseding) a group access token that is the credential plumb runs with",
  'large-change-set': 'more changes to one instance than --max-changes (default 100) in one apply: a mistake would reach all of them at once',
  'selector-match-count-changed': 'a selector matching more than 10% and more than 5 objects more or fewer than at the last apply (--max-match-change): a group moved, or a pattern now reaches what it did not',
} as const satisfies Record<string, string>;

export type RiskId = keyof typeof RISKS;

export const RISK_IDS: readonly RiskId[] = Object.keys(RISKS) as RiskId[];

export function isRiskId(id: string): id is RiskId {
  return Object.prototype.hasOwnProperty.call(RISKS, id);
}


/**
 * Destroys a plan lists among its risks (`gate: 'destroy'`): accepted by `--allow-destroy` or the
 * resource's own opt-in, never by `allow_risky`. Each with how to accept it.
 */
export const DESTROY_IDS = {
  'pages-unpublish': "`allow_unpublish: true` in the project's pages block, or `plumb apply --allow-destroy`",
} as const satisfies Record<string, string>;

export function isDestroyId(id: string): id is keyof typeof DESTROY_IDS {
  return Object.prototype.hasOwnProperty.call(DESTROY_IDS, id);
}
