import type { ApiClient } from '../api/client.js';
import type { DesiredInstance } from '../config/model.js';
import type { SecretRegistry } from '../config/secrets.js';
import type { SourceLocation } from '../diagnostics/index.js';
import type { DriftEntry, PlanDiagnostic, PlanRisk, ResourceChange, ResourceKindName } from './plan.js';
import type { StateStore } from './state.js';

/** Everything a resource kind needs to read, plan and apply on one instance. */
export interface InstanceContext {
  readonly instance: DesiredInstance;
  readonly client: ApiClient;
  /** Current date (YYYY-MM-DD), overridable with --now for rotation decisions and tests. */
  readonly today: string;
  readonly now: Date;
  readonly secrets: SecretRegistry;
  readonly state: StateStore;
  /** Maps a configuration pointer to file:line:col. */
  readonly locate: (pointer: string) => SourceLocation | undefined;
  /** Progress and notes for people (stderr); never secrets. */
  readonly log: (message: string) => void;
  /** Sleeps (injectable so tests do not wait on the settings cache for real). */
  readonly sleep: (ms: number) => Promise<void>;
  /**
   * The environment plumb runs in (PATH for command sinks, the environment they inherit). Defaults
   * to `process.env` when absent.
   */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * Machine-readable standard output, unredacted: only token sinks with `stdout: true` write here
   * (one JSON line per issued secret). Defaults to `process.stdout` when absent.
   */
  readonly stdout?: (s: string) => void;
}

export interface PlanResponse {
  readonly changes: ResourceChange[];
  readonly drift: DriftEntry[];
  readonly diagnostics: PlanDiagnostic[];
  /** Changes that can lock people or plumb out (made with `flagRisk`, src/engine/risks.ts). */
  readonly risks?: PlanRisk[];
}

export interface ApplyResponse {
  /** Set when the change was carried out (possibly with warnings). */
  readonly applied: boolean;
  readonly diagnostics: PlanDiagnostic[];
  /** Human notes on what happened (verification waits, delivered secrets by sink, …). */
  readonly notes: string[];
}

/**
 * One resource kind: reads live state, plans changes against the desired state, applies one planned
 * change. Each kind lives in its own module under src/resources/.
 */
export interface ResourceProvider {
  readonly kind: ResourceKindName;
  /** Whether the instance declares anything of this kind. */
  declares(instance: DesiredInstance): boolean;
  plan(ctx: InstanceContext): Promise<PlanResponse>;
  /** Fingerprint of the live state a change was planned against, read again (saved plans). */
  liveFingerprint(ctx: InstanceContext, change: ResourceChange): Promise<string>;
  apply(ctx: InstanceContext, change: ResourceChange): Promise<ApplyResponse>;
}

/** A plan diagnostic located at a configuration pointer. */
export function planDiagnostic(
  ctx: Pick<InstanceContext, 'locate'>,
  d: Omit<PlanDiagnostic, 'file' | 'line' | 'column'> & { pointer?: string },
): PlanDiagnostic {
  const { pointer, ...rest } = d;
  const loc = pointer !== undefined ? ctx.locate(pointer) : undefined;
  return { ...rest, ...(loc && { file: loc.file, line: loc.line, column: loc.column }) };
}
