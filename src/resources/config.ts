/**
 * The configuration side of the kinds registry: the places each kind owns in the configuration
 * (for messages and merging) and its resolvers. config/ reads the kinds through this file only.
 * Repository files are still resolved in config/validate.ts; their pointer is here until they
 * become a kind of their own.
 */
import type { KindPointer } from '../config/pointer.js';
import { SETTINGS_POINTERS } from './settings/config.js';
import { TOKEN_POINTERS } from './group-access-tokens/config.js';
import { PAGES_POINTERS } from './pages/config.js';

export { resolveSettings } from './settings/config.js';
export { checkTokenSinksAndSelf, resolveGroup } from './group-access-tokens/config.js';
export { resolvePages } from './pages/config.js';

/** Every kind's places, most specific first. */
export const KIND_POINTERS: readonly KindPointer[] = [
  ...SETTINGS_POINTERS,
  ...TOKEN_POINTERS,
  { pattern: ['instances', '*', 'projects', '*', 'files', '*'], resource: true, describe: (s) => `file "${s[5]}" of project "${s[3]}"` },
  ...PAGES_POINTERS,
];
