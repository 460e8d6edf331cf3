/** The repository files kind's runtime parts, loaded by its registry entry's `load()` (./index.ts) when a door needs them. */
import type { KindRuntime } from '../kind.js';
import { repositoryFilesProvider } from './provider.js';
import { repositoryFilesExporter } from './export.js';
import { repositoryFileTerraform } from './terraform.js';
import type { FilesKindPayload } from './provider.js';

export const repositoryFilesRuntime: KindRuntime<FilesKindPayload> = { provider: repositoryFilesProvider, exporter: repositoryFilesExporter, terraform: repositoryFileTerraform };
