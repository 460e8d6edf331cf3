/**
 * Application settings as a resource: partial ownership of one singleton record. Only declared keys
 * are managed; a plan reads once (GET), an apply writes once (PUT with only the changed keys) and
 * reads back to verify, waiting out the instance's settings cache within a bound.
 */
import { settingByName, SETTING_RULES } from '../../catalogue/index.js';
import type { SettingSpec } from '../../catalogue/types.js';
import { getApplicationSettings, updateApplicationSettings } from '../../api/settings.js';
import { ApiBadRequestError, ApiError, ApiForbiddenError } from '../../api/errors.js';
import type { ApplicationSettings } from '../../api/settings.js';
import type { DesiredInstance } from '../../config/model.js';
import { settingsOf } from './model.js';
import { MASK, UNAVAILABLE_SECRET, unavailableReferences, unavailableShown } from '../../config/secrets.js';
import { joinPointer } from '../../config/pointer.js';
import { isPlainObject } from '../../config/loading.js';
import { holdsDeclared, normalizeSetting, sameValue, withDeclared } from './normalize.js';
import { credentialOf, flagRisk } from '../../engine/risks.js';
import { stateFingerprint, fingerprintSecret, matchesFingerprint } from '../../engine/fingerprint.js';
import type { AttributeChange, DriftEntry, PlanDiagnostic, PlanRisk, Reason, ResourceChange } from '../../engine/plan.js';
import type { ApplyResponse, InstanceContext, PlanResponse, ResourceProvider } from '../../engine/resource.js';
import { planDiagnostic } from '../../engine/resource.js';
import { recordSetting, settingFingerprint } from './state.js';
import { parseSettingsPayload } from './payload.js';
import { lifetimeRisk, managedTokens, reportRevokedByLimit } from './lifetime.js';
import type { ManagedToken } from './lifetime.js';
import type { SettingsPayload } from './payload.js';

/** Live record keyed by the names updates use (response aliases folded back). */
function liveByName(live: Readonly<Record<string, unknown>>): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [k, v] of Object.entries(live)) {
    const spec = settingByName(k);
    out.set(spec?.name ?? k, v);
  }
  return out;
}

/**
 * A deprecated alias the instance stands in for its replacement (`signin_enabled` for
 * `password_authentication_enabled_for_web`): the target, when the alias is a plain alias.
 */
function aliasTargetOf(spec: SettingSpec | undefined): SettingSpec | undefined {
  const replacement = spec?.deprecated?.replacement;
  const target = replacement ? settingByName(replacement) : undefined;
  return target && !target.removed && target.name !== spec?.name ? target : undefined;
}

/**
 * The spec a declared value is compared with. A loosely typed (string) alias of a boolean or numeric
 * setting compares as its target: the instance returns the target's typed value under the alias name.
 */
function comparisonSpec(spec: SettingSpec | undefined): SettingSpec | undefined {
  const target = aliasTargetOf(spec);
  if (spec?.type === 'string' && target && ['boolean', 'integer', 'float'].includes(target.type)) return target;
  return spec;
}

/** Whether the instance returns the setting, under its own name or (for an alias) its target's. */
function returns(live: Map<string, unknown>, name: string): boolean {
  if (live.has(name)) return true;
  const target = aliasTargetOf(settingByName(name));
  return !!target && live.has(target.name);
}

/** The live value of a setting: by its own name, else (for an alias) by its target's. */
function liveValue(live: Map<string, unknown>, name: string): unknown {
  if (live.has(name)) return live.get(name);
  const target = aliasTargetOf(settingByName(name));
  return target ? live.get(target.name) : undefined;
}

/** Whether the instance holds the declared value of `name` (hashes on the declared keys only). */
function holds(live: Map<string, unknown>, name: string, declared: unknown): boolean {
  return holdsDeclared(comparisonSpec(settingByName(name)), liveValue(live, name), declared);
}

function looksMasked(v: unknown): boolean {
  return v === null || v === undefined || v === '' || (typeof v === 'string' && /^\*+$/.test(v));
}

/** How a secret setting compares (`unavailable`: its variable is not given to this pipeline). */
interface SecretResult {
  readonly unavailable: boolean;
  readonly changed: boolean;
  readonly reason: Reason;
  readonly readable: boolean;
  readonly fingerprint: Awaited<ReturnType<typeof fingerprintSecret>> | undefined;
}

