/**
 * The application settings kind: everything plumb knows about it lives in this folder (config
 * resolution, pointers, plan, apply, payload, reasons, state section, normalization).
 *
 * This file is the kind's registry entry: light (no provider, no API client), its runtime parts
 * behind `load()` (./runtime.ts).
 */
import type { KindEntry } from '../kind.js';
import { codesOf } from '../codes.js';
import { SETTINGS_CONFIG } from './config.js';
import { SETTINGS_SHAPE } from './shape.js';
import type { SettingsPayload } from './payload.js';
import { SETTINGS_REASONS } from './reasons.js';

export { SETTINGS_REASONS };

/** The kind's registry entry: what every door asks of it (src/resources/kind.ts). */
export const settingsKind: KindEntry<SettingsPayload> = {
  kind: SETTINGS_CONFIG.kind,
  reasons: SETTINGS_REASONS,
  codes: codesOf(['PLUMB_SETTING_', 'PLUMB_SETTINGS_']),
  config: SETTINGS_CONFIG,
  stateSlots: ['settings'],
  terraformShape: SETTINGS_SHAPE,
  load: async () => (await import('./runtime.js')).settingsRuntime,
};
