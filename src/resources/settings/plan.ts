/**
 * Planning application settings: one GET of the record, each declared key compared in its
 * canonical form (normalize.ts), secrets through salted fingerprints only, and the changes that can
 * lock people or plumb out flagged as risks.
 */
import { settingByName, SETTING_RULES } from '../../catalogue/index.js';
import type { SettingSpec } from '../../catalogue/types.js';
import { getApplicationSettings } from '../../api/settings.js';
import { settingsOf } from './model.js';
import { MASK, UNAVAILABLE_SECRET, unavailableReferences, unavailableShown } from '../../config/secrets.js';
import { joinPointer } from '../../config/pointer.js';
import { normalizeSetting, sameValue, withDeclared } from './normalize.js';
import { credentialOf, flagRisk } from '../../engine/risks.js';
import { fingerprintSecret, matchesFingerprint } from '../../engine/fingerprint.js';
import type { AttributeChange, DriftEntry, PlanDiagnostic, PlanRisk, Reason, ResourceChange } from '../../engine/plan.js';
import type { InstanceContext, PlanResponse } from '../../engine/resource.js';
import { planDiagnostic } from '../../engine/resource.js';
import { settingFingerprint } from './state.js';
import { lifetimeRisk } from './lifetime.js';
import type { SettingsPayload } from './payload.js';
import { settingsAddress, comparisonSpec, declaredFingerprint, holdsSetting, liveByName, liveSettingValue, looksMasked, returnsSetting } from './compare.js';

/** How a secret setting compares (`unavailable`: its variable is not given to this pipeline). */
interface SecretResult {
  readonly unavailable: boolean;
  readonly changed: boolean;
  readonly reason: Reason;
  readonly readable: boolean;
  readonly fingerprint: Awaited<ReturnType<typeof fingerprintSecret>> | undefined;
}

export async function planSettings(ctx: InstanceContext): Promise<PlanResponse> {
  const { instance } = ctx;
  if (!ctx.targets.targeted(settingsAddress(instance))) return { changes: [], drift: [], diagnostics: [] };
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
        const liveSettingValue = live.get(name);
        const readable = live.has(name) && !looksMasked(liveSettingValue);
        const fp = settingFingerprint(ctx.state, instance.url, name);
        const changed = readable ? !sameValue(settingByName(name), liveSettingValue, desired.value) : !fp || !(await matchesFingerprint(value, fp));
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
    const present = returnsSetting(live, name);
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
          address: settingsAddress(instance),
          pointer: desired.pointer,
        }),
      );
      continue;
    }
    if (!holdsSetting(live, name, desired.value)) {
      const cmp = comparisonSpec(spec);
      const now = liveSettingValue(live, name);
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
        sentAlong.push({ name: partner, before: normalizeSetting(cmp, liveSettingValue(live, partner)), after: normalizeSetting(cmp, d.value) });
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
          address: settingsAddress(instance),
          pointer: declared?.pointer ?? joinPointer(instance.pointer, 'settings'),
        }),
      );
    }
  }

  const changed = attributes.length > 0;
  const risks = changed ? await settingsRisks(ctx, live, payload) : [];
  const shown = changed || unavailableAttributes.length > 0;
  const change: ResourceChange = {
    address: settingsAddress(instance),
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
}

/**
 * Risky settings changes (src/engine/risks.ts), each judged on the record as it will be after the
 * update (declared values over live ones), and only when this update is what makes it so. plumb's
 * own credential is read only when a check needs it.
 */
async function settingsRisks(ctx: InstanceContext, live: Map<string, unknown>, payload: SettingsPayload): Promise<PlanRisk[]> {
  const at = settingsAddress(ctx.instance);
  const sent = (n: string) => n in payload.set;
  const norm = (n: string, v: unknown) => normalizeSetting(comparisonSpec(settingByName(n)), v);
  const before = (n: string) => norm(n, liveSettingValue(live, n));
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