function address(instance: DesiredInstance): string {
  return `${instance.name}.application_settings`;
}

function declaredFingerprint(instance: DesiredInstance, live: Map<string, unknown>): string {
  const view: Record<string, unknown> = {};
  for (const [name] of settingsOf(instance)) {
    const spec = settingByName(name);
    // Secrets enter as "present or not" only: their values never reach a fingerprint in clear.
    view[name] = spec?.secret ? live.has(name) && !looksMasked(live.get(name)) : normalizeSetting(comparisonSpec(spec), liveValue(live, name));
  }
  return stateFingerprint(view);
}

export const settingsProvider: ResourceProvider<SettingsPayload> = {
  kind: 'application_settings',

  declares(instance) {
    return settingsOf(instance).size > 0;
  },

  async plan(ctx): Promise<PlanResponse> {
    const { instance } = ctx;
    if (!ctx.targets.targeted(address(instance))) return { changes: [], drift: [], diagnostics: [] };
    const live = liveByName(await getApplicationSettings(ctx.client));
    const diagnostics: PlanDiagnostic[] = [];
    const attributes: AttributeChange[] = [];
    const reasons = new Set<Reason>();
    const payload: SettingsPayload = { set: {}, secrets: {} };

    // Secrets first, all at once: each fingerprint is a deliberately slow scrypt, so they run in
    // parallel on the thread pool.
    const secretNames = [...settingsOf(instance)].filter(([name, d]) => settingByName(name)?.secret || d.secret).map(([name]) => name);
    const secretResults = new Map(
      await Promise.all(
        secretNames.map(async (name) => {
          const desired = settingsOf(instance).get(name)!;
          const value = String(desired.value ?? '');
          if (value.includes(UNAVAILABLE_SECRET)) return [name, { unavailable: true, changed: false, reason: 'write-only-unknown', readable: false, fingerprint: undefined } as SecretResult] as const;
          const liveValue = live.get(name);
          const readable = live.has(name) && !looksMasked(liveValue);
          const fp = settingFingerprint(ctx.state, instance.url, name);
          const changed = readable ? !sameValue(settingByName(name), liveValue, desired.value) : !fp || !(await matchesFingerprint(value, fp));
          const reason: Reason = readable ? 'field-changed' : fp ? 'write-only-changed' : 'write-only-unknown';
          return [name, { unavailable: false, changed, reason, readable, fingerprint: changed ? await fingerprintSecret(value) : undefined } as SecretResult] as const;
        }),
      ),
    );

    const unavailable: string[] = [];
    const unavailableAttributes: AttributeChange[] = [];
    const unavailableRefs: Record<string, string[]> = {};
    for (const [name, desired] of settingsOf(instance)) {
      const spec = settingByName(name) as SettingSpec;
      const present = returns(live, name);
      const secret = secretResults.get(name);
      if (secret) {
        if (secret.unavailable) {
          // Not compared, not sent, yet shown as a change of its own (docs/security.md).
          const refs = unavailableReferences(String(desired.value ?? ''));
          unavailable.push(name);
          unavailableRefs[name] = refs;
          reasons.add('write-only-unavailable');
          unavailableAttributes.push({ name, after: unavailableShown(refs), sensitive: true, writeOnly: true, unavailable: true });
          continue;
        }
        if (secret.changed && secret.fingerprint) {
          payload.secrets[name] = { pointer: desired.pointer, ...secret.fingerprint };
          reasons.add(secret.reason);
          attributes.push({ name, before: secret.readable ? MASK : undefined, after: MASK, sensitive: true, writeOnly: !secret.readable, ...(secret.reason === 'write-only-unknown' && { notComparable: true }) });
        }
        continue;
      }
      if (!present) {
        diagnostics.push(
          planDiagnostic(ctx, {
            severity: 'warning',
            code: 'PLUMB_SETTING_NOT_RETURNED',
            summary: `The instance does not return "${name}"; plumb leaves it alone`,
            detail: spec.tiers?.length
              ? `It is a ${spec.tiers.map((t) => `[${t}]`).join('')} setting: this instance's tier does not offer it.`
              : `The instance may be older than the version that introduced it${spec.since ? ` (${spec.since})` : ''}.`,
            suggestion: 'remove it from the configuration for this instance',
            address: address(instance),
            pointer: desired.pointer,
          }),
        );
        continue;
      }
      if (!holds(live, name, desired.value)) {
        const cmp = comparisonSpec(spec);
        const now = liveValue(live, name);
        const send = withDeclared(spec, now, desired.value);
        payload.set[name] = send;
        reasons.add('field-changed');
        attributes.push({ name, before: normalizeSetting(cmp, now), after: normalizeSetting(cmp, send) });
      }
    }

    // The instance wants a rule's partners in the same request that turns its flag on. They are
    // shown as sent along, unchanged (a reviewer sees everything the request carries).
    const sentAlong: AttributeChange[] = [];
    for (const rule of SETTING_RULES) {
      if (rule.kind !== 'required-when-enabled') continue;
      const sendsFlagOn = payload.set[rule.flag] === true || payload.secrets[rule.flag] !== undefined;
      if (!sendsFlagOn) continue;
      for (const partner of rule.requires) {
        if (partner in payload.set || partner in payload.secrets) continue;
        const d = settingsOf(instance).get(partner);
        if (!d) continue; // validation already refused this configuration
        if (String(d.value ?? '').includes(UNAVAILABLE_SECRET)) continue; // never compared nor sent
        if (settingByName(partner)?.secret || d.secret) {
          payload.secrets[partner] = { pointer: d.pointer, ...(await fingerprintSecret(String(d.value ?? ''))) };
          const readable = live.has(partner) && !looksMasked(live.get(partner));
          sentAlong.push({ name: partner, before: readable ? MASK : undefined, after: MASK, sensitive: true, writeOnly: !readable });
        } else {
          payload.set[partner] = d.value;
          const cmp = comparisonSpec(settingByName(partner));
          sentAlong.push({ name: partner, before: normalizeSetting(cmp, liveValue(live, partner)), after: normalizeSetting(cmp, d.value) });
        }
      }
    }

    // Visibility: the merged record (live with our changes) must not default to a restricted level.
    for (const rule of SETTING_RULES) {
      if (rule.kind !== 'not-in-list') continue;
      const field = settingsOf(instance).get(rule.field)?.value ?? live.get(rule.field);
      const list = settingsOf(instance).get(rule.list)?.value ?? live.get(rule.list);
      const restricted = normalizeSetting(settingByName(rule.list), list);
      if (typeof field === 'string' && Array.isArray(restricted) && restricted.includes(field)) {
        const declared = settingsOf(instance).get(rule.field) ?? settingsOf(instance).get(rule.list);
        diagnostics.push(
          planDiagnostic(ctx, {
            severity: 'error',
            code: 'PLUMB_VISIBILITY_CONFLICT',
            summary: `"${rule.field}" (${field}) is one of the instance's ${rule.list}`,
            detail: `The instance rejects this combination. ${settingsOf(instance).has(rule.list) ? '' : `${rule.list} is not declared; its live value is ${JSON.stringify(restricted)}.`}`,
            suggestion: `declare ${rule.list} without "${field}", or choose another ${rule.field}`,
            address: address(instance),
            pointer: declared?.pointer ?? joinPointer(instance.pointer, 'settings'),
          }),
        );
      }
    }

    const changed = attributes.length > 0;
    const risks = changed ? await settingsRisks(ctx, live, payload) : [];
    const shown = changed || unavailableAttributes.length > 0;
    const change: ResourceChange = {
      address: address(instance),
      instance: instance.name,
      kind: 'application_settings',
      action: shown ? 'update' : 'no-op',
      reasons: [...reasons],
      attributes: [...attributes, ...sentAlong, ...unavailableAttributes],
      pointer: joinPointer(instance.pointer, 'settings'),
      payload: unavailable.length > 0 ? { ...payload, unavailable: unavailableRefs } : payload,
      liveFingerprint: declaredFingerprint(instance, live),
    };
    const drift: DriftEntry[] = changed
      ? [
          {
            address: change.address,
            instance: instance.name,
            kind: 'application_settings' as const,
            summary: `${attributes.length} declared setting(s) differ from the instance`,
            attributes,
          },
        ]
      : [];
    // A secret this pipeline is not given is a change of the plan (above), never counted as drift.
    if (unavailable.length > 0) {
      drift.push({
        address: change.address,
        instance: instance.name,
        kind: 'application_settings' as const,
        summary: `${unavailable.join(', ')}: not compared here (unavailable to this pipeline)`,
        attributes: [],
        informational: true,
      });
    }
    return { changes: [change], drift, diagnostics, risks };
  },

  async liveFingerprint(ctx) {
    return declaredFingerprint(ctx.instance, liveByName(await getApplicationSettings(ctx.client)));
  },

  parsePayload: parseSettingsPayload,

  /** A plan made with `--unavailable-secrets skip` is a preview: apply (which never skips) refuses it, saying why. */
  explainDifference(saved) {
    const names = Object.keys(isPlainObject(saved.payload.unavailable) ? saved.payload.unavailable : {});
    if (saved.kind !== 'application_settings' || names.length === 0) return undefined;
    return {
      severity: 'error',
      code: 'PLUMB_PLAN_STALE_SECRET',
      summary: `The saved plan was made with --unavailable-secrets skip: ${names.join(', ')} ${names.length === 1 ? 'was' : 'were'} not compared, so it cannot be applied`,
      detail: 'A merge-request plan that lacks protected variables is a preview. Nothing was applied.',
      suggestion: 'apply without a plan file, or make the plan to apply where the variables are set (without --unavailable-secrets skip)',
      address: saved.address,
    };
  },

  /** Every value the PATCH sends, as the plan shows it; the live side is not in the payload. */
  describePayload(instance, p) {
    const attributes = [
      ...Object.entries(p.set).map(([name, value]) => ({ name, after: normalizeSetting(comparisonSpec(settingByName(name)), value), required: true })),
      ...Object.keys(p.secrets).map((name) => ({ name, after: MASK, sensitive: true, required: true })),
      ...Object.entries(p.unavailable ?? {}).map(([name, refs]) => ({ name, after: unavailableShown(refs), sensitive: true, required: true })),
    ];
    return { addresses: [`${instance}.application_settings`], action: attributes.length > 0 ? 'update' : 'no-op', attributes };
  },

  async apply(ctx, change, payload): Promise<ApplyResponse> {
    // A new token lifetime limit may make the instance revoke tokens: look before and after.
    const setsLifetime = 'max_personal_access_token_lifetime' in payload.set;
    let tokensBefore: ManagedToken[] = [];
    if (setsLifetime) tokensBefore = (await managedTokens(ctx)).tokens;
    const r = await applySettings(ctx, change, payload);
    if (!setsLifetime) return r;
    const revoked = await reportRevokedByLimit(ctx, tokensBefore, change.address);
    return { ...r, diagnostics: [...r.diagnostics, ...revoked.diagnostics], notes: [...r.notes, ...revoked.notes] };
  },
};

