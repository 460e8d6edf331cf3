/**
 * An engine session: what a command or an RPC opens once and plans and applies with. One API
 * client per selected instance (the token read only for an instance the URL policy allows), the
 * state file read once, and each instance's `InstanceContext` with its view of the run's memo
 * (memo.ts).
 */
import { readFileSync } from 'node:fs';
import { ApiClient } from '../api/client.js';
import type { RequestBudget } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import type { DesiredConfig, DesiredInstance } from '../config/model.js';
import type { ConfigResult } from '../config/validate.js';
import type { PlanDiagnostic } from './plan.js';
import { splitPointer } from '../config/pointer.js';
import type { ExpiryWindow, InstanceContext, KindRegistry, SelectorMatchOf } from './resource.js';
import { RunMemo } from './memo.js';
import { planDiagnostic, registryFacts } from './resource.js';
import { StateProblem, StateStore } from './state.js';
import { targetSet } from './targets.js';
import { trustedCaFile, urlPolicy, urlRefusal } from './connection.js';
import type { TargetSet } from './targets.js';
import type { SelectorChangeThreshold } from './selector-counts.js';

export interface EngineOptions {
  /** The resource kinds to plan and apply (src/resources/index.ts); the engine knows none itself. */
  readonly kinds: KindRegistry;
  readonly env: NodeJS.ProcessEnv;
  /** Current time; `--now` / PLUMB_NOW override it. */
  readonly now: Date;
  /** Path of plumb's state file (write-only fingerprints). */
  readonly stateFile: string;
  /** A state kept by the caller instead of the file (the Terraform provider: the resource's private state); `stateFile` is then not read. */
  readonly state?: StateStore;
  /** Only this instance, when given. */
  readonly instance?: string;
  /**
   * `--target` addresses, checked with `targetProblem` (src/engine/targets.ts): only the resources
   * they match are read, planned and applied; instances none can match are not opened.
   */
  readonly targets?: readonly string[];
  readonly log: (message: string) => void;
  /** Where `sink: {stdout: true}` writes issued secrets (one JSON line each); never redacted. */
  readonly stdout?: (s: string) => void;
  readonly sleep?: (ms: number) => Promise<void>;
  /** `plan --show-content`: kinds that can show a content diff read the content to do so. */
  readonly showContent?: boolean;
  /**
   * `--max-changes`: more changes than this to one instance is the risk `large-change-set`
   * (default DEFAULT_MAX_CHANGES). Apply judges it with its own value (risks.ts `blastRadius`).
   */
  readonly maxChanges?: number;
  /** `--max-match-change`: a selector's count moving beyond this is `selector-match-count-changed` (selector-counts.ts). */
  readonly selectorChange?: SelectorChangeThreshold;
  /** `plan --show-private-content`: diffs may show the live content of private projects' files. */
  readonly showPrivateContent?: boolean;
  /** Client tuning (tests, benchmarks). */
  readonly concurrency?: number;
  readonly maxAttempts?: number;
  readonly baseDelayMs?: number;
  readonly requestTimeoutMs?: number;
  /**
   * What the run remembers across its sessions (memo.ts): one per CLI command run, one per provider
   * walk. Absent: the session makes its own (a run of one session).
   */
  readonly memo?: RunMemo;
  /** `--allow-url` values: instances the token may be sent to, besides the environment's (connection.ts). */
  readonly allowedUrls?: readonly string[];
  /** `plumb report`: the plan is never applied (InstanceContext.readOnly; compareOnly too). */
  readonly readOnly?: boolean;
  /** `plumb drift`: the plan only compares, it is never applied (InstanceContext.compareOnly). */
  readonly compareOnly?: boolean;
  /** `report --max-requests`: the run's request budget, shared by every instance's client. */
  readonly budget?: RequestBudget;
  /** `--expiring-within` (plan, drift, report): list what expires within the window (`Plan.expiring`). */
  readonly expiringWithin?: { readonly written: string; readonly days: number };
}

