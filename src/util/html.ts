/**
 * Untrusted text (configuration, instance data: a token's name, a project's path, a file's content)
 * in an HTML page (src/render/html.ts), as a text node or a quoted attribute value. The five
 * characters HTML gives a meaning (`& < > " '`) become references, so text can never become markup
 * or leave an attribute; and every control character the terminal path removes (util/terminal.ts:
 * C0 but tab and newline, DEL, C1, the line separators and the bidirectional embeddings, overrides
 * and isolates) is shown instead, visibly: a C0 code and DEL as their Control Pictures symbol
 * (`␛`), the others as `⟨U+202E⟩`. A hostile name then reads as what it is, and a bidirectional
 * override cannot reorder what a reviewer sees (docs/security.md#the-html-page).
 */

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const ENTITY: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function visible(c: string): string {
  const code = c.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return '\u2421';
  return `\u27e8U+${code.toString(16).toUpperCase().padStart(4, '0')}\u27e9`;
}

/** Text for an HTML text node or a quoted attribute value: markup escaped, control characters shown. */
export function htmlText(s: string): string {
  return s.replace(CONTROL, visible).replace(/[&<>"']/g, (c) => ENTITY[c]!);
}