async function applySettings(ctx: InstanceContext, change: ResourceChange, payload: SettingsPayload): Promise<ApplyResponse> {
  {
    const { instance } = ctx;
    const body: Record<string, unknown> = { ...payload.set };
    const diagnostics: PlanDiagnostic[] = [];
    const notes: string[] = [];
    const still = await Promise.all(
      Object.entries(payload.secrets).map(async ([name, ref]) => {
        const desired = settingsOf(instance).get(name);
        return [name, ref, !!desired && (await matchesFingerprint(String(desired.value ?? ''), ref))] as const;
      }),
    );
    for (const [name, ref, same] of still) {
      const desired = settingsOf(instance).get(name);
      if (!desired || !same) {
        diagnostics.push(
          planDiagnostic(ctx, {
            severity: 'error',
            code: 'PLUMB_PLAN_STALE_SECRET',
            summary: `The value of "${name}" is not the one the plan was made with`,
            detail: 'The secret behind it (an environment variable or file) changed after the plan, or the plan was made from another configuration.',
            suggestion: 'make a new plan with the current values',
            address: change.address,
            pointer: ref.pointer,
          }),
        );
        continue;
      }
      body[name] = desired.value;
    }
    if (diagnostics.length > 0) return { applied: false, diagnostics, notes };

    // What the instance should hold afterwards: the declared value of every non-secret key sent.
    const expected = new Map(Object.keys(payload.set).map((n) => [n, settingsOf(instance).get(n)?.value ?? payload.set[n]] as const));
    const secretNames = Object.keys(payload.secrets);
    let putResponse: ApplicationSettings | undefined;
    let putError: ApiError | undefined;
    try {
      putResponse = await updateApplicationSettings(ctx.client, body);
    } catch (err) {
      if (err instanceof ApiBadRequestError) {
        return { applied: false, diagnostics: badRequestDiagnostics(ctx, change, err), notes };
      }
      // A refusal (401, 403, 404, 429 …) changed nothing; anything else may have been applied.
      if (!(err instanceof ApiError) || REFUSED.has(err.code)) throw err;
      putError = err;
      ctx.log(`${change.address}: the settings update failed (${err.message}); reading the settings back to see what the instance holds`);
    }

    const check = await readBack(ctx, expected);
    const recordSecrets = async () => {
      const recorded = await Promise.all(
        secretNames.map(async (name) => [name, await fingerprintSecret(String(settingsOf(instance).get(name)?.value ?? ''))] as const),
      );
      for (const [name, fp] of recorded) recordSetting(ctx.state, instance.url, name, fp);
      if (recorded.length > 0) ctx.state.save();
    };

    if (!putError) {
      await recordSecrets();
      notes.push(`updated ${Object.keys(body).length} setting(s) in one request`);
      if (check.error) {
        // The write was accepted; only the read-back failed. The PUT's own answer is the evidence.
        const shown = putResponse ? liveByName(putResponse) : new Map<string, unknown>();
        const inResponse = [...expected].filter(([n, v]) => returns(shown, n) && holds(shown, n, v)).map(([n]) => n);
        const lostAdmin = check.error instanceof ApiForbiddenError && expected.has('admin_mode') && normalizeSetting(settingByName('admin_mode'), expected.get('admin_mode')) === true;
        diagnostics.push(
          planDiagnostic(ctx, {
            severity: 'warning',
            code: 'PLUMB_SETTINGS_READBACK_FAILED',
            summary: `The settings update was accepted, but reading the settings back failed: ${check.error.message}`,
            detail:
              (lostAdmin
                ? "admin_mode is now on and plumb's token lacks the admin_mode scope, so the instance no longer lets it act as an administrator through the API. "
                : '') +
              `The PUT response shows ${inResponse.length} of ${expected.size} setting(s) with their new values` +
              (inResponse.length < expected.size ? ` (not shown: ${[...expected.keys()].filter((n) => !inResponse.includes(n)).join(', ')})` : '') +
              '.',
            suggestion: lostAdmin
              ? "give plumb a token with the admin_mode scope (next to api) before its next run"
              : 'run `plumb plan` once the instance answers to confirm',
            address: change.address,
          }),
        );
        notes.push(`PUT response shows ${inResponse.length} of ${expected.size} setting(s) with their new values; read-back failed`);
        return { applied: true, diagnostics, notes };
      }
      if (check.waitedMs > 0 && check.pending.length === 0) notes.push(`read-back matched after waiting ${seconds(check.waitedMs)} s for the settings cache`);
      for (const name of check.pending) {
        diagnostics.push(
          planDiagnostic(ctx, {
            severity: 'warning',
            code: 'PLUMB_SETTING_NOT_CONVERGED',
            summary: `"${name}" still shows its old value after waiting ${seconds(check.waitedMs)} s for the settings cache`,
            detail: `The update was accepted; plumb re-read the settings for ${seconds(check.waitedMs)} s (settings_verify_seconds: ${instance.settingsVerifySeconds}). The instance may cache settings longer, or something changes it back.`,
            suggestion: 'run `plumb drift` later; raise settings_verify_seconds if your cache interval is longer',
            address: change.address,
            pointer: settingsOf(instance).get(name)?.pointer,
          }),
        );
      }
      return { applied: true, diagnostics, notes };
    }

    // The write failed in a way that leaves its outcome unknown: report what the instance holds now.
    const failure = putError.message;
    if (check.error) {
      diagnostics.push(
        planDiagnostic(ctx, {
          severity: 'error',
          code: 'PLUMB_SETTINGS_OUTCOME_UNKNOWN',
          summary: `The settings update failed and reading the settings back failed too, so plumb cannot tell what changed`,
          detail: `${failure}. Then ${check.error.message}.`,
          suggestion: 'run `plumb plan` once the instance answers: it shows what the instance holds',
          address: change.address,
        }),
      );
      notes.push('outcome unknown: the read-back failed');
      return { applied: false, diagnostics, notes };
    }
    if (expected.size === 0) {
      diagnostics.push(
        planDiagnostic(ctx, {
          severity: 'error',
          code: 'PLUMB_SETTINGS_OUTCOME_UNKNOWN',
          summary: `The settings update failed and sent only write-only settings (${secretNames.join(', ')}), which cannot be read back`,
          detail: `${failure}. Their fingerprints were not recorded, so the next plan sends them again.`,
          suggestion: 'run `plumb apply` again once the instance answers',
          address: change.address,
        }),
      );
      notes.push('outcome unknown: only write-only settings were sent');
      return { applied: false, diagnostics, notes };
    }
    const notApplied = check.pending;
    const applied = [...expected.keys()].filter((n) => !notApplied.includes(n));
    const parts = [
      applied.length > 0 ? `applied: ${applied.join(', ')}` : '',
      notApplied.length > 0 ? `not applied: ${notApplied.join(', ')}` : '',
      secretNames.length > 0 ? `write-only, cannot be read back: ${secretNames.join(', ')}` : '',
    ].filter(Boolean);
    notes.push(parts.join('; '));
    if (notApplied.length === 0 && expected.size > 0) {
      // Every readable value is in place; the secrets went in the same request.
      await recordSecrets();
      diagnostics.push(
        planDiagnostic(ctx, {
          severity: 'warning',
          code: 'PLUMB_SETTINGS_WRITE_UNCERTAIN',
          summary: `The settings update reported a failure, but reading back shows all ${expected.size} declared value(s) in place`,
          detail: `${failure}.${secretNames.length > 0 ? ` Write-only settings (${secretNames.join(', ')}) cannot be read back; they were sent in the same request.` : ''}`,
          suggestion: 'nothing to do; `plumb plan` should show no changes',
          address: change.address,
        }),
      );
      return { applied: true, diagnostics, notes };
    }
    diagnostics.push(
      planDiagnostic(ctx, {
        severity: 'error',
        code: applied.length > 0 ? 'PLUMB_SETTINGS_PARTIAL' : 'PLUMB_SETTINGS_UPDATE_FAILED',
        summary:
          applied.length > 0
            ? `The settings update failed part-way: the instance now holds ${applied.join(', ')} but not ${notApplied.join(', ')}`
            : `The settings update failed; reading back shows none of the ${expected.size} value(s) changed${check.waitedMs > 0 ? ` after waiting ${seconds(check.waitedMs)} s for the settings cache` : ''}`,
        detail: `${failure}.${secretNames.length > 0 ? ` Write-only settings (${secretNames.join(', ')}) cannot be read back; plumb sends them again next time.` : ''}`,
        suggestion: 'run `plumb apply` again once the instance answers',
        address: change.address,
        pointer: settingsOf(instance).get(notApplied[0] ?? '')?.pointer,
      }),
    );
    return { applied: false, diagnostics, notes };
  }
}

