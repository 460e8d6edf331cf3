/** YAML aliases: the bounds on their expansion per file, and the error for a file beyond them. */
import type { Node as YamlNode } from 'yaml';
import type { Diagnostic } from '../diagnostics/index.js';
import { PlumbError } from '../diagnostics/error.js';
import { lineCounterOf, parseWithPositions, yamlLib } from './yaml-doc.js';
import type { SourceFile } from './yaml-doc.js';

/**
 * Bounds on alias expansion per file, against "billion laughs" documents (a few lines of nested
 * aliases that expand to billions of nodes). Counted as the aliases would expand: an alias of a
 * list that itself holds ten aliases counts eleven. A hand-written configuration stays far below.
 */
export const ALIAS_LIMITS = { aliases: 10_000, nodes: 100_000, chars: 1_000_000 } as const;

export interface AliasBudget {
  /** Objects already copied once: meeting one again is an alias being expanded. */
  readonly seen: Set<object>;
  aliases: number;
  /** Nodes copied inside alias expansions. */
  nodes: number;
  /** How many alias expansions the copy is inside of. */
  depth: number;
}

export function newAliasBudget(): AliasBudget {
  return { seen: new Set(), aliases: 0, nodes: 0, depth: 0 };
}

/**
 * Thrown while a file's aliases are expanded, once they go beyond the bounds; the loader catches it
 * and reports {@link aliasExpansionDiagnostic}, which locates the alias that crossed them.
 */
export class AliasLimitExceeded extends PlumbError {
  declare readonly code: 'PLUMB_YAML_ALIAS_LIMIT';
  constructor() {
    super('PLUMB_YAML_ALIAS_LIMIT', `YAML aliases expand beyond ${ALIAS_LIMITS.aliases} aliases or ${ALIAS_LIMITS.nodes} nodes`);
  }
}

/**
 * The error for a file whose aliases expand beyond the bounds, located at the first alias (in the
 * order of the file) at which the expansion crosses them; `undefined` when it stays within them
 * (unless `always`). Found on `yaml`'s unexpanded document: each anchored node's expanded size is
 * computed once, so this costs the size of the file. Counts what js-yaml's copy cannot see: an
 * alias of a long string repeated many times.
 */
export function aliasExpansionDiagnostic(f: SourceFile, always = false): Diagnostic | undefined {
  const doc = parseWithPositions(f);
  const { isAlias, isMap, isSeq, isPair, isScalar } = yamlLib();
  interface Size {
    nodes: number;
    aliases: number;
    chars: number;
  }
  const memo = new Map<unknown, Size>();
  const sizeOf = (node: unknown): Size => {
    const known = memo.get(node);
    if (known) return known;
    memo.set(node, { nodes: 1, aliases: 0, chars: 0 }); // a cycle counts as one node
    let out: Size = { nodes: 1, aliases: 0, chars: isScalar(node) ? String(node.value).length : 0 };
    if (isAlias(node)) {
      const t = sizeOf(node.resolve(doc));
      out = { nodes: t.nodes, aliases: 1 + t.aliases, chars: t.chars };
    } else if (isMap(node) || isSeq(node)) {
      for (const item of node.items) {
        for (const part of isPair(item) ? [item.key, item.value] : [item]) {
          if (part === null || typeof part !== 'object') continue;
          const s = sizeOf(part);
          out.nodes += s.nodes;
          out.aliases += s.aliases;
          out.chars += s.chars;
        }
      }
    }
    memo.set(node, out);
    return out;
  };
  const total: Size = { nodes: 0, aliases: 0, chars: 0 };
  let at: YamlNode | undefined;
  const walk = (node: unknown): void => {
    if (at || node === null || typeof node !== 'object') return;
    if (isAlias(node)) {
      const s = sizeOf(node);
      total.aliases += s.aliases;
      total.nodes += s.nodes;
      total.chars += s.chars;
      if (total.aliases > ALIAS_LIMITS.aliases || total.nodes > ALIAS_LIMITS.nodes || total.chars > ALIAS_LIMITS.chars) at = node;
    } else if (isMap(node) || isSeq(node)) {
      for (const item of node.items) {
        if (isPair(item)) {
          walk(item.key);
          walk(item.value);
        } else walk(item);
      }
    }
  };
  walk(doc.contents);
  if (!at && !always) return undefined;
  const lc = lineCounterOf(f);
  const start = at?.range ? lc.linePos(at.range[0]) : { line: 1, col: 1 };
  const end = at?.range ? lc.linePos(at.range[1]) : undefined;
  const n = (x: number) => x.toLocaleString('en');
  return {
    severity: 'error',
    code: 'PLUMB_YAML_ALIAS_LIMIT',
    summary: 'YAML aliases here expand the document beyond what plumb reads',
    detail: `plumb expands at most ${n(ALIAS_LIMITS.aliases)} aliases, ${n(ALIAS_LIMITS.nodes)} aliased values and ${n(ALIAS_LIMITS.chars)} aliased characters per file (nested aliases count as often as they are expanded); nothing of this file was used.`,
    suggestion: 'write the values out, or alias fewer, smaller values',
    location: { file: f.file, line: start.line, column: start.col, ...(end && { endLine: end.line, endColumn: end.col }) },
  };
}

/** An anchor (`&name`) where a value can start: only such files can expand aliases at all. */
export const ANCHOR = /(?:^|[\s[{,:?-])&[^\s,[\]{}]/m;
