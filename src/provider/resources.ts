/**
 * The provider's resource types on plumb's engine. Every operation builds plumb's desired state for
 * the one resource (config.ts), runs the engine's plan (src/engine/engine.ts) and keeps only that
 * resource's change; apply runs the engine's apply on exactly that change. Terraform's state is
 * derived from the engine's answers and the public API functions: no diffing or applying here.
 */
import { randomBytes } from 'node:crypto';
import { ACCESS_LEVELS, SETTINGS, SETTING_RULES, isSecretSetting, responseNameOf } from '../catalogue/index.js';
import { getApplicationSettings } from '../api/settings.js';
import { listGroupAccessTokens } from '../api/group-access-tokens.js';
import type { GroupAccessToken } from '../api/group-access-tokens.js';
import { applyPlan, makePlan, openSession } from '../engine/engine.js';
import type { EngineOptions } from '../engine/engine.js';
import type { ReadCache } from '../engine/resource.js';
import type { Plan, PlanDiagnostic, ResourceChange } from '../engine/plan.js';
import { hasErrors } from '../diagnostics/index.js';
import { KINDS } from '../resources/index.js';
import { getPages } from '../api/pages.js';
import type { PagesSettings } from '../api/pages.js';
import { ApiError, ApiNotFoundError } from '../api/errors.js';
import { parseFilePayload } from '../resources/repository-files/payload.js';
import { INSTANCE, buildConfig, isProviderPointer, one } from './config.js';
import type { Built, Declared, PathStep, ProviderSettings, TfObject } from './config.js';
import { UNKNOWN, containsUnknown, isUnknown } from './cty.js';
import type { CtyValue } from './cty.js';
import { DATA_SOURCE_TYPES, RESOURCE_TYPES, nestedBlock, settingAttributeType } from './schema.js';
import type { CtyType } from './cty.js';

/** A diagnostic as Terraform shows it. */
export interface TfDiagnostic {
  readonly severity: 'error' | 'warning';
  readonly summary: string;
  readonly detail: string;
  readonly path?: PathStep[];
}

export interface Runtime {
  readonly provider?: ProviderSettings;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly now: Date;
  readonly log: (message: string) => void;
  /** Where `sink {stdout = true}` writes. */
  readonly stdout: (s: string) => void;
  /** Token lists shared by the refreshes of one run. */
  readonly listings: GroupListings;
  /** Set by StopProvider: operations not yet started refuse. */
  readonly stopped: () => boolean;
}

const today = (rt: Runtime) => rt.now.toISOString().slice(0, 10);

function detailOf(d: { detail?: string; suggestion?: string; code: string }): string {
  return [d.detail, d.suggestion && `help: ${d.suggestion}`, `(${d.code})`].filter(Boolean).join('\n');
}

/** plumb's offline diagnostics for a document, as Terraform diagnostics with attribute paths. */
export function configDiagnostics(built: Built, which: 'resource' | 'provider'): TfDiagnostic[] {
  const out: TfDiagnostic[] = [];
  for (const d of built.loaded.diagnostics) {
    if (d.severity === 'info') continue;
    const providerLevel = isProviderPointer(d.pointer);
    if ((which === 'provider') !== providerLevel) continue;
    const p = built.pathOf(d.pointer);
    out.push({ severity: d.severity, summary: d.summary, detail: detailOf(d), ...(p && { path: p }) });
  }
  return out;
}

function planDiags(ds: readonly PlanDiagnostic[], redact: (s: string) => string): TfDiagnostic[] {
  return ds
    .filter((d) => d.severity !== 'info')
    .map((d) => ({ severity: d.severity as 'error' | 'warning', summary: redact(d.summary), detail: redact(detailOf(d)) }));
}

/** `fresh`: apply's own plan reads the instance anew instead of through the run's shared reads. */
function engineOptions(rt: Runtime, env: NodeJS.ProcessEnv, fresh = false): EngineOptions {
  return { env, now: rt.now, stateFile: rt.provider!.stateFile, instance: INSTANCE, log: rt.log, stdout: rt.stdout, kinds: KINDS, ...(!fresh && { readCache: rt.listings }) };
}

const NOT_CONFIGURED: TfDiagnostic = {
  severity: 'error',
  summary: 'The plumb provider is not configured',
  detail: 'Terraform called the provider before ConfigureProvider; this is a bug in the caller.',
};

/** Validates a resource's configuration offline with plumb's checks (values not known yet are skipped). */
export function validateResource(rt: Runtime, typeName: string, config: TfObject): TfDiagnostic[] {
  const declared = declare(typeName, config);
  if (!declared) return [{ severity: 'error', summary: `Unknown resource type ${typeName}`, detail: `plumb serves ${Object.values(RESOURCE_TYPES).join(', ')}.` }];
  const built = buildConfig(undefined, declared, { env: rt.env, today: today(rt), cwd: rt.cwd });
  const out = configDiagnostics(built, 'resource');
  const sink = one(declared.token?.sink);
  if (sink?.stdout === true) {
    out.push({
      severity: 'error',
      summary: 'A token sink cannot be stdout under Terraform',
      detail: "The provider's standard output goes to Terraform's log, so the secret would be lost, or written to a debug log.\nhelp: use sink = { file = \"...\" } or sink = { command = [...] } (PLUMB_TF_SINK_STDOUT)",
      path: [{ attribute: 'sink' }, { index: 0 }, { attribute: 'stdout' }],
    });
  }
  return out;
}

