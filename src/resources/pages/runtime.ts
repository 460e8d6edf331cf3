/** The Pages kind's runtime parts, loaded by its registry entry's `load()` (./index.ts) when a door needs them. */
import type { KindRuntime } from '../kind.js';
import { pagesProvider } from './provider.js';
import { pagesExporter } from './export.js';
import { projectPagesTerraform } from './terraform.js';
import type { PagesPayload } from './payload.js';

export const pagesRuntime: KindRuntime<PagesPayload> = { provider: pagesProvider, exporter: pagesExporter, terraform: projectPagesTerraform };
