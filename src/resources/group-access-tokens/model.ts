/**
 * The group access tokens' desired part: per group (a container, src/catalogue/containers.ts) that
 * declares tokens or prunes, its tokens. Kept under the kind's name in `DesiredInstance.resources`
 * and read through {@link groupsOf}.
 */
import type { DesiredInstance } from '../../config/model.js';

/**
 * Where a token's secret goes. `pointer` is the sink's own place in the configuration (`…/sink` for
 * the one-sink form, `…/sinks/N` in the list), so a problem with one sink is located at its line.
 */
export type TokenSink = (
  /** `path` absolute; `shown`: relative to the working directory, for plans and messages (never a runner's absolute path). */
  | { readonly kind: 'file'; readonly path: string; readonly shown?: string }
  /** `argv[0]` is a program on PATH, or a path (a relative one is resolved against `cwd`). */
  | { readonly kind: 'command'; readonly argv: readonly string[]; readonly cwd: string }
  | { readonly kind: 'stdout' }
  | CiVariableSink
) & { readonly pointer?: string };

/**
 * A CI/CD variable of a project or a group (exactly one of `project`, `group`: a full path or a
 * numeric id) on the token's instance, or on `instance`: another instance of the same
 * configuration, reached with that instance's URL pin and credential only (docs/tokens.md,
 * "Delivering to CI/CD variables"). Defaults are the safe ones: protected, masked, raw.
 */
export interface CiVariableSink {
  readonly kind: 'ci_variable';
  readonly project?: string;
  readonly group?: string;
  readonly key: string;
  /** @default true */
  readonly protected: boolean;
  /** @default true */
  readonly masked: boolean;
  /** Masked and hidden: the service never shows the value again (delivered, not verifiable). @default false */
  readonly hidden: boolean;
  /** @default true (a secret is never expanded) */
  readonly raw: boolean;
  /** @default "*" */
  readonly environmentScope: string;
  /** @default "env_var" */
  readonly variableType: 'env_var' | 'file';
  readonly description?: string;
  /** Another instance of this configuration (its name); undefined = the token's own instance. */
  readonly instance?: string;
  readonly pointer?: string;
}

export interface DesiredAccessToken {
  readonly name: string;
  readonly pointer: string;
  /**
   * Pins the live token when several active tokens share the name (`id:` in the configuration).
   * Identity is the name; the pin only chooses among same-named active tokens.
   */
  readonly id?: number;
  readonly description?: string;
  readonly scopes: readonly string[];
  readonly accessLevel: number;
  /** Fixed expiry (YYYY-MM-DD), or undefined with a rotation policy. */
  readonly expiresAt?: string;
  readonly rotation?: {
    readonly lifetimeDays: number;
    readonly rotateBeforeDays: number;
    /**
     * `rotation.overlap` in hours: rotate by creating a successor and revoke the predecessor this
     * long after the successor reached every sink (docs/tokens.md#overlap-window). Absent: `rotate`.
     */
    readonly overlapHours?: number;
  };
  /**
   * Every place the secret of a newly issued token is delivered, in configuration order (`sink:`
   * is the one-sink form, `sinks: [...]` the list). Empty only in a configuration that failed to
   * validate.
   */
  readonly sinks: readonly TokenSink[];
  /** plumb's own credential: rotated through `self`. */
  readonly self: boolean;
}

export interface DesiredGroup {
  /** Numeric id or full path, as written. */
  readonly ref: string;
  readonly pointer: string;
  readonly pruneAccessTokens: boolean;
  readonly accessTokens: readonly DesiredAccessToken[];
}

/** The groups of the instance whose tokens the configuration manages (declares some, or prunes). */
export function groupsOf(instance: DesiredInstance): readonly DesiredGroup[] {
  return (instance.resources.get('group_access_token') as readonly DesiredGroup[] | undefined) ?? [];
}