/** Risks (changes that can lock people or plumb out) of one change, as plan warnings. */
function riskWarnings(plan: Plan | undefined, address: string): TfDiagnostic[] {
  return (plan?.risks ?? [])
    .filter((r) => r.address === address && !r.acknowledged)
    .map((r) => ({
      severity: 'warning' as const,
      summary: r.summary,
      detail: r.gate === 'destroy' ? `Risk ${r.id}: a destroy; apply refuses it unless the resource opts in (allow_unpublish = true).` : `Risk ${r.id}: apply refuses it unless the provider's allow_risky lists "${r.id}".`,
    }));
}

function declare(typeName: string, v: TfObject): Declared | undefined {
  switch (typeName) {
    case RESOURCE_TYPES.settings:
      return { settings: v };
    case RESOURCE_TYPES.token:
      return { token: v };
    case RESOURCE_TYPES.file:
      return { file: v };
    case RESOURCE_TYPES.pages:
      return { pages: v };
    default:
      return undefined;
  }
}

/** Runs the engine's plan for one declared resource. */
async function planFor(rt: Runtime, declared: Declared, fresh = false): Promise<{ built: ReturnType<typeof buildConfig>; plan?: Plan; diagnostics: TfDiagnostic[] }> {
  const built = buildConfig(rt.provider, declared, { env: rt.env, today: today(rt), cwd: rt.cwd });
  const diagnostics = [...configDiagnostics(built, 'resource'), ...configDiagnostics(built, 'provider')];
  const { loaded } = built;
  if (!loaded.config || hasErrors(loaded.diagnostics)) return { built, diagnostics };
  const plan = await makePlan(loaded, loaded.config, engineOptions(rt, built.env, fresh));
  const redact = (s: string) => loaded.sources.secrets.redact(s);
  // Configuration diagnostics are already in; the plan repeats them.
  diagnostics.push(...planDiags(plan.diagnostics.filter((d) => d.code !== 'PLUMB_KIND_NOT_MANAGED' && !loaded.diagnostics.some((l) => l.code === d.code && l.summary === d.summary)), redact));
  return { built, plan, diagnostics };
}

/** Applies exactly the given changes of a plan with the engine. */
async function applyChanges(rt: Runtime, built: ReturnType<typeof buildConfig>, plan: Plan, changes: readonly ResourceChange[]): Promise<{ ok: boolean; diagnostics: TfDiagnostic[] }> {
  const { loaded } = built;
  const risks = plan.risks.filter((r) => changes.some((c) => c.address === r.address));
  const only: Plan = { ...plan, changes, risks, diagnostics: plan.diagnostics.filter((d) => d.severity !== 'error' || !d.address || changes.some((c) => c.address === d.address)) };
  const report = await applyPlan(only, loaded, loaded.config!, { ...engineOptions(rt, built.env, true), fromFile: false, allowRisky: false });
  // Any write may change what the run's shared reads hold.
  rt.listings.clear();
  const redact = (s: string) => loaded.sources.secrets.redact(s);
  const diagnostics = planDiags(report.diagnostics, redact);
  if (report.refused) diagnostics.unshift({ severity: 'error', summary: `plumb refused to apply: ${report.refused}`, detail: 'Nothing was written.' });
  return { ok: report.ok, diagnostics };
}

function describeChange(c: ResourceChange): string {
  return `${c.action}${c.reasons.length > 0 ? ` (${c.reasons.join(', ')})` : ''}`;
}

// --- application settings --------------------------------------------------------------------------

const SETTINGS_ADDRESS = `${INSTANCE}.application_settings`;

function settingsChange(plan: Plan | undefined): ResourceChange | undefined {
  return plan?.changes.find((c) => c.kind === 'application_settings' && c.action !== 'no-op');
}

function withoutWriteOnly(v: TfObject): Record<string, CtyValue> {
  const out: Record<string, CtyValue> = { ...v };
  for (const k of Object.keys(out)) if (isSecretSetting(k)) out[k] = null;
  return out;
}

export interface PlanResult {
  readonly planned: CtyValue;
  readonly requiresReplace: PathStep[][];
  readonly diagnostics: TfDiagnostic[];
}

export interface ApplyResult {
  readonly newState: CtyValue;
  readonly diagnostics: TfDiagnostic[];
}

function sameObject(a: TfObject, b: TfObject, skip: readonly string[]): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) if (!skip.includes(k) && JSON.stringify(a[k] ?? null) !== JSON.stringify(b[k] ?? null)) return false;
  return true;
}

async function planSettings(rt: Runtime, prior: TfObject | null, proposed: TfObject, config: TfObject): Promise<PlanResult> {
  const planned: Record<string, CtyValue> = withoutWriteOnly(proposed);
  planned.id = 'application_settings';
  planned.write_only_revision = prior?.write_only_revision ?? UNKNOWN;
  if (containsUnknown(config)) return { planned, requiresReplace: [], diagnostics: [] };
  const { plan, diagnostics } = await planFor(rt, { settings: config });
  const change = settingsChange(plan);
  if (change) {
    const writeOnly = change.attributes.some((a) => a.sensitive || a.writeOnly);
    // Terraform sees only what its state can hold: a change it cannot see (a write-only value, or a
    // difference its refreshed state hides) is shown through the revision attribute.
    if (writeOnly || (prior && sameObject(prior, planned, ['write_only_revision']))) planned.write_only_revision = UNKNOWN;
    if (writeOnly) diagnostics.push({ severity: 'warning', summary: `plumb will send write-only settings: ${change.attributes.filter((a) => a.sensitive || a.writeOnly).map((a) => a.name).join(', ')}`, detail: `${SETTINGS_ADDRESS}: ${describeChange(change)}. Their values are never stored in Terraform's state.` });
    diagnostics.push(...riskWarnings(plan, change.address));
  }
  return { planned, requiresReplace: [], diagnostics };
}

