/**
 * A kind's diagnostic codes, named by the prefixes it owns (`PLUMB_PAGES_`) or in full. The codes
 * themselves stay in the closed registry (src/diagnostics/codes.ts, which generates
 * docs/diagnostics.md); a kind claims its own, and test/resources/registry.test.ts checks that no
 * code is claimed twice and that every prefix matches at least one registered code.
 */
import { DIAGNOSTIC_CODES } from '../diagnostics/codes.js';
import type { DiagnosticCode } from '../diagnostics/codes.js';

export function codesOf(prefixes: readonly string[]): readonly DiagnosticCode[] {
  return (Object.keys(DIAGNOSTIC_CODES) as DiagnosticCode[]).filter((c) => prefixes.some((p) => (p.endsWith('_') ? c.startsWith(p) : c === p)));
}
