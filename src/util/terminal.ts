/**
 * Text that plumb did not write itself — configuration text (a merge request's), the instance's own
 * data (a group token's name, a lock holder's host), a plan file's — on its way to a terminal or a
 * CI job's log. Control characters are removed: ESC and the rest of C0 but tab and newline (so
 * carriage return too), DEL, C1, the Unicode line and paragraph separators and the bidirectional
 * embeddings, overrides and isolates. Nothing can then move the cursor, recolour, erase or hide a
 * line, or write the CI log's collapsible-section markers (`section_start:…\r\x1b[0K`).
 *
 * The one terminal-escaping path: diagnostics, the plan's human and markdown renderers
 * (src/render/escape.ts), drift's and apply's human output, the engine's log lines and export's
 * notes all clean with it.
 */

/** C0 but tab and newline, DEL, C1, line/paragraph separators, bidi embeddings, overrides and isolates. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Untrusted text for a terminal or a CI log: control characters removed. */
export function clean(s: string): string {
  return s.replace(CONTROL, '');
}
