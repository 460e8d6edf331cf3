/**
 * A kind's diagnostic codes, named by the prefixes it owns (`PLUMB_PAGES_`) or in full. The codes
 * themselves stay in the closed registry (src/diagnostics/codes.ts, which generates
 * docs/diagnostics.md); a kind claims its own, and test/resources/registry.test.ts checks that no
 * code is claimed twice and that every prefix matches at least one registered code.
 */
import { DIAGNOSTIC_CODE_NAMES } from '../generated/diagnostic-code-names.js';
import type { DiagnosticCode } from '../diagnostics/codes.js';

export function codesOf(prefixes: readonly string[]): readonly DiagnosticCode[] {
  // filter and some with named functions and a `this`: no closure per code (every kind's registry
  // entry calls this when plumb starts, ~100 KB of garbage in every cold `plumb validate` with
  // `filter((c) => prefixes.some(…))`), and no loop of our own, which V8 compiled with TurboFan
  // in the middle of start-up (on-stack replacement, 2 ms) once it had run a few thousand times.
  return DIAGNOSTIC_CODE_NAMES.filter(claimedBy, prefixes);
}

const REGISTERED: ReadonlySet<string> = new Set(DIAGNOSTIC_CODE_NAMES);

function claimedBy(this: readonly string[], code: string): boolean {
  return this.some(claims, code);
}

function claims(this: string, prefix: string): boolean {
  return prefix.endsWith('_') ? this.startsWith(prefix) : this === prefix;
}

/**
 * Refuses a registry whose kinds claim codes badly: a code claimed by two kinds, a code neither in
 * the closed registry nor among the kind's `ownCodes`, or an own code the closed registry holds
 * (a kind may not redefine one). Run when a registry is assembled (src/resources/index.ts).
 */
export function checkClaims(kinds: readonly { readonly kind: string; readonly codes: readonly string[]; readonly ownCodes?: Readonly<Record<string, string>> }[]): void {
  const owner = new Map<string, string>();
  for (const k of kinds) {
    const own = k.ownCodes ?? {};
    for (const c of Object.keys(own)) {
      if (REGISTERED.has(c)) throw new Error(`kind ${k.kind} declares ${c} as its own code, but src/diagnostics/codes.ts registers it`);
      if (!k.codes.includes(c)) throw new Error(`kind ${k.kind} declares ${c} in ownCodes but does not list it in codes`);
    }
    for (const c of k.codes) {
      if (!REGISTERED.has(c) && !Object.hasOwn(own, c)) throw new Error(`kind ${k.kind} claims ${c}, which is neither registered (src/diagnostics/codes.ts) nor among its ownCodes`);
      const before = owner.get(c);
      if (before !== undefined && before !== k.kind) throw new Error(`${c} is claimed by kinds ${before} and ${k.kind}`);
      owner.set(c, k.kind);
    }
  }
}
