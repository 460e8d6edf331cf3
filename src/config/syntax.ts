/**
 * A configuration file's text that plumb cannot read: a foreign encoding, and YAML syntax errors as
 * plumb's sentences (not the parsers'), located where the problem starts.
 */
import type { Diagnostic, SourceLocation } from '../diagnostics/index.js';
import { lineCounterOf, parseWithPositions } from './yaml-doc.js';
import type { SourceFile } from './yaml-doc.js';

/**
 * Syntax diagnostics for a file js-yaml refused, one per problem: an unclosed quote or bracket is
 * reported once, where it opens (the parser only notices at the end of the file); otherwise the
 * first error `yaml` finds (the ones after it are mostly the same problem seen again), plus every
 * duplicate key (each is a problem of its own). Messages are plumb's sentences, not the parsers'.
 */
export function syntaxDiagnostics(f: SourceFile, fastError: unknown): Diagnostic[] {
  const doc = parseWithPositions(f);
  const lc = lineCounterOf(f);
  const at = (pos: readonly [number, number]): SourceLocation => {
    const start = lc.linePos(pos[0]);
    const end = lc.linePos(pos[1]);
    return { file: f.file, line: start.line, column: start.col, endLine: end.line, endColumn: end.col };
  };
  const unclosed = doc.errors.length > 0 || /end of the stream|unexpected end/.test(String((fastError as { reason?: string }).reason)) ? findUnclosed(f.text) : undefined;
  if (unclosed) {
    const what = UNCLOSED[unclosed.char]!;
    return [
      {
        severity: 'error',
        code: 'PLUMB_YAML_SYNTAX',
        summary: `This ${what.name} is never closed`,
        detail: `Everything after it, to the end of the file, is read as part of it.`,
        suggestion: `add the closing ${what.close}`,
        location: at([unclosed.offset, unclosed.offset + 1]),
      },
    ];
  }
  const starKey = unquotedStarKey(f.text);
  if (starKey) {
    const start = lc.linePos(starKey.offset);
    return [
      {
        severity: 'error',
        code: 'PLUMB_YAML_SYNTAX',
        summary: `The key ${starKey.key} starts with "*", which starts an alias in YAML (a reference to an anchor &name), not text`,
        detail: 'YAML reads the key as an alias to an anchor that does not exist, and then misreads the lines after it (often as wrong indentation).',
        suggestion: `quote the key: "${starKey.key}":`,
        location: { file: f.file, line: start.line, column: start.col, endLine: start.line, endColumn: start.col + starKey.key.length },
      },
    ];
  }
  if (doc.errors.length === 0) {
    // The two parsers disagree; js-yaml's word stands, at its position.
    const mark = (fastError as { mark?: { line: number; column: number } }).mark;
    const reason = (fastError as { reason?: string }).reason ?? String(fastError);
    const dup = /duplicated mapping key/.test(reason);
    const alias = /unidentified alias "([^"]*)"/.exec(reason);
    if (alias) {
      return [
        {
          severity: 'error',
          code: 'PLUMB_YAML_SYNTAX',
          summary: `The alias *${alias[1]} refers to no anchor &${alias[1]} defined before it`,
          suggestion: 'define the anchor first, or write the value out',
          location: mark ? { file: f.file, line: mark.line + 1, column: mark.column + 1 } : undefined,
        },
      ];
    }
    return [
      {
        severity: 'error',
        code: dup ? 'PLUMB_YAML_DUPLICATE_KEY' : 'PLUMB_YAML_SYNTAX',
        summary: dup ? 'The same key appears twice in one mapping' : `This is not valid YAML: ${reason}`,
        suggestion: dup ? 'remove or rename one of the two keys' : 'check the indentation and quoting at this position',
        location: mark ? { file: f.file, line: mark.line + 1, column: mark.column + 1 } : undefined,
      },
    ];
  }
  const dups = doc.errors.filter((e) => e.code === 'DUPLICATE_KEY');
  const other = doc.errors.find((e) => e.code !== 'DUPLICATE_KEY');
  return [...(other ? [other] : []), ...dups].map((e) => {
    const dup = e.code === 'DUPLICATE_KEY';
    const own = SYNTAX_SENTENCES[e.code];
    return {
      severity: 'error' as const,
      code: dup ? 'PLUMB_YAML_DUPLICATE_KEY' : 'PLUMB_YAML_SYNTAX',
      summary: dup ? 'The same key appears twice in one mapping' : (own?.[0] ?? `This is not valid YAML: ${firstSentence(e.message)}`),
      detail: dup ? 'YAML keeps only one of them; plumb refuses to guess which you meant.' : undefined,
      suggestion: dup ? 'remove or rename one of the two keys' : (own?.[1] ?? 'check the indentation and quoting at this position'),
      location: at(e.pos),
    };
  });
}

/** plumb's sentence and fix for the syntax errors people make, by `yaml`'s error code. */
const SYNTAX_SENTENCES: Partial<Record<string, readonly [string, string]>> = {
  TAB_AS_INDENT: ['A tab is used for indentation; YAML indents with spaces only', 'replace the tab with spaces'],
  BAD_INDENT: ['This line is not indented like the lines around it', 'indent it like its siblings (the keys of one mapping start in the same column)'],
  MULTILINE_IMPLICIT_KEY: ['A key runs over more than one line; a ":" or a closing quote is probably missing', 'put the key and its colon on one line'],
  BLOCK_AS_IMPLICIT_KEY: ['A mapping cannot start on the same line as its key ("a: b: c")', 'put the inner key on its own, more indented line, or quote the value if it contains ": "'],
  BAD_DQ_ESCAPE: ['This double-quoted text has an escape sequence YAML does not know', 'write a backslash as \\\\, or use single quotes'],
  BAD_ALIAS: ['This alias (*name) refers to no anchor (&name) defined before it', 'define the anchor first, or write the value out'],
  MULTIPLE_DOCS: ['This file holds more than one YAML document (---)', 'split it into one file per document'],
  UNEXPECTED_TOKEN: ['This character cannot start a value here', 'quote the value'],
  BAD_SCALAR_START: ['A plain value cannot start with this character', 'quote the value'],
  MISSING_CHAR: ['A closing character is missing before this point', 'close the quote, ] or } that is still open'],
};

