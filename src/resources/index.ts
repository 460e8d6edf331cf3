import type { ResourceProvider } from '../engine/resource.js';
import { settingsProvider } from './settings/provider.js';
import { groupAccessTokensProvider } from './group-access-tokens/provider.js';

/** Every resource kind, in the order a plan lists and apply executes them. */
export const PROVIDERS: readonly ResourceProvider[] = [settingsProvider, groupAccessTokensProvider];

export function providerFor(kind: string): ResourceProvider | undefined {
  return PROVIDERS.find((p) => p.kind === kind);
}
