/**
 * The provider's resource types on plumb's engine. Every operation builds plumb's desired state for
 * the one resource (config.ts), runs the engine's plan (src/engine/engine.ts) and keeps only that
 * resource's change; apply runs the engine's apply on exactly that change. Terraform's state is
 * derived from the engine's answers and the public API functions: no diffing or applying here.
 */
import { applyPlan, makePlan, openSession } from '../engine/engine.js';
import type { EngineOptions } from '../engine/engine.js';
import type { InstanceContext } from '../engine/resource.js';
import type { SharingRunMemo } from '../engine/memo.js';
import type { Plan, PlanDiagnostic, ResourceChange } from '../engine/plan.js';
import { hasErrors } from '../diagnostics/index.js';
import { ApiError } from '../api/errors.js';
import type { KindSet } from '../resources/index.js';
import { containsUnknown, hasTfErrors, isUnknown } from '../resources/terraform.js';
import type { DiagnosticCode } from '../diagnostics/codes.js';
import type { ApplyResult, CtyType, CtyValue, DoorPlan, PathStep, PlanResult, TerraformDoor, TerraformPart, TfDiagnostic } from '../resources/terraform.js';
import { INSTANCE, buildConfig } from './config.js';
import type { Built, Declared, ProviderSettings, TfObject } from './config.js';
import { resourceBlock } from './schema.js';
import { blockType } from './tfjson.js';
import { planDiagnosticPath, riskDiagnostics } from './risks.js';
import { StateStore } from '../engine/state.js';
import { PRIVATE_STATE_WHERE, legacyStateFile, openPrivate, sealPrivate } from './private-state.js';

export type { ApplyResult, PlanResult, TfDiagnostic } from '../resources/terraform.js';

