/**
 * A kind's own diagnostic codes (`KindEntry.ownCodes`), typed so the kind can emit them. Apart from
 * the closed registry (./codes.ts), whose meanings only the documentation reads: a kind that
 * declares codes at start-up does not make every run build ~240 meanings (issue 30).
 */
import type { KindCode } from './codes.js';

/**
 * A kind's own codes, each with its one-line meaning → the codes, typed so the kind can emit them
 * (`code: CODES.PLUMB_MAINTENANCE_BLANK_MESSAGE`). The kind's registry entry lists the meanings
 * (`KindEntry.ownCodes`); the registry refuses one that is registered in ./codes.ts or claimed by
 * another kind.
 */
export function ownCodes<K extends string>(meanings: Readonly<Record<K, string>>): { readonly [P in K]: KindCode } {
  return Object.fromEntries(Object.keys(meanings).map((c) => [c, c])) as { readonly [P in K]: KindCode };
}
