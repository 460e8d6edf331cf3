/** The protected-branches kind's runtime parts, loaded by its registry entry's `load()` (./index.ts) when a door needs them. */
import type { KindRuntime } from '../kind.js';
import { protectedBranchesProvider } from './provider.js';
import { protectedBranchesExporter } from './export.js';
import { protectedBranchTerraform } from './terraform.js';
import type { ProtectedBranchPayload } from './payload.js';

export const protectedBranchesRuntime: KindRuntime<ProtectedBranchPayload> = { provider: protectedBranchesProvider, exporter: protectedBranchesExporter, terraform: protectedBranchTerraform };