export interface Runtime {
  readonly provider?: ProviderSettings;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly now: Date;
  readonly log: (message: string) => void;
  /** Where `sink {stdout = true}` writes. */
  readonly stdout: (s: string) => void;
  /**
   * What the walk remembers (engine/memo.ts): the reads its RPCs share (a group's token list answers
   * every token of the group), and who plumb's credential is.
   */
  readonly memo: SharingRunMemo;
  /** Which resource of this run planned which object (one owner per object). */
  readonly owners: Owners;
  /** Set by StopProvider: operations not yet started refuse. */
  readonly stopped: () => boolean;
  /** The registry whose Terraform parts the provider serves (`ServeOptions.kinds`; default the built-in kinds). */
  readonly kinds: KindSet;
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
    const providerLevel = built.isProviderPointer(d.pointer);
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

/**
 * `fresh`: the plan reads the instance anew instead of through the walk's shared reads.
 * `state`: what plumb remembers for the resource, from its private state (private-state.ts); the
 * provider reads and writes no state file.
 */
function engineOptions(rt: Runtime, env: NodeJS.ProcessEnv, state: StateStore, fresh = false): EngineOptions {
  return { env, now: rt.now, stateFile: state.file, state, instance: INSTANCE, log: rt.log, stdout: rt.stdout, kinds: rt.kinds.engine, memo: fresh ? rt.memo.fresh() : rt.memo };
}

export const NOT_CONFIGURED: TfDiagnostic = {
  severity: 'error',
  summary: 'The plumb provider is not configured',
  detail: 'Terraform called the provider before ConfigureProvider; this is a bug in the caller.',
};

function partFor(rt: Runtime, typeName: string): TerraformPart | undefined {
  return rt.kinds.terraformParts.find((p) => p.typeName === typeName);
}

function unknownType(rt: Runtime, typeName: string): TfDiagnostic {
  return { severity: 'error', summary: `Unknown resource type ${typeName}`, detail: `plumb serves ${rt.kinds.terraformParts.map((p) => p.typeName).join(', ')}.` };
}

/**
 * Validates a resource's configuration offline with plumb's checks. A value Terraform does not know
 * yet (every variable during `terraform validate`, another resource's attribute until apply) is
 * neither absent nor any particular value: the document is checked twice, once without the unknown
 * values and once with a stand-in of each one's type, and only what both passes report is kept.
 * So an unknown value satisfies a presence check ("X is required when Y"), a check of its own value
 * waits until it is known (the next validation, the plan, or apply's own plan), and a mistake that
 * does not depend on it is reported now.
 */
export function validateResource(rt: Runtime, typeName: string, config: TfObject): TfDiagnostic[] {
  const part = partFor(rt, typeName);
  if (!part) return [unknownType(rt, typeName)];
  const check = (values: TfObject): TfDiagnostic[] => {
    const built = buildConfig(undefined, { part, build: part.document(values) }, { env: rt.env, today: today(rt), cwd: rt.cwd, kinds: rt.kinds });
    return [...configDiagnostics(built, 'resource'), ...(part.validate?.(values) ?? [])];
  };
  const refused = interpolationRefused(config, []);
  const absent = [...refused, ...check(config)];
  const block = resourceBlock(typeName, rt.kinds);
  if (!containsUnknown(config) || !block) return absent;
  const present = new Set(check(withStandIns(config, blockType(block)) as TfObject).map(diagnosticKey));
  return absent.filter((d) => present.has(diagnosticKey(d)));
}

/**
 * plumb's `${env:…}`/`${file:…}` belong to its YAML: HCL rejects `${env:X}`, and escaped as
 * `$${env:X}` it reached the instance as that literal string. Under Terraform, Terraform reads
 * variables and files itself, so such a value is refused (the value is not repeated: it may be a secret).
 */
function interpolationRefused(v: CtyValue, at: PathStep[]): TfDiagnostic[] {
  if (typeof v === 'string') {
    const m = /\$\{(env|file):/.exec(v);
    if (!m) return [];
    const attr = at.filter((s): s is { attribute: string } => 'attribute' in s).map((s) => s.attribute).join('.');
    return [{
      severity: 'error',
      summary: `${attr} holds plumb's \${${m[1]!}:…}, which plumb reads only in its YAML`,
      detail: `Under Terraform, Terraform evaluates the configuration: plumb would send the text as it is.\nhelp: ${m[1] === 'env' ? 'declare a variable (ephemeral = true for a secret, set it with TF_VAR_NAME) and write var.NAME' : 'use file("path") or, for a secret, an ephemeral variable or ephemeral resource'} (${'PLUMB_TF_INTERPOLATION' satisfies DiagnosticCode})`,
      path: at,
    }];
  }
  if (v === null || typeof v !== 'object' || isUnknown(v)) return [];
  if (Array.isArray(v)) return (v as CtyValue[]).flatMap((e, i) => interpolationRefused(e, [...at, { index: i }]));
  return Object.entries(v as Record<string, CtyValue>).flatMap(([k, e]) => interpolationRefused(e, [...at, { attribute: k }]));
}

/** What makes two diagnostics of the two validation passes the same: severity, code, attribute (not the wording, which may quote a stand-in). */
function diagnosticKey(d: TfDiagnostic): string {
  return `${d.severity}|${/\((PLUMB_[A-Z0-9_]+)\)\s*$/.exec(d.detail)?.[1] ?? d.summary}|${JSON.stringify(d.path ?? [])}`;
}

/** A known value of the type: present, and as unremarkable as it can be. */
function standIn(t: CtyType): CtyValue {
  if (t === 'string' || t === 'dynamic') return 'plumb-unknown';
  if (t === 'number') return 1;
  if (t === 'bool') return false;
  const [kind, arg] = t;
  if (kind === 'list' || kind === 'set') return [standIn(arg as CtyType)];
  if (kind === 'tuple') return (arg as readonly CtyType[]).map(standIn);
  if (kind === 'map') return {};
  return Object.fromEntries(Object.entries(arg as Record<string, CtyType>).map(([k, at]) => [k, standIn(at)]));
}

/** The value with each unknown part replaced by a stand-in of its type. */
function withStandIns(v: CtyValue, t: CtyType): CtyValue {
  if (isUnknown(v)) return standIn(t);
  if (v === null || typeof v !== 'object' || typeof t === 'string') return v;
  const [kind, arg] = t;
  if (Array.isArray(v)) return (v as CtyValue[]).map((e, i) => withStandIns(e, kind === 'tuple' ? (arg as readonly CtyType[])[i] ?? 'dynamic' : (arg as CtyType)));
  const rec = v as Record<string, CtyValue>;
  if (kind === 'map') return Object.fromEntries(Object.entries(rec).map(([k, e]) => [k, withStandIns(e, arg as CtyType)]));
  const attrs = arg as Record<string, CtyType>;
  return Object.fromEntries(Object.entries(rec).map(([k, e]) => [k, attrs[k] ? withStandIns(e, attrs[k]!) : e]));
}

/** Runs the engine's plan for one declared resource. */
async function planFor(rt: Runtime, declared: Declared, state: StateStore, fresh = false): Promise<{ built: ReturnType<typeof buildConfig>; plan?: Plan; diagnostics: TfDiagnostic[] }> {
  const built = buildConfig(rt.provider, declared, { env: rt.env, today: today(rt), cwd: rt.cwd, kinds: rt.kinds });
  const diagnostics = [...configDiagnostics(built, 'resource'), ...configDiagnostics(built, 'provider')];
  const { loaded } = built;
  if (!loaded.config || hasErrors(loaded.diagnostics)) return { built, diagnostics };
  const plan = await makePlan(loaded, loaded.config, engineOptions(rt, built.env, state, fresh));
  const redact = (s: string) => loaded.sources.secrets.redact(s);
  // Configuration diagnostics are already in; the plan repeats them.
  const fromPlan = plan.diagnostics.filter((d) => d.severity !== 'info' && d.code !== 'PLUMB_KIND_NOT_MANAGED' && !loaded.diagnostics.some((l) => l.code === d.code && l.summary === d.summary));
  // Each at the attribute its value came from, as the offline diagnostics are.
  diagnostics.push(...planDiags(fromPlan, redact).map((d, i) => {
    const path = planDiagnosticPath(built, fromPlan[i]!);
    return path ? { ...d, path } : d;
  }));
  return { built, plan, diagnostics };
}

/** Applies exactly the given changes of a plan with the engine. */
async function applyChanges(rt: Runtime, built: ReturnType<typeof buildConfig>, plan: Plan, changes: readonly ResourceChange[], state: StateStore): Promise<{ ok: boolean; diagnostics: TfDiagnostic[] }> {
  const { loaded } = built;
  const risks = plan.risks.filter((r) => changes.some((c) => c.address === r.address));
  const only: Plan = { ...plan, changes, risks, diagnostics: plan.diagnostics.filter((d) => d.severity !== 'error' || !d.address || changes.some((c) => c.address === d.address)) };
  // Apply reads through the walk's shared reads too; the kinds that do record their writes there.
  const report = await applyPlan(only, loaded, loaded.config!, { ...engineOptions(rt, built.env, state), fromFile: false, allowRisky: false, door: 'terraform' });
  const redact = (s: string) => loaded.sources.secrets.redact(s);
  const diagnostics = planDiags(report.diagnostics, redact);
  if (report.refused) diagnostics.unshift({ severity: 'error', summary: `plumb refused to apply: ${report.refused}`, detail: 'Nothing was written.' });
  return { ok: report.ok, diagnostics };
}

/** The door a kind's Terraform part reaches plumb's engine through, for one RPC; `state` is the resource's (private-state.ts). */
function doorFor(rt: Runtime, part: TerraformPart, state: StateStore): TerraformDoor {
  const built = new WeakMap<DoorPlan, ReturnType<typeof buildConfig>>();
  const builtOf = new WeakMap<Plan, ReturnType<typeof buildConfig>>();
  return {
    today: today(rt),
    instance: INSTANCE,
    block: resourceBlock(part.typeName, rt.kinds),
    reads: rt.memo.reads,
    async plan(build, opts) {
      const r = await planFor(rt, { part, build }, state, opts?.fresh === true);
      const out: DoorPlan = { ...(r.plan && { plan: r.plan }), diagnostics: r.diagnostics };
      built.set(out, r.built);
      if (r.plan) builtOf.set(r.plan, r.built);
      return out;
    },
    async apply(planned, changes) {
      const b = built.get(planned);
      if (!b || !planned.plan) return { ok: false, diagnostics: [{ severity: 'error', summary: 'Nothing to apply', detail: 'The plan did not come from this operation; this is a bug in plumb.' }] };
      return applyChanges(rt, b, planned.plan, changes, state);
    },
    riskDiagnostics: (plan, address) => riskDiagnostics(plan, address, plan ? builtOf.get(plan) : undefined),
    read: (fn) => readInstance(rt, fn, state),
  };
}

/** Runs a read against the configured instance, no resource declared: refresh, import, data sources. */
export async function readInstance<T>(rt: Runtime, fn: (ctx: InstanceContext) => Promise<T>, state: StateStore = StateStore.inMemory(PRIVATE_STATE_WHERE)): Promise<{ value?: T; diagnostics: TfDiagnostic[] }> {
  const b = buildConfig(rt.provider, undefined, { env: rt.env, today: today(rt), cwd: rt.cwd, kinds: rt.kinds });
  if (!b.loaded.config) return { diagnostics: configDiagnostics(b, 'provider') };
  const session = openSession(b.loaded, b.loaded.config, engineOptions(rt, b.env, state));
  try {
    const ctx = session.contexts.get(INSTANCE);
    if (!ctx) return { diagnostics: planDiags(session.diagnostics, (s) => b.loaded.sources.secrets.redact(s)) };
    try {
      return { value: await fn(ctx), diagnostics: [] };
    } catch (err) {
      if (err instanceof ApiError) return { diagnostics: [{ severity: 'error', summary: b.loaded.sources.secrets.redact(`Reading the instance failed: ${err.message}`), detail: `${err.method} ${err.path}` }] };
      throw err;
    }
  } finally {
    await session.close();
  }
}

// --- one owner per object ----------------------------------------------------------------------

interface Claim {
  readonly typeName: string;
  readonly config: TfObject;
  /** The resource's prior state: a resource planned again with an edited configuration has the same one. */
  readonly prior: TfObject | null;
  /** How the other resource is named in a refusal: the provider never learns Terraform's addresses. */
  readonly describe: string;
}

/** Whether two configurations can be one resource planned twice (a replacement, or once with values unknown and once known). */
function sameResource(a: CtyValue, b: CtyValue): boolean {
  if (isUnknown(a) || isUnknown(b)) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as CtyValue[]).length && a.every((x, i) => sameResource(x, (b as CtyValue[])[i]!));
  const ra = a as Record<string, CtyValue>;
  const rb = b as Record<string, CtyValue>;
  const keys = new Set([...Object.keys(ra), ...Object.keys(rb)]);
  return [...keys].every((k) => sameResource(ra[k] ?? null, rb[k] ?? null));
}

/**
 * The objects each resource of one Terraform run claims, to refuse a second owner at plan (two
 * resources setting one instance-wide key would flip it on every apply). Terraform starts one
 * provider process per walk (validate, plan, apply) and calls PlanResourceChange once for every
 * resource of the walk (twice for a replacement, with the same configuration), so a claim by a
 * different configuration (and another prior state) in the same process is a second resource. What it cannot see: Terraform's
 * resource addresses (the protocol never sends them; Terraform itself names the resource the error
 * is reported on, and the other one is described by its attributes), resources in other
 * configurations or workspaces, and two resources with identical configurations (they agree, and
 * are one to the provider). Any apply forgets the claims, as it does the shared reads.
 */
export class Owners {
  readonly #claims = new Map<string, Claim>();

