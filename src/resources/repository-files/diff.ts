/**
 * A unified diff for `plan --show-content`, bounded: the common head and tail are trimmed, the rest
 * is compared line by line only while that stays small, and the output stops after MAX_LINES.
 */

/** Lines of diff output shown at most. */
export const MAX_LINES = 200;
/** Beyond this many changed lines on each side, the middle is shown as removed then added. */
const MAX_COMPARED = 1000;
const CONTEXT = 3;

type Op = { readonly t: ' ' | '-' | '+'; readonly s: string };

function split(text: string): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

function middleOps(a: readonly string[], b: readonly string[]): Op[] {
  if (a.length > MAX_COMPARED || b.length > MAX_COMPARED) return [...a.map((s) => ({ t: '-' as const, s })), ...b.map((s) => ({ t: '+' as const, s }))];
  // Longest common subsequence, table from the end.
  const w = b.length + 1;
  const lcs = new Uint16Array((a.length + 1) * w);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i * w + j] = a[i] === b[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      ops.push({ t: ' ', s: a[i]! });
      i++;
      j++;
    } else if (lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!) ops.push({ t: '-', s: a[i++]! });
    else ops.push({ t: '+', s: b[j++]! });
  }
  while (i < a.length) ops.push({ t: '-', s: a[i++]! });
  while (j < b.length) ops.push({ t: '+', s: b[j++]! });
  return ops;
}

function diffOps(before: string, after: string): Op[] {
  const a = split(before);
  const b = split(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  return [
    ...a.slice(0, head).map((s) => ({ t: ' ' as const, s })),
    ...middleOps(a.slice(head, a.length - tail), b.slice(head, b.length - tail)),
    ...a.slice(a.length - tail).map((s) => ({ t: ' ' as const, s })),
  ];
}

/** How many lines a unified diff of the two texts removes and adds (a diff not shown says this much). */
export function changedLines(before: string, after: string): { removed: number; added: number } {
  const ops = diffOps(before, after);
  return { removed: ops.filter((o) => o.t === '-').length, added: ops.filter((o) => o.t === '+').length };
}

/** `--- a/path` / `+++ b/path` and hunks; empty when the texts are equal. */
export function unifiedDiff(path: string, before: string, after: string): string {
  const ops = diffOps(before, after);
  if (!ops.some((o) => o.t !== ' ')) return '';
  // Group changes into hunks with CONTEXT lines around them.
  const out = [`--- a/${path}`, `+++ b/${path}`];
  let k = 0;
  let oldLine = 1;
  let newLine = 1;
  const advance = (o: Op) => {
    if (o.t !== '+') oldLine++;
    if (o.t !== '-') newLine++;
  };
  let truncated = 0;
  while (k < ops.length) {
    if (ops[k]!.t === ' ') {
      // Skip unchanged lines far from the next change.
      let next = k;
      while (next < ops.length && ops[next]!.t === ' ') next++;
      if (next === ops.length) break;
      const start = Math.max(k, next - CONTEXT);
      for (; k < start; k++) advance(ops[k]!);
    }
    // A hunk runs until CONTEXT*2 unchanged lines in a row (or the end).
    let end = k;
    let quiet = 0;
    while (end < ops.length && quiet <= CONTEXT * 2) {
      quiet = ops[end]!.t === ' ' ? quiet + 1 : 0;
      end++;
    }
    if (quiet > CONTEXT) end -= quiet - CONTEXT;
    const hunk = ops.slice(k, end);
    const oldCount = hunk.filter((o) => o.t !== '+').length;
    const newCount = hunk.filter((o) => o.t !== '-').length;
    const lines = [`@@ -${oldLine},${oldCount} +${newLine},${newCount} @@`, ...hunk.map((o) => `${o.t}${o.s}`)];
    for (const l of lines) {
      if (out.length < MAX_LINES + 2) out.push(l);
      else truncated++;
    }
    for (const o of hunk) advance(o);
    k = end;
  }
  if (truncated > 0) out.push(`… ${truncated} more line(s) of diff not shown`);
  return out.join('\n');
}