/** Errors that mean the instance refused the write before acting: nothing to read back. */
const REFUSED: ReadonlySet<string> = new Set([
  'PLUMB_API_UNAUTHORIZED',
  'PLUMB_API_FORBIDDEN',
  'PLUMB_API_NOT_FOUND',
  'PLUMB_API_METHOD_NOT_ALLOWED',
  'PLUMB_API_CONFLICT',
  'PLUMB_API_RATE_LIMITED',
  'PLUMB_API_HTTP',
  'PLUMB_API_INSECURE_URL',
]);

function seconds(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}

interface ReadBack {
  /** Expected settings the instance does not show (yet). */
  readonly pending: string[];
  /** How long plumb waited for the settings cache, measured on the clock. */
  readonly waitedMs: number;
  /** The read-back itself failed (e.g. 403 once admin_mode is on). */
  readonly error?: ApiError;
}

/**
 * Reads the settings back until every expected value shows or `settings_verify_seconds` have passed
 * by the clock (the instance caches settings, 60 s by default). The last wait is cut to the time
 * left, so the whole bound is used and never exceeded.
 */
async function readBack(ctx: InstanceContext, expected: ReadonlyMap<string, unknown>): Promise<ReadBack> {
  const started = Date.now();
  const deadline = started + ctx.instance.settingsVerifySeconds * 1000;
  let waitMs = 1000;
  for (let attempt = 0; ; attempt++) {
    let live: Map<string, unknown>;
    try {
      live = liveByName(await getApplicationSettings(ctx.client));
    } catch (err) {
      if (err instanceof ApiError) return { pending: [...expected.keys()], waitedMs: Date.now() - started, error: err };
      throw err;
    }
    const pending = [...expected].filter(([n, v]) => returns(live, n) && !holds(live, n, v)).map(([n]) => n);
    const left = deadline - Date.now();
    if (pending.length === 0 || left <= 0) return { pending, waitedMs: attempt === 0 ? 0 : Date.now() - started };
    if (attempt === 0) ctx.log(`settings cache: waiting for ${pending.length} value(s) to show (up to ${ctx.instance.settingsVerifySeconds} s)`);
    await ctx.sleep(Math.min(waitMs, left));
    waitMs = Math.min(waitMs * 2, 10_000);
  }
}


