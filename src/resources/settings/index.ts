/**
 * The application settings kind: everything plumb knows about it lives in this folder (config
 * resolution, pointers, plan, apply, payload, reasons, state section, normalization).
 */
import type { KindModule } from '../kind.js';
import { settingsTerraform } from './terraform.js';
import { codesOf } from '../codes.js';
import { settingsProvider } from './provider.js';
import { settingsExporter } from './export.js';
import { SETTINGS_CONFIG } from './config.js';
import type { SettingsPayload } from './payload.js';
import { SETTINGS_REASONS } from './reasons.js';

export { settingsProvider, settingsExporter };

export { SETTINGS_REASONS };

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
