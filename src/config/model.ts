/**
 * The desired state: what a validated configuration asks for, per instance. Plain data with the JSON
 * pointer of every resource, so later stages (plan, apply errors) can point back at the YAML line.
 */

export interface DesiredValue {
  readonly value: unknown;
  /** Came from interpolation or is a secret setting: never shown, compared only by fingerprint. */
  readonly secret: boolean;
  readonly pointer: string;
}

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
  readonly rotation?: { readonly lifetimeDays: number; readonly rotateBeforeDays: number };
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

export interface DesiredFile {
  readonly path: string;
  readonly pointer: string;
  /** Empty means the project's default branch. */
  readonly branches: readonly string[];
  /** A branch that does not exist yet is created from this one by the first write to it. */
  readonly startBranch?: string;
  readonly state: 'present' | 'absent';
  /** Content exactly as it must be in the repository (inline, or a base64 source decoded). */
  readonly content?: Buffer;
  /** Absolute path of a local file whose bytes are the content (read streaming, not held here). */
  readonly source?: string;
  readonly encoding: 'text' | 'base64';
  readonly executeFilemode?: boolean;
  /** Commit message template per action (`{path}`, `{branch}`, `{project}`, `{action}`); absent: plumb's default. */
  readonly commitMessages: { readonly create?: string; readonly update?: string; readonly delete?: string };
  readonly authorName?: string;
  readonly authorEmail?: string;
  readonly secret: boolean;
}

/** The Pages update request's fields, as declared (interface names). */
export interface DesiredPagesFields {
  readonly pages_https_only?: boolean;
  readonly pages_unique_domain_enabled?: boolean;
  /** `null` clears it (an empty string in the configuration too). */
  readonly pages_primary_domain?: string | null;
}

export interface DesiredPages {
  readonly pointer: string;
  /** Only the declared fields; the others are left as the instance has them. */
  readonly fields: DesiredPagesFields;
  /** `false`: unpublish (a destroy); `true`: expect a deployment (plumb cannot publish). Undefined: not managed. */
  readonly published?: boolean;
  /** The project's opt-in to apply an unpublish without `--allow-destroy`. */
  readonly allowUnpublish: boolean;
}

export interface DesiredProject {
  readonly ref: string;
  readonly pointer: string;
  readonly files: readonly DesiredFile[];
  readonly pages?: DesiredPages;
}

/** A lock file in a repository of the instance: created to acquire, deleted to release. */
export interface DesiredInstanceLock {
  /** Numeric id or full path, as written. */
  readonly project: string;
  readonly path: string;
  /** Absent: the project's default branch. */
  readonly branch?: string;
  /** How long a lock stays valid before another apply may take it over. */
  readonly ttlMinutes: number;
  readonly pointer: string;
}

export interface DesiredInstance {
  readonly name: string;
  readonly pointer: string;
  readonly url: string;
  readonly tokenEnv: string;
  /** Absolute path of a PEM bundle. */
  readonly caBundle?: string;
  readonly allowInsecureHttp: boolean;
  readonly settingsVerifySeconds: number;
  /** Risk ids (src/engine/risks.ts) this instance accepts without `--allow-risky`. */
  readonly allowRisky: readonly string[];
  /** `lock:`: the cross-machine lock apply holds on this instance (docs/state.md#locking). */
  readonly lock?: DesiredInstanceLock;
  readonly settings: ReadonlyMap<string, DesiredValue>;
  readonly groups: readonly DesiredGroup[];
  readonly projects: readonly DesiredProject[];
}

export interface DesiredConfig {
  readonly instances: readonly DesiredInstance[];
}