/** A 400 from the instance, shown per field and mapped back to the YAML line that set it. */
function badRequestDiagnostics(ctx: InstanceContext, change: ResourceChange, err: ApiBadRequestError): PlanDiagnostic[] {
  const out: PlanDiagnostic[] = [];
  const fields = err.fieldErrors ?? {};
  for (const [field, messages] of Object.entries(fields)) {
    const name = settingByName(field)?.name ?? field;
    out.push(
      planDiagnostic(ctx, {
        severity: 'error',
        code: 'PLUMB_API_REJECTED_SETTING',
        summary: `The instance rejected "${name}": ${messages.join('; ')}`,
        detail: `PUT /application/settings answered 400. Nothing was changed by this request.`,
        suggestion: 'fix the value in the configuration and plan again',
        address: change.address,
        pointer: settingsOf(ctx.instance).get(name)?.pointer,
      }),
    );
  }
  if (out.length === 0) {
    const missing = [...(err.serverMessage ?? '').matchAll(/([a-z0-9_]+) is missing/g)].map((m) => m[1]!);
    const pointer = missing.map((m) => settingsOf(ctx.instance).get(m)?.pointer).find(Boolean);
    out.push(
      planDiagnostic(ctx, {
        severity: 'error',
        code: 'PLUMB_API_REJECTED_SETTING',
        summary: `The instance rejected the settings update: ${err.serverMessage ?? 'no message'}`,
        detail: 'PUT /application/settings answered 400. Nothing was changed by this request.',
        suggestion: 'fix the configuration and plan again',
        address: change.address,
        pointer: pointer ?? change.pointer,
      }),
    );
  }
  return out;
}

