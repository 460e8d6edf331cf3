/**
 * Applying application settings: one PUT with only the changed keys, then a read-back that waits
 * out the instance's settings cache within a bound; a 400 is shown per field at the YAML line that
 * set it; a new token lifetime limit is followed by a look at the tokens it revoked.
 */
import { settingByName } from '../../catalogue/index.js';
import { getApplicationSettings, updateApplicationSettings } from '../../api/settings.js';
import { ApiBadRequestError, ApiError, ApiForbiddenError } from '../../api/errors.js';
import type { ApplicationSettings } from '../../api/settings.js';
import { settingsOf } from './model.js';
import { normalizeSetting } from './normalize.js';
import { fingerprintSecret, matchesFingerprint } from '../../engine/fingerprint.js';
import type { PlanDiagnostic, ResourceChange } from '../../engine/plan.js';
import type { ApplyResponse, InstanceContext } from '../../engine/resource.js';
import { planDiagnostic } from '../../engine/resource.js';
import { recordSetting } from './state.js';
import { managedTokens, reportRevokedByLimit } from './lifetime.js';
import type { ManagedToken } from './lifetime.js';
import type { SettingsPayload } from './payload.js';
import { holdsSetting, liveByName, returnsSetting } from './compare.js';

/** Applies the settings change, and reports the tokens a new lifetime limit made the instance revoke. */
export async function applySettingsChange(ctx: InstanceContext, change: ResourceChange, payload: SettingsPayload): Promise<ApplyResponse> {
  // A new token lifetime limit may make the instance revoke tokens: look before and after.
  const setsLifetime = 'max_personal_access_token_lifetime' in payload.set;
  let tokensBefore: ManagedToken[] = [];
  if (setsLifetime) tokensBefore = (await managedTokens(ctx)).tokens;
  const r = await applySettings(ctx, change, payload);
  if (!setsLifetime) return r;
  const revoked = await reportRevokedByLimit(ctx, tokensBefore, change.address);
  return { ...r, diagnostics: [...r.diagnostics, ...revoked.diagnostics], notes: [...r.notes, ...revoked.notes] };
}

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
        const inResponse = [...expected].filter(([n, v]) => returnsSetting(shown, n) && holdsSetting(shown, n, v)).map(([n]) => n);
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
    const pending = [...expected].filter(([n, v]) => returnsSetting(live, n) && !holdsSetting(live, n, v)).map(([n]) => n);
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
