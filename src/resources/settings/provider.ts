/**
 * Application settings as a resource: partial ownership of one singleton record. Only declared keys
 * are managed; a plan reads once (GET), an apply writes once (PUT with only the changed keys) and
 * reads back to verify, waiting out the instance's settings cache within a bound.
 *
 * The folder: `plan.ts` plans, `apply.ts` applies, `compare.ts` reads and compares the live record
 * for both; this file is the provider the engine calls.
 */
import { settingByName } from '../../catalogue/index.js';
import { getApplicationSettings } from '../../api/settings.js';
import { settingsOf } from './model.js';
import { MASK, unavailableShown } from '../../config/secrets.js';
import { isPlainObject } from '../../config/loading.js';
import { normalizeSetting } from './normalize.js';
import type { ResourceProvider } from '../../engine/resource.js';
import { parseSettingsPayload } from './payload.js';
import type { SettingsPayload } from './payload.js';
import { comparisonSpec, declaredFingerprint, liveByName } from './compare.js';
import { planSettings } from './plan.js';
import { applySettingsChange } from './apply.js';

export const settingsProvider: ResourceProvider<SettingsPayload> = {
  kind: 'application_settings',

  declares(instance) {
    return settingsOf(instance).size > 0;
  },

  plan: planSettings,

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

  apply: applySettingsChange,
};