const UNCLOSED: Record<string, { name: string; close: string }> = {
  '"': { name: 'double quote', close: '"' },
  "'": { name: 'single quote', close: "'" },
  '[': { name: 'list ([)', close: ']' },
  '{': { name: 'mapping ({)', close: '}' },
};

/**
 * The opening quote or bracket that is never closed, if any. A small scanner over the text that
 * knows just enough YAML for this: comments, quoted and block scalars, flow collections, and
 * where a value can start (a quote inside a plain word like `it's` opens nothing).
 */
export function findUnclosed(text: string): { char: string; offset: number } | undefined {
  const stack: { char: string; offset: number }[] = [];
  let i = 0;
  let atValueStart = true;
  let lineIndent = 0;
  let blockIndent = -1; // inside a block scalar: its parent's indentation
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\n') {
      i++;
      let n = 0;
      while (text[i + n] === ' ') n++;
      const blank = text[i + n] === '\n' || text[i + n] === '\r' || i + n >= text.length;
      if (blockIndent >= 0) {
        if (blank || n > blockIndent) {
          i += n;
          while (i < text.length && text[i] !== '\n') i++;
          continue;
        }
        blockIndent = -1;
      }
      lineIndent = n;
      atValueStart = true;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    if (c === '#' && (i === 0 || /\s/.test(text[i - 1]!))) {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if ((c === '"' || c === "'") && atValueStart) {
      const open = i++;
      let closed = false;
      while (i < text.length) {
        if (c === '"' && text[i] === '\\') i += 2;
        else if (text[i] === c && c === "'" && text[i + 1] === "'") i += 2;
        else if (text[i] === c) {
          closed = true;
          i++;
          break;
        } else i++;
      }
      if (!closed) return { char: c, offset: open };
      atValueStart = false;
      continue;
    }
    if ((c === '[' || c === '{') && (atValueStart || stack.length > 0)) {
      stack.push({ char: c, offset: i++ });
      atValueStart = true;
      continue;
    }
    if ((c === ']' || c === '}') && stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if ((top.char === '[') !== (c === ']')) return top;
      stack.pop();
      i++;
      atValueStart = false;
      continue;
    }
    if ((c === '|' || c === '>') && atValueStart && stack.length === 0) {
      blockIndent = lineIndent;
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if (c === ',' && stack.length > 0) {
      atValueStart = true;
      i++;
      continue;
    }
    if ((c === ':' || c === '-' || c === '?') && (i + 1 >= text.length || /[\s,\]\}]/.test(text[i + 1]!))) {
      atValueStart = true;
      i++;
      continue;
    }
    atValueStart = false;
    i++;
  }
  return stack.at(-1);
}

/**
 * The first block-mapping key written as a plain `*…` (`**:`, `*:`, `*.md:`) whose name no anchor
 * `&name` in the file defines: meant as text (a selector, a glob), read by YAML as an alias.
 */
function unquotedStarKey(text: string): { key: string; offset: number } | undefined {
  const line = /^([ ]*(?:-[ ]+)?)(\*[^\s#]*?)[ ]*:(?=[ \t]|\r?$)/gm;
  for (const m of text.matchAll(line)) {
    const key = m[2]!;
    const anchor = key.slice(1);
    if (anchor !== '' && [' ', '\n', '\r', '\t', ''].some((after) => (after === '' ? text.endsWith(`&${anchor}`) : text.includes(`&${anchor}${after}`)))) continue;
    return { key, offset: m.index + m[1]!.length };
  }
  return undefined;
}

function firstSentence(s: string): string {
  const line = s.split('\n')[0] ?? s;
  return line.replace(/ at line \d+, column \d+.*$/, '');
}

/**
 * The encoding of a file that is not UTF-8 text in a way YAML would misread (a UTF-16 or UTF-32
 * file is mostly null bytes to a UTF-8 reader), from its byte order mark or its null bytes.
 */
export function foreignEncoding(b: Buffer): string | undefined {
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xfe && b[2] === 0 && b[3] === 0) return 'UTF-32LE';
  if (b.length >= 4 && b[0] === 0 && b[1] === 0 && b[2] === 0xfe && b[3] === 0xff) return 'UTF-32BE';
  if (b.length >= 2 && b[0] === 0xff && b[1] === 0xfe) return 'UTF-16LE (with a byte order mark)';
  if (b.length >= 2 && b[0] === 0xfe && b[1] === 0xff) return 'UTF-16BE (with a byte order mark)';
  if (b.length >= 2 && b.indexOf(0) >= 0) {
    // No mark: ASCII text in UTF-16 has a null byte beside every character.
    const n = Math.min(b.length, 512) & ~1;
    let even = 0;
    let odd = 0;
    for (let i = 0; i < n; i += 2) {
      if (b[i] === 0) even++;
      if (b[i + 1] === 0) odd++;
    }
    if (odd > n / 4 && even === 0) return 'UTF-16LE';
    if (even > n / 4 && odd === 0) return 'UTF-16BE';
  }
  return undefined;
}