async function applySettings(rt: Runtime, prior: TfObject | null, planned: TfObject | null, config: TfObject | null): Promise<ApplyResult> {
  if (planned === null || config === null) {
    return { newState: null, diagnostics: [{ severity: 'warning', summary: 'The application settings were left as they are', detail: 'Settings cannot be deleted; Terraform forgets them and plumb changes nothing on the instance.' }] };
  }
  const { built, plan, diagnostics } = await planFor(rt, { settings: config }, true);
  const state: Record<string, CtyValue> = withoutWriteOnly(planned);
  state.id = 'application_settings';
  state.write_only_revision = prior?.write_only_revision ?? 'none';
  if (!plan || hasTfErrors(diagnostics)) return { newState: prior, diagnostics };
  const change = settingsChange(plan);
  if (change) {
    const r = await applyChanges(rt, built, plan, [change]);
    diagnostics.push(...r.diagnostics);
    if (!r.ok) return { newState: prior, diagnostics };
    if (change.attributes.some((a) => a.sensitive || a.writeOnly)) state.write_only_revision = randomBytes(8).toString('hex');
  }
  if (isUnknown(state.write_only_revision)) state.write_only_revision = 'none';
  return { newState: state, diagnostics };
}

/**
 * Refresh reads the settings the state holds. Write-only partners are not in state, so a rule that
 * needs one (spam_filter_enabled needs spam_filter_api_key) gets a placeholder: read ignores
 * write-only attributes, and the placeholder is never sent (read applies nothing).
 */
function withWriteOnlyPartners(current: TfObject): TfObject {
  const out: Record<string, CtyValue> = { ...current };
  const given = (n: string) => out[n] !== null && out[n] !== undefined && out[n] !== '' && !(Array.isArray(out[n]) && (out[n] as CtyValue[]).length === 0);
  for (const rule of SETTING_RULES) {
    const needs = rule.kind === 'required-when-enabled' ? out[rule.flag] === true : rule.kind === 'required-with' ? given(rule.field) : false;
    if (!needs || rule.kind === 'not-in-list') continue;
    for (const r of rule.requires) if (isSecretSetting(r) && !given(r)) out[r] = 'plumb-refresh-placeholder';
  }
  return out;
}

async function readSettings(rt: Runtime, current: TfObject): Promise<ApplyResult> {
  const { plan, diagnostics } = await planFor(rt, { settings: withWriteOnlyPartners(current) });
  if (!plan) return { newState: current, diagnostics };
  const state: Record<string, CtyValue> = { ...current };
  const change = settingsChange(plan);
  for (const a of change?.attributes ?? []) {
    if (a.sensitive || a.writeOnly || !(a.name in state) || state[a.name] === null) continue;
    const block = nestedBlock(RESOURCE_TYPES.settings, a.name);
    if (block) {
      // A nested block's value is a list of one object with every attribute of the block.
      if (Array.isArray(state[a.name]) && (state[a.name] as CtyValue[]).length === 0) continue;
      const live = (a.before ?? {}) as Record<string, CtyValue>;
      state[a.name] = [Object.fromEntries(Object.keys(block.attributes ?? {}).map((k) => [k, live[k] ?? null]))];
      continue;
    }
    state[a.name] = (a.before ?? null) as CtyValue;
  }
  return { newState: state, diagnostics };
}

// --- group access tokens ---------------------------------------------------------------------------

function tokenAddress(group: string, name: string): string {
  return `${INSTANCE}.group[${JSON.stringify(group)}].access_token[${JSON.stringify(name)}]`;
}

/**
 * Reads shared by the RPCs of one Terraform run (refreshes and plans): Terraform asks about every
 * token of a group one RPC at a time, and one list of the group answers them all, as one list
 * answers a whole group in `plumb plan`. Entries live for a few seconds; any apply empties the
 * cache, and apply's own plan reads fresh. Terraform starts a new provider process for each walk.
 */
export class GroupListings implements ReadCache {
  readonly #entries = new Map<string, { readonly at: number; readonly value: Promise<unknown> }>();
  constructor(readonly ttlMs = 10_000) {}