/**
 * Risky settings changes (src/engine/risks.ts), each judged on the record as it will be after the
 * update (declared values over live ones), and only when this update is what makes it so. plumb's
 * own credential is read only when a check needs it.
 */
async function settingsRisks(ctx: InstanceContext, live: Map<string, unknown>, payload: SettingsPayload): Promise<PlanRisk[]> {
  const at = address(ctx.instance);
  const sent = (n: string) => n in payload.set;
  const norm = (n: string, v: unknown) => normalizeSetting(comparisonSpec(settingByName(n)), v);
  const before = (n: string) => norm(n, liveValue(live, n));
  const after = (n: string) => (sent(n) ? norm(n, payload.set[n]) : before(n));
  const turnsOn = (n: string) => sent(n) && after(n) === true && before(n) !== true;
  const risks: PlanRisk[] = [];
  // Where a refusal is shown: the setting that asks for the change.
  const pointerOf = (n: string) => settingsOf(ctx.instance).get(n)?.pointer;
  const on = (...names: string[]): { pointer?: string } => {
    const pointer = names.filter(sent).map(pointerOf).find((x) => x !== undefined);
    return pointer !== undefined ? { pointer } : {};
  };
  const lifetime = (v: unknown) => (typeof v === 'number' && v > 0 ? v : 365); // blank means 365
  // The instance revokes the tokens beyond the limit whenever the value changes (raised, lowered, or
  // set where it was blank), not only when it goes down: every such change is checked against the
  // tokens plumb can see, and is a risk only where one of them is beyond the new limit.
  const limitValue = (v: unknown) => (typeof v === 'number' && v > 0 ? v : null);
  const changesLifetime = sent('max_personal_access_token_lifetime') && limitValue(after('max_personal_access_token_lifetime')) !== null && limitValue(after('max_personal_access_token_lifetime')) !== limitValue(before('max_personal_access_token_lifetime'));
  const needCredential = turnsOn('admin_mode') || turnsOn('disable_personal_access_tokens') || changesLifetime;
  const cred = needCredential ? await credentialOf(ctx) : undefined;
  const unreadable = (what: string) => `plumb could not read ${what} (${cred?.problems.join('; ') || 'no answer'}), so it assumes the worst`;

  if (cred && turnsOn('admin_mode')) {
    const scopes = cred.token?.scopes;
    if (!scopes || !scopes.includes('admin_mode')) {
      risks.push(
        flagRisk(ctx, {
          id: 'admin-mode-without-scope',
          address: at,
          ...on('admin_mode'),
          summary: scopes
            ? `turning on admin_mode: plumb's token (scopes ${scopes.join(', ')}) lacks the admin_mode scope, so plumb loses administrator access to the API, starting with reading these settings back`
            : `turning on admin_mode: ${unreadable("its token's scopes")}; a token without the admin_mode scope loses administrator access`,
        }),
      );
    }
  }
  if (cred && turnsOn('disable_personal_access_tokens') && cred.kind !== 'resource') {
    risks.push(
      flagRisk(ctx, {
        id: 'personal-tokens-disabled',
        address: at,
        ...on('disable_personal_access_tokens'),
        summary:
          cred.kind === 'personal'
            ? "disable_personal_access_tokens: plumb authenticates with a personal access token, which stops working, and the setting cannot be turned off again through the API"
            : `disable_personal_access_tokens: ${unreadable('its user')}; a personal access token stops working, and the setting cannot be turned off again through the API`,
      }),
    );
  }
  const web = () => (sent('password_authentication_enabled_for_web') || !sent('signin_enabled') ? after('password_authentication_enabled_for_web') : after('signin_enabled'));
  const webBefore = before('password_authentication_enabled_for_web');
  const touchesPassword = ['password_authentication_enabled_for_web', 'signin_enabled', 'password_authentication_enabled_for_git'].some(sent);
  if (touchesPassword && web() === false && after('password_authentication_enabled_for_git') === false && !(webBefore === false && before('password_authentication_enabled_for_git') === false)) {
    risks.push(
      flagRisk(ctx, {
        id: 'password-sign-in-off',
        address: at,
        ...on('password_authentication_enabled_for_web', 'signin_enabled', 'password_authentication_enabled_for_git'),
        summary:
          'turning off password sign-in for both the web and Git over HTTP(S): nobody can sign in with a password, and plumb cannot see through the API whether an external sign-in (SAML, LDAP, OmniAuth) is configured',
      }),
    );
  }
  if (cred && changesLifetime) {
    const days = lifetime(after('max_personal_access_token_lifetime'));
    const limit = new Date(ctx.now.getTime() + days * 86_400_000).toISOString().slice(0, 10);
    const risk = await lifetimeRisk(ctx, cred, days, limit, at, pointerOf('max_personal_access_token_lifetime'));
    if (risk) risks.push(risk);
  }
  const touches2fa = sent('require_two_factor_authentication') || sent('two_factor_grace_period');
  const was2faNoGrace = before('require_two_factor_authentication') === true && before('two_factor_grace_period') === 0;
  if (touches2fa && after('require_two_factor_authentication') === true && after('two_factor_grace_period') === 0 && !was2faNoGrace) {
    risks.push(
      flagRisk(ctx, {
        id: 'two-factor-without-grace',
        address: at,
        ...on('two_factor_grace_period', 'require_two_factor_authentication'),
        summary: 'requiring two-factor authentication with a grace period of 0 hours: every user without it, administrators included, is stopped at the next sign-in until they set it up',
      }),
    );
  }
  return risks;
}
