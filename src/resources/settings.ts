/**
 * Application settings as a resource: partial ownership of one singleton record. Only declared keys
 * are managed; a plan reads once (GET), an apply writes once (PUT with only the changed keys) and
 * reads back to verify, waiting out the instance's settings cache within a bound.
 */
import { settingByName, SETTING_RULES } from '../catalogue/index.js';
import type { SettingSpec } from '../catalogue/types.js';
import { getApplicationSettings, updateApplicationSettings } from '../api/settings.js';
import { ApiBadRequestError } from '../api/errors.js';
import type { DesiredInstance } from '../config/model.js';
import { MASK } from '../config/secrets.js';
import { joinPointer } from '../config/pointer.js';
import { normalizeSetting, sameValue } from '../engine/normalize.js';
import { stateFingerprint, fingerprintSecret, matchesFingerprint } from '../engine/fingerprint.js';
import type { SecretFingerprint } from '../engine/fingerprint.js';
import type { AttributeChange, PlanDiagnostic, Reason, ResourceChange } from '../engine/plan.js';
import type { ApplyResponse, InstanceContext, PlanResponse, ResourceProvider } from '../engine/resource.js';
import { planDiagnostic } from '../engine/resource.js';

interface SettingsPayload {
  /** Non-secret values to send, as declared. */
  readonly set: Record<string, unknown>;
  /** Secret values to send: resolved again from the configuration at apply time. */
  readonly secrets: Record<string, { readonly pointer: string } & SecretFingerprint>;
}

/** Live record keyed by the names updates use (response aliases folded back). */
function liveByName(live: Readonly<Record<string, unknown>>): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [k, v] of Object.entries(live)) {
    const spec = settingByName(k);
    out.set(spec?.name ?? k, v);
  }
  return out;
}

function looksMasked(v: unknown): boolean {
  return v === null || v === undefined || v === '' || (typeof v === 'string' && /^\*+$/.test(v));
}

function address(instance: DesiredInstance): string {
  return `${instance.name}.application_settings`;
}

function declaredFingerprint(instance: DesiredInstance, live: Map<string, unknown>): string {
  const view: Record<string, unknown> = {};
  for (const [name] of instance.settings) {
    const spec = settingByName(name);
    // Secrets enter as "present or not" only: their values never reach a fingerprint in clear.
    view[name] = spec?.secret ? live.has(name) && !looksMasked(live.get(name)) : normalizeSetting(spec, live.get(name));
  }
  return stateFingerprint(view);
}