  /** The claim already held by another resource, or undefined after recording this one. */
  claim(key: string, claim: Claim): Claim | undefined {
    const held = this.#claims.get(key);
    const same = held && held.typeName === claim.typeName && (sameResource(held.config, claim.config) || (held.prior !== null && claim.prior !== null && sameResource(held.prior, claim.prior)));
    if (held && !same) return held;
    this.#claims.set(key, claim);
    return undefined;
  }

  clear(): void {
    this.#claims.clear();
  }
}

const known = (v: CtyValue | undefined): boolean => v !== undefined && v !== null && !isUnknown(v) && !(Array.isArray(v) && v.length === 0);

/**
 * The objects a resource's configuration owns, from where its kind sits under an instance
 * (catalogue/kinds.ts `keyPath`): one per resource (a token, a file, a project's Pages), or, for a
 * kind with one record per instance (the settings), one per attribute it sets.
 */
function claimsOf(part: TerraformPart, config: TfObject): { key: string; path: PathStep[]; what: string }[] {
  const shape = part.shape;
  const segments: string[] = [];
  for (const seg of shape.keyPath) {
    const m = /^\{(.+)\}$/.exec(seg);
    if (!m) {
      segments.push(seg);
      continue;
    }
    const v = config[m[1]!];
    if (typeof v !== 'string') return []; // not known yet: checked when it is
    segments.push(v);
  }
  const at = segments.join('/');
  if (shape.identity.length > 0) {
    const what = shape.identity.map((i) => `${i.name} = ${JSON.stringify(config[i.name])}`).join(', ');
    return [{ key: `${shape.kind}:${at}`, path: [{ attribute: shape.identity[shape.identity.length - 1]!.name }], what }];
  }
  const own = new Set(Object.keys(part.computed ?? {}));
  return Object.entries(config)
    .filter(([k, v]) => !own.has(k) && known(v))
    .map(([k]) => ({ key: `${shape.kind}:${at}/${k}`, path: [{ attribute: k }], what: k }));
}

function ownershipRefusals(rt: Runtime, part: TerraformPart, prior: TfObject | null, config: TfObject): TfDiagnostic[] {
  const claims = claimsOf(part, config);
  const own = new Set(Object.keys(part.computed ?? {}));
  const set = Object.entries(config).filter(([k, v]) => !own.has(k) && known(v)).map(([k]) => k);
  const describe = part.typeName + (claims[0] && !claims[0].key.endsWith(`/${claims[0].what}`) ? ` with ${claims[0].what}` : ` setting ${set.join(', ')}`);
  const out: TfDiagnostic[] = [];
  for (const c of claims) {
    const held = rt.owners.claim(c.key, { typeName: part.typeName, config, prior, describe });
    if (!held) continue;
    out.push({
      severity: 'error',
      summary: `Two resources own ${c.what}: this one and another ${held.describe}`,
      detail: `plumb applies one value per object; with two owners every apply would undo the other's. Terraform names this resource below; the provider is not told resource addresses, so the other one is the ${held.describe}.\nhelp: keep ${c.what} in one resource and remove it from the other (${'PLUMB_TF_TWO_OWNERS' satisfies DiagnosticCode})`,
      path: c.path,
    });
  }
  return out;
}

// --- dispatch: one lookup into the kinds' Terraform parts ---------------------------------------

/** The resource's private state for one RPC (private-state.ts): what it holds, or, the first time, what the former state file holds for it. */
function privateStore(rt: Runtime, part: TerraformPart, bytes: Uint8Array | null | undefined, values: TfObject | null) {
  return openPrivate(bytes, { url: rt.provider!.url, part, values, legacyFile: legacyStateFile(rt.provider!.stateFile, rt.cwd) });
}

/** The private bytes Terraform stores with the resource: what plumb remembers about it. */
export type WithPrivate<T> = T & { readonly private?: Buffer };

export async function planResource(rt: Runtime, typeName: string, prior: TfObject | null, proposed: TfObject | null, config: TfObject | null, priorPrivate?: Uint8Array | null): Promise<WithPrivate<PlanResult>> {
  if (proposed === null || config === null) return planDestroy(rt, typeName, prior, priorPrivate);
  if (!rt.provider) return { planned: proposed, requiresReplace: [], diagnostics: [NOT_CONFIGURED] };
  const part = partFor(rt, typeName);
  if (!part) return { planned: proposed, requiresReplace: [], diagnostics: [unknownType(rt, typeName)] };
  const refused = ownershipRefusals(rt, part, prior, config);
  if (refused.length > 0) return { planned: proposed, requiresReplace: [], diagnostics: refused };
  const { store, diagnostics } = privateStore(rt, part, priorPrivate, prior);
  const r = await part.plan(doorFor(rt, part, store), prior, proposed, config);
  return { ...r, diagnostics: [...diagnostics, ...r.diagnostics], private: sealPrivate(store, rt.provider.url) };
}

/**
 * A destroy's plan: what apply would refuse (a risk of the revocation) is an error now, and what a
 * destroy does not do (settings and Pages stay as they are) is said now, not after apply.
 */
async function planDestroy(rt: Runtime, typeName: string, prior: TfObject | null, priorPrivate?: Uint8Array | null): Promise<PlanResult> {
  const part = partFor(rt, typeName);
  if (!prior || !part?.planDestroy) return { planned: null, requiresReplace: [], diagnostics: [] };
  if (!rt.provider) return { planned: null, requiresReplace: [], diagnostics: [NOT_CONFIGURED] };
  const { store, diagnostics } = privateStore(rt, part, priorPrivate, prior);
  return { planned: null, requiresReplace: [], diagnostics: [...diagnostics, ...(await part.planDestroy(doorFor(rt, part, store), prior))] };
}

export async function applyResource(rt: Runtime, typeName: string, prior: TfObject | null, planned: TfObject | null, config: TfObject | null, plannedPrivate?: Uint8Array | null): Promise<WithPrivate<ApplyResult>> {
  if (!rt.provider) return { newState: prior, diagnostics: [NOT_CONFIGURED] };
  if (rt.stopped()) return { newState: prior, diagnostics: [{ severity: 'error', summary: 'The provider was stopped', detail: 'Terraform asked plumb to stop; nothing was applied.' }] };
  const part = partFor(rt, typeName);
  if (!part) return { newState: prior, diagnostics: [unknownType(rt, typeName)] };
  // Claims are for plans: an apply (which may also change what a resource plans next) forgets them.
  rt.owners.clear();
  const { store, diagnostics } = privateStore(rt, part, plannedPrivate, prior);
  const r = await part.apply(doorFor(rt, part, store), prior, planned, config);
  // Even a failed apply returns the store: a note written on the way (a secret that never reached
  // its sink) must reach Terraform's state with the resource.
  return { ...r, diagnostics: [...diagnostics, ...r.diagnostics], ...(r.newState !== null && { private: sealPrivate(store, rt.provider.url) }) };
}

export async function readResource(rt: Runtime, typeName: string, current: TfObject | null, priv?: Uint8Array | null): Promise<WithPrivate<ApplyResult>> {
  if (current === null) return { newState: null, diagnostics: [] };
  if (!rt.provider) return { newState: current, diagnostics: [NOT_CONFIGURED] };
  const part = partFor(rt, typeName);
  if (!part) return { newState: current, diagnostics: [] };
  const { store, diagnostics } = privateStore(rt, part, priv, current);
  const r = await part.read(doorFor(rt, part, store), current);
  return { ...r, diagnostics: [...diagnostics, ...r.diagnostics], private: sealPrivate(store, rt.provider.url) };
}

export async function importResource(rt: Runtime, typeName: string, id: string): Promise<WithPrivate<ApplyResult>> {
  if (!rt.provider) return { newState: null, diagnostics: [NOT_CONFIGURED] };
  const part = partFor(rt, typeName);
  if (!part) return { newState: null, diagnostics: [unknownType(rt, typeName)] };
  const r = await part.importState(doorFor(rt, part, StateStore.inMemory(PRIVATE_STATE_WHERE)), id);
  if (r.newState === null || typeof r.newState !== 'object' || Array.isArray(r.newState)) return r;
  // A resource plumb managed before (from YAML, or an older provider's state file) keeps what it remembered.
  const { store, diagnostics } = privateStore(rt, part, undefined, r.newState as TfObject);
  return { ...r, diagnostics: [...diagnostics, ...r.diagnostics], private: sealPrivate(store, rt.provider.url) };
}

export { hasTfErrors };
