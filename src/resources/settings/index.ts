/**
 * The application settings kind: everything plumb knows about it lives in this folder (config
 * resolution, pointers, plan, apply, payload, reasons, state section, normalization).
 */
import type { Reason } from '../../engine/plan.js';
import type { KindModule } from '../kind.js';
import { settingsTerraform } from './terraform.js';
import { codesOf } from '../codes.js';
import { settingsProvider } from './provider.js';
import { settingsExporter } from './export.js';
import { SETTINGS_CONFIG } from './config.js';
import type { SettingsPayload } from './payload.js';

export { settingsProvider, settingsExporter };

/** How a plan explains this kind's reasons to people (assembled in src/resources/index.ts). */
export const SETTINGS_REASONS = {
  'field-changed': 'declared values differ from the instance',
  'write-only-changed': 'a write-only value changed since it was last applied',
  'write-only-unknown': 'a write-only value is not known to have been applied',
  'write-only-unavailable': 'a write-only value reads a variable this pipeline is not given (--unavailable-secrets skip): not compared here, apply compares it',
} as const satisfies Partial<Record<Reason, string>>;

/** The kind, whole: what every door asks of it (src/resources/kind.ts). */
export const settingsKind: KindModule<SettingsPayload> = {
  kind: SETTINGS_CONFIG.kind,
  provider: settingsProvider,
  reasons: SETTINGS_REASONS,
  codes: codesOf(['PLUMB_SETTING_', 'PLUMB_SETTINGS_']),
  config: SETTINGS_CONFIG,
  stateSlots: ['settings'],
  terraform: settingsTerraform,
  exporter: settingsExporter,
};
