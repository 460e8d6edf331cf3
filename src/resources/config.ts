/**
 * The configuration side of the kinds registry, for config/ and schema/: each kind's `KindConfig`
 * (its places, for messages and merging, its mount, schema fragment, resolver and checks). Kept
 * apart from src/resources/index.ts so loading a configuration never loads a provider (nor the API
 * client); a test checks this list is exactly the `config` of every `KIND_MODULES` entry, in the
 * same order.
 */
import type { KindPointer } from '../config/pointer.js';
import type { ConfigKinds, KindConfig } from './kind-config.js';
import { SETTINGS_CONFIG } from './settings/config.js';
import { TOKEN_CONFIG } from './group-access-tokens/config.js';
import { PAGES_CONFIG } from './pages/config.js';
import { FILE_CONFIG } from './repository-files/config.js';

/** Every kind's configuration side, in the order of KIND_MODULES. */
export const KIND_CONFIGS: readonly KindConfig[] = [SETTINGS_CONFIG, TOKEN_CONFIG, FILE_CONFIG, PAGES_CONFIG];

/** Every kind's places, most specific first. */
export const KIND_POINTERS: readonly KindPointer[] = KIND_CONFIGS.flatMap((k) => k.pointers);

/** The built-in kinds' configuration side, as config/ takes it (`LoadOptions.kinds`). */
export const BUILT_IN_CONFIG_KINDS: ConfigKinds = { configs: KIND_CONFIGS, pointers: KIND_POINTERS };
