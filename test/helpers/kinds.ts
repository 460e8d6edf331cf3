/**
 * The built-in kinds, chosen for tests as commands/ chooses them for the CLI: config/, schema/ and
 * cdktf/ take the kinds they work with as a required input and default to none (issue 30), so a
 * test that loads a configuration directly goes through these wrappers (or passes its own kinds,
 * as test/resources/fifth-kind.test.ts does). The one test helper that names the built-in kinds.
 */
import { BUILT_IN_CONFIG_KINDS, builtInKinds } from '../../src/resources/index.js';
import type { KindSet } from '../../src/resources/index.js';
import { loadConfig as loadWith } from '../../src/config/validate.js';
import type { ConfigResult, ValidateOptions } from '../../src/config/validate.js';
import { fromStacks as fromStacksWith, loadCdktfConfig as loadCdktfWith } from '../../src/cdktf/load.js';
import type { CdktfOptions, CdktfResult } from '../../src/cdktf/load.js';
import type { SynthesizedStack } from '../../src/cdktf/documents.js';
import type { ConfigKinds } from '../../src/config/kinds.js';

export { BUILT_IN_CONFIG_KINDS };

/** The built-in kinds with their runtime parts loaded (providers, exporters, Terraform parts). */
export const BUILT_IN_KINDS: KindSet = await builtInKinds();

/** Options as config/ takes them, the kinds defaulting to the built-in ones. */
type WithKinds<T extends { readonly kinds: ConfigKinds }> = Omit<T, 'kinds'> & { readonly kinds?: ConfigKinds };

/** `loadConfig` (src/config/validate.ts) with the built-in kinds unless `opts.kinds` says otherwise. */
export function loadConfig(paths: readonly string[], opts: WithKinds<ValidateOptions> = {}): ConfigResult {
  return loadWith(paths, { ...opts, kinds: opts.kinds ?? BUILT_IN_CONFIG_KINDS });
}

/** `fromStacks` (src/cdktf/load.ts) with the built-in kinds unless `opts.kinds` says otherwise. */
export function fromStacks(stacks: readonly SynthesizedStack[], appDir: string, opts: WithKinds<ValidateOptions> = {}): ConfigResult {
  return fromStacksWith(stacks, appDir, { ...opts, kinds: opts.kinds ?? BUILT_IN_CONFIG_KINDS });
}

/** `loadCdktfConfig` (src/cdktf/load.ts) with the built-in kinds unless `opts.kinds` says otherwise. */
export function loadCdktfConfig(dir: string, opts: WithKinds<CdktfOptions> = {}): Promise<CdktfResult> {
  return loadCdktfWith(dir, { ...opts, kinds: opts.kinds ?? BUILT_IN_CONFIG_KINDS });
}
