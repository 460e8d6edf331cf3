/**
 * A kind's diagnostic codes, named by the prefixes it owns (`PLUMB_PAGES_`) or in full. The codes
 * themselves stay in the closed registry (src/diagnostics/codes.ts, which generates
 * docs/diagnostics.md); a kind claims its own, and test/resources/registry.test.ts checks that no
 * code is claimed twice and that every prefix matches at least one registered code.
 */
import { DIAGNOSTIC_CODES } from '../diagnostics/codes.js';
import type { DiagnosticCode } from '../diagnostics/codes.js';

export function codesOf(prefixes: readonly string[]): readonly DiagnosticCode[] {
  // Indexed loops rather than filter(some(…)) or for-of: every kind's registry entry calls this
  // when plumb starts, where code runs cold, and a closure or an iterator result per code and kind
  // was 100-150 KB of garbage in every `plumb validate`.
  const codes = Object.keys(DIAGNOSTIC_CODES) as DiagnosticCode[];
  const out: DiagnosticCode[] = [];
  for (let i = 0; i < codes.length; i++) if (claims(prefixes, codes[i]!)) out.push(codes[i]!);
  return out;
}

function claims(prefixes: readonly string[], code: string): boolean {
  for (let i = 0; i < prefixes.length; i++) {
    const p = prefixes[i]!;
    if (p.endsWith('_') ? code.startsWith(p) : code === p) return true;
  }
  return false;
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
      if (Object.hasOwn(DIAGNOSTIC_CODES, c)) throw new Error(`kind ${k.kind} declares ${c} as its own code, but src/diagnostics/codes.ts registers it`);
      if (!k.codes.includes(c)) throw new Error(`kind ${k.kind} declares ${c} in ownCodes but does not list it in codes`);
    }
    for (const c of k.codes) {
      if (!Object.hasOwn(DIAGNOSTIC_CODES, c) && !Object.hasOwn(own, c)) throw new Error(`kind ${k.kind} claims ${c}, which is neither registered (src/diagnostics/codes.ts) nor among its ownCodes`);
      const before = owner.get(c);
      if (before !== undefined && before !== k.kind) throw new Error(`${c} is claimed by kinds ${before} and ${k.kind}`);
      owner.set(c, k.kind);
    }
  }
}
