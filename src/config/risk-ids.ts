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
  'unmasked-token-variable': 'delivering the secret of a token with the api scope into a CI/CD variable that is not masked (job logs can show it)',
  'selector-match-count-changed': 'a selector matching more than 10% and more than 5 objects more or fewer than at the last apply (--max-match-change): a group moved, or a pattern now reaches what it did not',
} as const satisfies Record<string, string>;

export type RiskId = keyof typeof RISKS;

export const RISK_IDS: readonly RiskId[] = Object.keys(RISKS) as RiskId[];

export function isRiskId(id: string): id is RiskId {
  return Object.prototype.hasOwnProperty.call(RISKS, id);
}


/**
 * Risks of a change that may end plumb's own credential (revoke it, stop it working, take its
 * administrator access) or revoke tokens other changes of the apply re-issue. Such a change runs
 * after every other change of its instance (the engine orders it so in the plan): they all run with
 * a credential known to work, and a lowered token lifetime limit reaches tokens already re-issued
 * within it (plumb's own first, by its self rotation).
 */
export const RUNS_LAST: ReadonlySet<string> = new Set<RiskId>([
  'token-lifetime-revokes-credential',
  'token-lifetime-lowered',
  'personal-tokens-disabled',
  'admin-mode-without-scope',
]);

/**
 * Of those, the risks of a lower token lifetime limit: the change waits for every re-issue of its
 * instance to be applied (`dependsOn`), and is skipped when one was not: a re-issue that failed
 * leaves the old token live beyond the new limit, which would revoke it (docs/plans.md#apply-order).
 */
export const WAITS_FOR_REISSUES: ReadonlySet<string> = new Set<RiskId>(['token-lifetime-revokes-credential', 'token-lifetime-lowered']);

/**
 * Of those, the risks that plumb's credential may not survive: before such a change apply gives the
 * instance's lock back (nothing of the apply follows it on that instance), as a dead credential
 * could not delete the lock file and every later apply would wait for the lock to expire.
 */
export const ENDS_CREDENTIAL: ReadonlySet<string> = new Set<RiskId>(['token-lifetime-revokes-credential', 'personal-tokens-disabled', 'admin-mode-without-scope']);

/**
 * Destroys a plan lists among its risks (`gate: 'destroy'`): accepted by `--allow-destroy` or the
 * resource's own opt-in, never by `allow_risky`. Each with its opt-in, in the words of each door.
 */
export const DESTROY_IDS = {
  'pages-unpublish': { cli: "`allow_unpublish: true` in the project's pages block", terraform: '`allow_unpublish = true` in this resource' },
} as const satisfies Record<string, Readonly<Record<Door, string>>>;

export function isDestroyId(id: string): id is keyof typeof DESTROY_IDS {
  return Object.prototype.hasOwnProperty.call(DESTROY_IDS, id);
}

/**
 * The door a configuration came through, which decides how help is worded: `cli` is plumb's own
 * commands (YAML, or a CDKTF app plumb reads), with apply's flags and the instance's `allow_risky`;
 * `terraform` is the provider, where Terraform runs apply and the provider block and the resources
 * hold every opt-in (docs/terraform.md, "Risky changes and destroys").
 */
export type Door = 'cli' | 'terraform';

/** How to accept a risk (or a destroy) that apply refuses, as a clause after "if you mean it, ". */
export function howToAccept(r: { readonly id: string; readonly instance: string; readonly gate?: 'destroy' }, door: Door = 'cli'): string {
  if (r.gate === 'destroy') {
    const own = isDestroyId(r.id) ? DESTROY_IDS[r.id][door] : undefined;
    if (door === 'terraform') return own ? `set ${own}` : 'opt in on this resource';
    return `run apply with --allow-destroy, or opt in for this resource in the configuration${own ? ` with ${own}` : ''}`;
  }
  if (door === 'terraform') return `add "${r.id}" to allow_risky in the provider "plumb" block (allow_risky = ["${r.id}"])`;
  return `run apply with --allow-risky, or add "${r.id}" to allow_risky of instance "${r.instance}" in the configuration`;
}