  get<T>(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.#entries.get(key);
    if (hit && Date.now() - hit.at < this.ttlMs) return hit.value as Promise<T>;
    const value = load();
    const entry = { at: Date.now(), value };
    this.#entries.set(key, entry);
    value.catch(() => {
      if (this.#entries.get(key) === entry) this.#entries.delete(key); // a failed read is never shared
    });
    return value;
  }

  forget(key: string): void {
    this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }
}

const tokensKey = (group: string) => `group-access-tokens:${group}`;

async function liveToken(rt: Runtime, env: NodeJS.ProcessEnv, built: ReturnType<typeof buildConfig>, group: string, name: string, fresh = false): Promise<GroupAccessToken | undefined> {
  const session = openSession(built.loaded, built.loaded.config!, engineOptions(rt, env));
  try {
    const ctx = session.contexts.get(INSTANCE);
    if (!ctx) return undefined;
    if (fresh) rt.listings.forget(tokensKey(group));
    const all = await rt.listings.get(tokensKey(group), () => listGroupAccessTokens(ctx.client, group));
    return all.find((t) => t.name === name && t.active && !t.revoked);
  } finally {
    await session.close();
  }
}

async function planToken(rt: Runtime, prior: TfObject | null, proposed: TfObject, config: TfObject): Promise<PlanResult> {
  const planned: Record<string, CtyValue> = { ...proposed };
  const requiresReplace: PathStep[][] = [];
  if (prior) {
    for (const k of ['group', 'name']) if (prior[k] !== proposed[k]) requiresReplace.push([{ attribute: k }]);
  }
  const keep = prior && requiresReplace.length === 0;
  planned.token_id = keep ? prior.token_id ?? UNKNOWN : UNKNOWN;
  planned.token_expires_at = keep ? prior.token_expires_at ?? UNKNOWN : UNKNOWN;
  if (containsUnknown(config) || requiresReplace.length > 0) return { planned, requiresReplace, diagnostics: [] };
  const { plan, diagnostics } = await planFor(rt, { token: config });
  const address = tokenAddress(config.group as string, config.name as string);
  const change = plan?.changes.find((c) => c.address === address && c.action !== 'no-op');
  if (change) {
    planned.token_id = UNKNOWN;
    planned.token_expires_at = UNKNOWN;
    if (change.action === 'rotate' || change.action === 'replace') {
      diagnostics.push({
        severity: 'warning',
        summary: `plumb will ${change.action} the token "${config.name as string}" of ${config.group as string} (${change.reasons.join(', ')})`,
        detail: `The new secret goes to the token's sink before the old token stops working; Terraform shows this as an update of token_id and token_expires_at.`,
      });
    }
  }
  diagnostics.push(...riskWarnings(plan, address));
  return { planned, requiresReplace, diagnostics };
}

async function applyToken(rt: Runtime, prior: TfObject | null, planned: TfObject | null, config: TfObject | null): Promise<ApplyResult> {
  if (planned === null || config === null) {
    if (!prior || typeof prior.group !== 'string' || typeof prior.name !== 'string') return { newState: null, diagnostics: [] };
    // Destroy: the group pruned with nothing declared plans the revocation of every undeclared
    // token; only this one's is applied.
    const { built, plan, diagnostics } = await planFor(rt, { pruneGroup: prior.group }, true);
    if (!plan) return { newState: prior, diagnostics };
    const prefix = `${tokenAddress(prior.group, prior.name)}#`;
    const revoke = plan.changes.filter((c) => c.address.startsWith(prefix) && c.action === 'delete');
    if (revoke.length === 0) return { newState: null, diagnostics: [] };
    const r = await applyChanges(rt, built, plan, revoke);
    rt.listings.forget(tokensKey(prior.group));
    return { newState: r.ok ? null : prior, diagnostics: [...diagnostics.filter((d) => d.severity === 'error'), ...r.diagnostics] };
  }
  const { built, plan, diagnostics } = await planFor(rt, { token: config }, true);
  if (!plan || hasTfErrors(diagnostics)) return { newState: prior, diagnostics };
  const address = tokenAddress(config.group as string, config.name as string);
  const change = plan.changes.find((c) => c.address === address && c.action !== 'no-op');
  if (change) {
    const r = await applyChanges(rt, built, plan, [change]);
    diagnostics.push(...r.diagnostics);
    if (!r.ok) return { newState: prior, diagnostics };
  }
  const live = await liveToken(rt, built.env, built, config.group as string, config.name as string, true);
  const state: Record<string, CtyValue> = { ...planned };
  state.token_id = live?.id ?? null;
  state.token_expires_at = live?.expires_at ?? null;
  return { newState: state, diagnostics };
}

async function readToken(rt: Runtime, current: TfObject): Promise<ApplyResult> {
  if (typeof current.group !== 'string' || typeof current.name !== 'string') return { newState: current, diagnostics: [] };
  // Read needs the live token only: the state may lack what a plan needs (an imported token has
  // no sink or expiry policy until the configuration gives them).
  const built = buildConfig(rt.provider, {}, { env: rt.env, today: today(rt), cwd: rt.cwd });
  if (!built.loaded.config) return { newState: current, diagnostics: configDiagnostics(built, 'provider') };
  const live = await liveToken(rt, built.env, built, current.group, current.name);
  if (!live) return { newState: null, diagnostics: [] };
  const state: Record<string, CtyValue> = { ...current, token_id: live.id, token_expires_at: live.expires_at };
  state.scopes = [...live.scopes];
  if (typeof current.description === 'string') state.description = live.description ?? '';
  if (typeof current.access_level === 'string') {
    const role = ACCESS_LEVELS[live.access_level as keyof typeof ACCESS_LEVELS];
    state.access_level = /^\d+$/.test(current.access_level) ? String(live.access_level) : (role ?? String(live.access_level));
  }
  if (typeof current.expires_at === 'string' && live.expires_at) state.expires_at = live.expires_at;
  return { newState: state, diagnostics: [] };
}

/** `GROUP:NAME` → the token's state; Terraform then reads it. */
export async function importToken(rt: Runtime, id: string): Promise<ApplyResult> {
  const at = id.lastIndexOf(':');
  if (at <= 0 || at === id.length - 1) {
    return { newState: null, diagnostics: [{ severity: 'error', summary: `Cannot import "${id}"`, detail: 'A group access token is imported as GROUP:NAME, e.g. platform/infra:ci-deployer.' }] };
  }
  const group = id.slice(0, at);
  const name = id.slice(at + 1);
  const built = buildConfig(rt.provider, {}, { env: rt.env, today: today(rt), cwd: rt.cwd });
  if (!built.loaded.config) return { newState: null, diagnostics: configDiagnostics(built, 'provider') };
  const live = await liveToken(rt, built.env, built, group, name);
  if (!live) return { newState: null, diagnostics: [{ severity: 'error', summary: `No active token named "${name}" in group ${group}`, detail: 'Check the group path and the token name (GROUP:NAME).' }] };
  return {
    newState: {
      id: null,
      group,
      name,
      description: live.description ?? null,
      scopes: [...live.scopes],
      access_level: ACCESS_LEVELS[live.access_level as keyof typeof ACCESS_LEVELS] ?? String(live.access_level),
      expires_at: null,
      rotation: [],
      sink: [],
      self: null,
      token_id: live.id,
      token_expires_at: live.expires_at,
    },
    diagnostics: [{ severity: 'warning', summary: 'Imported without a sink or an expiry policy', detail: 'Write the token\'s sink and its expires_at or rotation in the configuration; plumb plans a rotation when the policy asks for one.' }],
  };
}

// --- repository files ------------------------------------------------------------------------------

const short = (sha: string) => `sha256:${sha.slice(0, 12)}`;

/** The engine's per-branch changes of the one declared file, with their parsed payloads. */
function fileChanges(plan: Plan | undefined): { change: ResourceChange; payload: ReturnType<typeof parseFilePayload> }[] {
  return (plan?.changes ?? []).filter((c) => c.kind === 'repository_file').map((change) => ({ change, payload: parseFilePayload(change.payload) }));
}

function stringMap(v: CtyValue | undefined): Record<string, string> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !isUnknown(v) ? (Object.fromEntries(Object.entries(v).filter(([, x]) => typeof x === 'string')) as Record<string, string>) : {};
}