export interface Session {
  readonly contexts: ReadonlyMap<string, InstanceContext>;
  readonly targets: TargetSet;
  readonly diagnostics: PlanDiagnostic[];
  /**
   * The lock each instance's apply holds on the instance itself (instance-lock.ts `lockInstances`
   * records it here): apply gives it back before a change plumb's credential may not survive.
   */
  readonly instanceLocks?: Map<string, { release(): Promise<void> }>;
  close(): Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Opens one client per selected instance. Missing tokens are diagnostics, before any request. */
export function openSession(loaded: ConfigResult, config: DesiredConfig, opts: EngineOptions): Session {
  const contexts = new Map<string, InstanceContext>();
  const diagnostics: PlanDiagnostic[] = [];
  const locate = (pointer: string) => {
    const l = loaded.sources.locations.get(pointer);
    return l ? (l.key ?? l.value) : undefined;
  };
  const overriddenDefault = (pointer: string) => {
    const over = loaded.sources.defaults.overrideOver(pointer);
    const l = over ? loaded.sources.locations.get(over.defaults) : undefined;
    return l ? (l.key ?? l.value) : undefined;
  };
  const expansion = loaded.sources.expansion;
  const selectorMatch = (pointer: string): SelectorMatchOf | undefined => {
    const s = expansion?.origins.selectorOf(pointer);
    if (!s) return undefined;
    const written = loaded.sources.locations.written(pointer);
    const at = loaded.sources.locations.written(s.pointer);
    if (written === pointer || (written !== at && !written.startsWith(at + '/'))) return undefined; // the explicit entry's own
    return { pointer: s.pointer, key: s.key, container: s.container, match: splitPointer(pointer)[3]!, includeArchived: s.includeArchived };
  };
  const targets = targetSet(opts.targets ?? []);
  const state = opts.state ?? StateStore.read(opts.stateFile);
  if (state instanceof StateProblem) {
    // Planning without what the state remembers would plan wrongly (issue tokens again, resend
    // secrets): no instance is opened.
    diagnostics.push(state.toDiagnostic());
    return { contexts, targets, diagnostics, close: async () => {} };
  }
  const selected = selectedInstances(config, opts, targets);
  if (opts.instance && !config.instances.some((i) => i.name === opts.instance)) {
    diagnostics.push({
      severity: 'error',
      code: 'PLUMB_INSTANCE_UNKNOWN',
      summary: `No instance named "${opts.instance}" in the configuration`,
      suggestion: `use one of: ${config.instances.map((i) => i.name).join(', ') || '(none declared)'}`,
    });
  }
  const policy = urlPolicy(opts.env, opts.allowedUrls);
  const memo = opts.memo ?? new RunMemo();
  const facts = registryFacts(opts.kinds);
  for (const instance of selected) {
    // The configuration chooses among the instances allowed from outside it; nothing is sent (not
    // even the token read) for one that is not.
    const refusal = urlRefusal(instance.url, instance.name, policy);
    if (refusal) {
      diagnostics.push(planDiagnostic({ locate }, { severity: 'error', code: 'PLUMB_URL_NOT_ALLOWED', ...refusal, pointer: instance.pointer + '/url' }));
      continue;
    }
    const token = opts.env[instance.tokenEnv];
    if (!token) {
      diagnostics.push(
        planDiagnostic({ locate }, {
          severity: 'error',
          code: 'PLUMB_TOKEN_ENV_MISSING',
          summary: `Environment variable ${instance.tokenEnv} (the token for instance "${instance.name}") is not set`,
          suggestion: `export ${instance.tokenEnv} with an administrator's access token`,
          pointer: instance.pointer + '/token_env',
        }),
      );
      continue;
    }
    if (token.length < 4) {
      diagnostics.push(
        planDiagnostic({ locate }, {
          severity: 'error',
          code: 'PLUMB_SECRET_TOO_SHORT',
          summary: `The token in ${instance.tokenEnv} (for instance "${instance.name}") is shorter than 4 characters`,
          detail: 'A secret that short cannot be masked in output without masking ordinary text too; no instance issues tokens that short.',
          suggestion: `export ${instance.tokenEnv} with the whole access token`,
          pointer: instance.pointer + '/token_env',
        }),
      );
      continue;
    }
    loaded.sources.secrets.add(token);
    let client: ApiClient;
    try {
      // The configuration's ca_bundle; else, in the service's CI, the runner's CA file for its own instance.
      const caFile = trustedCaFile(instance.url, [instance], opts.env);
      client = new ApiClient({
        baseUrl: instance.url,
        token,
        caBundle: caFile ? readFileSync(caFile, 'utf8') : undefined,
        allowInsecureHttp: instance.allowInsecureHttp,
        onWarning: (m) => opts.log(`warning: ${m}`),
        ...(opts.concurrency !== undefined && { concurrency: opts.concurrency }),
        ...(opts.maxAttempts !== undefined && { maxAttempts: opts.maxAttempts }),
        ...(opts.baseDelayMs !== undefined && { baseDelayMs: opts.baseDelayMs }),
        ...(opts.requestTimeoutMs !== undefined && { requestTimeoutMs: opts.requestTimeoutMs }),
        ...(opts.budget && { budget: opts.budget }),
      });
    } catch (err) {
      diagnostics.push(
        planDiagnostic({ locate }, {
          severity: 'error',
          code: err instanceof ApiError ? err.code : 'PLUMB_CLIENT',
          summary: (err instanceof Error ? err.message : String(err)).replace('set allowInsecureHttp', 'set allow_insecure_http: true on the instance'),
          pointer: instance.pointer + '/url',
        }),
      );
      continue;
    }
    contexts.set(instance.name, {
      instance,
      client,
      today: opts.now.toISOString().slice(0, 10),
      now: opts.now,
      secrets: loaded.sources.secrets,
      state,
      locate,
      ...(loaded.sources.defaults.size > 0 && { overriddenDefault }),
      ...(expansion && { selectorMatch }),
      ...(expansion?.listed?.has(instance.name) && { listedProject: (ref: string) => expansion.listed?.get(instance.name)?.get(ref) }),
      targets,
      log: opts.log,
      sleep: opts.sleep ?? defaultSleep,
      env: opts.env,
      ...(opts.showContent && { showContent: true }),
      ...(opts.showContent && opts.showPrivateContent && { showPrivateContent: true }),
      ...(opts.stdout && { stdout: opts.stdout }),
      memo: memo.open(instance.name),
      peer: (name: string) => contexts.get(name),
      ...(opts.expiringWithin && { expiring: expiryWindow(opts.now, opts.expiringWithin.days) }),
      ...(opts.readOnly && { readOnly: true }),
      ...((opts.readOnly || opts.compareOnly) && { compareOnly: true }),
      facts,
    });
  }
  return {
    contexts,
    targets,
    diagnostics,
    instanceLocks: new Map(),
    close: async () => {
      await Promise.all([...contexts.values()].map((c) => c.client.close()));
    },
  };
}

export function expiryWindow(now: Date, days: number): ExpiryWindow {
  return { days, until: new Date(now.getTime() + days * 86_400_000) };
}

/** The instances a run works on: `--instance`, and those a target can select. */
export function selectedInstances(config: DesiredConfig, opts: Pick<EngineOptions, 'instance'>, targets: TargetSet): DesiredInstance[] {
  return config.instances.filter((i) => (!opts.instance || i.name === opts.instance) && targets.within(i.name));
}
