/**
 * Where each value of the merged configuration was written: the pointer → file:line:col index,
 * built lazily from `yaml`'s source ranges, and the aliases `defaults:` adds (an inherited value is
 * located at its default).
 */
import type { Node as YamlNode } from 'yaml';
import type { SourceLocation } from '../diagnostics/index.js';
import { joinPointer } from './pointer.js';
import { ALIAS_LIMITS } from './aliases.js';
import { lineCounterOf, parseWithPositions, yamlLib } from './yaml-doc.js';
import type { RawLocation, SourceFile } from './yaml-doc.js';

/** Where a value of the merged configuration was written. */
export interface NodeLocation {
  /** The key that introduced the value (absent for the document root and list items). */
  readonly key?: SourceLocation;
  readonly value: SourceLocation;
}

/**
 * Where each value of the merged configuration was written. Files are parsed for positions lazily
 * (with `yaml`, which keeps source ranges) the first time one of their locations is asked for, so a
 * valid configuration never pays for it.
 */
export class LocationIndex {
  readonly #files: SourceFile[] = [];
  /** pointer → index of the file that defined it first. */
  readonly #owner = new Map<string, number>();
  /** An instance's value inherited from `defaults:` → the default's pointer (a whole subtree). */
  readonly #aliases = new Map<string, string>();

  /** @internal `pointer` and everything beneath it were written at `source` (an inherited default). */
  alias(pointer: string, source: string): void {
    this.#aliases.set(pointer, source);
  }

  /** The pointer where the value at `pointer` was written: itself, or its default's. */
  written(pointer: string): string {
    if (this.#aliases.size === 0) return pointer;
    for (let p = pointer; ; p = p.slice(0, p.lastIndexOf('/'))) {
      const source = this.#aliases.get(p);
      if (source !== undefined) return source + pointer.slice(p.length);
      if (p === '') return pointer;
    }
  }

  /** @internal */
  addFile(f: SourceFile): number {
    this.#files.push(f);
    return this.#files.length - 1;
  }

  /** @internal Records that `fileIndex` defines `pointer` (first definition wins). */
  own(pointer: string, fileIndex: number): void {
    if (!this.#owner.has(pointer)) this.#owner.set(pointer, fileIndex);
  }

  /** Name of the file that defined `pointer` (cheap: parses nothing). */
  fileOf(pointer: string): string | undefined {
    const f = this.#owner.get(this.written(pointer));
    return f === undefined ? undefined : this.#files[f]?.file;
  }

  /** Index of the file that defined `pointer` first. */
  ownerOf(pointer: string): number | undefined {
    return this.#owner.get(this.written(pointer));
  }

  get(pointer: string): NodeLocation | undefined {
    const at = this.written(pointer);
    const f = this.#owner.get(at);
    return f === undefined ? undefined : this.in(f, at);
  }

  /** The location of `pointer` in one particular file (for the second of two definitions). */
  in(fileIndex: number, pointer: string): NodeLocation | undefined {
    const f = this.#files[fileIndex];
    if (!f) return undefined;
    const raw = positionsOf(f).get(this.written(pointer));
    if (!raw) return undefined;
    const lc = lineCounterOf(f);
    const at = (r: readonly [number, number]): SourceLocation => {
      const start = lc.linePos(r[0]);
      const end = lc.linePos(r[1]);
      return { file: f.file, line: start.line, column: start.col, endLine: end.line, endColumn: end.col };
    };
    return raw.key ? { key: at(raw.key), value: at(raw.value) } : { value: at(raw.value) };
  }
}

function positionsOf(f: SourceFile): Map<string, RawLocation> {
  if (f.positions) return f.positions;
  const map = new Map<string, RawLocation>();
  const doc = parseWithPositions(f);
  const { isAlias, isMap, isSeq, isScalar, isPair } = yamlLib();
  const range = (n: YamlNode | null | undefined): [number, number] => [n?.range?.[0] ?? 0, n?.range?.[1] ?? n?.range?.[0] ?? 0];
  // The same bounds as the fast path: a file is only located here once js-yaml's copy stayed
  // within them, but this walk must not be the one that expands a bomb either.
  let aliases = 0;
  let expanded = 0;
  let inAlias = 0;
  const walk = (node: YamlNode | null, pointer: string, key: [number, number] | undefined, into: Map<string, RawLocation>): void => {
    if (node === null) return;
    if (inAlias > 0 && ++expanded > ALIAS_LIMITS.nodes) return;
    into.set(pointer, key ? { key, value: range(node) } : { value: range(node) });
    if (isAlias(node)) {
      // The value is the anchor's, but its place is where the alias is used.
      const target = node.resolve(doc);
      if (!target || ++aliases > ALIAS_LIMITS.aliases) return;
      const own = new Map<string, RawLocation>();
      inAlias++;
      walk(target as YamlNode, pointer, key, own);
      inAlias--;
      for (const [p, l] of own) if (p !== pointer) into.set(p, l);
    } else if (isMap(node)) {
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const keyNode = pair.key as YamlNode | null;
        const k = isScalar(keyNode) ? String(keyNode.value) : String(keyNode);
        walk(pair.value as YamlNode | null, joinPointer(pointer, k), range(keyNode), into);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => walk(item as YamlNode | null, joinPointer(pointer, i), undefined, into));
    }
  };
  walk(doc.contents as YamlNode | null, '', undefined, map);
  f.positions = map;
  return map;
}
