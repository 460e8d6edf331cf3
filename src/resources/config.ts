/**
 * The configuration side of the kinds registry: the places each kind owns in the configuration
 * (for messages and merging) and its resolvers. config/ reads the kinds through this file only.
 */
import type { KindPointer } from '../config/pointer.js';
import { SETTINGS_POINTERS } from './settings/config.js';
import { TOKEN_POINTERS } from './group-access-tokens/config.js';
import { PAGES_POINTERS } from './pages/config.js';
import { FILE_POINTERS } from './repository-files/config.js';

export { resolveSettings } from './settings/config.js';
export { checkTokenLifetimes, checkTokenSinksAndSelf, resolveGroup } from './group-access-tokens/config.js';
export { resolvePages } from './pages/config.js';
export { resolveFiles } from './repository-files/config.js';

/** Every kind's places, most specific first. */
export const KIND_POINTERS: readonly KindPointer[] = [
  ...SETTINGS_POINTERS,
  ...TOKEN_POINTERS,
  ...FILE_POINTERS,
  ...PAGES_POINTERS,
];
