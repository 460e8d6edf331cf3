/**
 * The group access tokens' desired part: per group (a container, src/catalogue/containers.ts) that
 * declares tokens or prunes, its tokens. Kept under the kind's name in `DesiredInstance.resources`
 * and read through {@link groupsOf}.
 */
import type { DesiredInstance } from '../../config/model.js';

export type TokenSink =
  /** `path` absolute; `shown`: relative to the working directory, for plans and messages (never a runner's absolute path). */
  | { readonly kind: 'file'; readonly path: string; readonly shown?: string }
  /** `argv[0]` is a program on PATH, or a path (a relative one is resolved against `cwd`). */
  | { readonly kind: 'command'; readonly argv: readonly string[]; readonly cwd: string }
  | { readonly kind: 'stdout' };

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
  readonly sink?: TokenSink;
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