/**
 * Optimistic locking across Terraform's plan and apply: the prior state holds the last commit of
 * each branch as refresh saw it; a write whose fresh engine plan finds another commit (someone
 * committed since `terraform plan`) is refused, as plumb refuses a saved plan whose file moved.
 */
function lockConflicts(prior: TfObject | null, changes: ReturnType<typeof fileChanges>): TfDiagnostic[] {
  const seen = stringMap(prior?.last_commit_id);
  return changes
    .filter(({ change, payload }) => change.action !== 'no-op' && (seen[payload.branch] ?? null) !== (payload.lastCommitId ?? null))
    .map(({ payload }) => ({
      severity: 'error' as const,
      summary: `${payload.path} on ${payload.branch} of ${payload.project} changed since terraform plan`,
      detail: `Terraform's plan saw ${seen[payload.branch] ? `commit ${seen[payload.branch]!.slice(0, 12)}` : 'no file'}; the branch now has ${payload.lastCommitId ? `commit ${payload.lastCommitId.slice(0, 12)}` : 'no file'}. Nothing was written.\nhelp: run terraform plan again to see the change and decide (PLUMB_FILE_CONFLICT)`,
    }));
}

async function planFile(rt: Runtime, prior: TfObject | null, proposed: TfObject, config: TfObject): Promise<PlanResult> {
  const planned: Record<string, CtyValue> = { ...proposed };
  const requiresReplace: PathStep[][] = [];
  if (prior) for (const k of ['project', 'file_path']) if (prior[k] !== proposed[k]) requiresReplace.push([{ attribute: k }]);
  planned.content_sha256 = UNKNOWN;
  planned.last_commit_id = UNKNOWN;
  if (containsUnknown(config) || requiresReplace.length > 0) return { planned, requiresReplace, diagnostics: [] };
  const { plan, diagnostics } = await planFor(rt, { file: config });
  if (!plan) return { planned, requiresReplace, diagnostics };
  const changes = fileChanges(plan);
  const shas: Record<string, string> = {};
  const commits: Record<string, string> = {};
  for (const { payload } of changes) {
    if (payload.sha256) shas[payload.branch] = short(payload.sha256);
    if (payload.lastCommitId) commits[payload.branch] = payload.lastCommitId;
  }
  const writes = changes.filter(({ change }) => change.action !== 'no-op');
  planned.content_sha256 = config.state === 'absent' ? {} : shas;
  // A write makes a new commit; without one, the commits refresh saw stay.
  planned.last_commit_id = writes.length > 0 ? UNKNOWN : commits;
  for (const { change, payload } of writes) {
    diagnostics.push({ severity: 'warning', summary: `plumb will ${describeChange(change)} ${payload.path} on ${payload.branch} of ${payload.project}`, detail: `One commit: "${payload.commitMessage}".` });
  }
  return { planned, requiresReplace, diagnostics };
}

