/** The group access tokens kind's runtime parts, loaded by its registry entry's `load()` (./index.ts) when a door needs them. */
import type { KindRuntime } from '../kind.js';
import { groupAccessTokensProvider } from './provider.js';
import { groupAccessTokensExporter } from './export.js';
import { groupAccessTokenTerraform } from './terraform.js';
import type { TokenPayload } from './payload.js';

export const groupAccessTokensRuntime: KindRuntime<TokenPayload> = { provider: groupAccessTokensProvider, exporter: groupAccessTokensExporter, terraform: groupAccessTokenTerraform };
