/**
 * The application settings kind: everything plumb knows about it lives in this folder (config
 * resolution, pointers, plan, apply, payload, reasons, state section, normalization).
 *
 * This file is the kind's registry entry: light (no provider, no API client), its runtime parts
 * behind `load()` (./runtime.ts).
 */
import type { Reason } from '../../engine/plan.js';
import type { KindEntry } from '../kind.js';
import { codesOf } from '../codes.js';
import { SETTINGS_CONFIG } from './config.js';
import { SETTINGS_SHAPE } from './shape.js';
import type { SettingsPayload } from './payload.js';

/** How a plan explains this kind's reasons to people (assembled by the registry, src/resources/index.ts). */
export const SETTINGS_REASONS = {
  'field-changed': 'declared values differ from the instance',
  'write-only-changed': 'a write-only value changed since it was last applied',
  'write-only-unknown': 'a write-only value is not known to have been applied',
  'write-only-unavailable': 'a write-only value reads a variable this pipeline is not given (--unavailable-secrets skip): not compared here, apply compares it',
} as const satisfies Partial<Record<Reason, string>>;

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