export const settingsProvider: ResourceProvider = {
  kind: 'application_settings',

  declares(instance) {
    return instance.settings.size > 0;
  },

  async plan(ctx): Promise<PlanResponse> {
    const { instance } = ctx;
    const live = liveByName(await getApplicationSettings(ctx.client));
    const diagnostics: PlanDiagnostic[] = [];
    const attributes: AttributeChange[] = [];
    const reasons = new Set<Reason>();
    const payload: SettingsPayload = { set: {}, secrets: {} };

    // Secrets first, all at once: each fingerprint is a deliberately slow scrypt, so they run in
    // parallel on the thread pool.
    const secretNames = [...instance.settings].filter(([name, d]) => settingByName(name)?.secret || d.secret).map(([name]) => name);
    const secretResults = new Map(
      await Promise.all(
        secretNames.map(async (name) => {
          const desired = instance.settings.get(name)!;
          const value = String(desired.value ?? '');
          const liveValue = live.get(name);
          const readable = live.has(name) && !looksMasked(liveValue);
          const fp = ctx.state.settingFingerprint(instance.url, name);
          const changed = readable ? !sameValue(settingByName(name), liveValue, desired.value) : !fp || !(await matchesFingerprint(value, fp));
          const reason: Reason = readable ? 'field-changed' : fp ? 'write-only-changed' : 'write-only-unknown';
          return [name, { changed, reason, readable, fingerprint: changed ? await fingerprintSecret(value) : undefined }] as const;
        }),
      ),
    );

    for (const [name, desired] of instance.settings) {
      const spec = settingByName(name) as SettingSpec;
      const present = live.has(name);
      const secret = secretResults.get(name);
      if (secret) {
        if (secret.changed && secret.fingerprint) {
          payload.secrets[name] = { pointer: desired.pointer, ...secret.fingerprint };
          reasons.add(secret.reason);
          attributes.push({ name, before: secret.readable ? MASK : undefined, after: MASK, sensitive: true, writeOnly: !secret.readable });
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
      if (!sameValue(spec, live.get(name), desired.value)) {
        payload.set[name] = desired.value;
        reasons.add('field-changed');
        attributes.push({ name, before: normalizeSetting(spec, live.get(name)), after: normalizeSetting(spec, desired.value) });
      }
    }

    // The instance wants a rule's partners in the same request that turns its flag on.
    for (const rule of SETTING_RULES) {
      if (rule.kind !== 'required-when-enabled') continue;
      const sendsFlagOn = payload.set[rule.flag] === true || payload.secrets[rule.flag] !== undefined;
      if (!sendsFlagOn) continue;
      for (const partner of rule.requires) {
        if (partner in payload.set || partner in payload.secrets) continue;
        const d = instance.settings.get(partner);
        if (!d) continue; // validation already refused this configuration
        if (settingByName(partner)?.secret || d.secret) payload.secrets[partner] = { pointer: d.pointer, ...(await fingerprintSecret(String(d.value ?? ''))) };
        else payload.set[partner] = d.value;
      }
    }

    // Visibility: the merged record (live with our changes) must not default to a restricted level.
    for (const rule of SETTING_RULES) {
      if (rule.kind !== 'not-in-list') continue;
      const field = instance.settings.get(rule.field)?.value ?? live.get(rule.field);
      const list = instance.settings.get(rule.list)?.value ?? live.get(rule.list);
      const restricted = normalizeSetting(settingByName(rule.list), list);
      if (typeof field === 'string' && Array.isArray(restricted) && restricted.includes(field)) {
        const declared = instance.settings.get(rule.field) ?? instance.settings.get(rule.list);
        diagnostics.push(
          planDiagnostic(ctx, {
            severity: 'error',
            code: 'PLUMB_VISIBILITY_CONFLICT',
            summary: `"${rule.field}" (${field}) is one of the instance's ${rule.list}`,
            detail: `The instance rejects this combination. ${instance.settings.has(rule.list) ? '' : `${rule.list} is not declared; its live value is ${JSON.stringify(restricted)}.`}`,
            suggestion: `declare ${rule.list} without "${field}", or choose another ${rule.field}`,
            address: address(instance),
            pointer: declared?.pointer ?? joinPointer(instance.pointer, 'settings'),
          }),
        );
      }
    }

    const changed = attributes.length > 0;
    const change: ResourceChange = {
      address: address(instance),
      instance: instance.name,
      kind: 'application_settings',
      action: changed ? 'update' : 'no-op',
      reasons: [...reasons],
      attributes,
      pointer: joinPointer(instance.pointer, 'settings'),
      payload: payload as unknown as Record<string, unknown>,
      liveFingerprint: declaredFingerprint(instance, live),
    };
    const drift = changed
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
    return { changes: [change], drift, diagnostics };
  },

  async liveFingerprint(ctx) {
    return declaredFingerprint(ctx.instance, liveByName(await getApplicationSettings(ctx.client)));
  },

  async apply(ctx, change): Promise<ApplyResponse> {
    const { instance } = ctx;
    const payload = change.payload as unknown as SettingsPayload;
    const body: Record<string, unknown> = { ...payload.set };
    const diagnostics: PlanDiagnostic[] = [];
    const notes: string[] = [];
    const still = await Promise.all(
      Object.entries(payload.secrets).map(async ([name, ref]) => {
        const desired = instance.settings.get(name);
        return [name, ref, !!desired && (await matchesFingerprint(String(desired.value ?? ''), ref))] as const;
      }),
    );
    for (const [name, ref, same] of still) {
      const desired = instance.settings.get(name);
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

    try {
      await updateApplicationSettings(ctx.client, body);
    } catch (err) {
      if (err instanceof ApiBadRequestError) {
        return { applied: false, diagnostics: badRequestDiagnostics(ctx, change, err), notes };
      }
      throw err;
    }
    const recorded = await Promise.all(
      Object.keys(payload.secrets).map(async (name) => [name, await fingerprintSecret(String(instance.settings.get(name)?.value ?? ''))] as const),
    );
    for (const [name, fp] of recorded) ctx.state.recordSetting(instance.url, name, fp);
    if (Object.keys(payload.secrets).length > 0) ctx.state.save();
    notes.push(`updated ${Object.keys(body).length} setting(s) in one request`);

    // Read back. The instance caches settings (60 s by default), so a stale read is retried
    // within the configured bound before a value is called drifted.
    const deadline = Date.now() + instance.settingsVerifySeconds * 1000;
    let waitMs = 1000;
    let pending: string[] = [];
    for (let attempt = 0; ; attempt++) {
      const live = liveByName(await getApplicationSettings(ctx.client));
      pending = Object.keys(payload.set).filter((n) => live.has(n) && !sameValue(settingByName(n), live.get(n), payload.set[n]));
      if (pending.length === 0) {
        if (attempt > 0) notes.push(`read-back matched after waiting for the settings cache (${attempt} re-read(s))`);
        break;
      }
      if (Date.now() + waitMs > deadline) break;
      if (attempt === 0) ctx.log(`settings cache: waiting for ${pending.length} value(s) to show (up to ${instance.settingsVerifySeconds}s)`);
      await ctx.sleep(waitMs);
      waitMs = Math.min(waitMs * 2, 10_000);
    }
    for (const name of pending) {
      diagnostics.push(
        planDiagnostic(ctx, {
          severity: 'warning',
          code: 'PLUMB_SETTING_NOT_CONVERGED',
          summary: `"${name}" still shows its old value ${instance.settingsVerifySeconds}s after the update`,
          detail: 'The update was accepted; the instance may cache settings longer than the configured wait, or something changes it back.',
          suggestion: 'run `plumb drift` later; raise settings_verify_seconds if your cache interval is longer',
          address: change.address,
          pointer: instance.settings.get(name)?.pointer,
        }),
      );
    }
    return { applied: true, diagnostics, notes };
  },
};

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
        pointer: ctx.instance.settings.get(name)?.pointer,
      }),
    );
  }
  if (out.length === 0) {
    const missing = [...(err.serverMessage ?? '').matchAll(/([a-z0-9_]+) is missing/g)].map((m) => m[1]!);
    const pointer = missing.map((m) => ctx.instance.settings.get(m)?.pointer).find(Boolean);
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
