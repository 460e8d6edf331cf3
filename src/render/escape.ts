/**
 * Escaping configuration text for where it is shown (docs/plans.md#what-the-merge-request-comment-escapes).
 * A merge request controls the configuration, so every name, path, summary and value that reaches a
 * terminal or a merge-request comment is untrusted text:
 *
 * - terminal: control characters (ESC and the other C0/C1 codes but tab and newline, DEL, the
 *   Unicode line separators and bidirectional overrides) are removed, so a name cannot move the
 *   cursor, recolour or hide lines;
 * - markdown: the same, and each string is escaped for its context: a table cell (`|` escaped, no
 *   newline), inline code (a backtick fence longer than any run inside), a fenced block (a fence
 *   content cannot close), plain text (markdown punctuation and HTML escaped); `@` before a name
 *   gets a zero-width space (no mention, `@all` included); and no line of the comment starts with
 *   `/`, because the service runs a line starting with `/` in a note posted through its API as a
 *   quick action (`/approve`, `/merge`): such a line gets one leading space, which the quick-action
 *   parser does not accept and markdown does not show.
 */

import { clean } from '../util/terminal.js';

/** Configuration text for a terminal: control characters removed (src/util/terminal.ts, the one path for every human output). */
export { clean };

const ZWSP = '\u200b';

/** `@name` → `@` ZWSP `name`: shown the same, never a mention. */
function noMentions(s: string): string {
  return s.replace(/@(?=[\p{L}\p{N}_.-])/gu, `@${ZWSP}`);
}

/** One line: control characters removed, any line break a space. */
function oneLine(s: string): string {
  return clean(s.replace(/\r\n|[\r\n\u0085\u2028\u2029]/g, ' '));
}

/** Plain text in a paragraph, list item or table cell: markdown punctuation and HTML escaped, on one line. */
export function mdText(s: string): string {
  const escaped = oneLine(s)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\`*_[\]|~#!]/g, (c) => `\\${c}`);
  return noMentions(escaped);
}

/** Inline code: a backtick fence longer than any run of backticks inside. `table`: `|` escaped too (GFM splits cells on it even in code). */
export function mdCode(s: string, table = false): string {
  let text = noMentions(oneLine(s));
  if (table) text = text.replace(/\|/g, '\\|');
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') || text === '' ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** A fenced block whose fence no line of `body` can close; no line starts with `/`. */
export function mdFence(body: string, info = ''): string {
  const text = noMentions(clean(body.replace(/\r\n?/g, '\n')));
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return [`${fence}${info}`, noQuickActions(text), fence].join('\n');
}

/** Every line that starts with `/` gets a leading space: never a quick action. */
export function noQuickActions(text: string): string {
  return text.replace(/^\//gm, ' /');
}
