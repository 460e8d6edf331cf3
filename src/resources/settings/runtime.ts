/** The application settings kind's runtime parts, loaded by its registry entry's `load()` (./index.ts) when a door needs them. */
import type { KindRuntime } from '../kind.js';
import { settingsProvider } from './provider.js';
import { settingsExporter } from './export.js';
import { settingsTerraform } from './terraform.js';
import type { SettingsPayload } from './payload.js';

export const settingsRuntime: KindRuntime<SettingsPayload> = { provider: settingsProvider, exporter: settingsExporter, terraform: settingsTerraform };