async function applyFile(rt: Runtime, prior: TfObject | null, planned: TfObject | null, config: TfObject | null): Promise<ApplyResult> {
  const destroy = planned === null || config === null;
  const declared = destroy ? prior : config;
  if (!declared || typeof declared.project !== 'string' || typeof declared.file_path !== 'string') return { newState: null, diagnostics: [] };
  // Destroy deletes the file on its branches (one commit each), with the commits refresh saw.
  const { built, plan, diagnostics } = await planFor(rt, { file: declared, fileAbsent: destroy }, true);
  if (!plan || hasTfErrors(diagnostics)) return { newState: prior, diagnostics };
  const changes = fileChanges(plan);
  const writes = changes.filter(({ change }) => change.action !== 'no-op');
  const conflicts = lockConflicts(prior, writes);
  if (conflicts.length > 0) return { newState: prior, diagnostics: [...diagnostics, ...conflicts] };
  if (writes.length > 0) {
    const r = await applyChanges(rt, built, plan, writes.map((w) => w.change));
    diagnostics.push(...r.diagnostics);
    if (!r.ok) return { newState: prior, diagnostics };
  }
  if (destroy) return { newState: null, diagnostics };
  const state: Record<string, CtyValue> = { ...planned! };
  const shas: Record<string, string> = {};
  for (const { payload } of changes) if (payload.sha256) shas[payload.branch] = short(payload.sha256);
  state.content_sha256 = config!.state === 'absent' ? {} : shas;
  // The commits the writes made: one HEAD per branch, read back through the engine's plan.
  const after = writes.length > 0 ? await planFor(rt, { file: config! }, true) : { plan };
  const commits: Record<string, string> = {};
  for (const { payload } of fileChanges(after.plan)) if (payload.lastCommitId) commits[payload.branch] = payload.lastCommitId;
  state.last_commit_id = commits;
  return { newState: state, diagnostics };
}

/**
 * Refresh: the file as the instance holds it on each branch, read as plumb reads it (one HEAD per
 * branch, no download): the engine's plan of deleting it names the live digest and commit. Gone on
 * every branch → null, and Terraform plans a create.
 */
async function liveFile(rt: Runtime, current: TfObject): Promise<{ shas: Record<string, string>; commits: Record<string, string>; diagnostics: TfDiagnostic[] }> {
  const { plan, diagnostics } = await planFor(rt, { file: current, fileAbsent: true });
  const shas: Record<string, string> = {};
  const commits: Record<string, string> = {};
  for (const { change, payload } of fileChanges(plan)) {
    if (change.action !== 'delete') continue;
    const before = change.attributes.find((a) => a.name === 'content_sha256')?.before;
    if (typeof before === 'string') shas[payload.branch] = before;
    if (payload.lastCommitId) commits[payload.branch] = payload.lastCommitId;
  }
  return { shas, commits, diagnostics: diagnostics.filter((d) => d.severity === 'error') };
}

async function readFile(rt: Runtime, current: TfObject): Promise<ApplyResult> {
  if (typeof current.project !== 'string' || typeof current.file_path !== 'string') return { newState: current, diagnostics: [] };
  if (current.state === 'absent') return { newState: current, diagnostics: [] };
  const live = await liveFile(rt, current);
  if (hasTfErrors(live.diagnostics)) return { newState: current, diagnostics: live.diagnostics };
  if (Object.keys(live.commits).length === 0) return { newState: null, diagnostics: [] };
  return { newState: { ...current, content_sha256: live.shas, last_commit_id: live.commits }, diagnostics: [] };
}

/** `PROJECT:BRANCH:PATH` (project paths and branch names have no colon; the path may). */
async function importFile(rt: Runtime, id: string): Promise<ApplyResult> {
  const m = /^([^:]+):([^:]+):(.+)$/.exec(id);
  if (!m) return { newState: null, diagnostics: [{ severity: 'error', summary: `Cannot import "${id}"`, detail: 'A repository file is imported as PROJECT:BRANCH:PATH, e.g. platform/infra/instance-config:main:CODEOWNERS.' }] };
  const state: Record<string, CtyValue> = {
    project: m[1]!, file_path: m[3]!, branches: [m[2]!], content: null, source: null, encoding: null, execute_filemode: null, start_branch: null,
    commit_message: null, commit_messages: [], author_name: null, author_email: null, state: null, content_sha256: {}, last_commit_id: {},
  };
  const live = await liveFile(rt, state);
  if (hasTfErrors(live.diagnostics)) return { newState: null, diagnostics: live.diagnostics };
  if (Object.keys(live.commits).length === 0) return { newState: null, diagnostics: [{ severity: 'error', summary: `No file ${m[3]!} on branch ${m[2]!} of ${m[1]!}`, detail: 'Check the project path, the branch and the file path (PROJECT:BRANCH:PATH).' }] };
  return { newState: { ...state, content_sha256: live.shas, last_commit_id: live.commits }, diagnostics: [] };
}

// --- Pages -------------------------------------------------------------------------------------------

const PAGES_FIELDS = { pages_unique_domain_enabled: 'is_unique_domain_enabled', pages_https_only: 'force_https', pages_primary_domain: 'primary_domain' } as const;

function pagesChanges(plan: Plan | undefined): ResourceChange[] {
  return (plan?.changes ?? []).filter((c) => c.kind === 'pages' && c.action !== 'no-op');
}

async function planPages(rt: Runtime, prior: TfObject | null, proposed: TfObject, config: TfObject): Promise<PlanResult> {
  const planned: Record<string, CtyValue> = { ...proposed, id: typeof config.project === 'string' ? config.project : UNKNOWN };
  const requiresReplace: PathStep[][] = prior && prior.project !== proposed.project ? [[{ attribute: 'project' }]] : [];
  if (containsUnknown(config) || requiresReplace.length > 0) return { planned, requiresReplace, diagnostics: [] };
  const { plan, diagnostics } = await planFor(rt, { pages: config });
  for (const c of pagesChanges(plan)) {
    if (c.action === 'delete') diagnostics.push({ severity: 'warning', summary: `plumb will unpublish the Pages of ${config.project as string}`, detail: 'Its deployments are removed; only a new pipeline deploys the site again.' });
    diagnostics.push(...riskWarnings(plan, c.address));
  }
  return { planned, requiresReplace, diagnostics };
}

