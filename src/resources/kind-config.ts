/**
 * The configuration side of the kind contract: what config/ needs from a kind without loading its
 * provider (so `plumb validate` never loads the API client). Each kind's `config.ts` exports one,
 * its `index.ts` puts it in its `KindModule`, and src/resources/config.ts lists them for config/.
 */
import type { KindPointer } from '../config/pointer.js';

export interface KindConfig {
  readonly kind: string;
  /** The places the kind owns in the configuration, most specific first. */
  readonly pointers: readonly KindPointer[];
  /**
   * Its resolvers (raw YAML → config/model.ts types), referenced here so the contract names them;
   * config/validate.ts calls them through src/resources/config.ts. Phase 2 of issue 20 gives them
   * one signature and `DesiredInstance` one map by kind.
   */
  readonly resolvers: Readonly<Record<string, (...args: never[]) => unknown>>;
}
