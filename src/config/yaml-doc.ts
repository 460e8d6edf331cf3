/**
 * The `yaml` library, which keeps source ranges, loaded only on the error and location paths (the
 * fast path reads with js-yaml): a configuration file as read, its document with positions, and its
 * line counter.
 */
import type { Document, LineCounter } from 'yaml';
import type * as YamlLib from 'yaml';

/** One configuration file, and (built only when a location is asked for) its position index. */
export interface SourceFile {
  readonly file: string;
  readonly abs: string;
  readonly text: string;
  positions?: Map<string, RawLocation>;
}

/** Offsets into a file's text; turned into line and column only when a diagnostic needs them. */
export interface RawLocation {
  readonly key?: readonly [number, number];
  readonly value: readonly [number, number];
}

/**
 * A require made when called (`node:module` through `process.getBuiltinModule`): loading that
 * module and walking node_modules paths is what a valid configuration never needs.
 */
const requireCjs = (id: string): unknown => process.getBuiltinModule('node:module').createRequire(import.meta.url)(id);
type YamlModule = typeof YamlLib;
let yamlModule: YamlModule | undefined;
export function yamlLib(): YamlModule {
  yamlModule ??= requireCjs('yaml') as YamlModule;
  return yamlModule;
}

const lineCounters = new WeakMap<SourceFile, LineCounter>();
export function lineCounterOf(f: SourceFile): LineCounter {
  let lc = lineCounters.get(f);
  if (!lc) {
    lc = new (yamlLib().LineCounter)();
    lc.addNewLine(0);
    for (let i = f.text.indexOf('\n'); i >= 0; i = f.text.indexOf('\n', i + 1)) lc.addNewLine(i + 1);
    lineCounters.set(f, lc);
  }
  return lc;
}

export function parseWithPositions(f: SourceFile): Document {
  return yamlLib().parseDocument(f.text, { prettyErrors: false, uniqueKeys: true, merge: false });
}