async function applyPages(rt: Runtime, prior: TfObject | null, planned: TfObject | null, config: TfObject | null): Promise<ApplyResult> {
  if (planned === null || config === null) {
    // Destroy stops managing: the settings stay and the site stays published. Unpublishing is
    // `published = false` (with allow_unpublish = true), applied before the resource is removed.
    return { newState: null, diagnostics: [{ severity: 'warning', summary: `The Pages of ${String(prior?.project)} were left as they are`, detail: 'Destroying plumb_project_pages stops managing them; to unpublish the site, declare published = false and allow_unpublish = true and apply first.' }] };
  }
  const { built, plan, diagnostics } = await planFor(rt, { pages: config }, true);
  if (!plan || hasTfErrors(diagnostics)) return { newState: prior, diagnostics };
  const changes = pagesChanges(plan);
  if (changes.length > 0) {
    const r = await applyChanges(rt, built, plan, changes);
    diagnostics.push(...r.diagnostics.filter((d) => !(d.severity === 'warning' && diagnostics.some((x) => x.summary === d.summary))));
    if (!r.ok) return { newState: prior, diagnostics };
  }
  return { newState: { ...planned, id: config.project as string }, diagnostics: diagnostics.filter((d) => d.severity === 'error') };
}

async function livePages(rt: Runtime, project: string): Promise<{ live?: PagesSettings; diagnostics: TfDiagnostic[] }> {
  const built = buildConfig(rt.provider, {}, { env: rt.env, today: today(rt), cwd: rt.cwd });
  if (!built.loaded.config) return { diagnostics: configDiagnostics(built, 'provider') };
  const session = openSession(built.loaded, built.loaded.config, engineOptions(rt, built.env));
  try {
    const ctx = session.contexts.get(INSTANCE);
    if (!ctx) return { diagnostics: planDiags(session.diagnostics, (s) => built.loaded.sources.secrets.redact(s)) };
    try {
      return { live: await getPages(ctx.client, project), diagnostics: [] };
    } catch (err) {
      // Pages that serve nothing answer 404: nothing published, settings at their defaults.
      if (err instanceof ApiNotFoundError && !/project not found/i.test(err.serverMessage ?? '')) {
        return { live: { url: '', is_unique_domain_enabled: false, force_https: false, primary_domain: null, deployments: [] }, diagnostics: [] };
      }
      if (err instanceof ApiError) return { diagnostics: [{ severity: 'error', summary: `Cannot read the Pages of ${project}: ${err.message}`, detail: `GET /projects/${project}/pages` }] };
      throw err;
    }
  } finally {
    await session.close();
  }
}

/** Refresh: each declared field, and `published` when declared, as the instance has them now. */
async function readPages(rt: Runtime, current: TfObject): Promise<ApplyResult> {
  if (typeof current.project !== 'string') return { newState: current, diagnostics: [] };
  const { live, diagnostics } = await livePages(rt, current.project);
  if (!live) return { newState: current, diagnostics };
  const state: Record<string, CtyValue> = { ...current, id: current.project };
  for (const [f, r] of Object.entries(PAGES_FIELDS)) {
    if (state[f] === null || state[f] === undefined) continue;
    const v = (live as unknown as Record<string, unknown>)[r];
    if (f === 'pages_primary_domain') {
      const now = typeof v === 'string' ? v : '';
      // Compared case-insensitively, as plumb compares it; the configuration's spelling stays.
      if (now.toLowerCase() !== String(state[f]).toLowerCase()) state[f] = now;
    } else if (typeof v === 'boolean') state[f] = v;
  }
  if (typeof state.published === 'boolean') state.published = live.deployments.length > 0;
  return { newState: state, diagnostics: [] };
}

/** By project: the three fields as the instance has them (published is left unmanaged until written). */
async function importPages(rt: Runtime, project: string): Promise<ApplyResult> {
  const { live, diagnostics } = await livePages(rt, project);
  if (!live) return { newState: null, diagnostics };
  return {
    newState: {
      id: project,
      project,
      pages_unique_domain_enabled: live.is_unique_domain_enabled,
      pages_https_only: live.force_https,
      pages_primary_domain: live.primary_domain ?? '',
      published: null,
      allow_unpublish: null,
    },
    diagnostics: [],
  };
}

// --- dispatch ---------------------------------------------------------------------------------------

function notYet(typeName: string): TfDiagnostic {
  return {
    severity: 'error',
    summary: `${typeName} is validated but not planned or applied yet`,
    detail: 'plumb\'s engine does not manage this kind yet (see CHANGELOG.md); the configuration is checked offline only.',
  };
}

function hasTfErrors(ds: readonly TfDiagnostic[]): boolean {
  return ds.some((d) => d.severity === 'error');
}

export async function planResource(rt: Runtime, typeName: string, prior: TfObject | null, proposed: TfObject | null, config: TfObject | null): Promise<PlanResult> {
  if (proposed === null || config === null) return { planned: null, requiresReplace: [], diagnostics: [] };
  if (!rt.provider) return { planned: proposed, requiresReplace: [], diagnostics: [NOT_CONFIGURED] };
  switch (typeName) {
    case RESOURCE_TYPES.settings:
      return planSettings(rt, prior, proposed, config);
    case RESOURCE_TYPES.token:
      return planToken(rt, prior, proposed, config);
    case RESOURCE_TYPES.file:
      return planFile(rt, prior, proposed, config);
    case RESOURCE_TYPES.pages:
      return planPages(rt, prior, proposed, config);
    default:
      return { planned: proposed, requiresReplace: [], diagnostics: [notYet(typeName)] };
  }
}

