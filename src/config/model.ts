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

/** A group or a project of an instance, holding what kinds declare under it (src/catalogue/containers.ts). */
export interface DesiredContainer {
  /** Numeric id or full path, as written. */
  readonly ref: string;
  readonly pointer: string;
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
  /**
   * Each kind's desired part, by kind name: what its resolver returned (src/config/kinds.ts),
   * a list of them for a kind under a container. A kind it lacks declares nothing. The kind's folder
   * owns the type and reads it through an accessor of its own.
   */
  readonly resources: ReadonlyMap<string, unknown>;
  /** The entries of each container (`groups`, `projects`) under which some kind declares something. */
  readonly containers: ReadonlyMap<string, readonly DesiredContainer[]>;
  /**
   * What the kinds write on the instances of this configuration that another kind could write too
   * (`KindConfig.claims`: a CI/CD variable), id → the kind that declares it; filled by the checks
   * stage, one map shared by every instance (a token's sink may write on another instance). A kind
   * leaves alone what another kind claims (the variables kind does not prune a token's variable).
   */
  readonly claims?: ReadonlyMap<string, string>;
}

export interface DesiredConfig {
  readonly instances: readonly DesiredInstance[];
}