export async function applyResource(rt: Runtime, typeName: string, prior: TfObject | null, planned: TfObject | null, config: TfObject | null): Promise<ApplyResult> {
  if (!rt.provider) return { newState: prior, diagnostics: [NOT_CONFIGURED] };
  if (rt.stopped()) return { newState: prior, diagnostics: [{ severity: 'error', summary: 'The provider was stopped', detail: 'Terraform asked plumb to stop; nothing was applied.' }] };
  switch (typeName) {
    case RESOURCE_TYPES.settings:
      return applySettings(rt, prior, planned, config);
    case RESOURCE_TYPES.token:
      return applyToken(rt, prior, planned, config);
    case RESOURCE_TYPES.file:
      return applyFile(rt, prior, planned, config);
    case RESOURCE_TYPES.pages:
      return applyPages(rt, prior, planned, config);
    default:
      return { newState: prior, diagnostics: [notYet(typeName)] };
  }
}

export async function readResource(rt: Runtime, typeName: string, current: TfObject | null): Promise<ApplyResult> {
  if (current === null) return { newState: null, diagnostics: [] };
  if (!rt.provider) return { newState: current, diagnostics: [NOT_CONFIGURED] };
  switch (typeName) {
    case RESOURCE_TYPES.settings:
      return readSettings(rt, current);
    case RESOURCE_TYPES.token:
      return readToken(rt, current);
    case RESOURCE_TYPES.file:
      return readFile(rt, current);
    case RESOURCE_TYPES.pages:
      return readPages(rt, current);
    default:
      return { newState: current, diagnostics: [] };
  }
}

export async function importResource(rt: Runtime, typeName: string, id: string): Promise<ApplyResult> {
  if (!rt.provider) return { newState: null, diagnostics: [NOT_CONFIGURED] };
  switch (typeName) {
    case RESOURCE_TYPES.settings:
      if (id !== 'application_settings') {
        return { newState: null, diagnostics: [{ severity: 'error', summary: `Cannot import "${id}"`, detail: 'The application settings are imported with the fixed id "application_settings".' }] };
      }
      // Nothing is managed until the configuration names settings; the next plan shows them.
      return { newState: { id, write_only_revision: 'none' }, diagnostics: [] };
    case RESOURCE_TYPES.token:
      return importToken(rt, id);
    case RESOURCE_TYPES.file:
      return importFile(rt, id);
    case RESOURCE_TYPES.pages:
      return importPages(rt, id);
    default:
      return { newState: null, diagnostics: [notYet(typeName)] };
  }
}

// --- data source: the current application settings ------------------------------------------------

/**
 * A live value as the attribute's type holds it; null when the instance returns something of
 * another shape (the data source reports what it can, it does not fail on one odd field).
 */
function asType(v: unknown, t: CtyType): CtyValue {
  if (v === null || v === undefined) return null;
  if (t === 'dynamic') return JSON.parse(JSON.stringify(v)) as CtyValue;
  if (t === 'bool') return typeof v === 'boolean' ? v : null;
  if (t === 'number') return typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null;
  if (t === 'string') return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : null;
  const [kind, inner] = t as readonly [string, CtyType];
  if (kind === 'list') {
    const items = Array.isArray(v) ? v : typeof v === 'string' ? v.split(',').map((x) => x.trim()).filter(Boolean) : undefined;
    if (!items) return null;
    const out = items.map((x) => asType(x, inner));
    return out.some((x) => x === null) ? null : out;
  }
  if (kind === 'map' && typeof v === 'object' && !Array.isArray(v)) {
    const out: Record<string, CtyValue> = Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, asType(x, inner)]));
    return Object.values(out).some((x) => x === null) ? null : out;
  }
  return null;
}

export async function readDataSource(rt: Runtime, typeName: string): Promise<ApplyResult> {
  if (typeName !== DATA_SOURCE_TYPES.settings) return { newState: null, diagnostics: [{ severity: 'error', summary: `Unknown data source ${typeName}`, detail: `plumb serves ${Object.values(DATA_SOURCE_TYPES).join(', ')}.` }] };
  if (!rt.provider) return { newState: null, diagnostics: [NOT_CONFIGURED] };
  const built = buildConfig(rt.provider, {}, { env: rt.env, today: today(rt), cwd: rt.cwd });
  if (!built.loaded.config) return { newState: null, diagnostics: configDiagnostics(built, 'provider') };
  const session = openSession(built.loaded, built.loaded.config, engineOptions(rt, built.env));
  try {
    const ctx = session.contexts.get(INSTANCE);
    if (!ctx) return { newState: null, diagnostics: planDiags(session.diagnostics, (s) => built.loaded.sources.secrets.redact(s)) };
    const live = await getApplicationSettings(ctx.client);
    const state: Record<string, CtyValue> = { id: 'application_settings' };
    for (const s of SETTINGS) {
      if (s.removed || s.secret) continue;
      state[s.name] = asType(live[responseNameOf(s.name)], settingAttributeType(s));
    }
    return { newState: state, diagnostics: [] };
  } finally {
    await session.close();
  }
}
