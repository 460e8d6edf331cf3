/**
 * Stage 2 of loading a configuration: **parse**. Each document read (./read.ts) is registered
 * with the location index (positions are computed lazily, only when a diagnostic needs one), its
 * anchors measured when it has any (../aliases.ts), and parsed with js-yaml (YAML 1.2 core schema,
 * duplicate keys are errors); a syntax error is explained by ../syntax.ts. Values are not copied
 * or interpolated here: that is ./merge.ts, which needs every document parsed first.
 *
 * A front-end that already holds its documents as data (the CDKTF door, src/cdktf/load.ts) builds a
 * {@link ParsedConfig} itself and enters the pipeline at ./merge.ts.
 */
import jsYaml from 'js-yaml';
import type { Diagnostic } from '../../diagnostics/index.js';
import { LocationIndex } from '../locations.js';
import type { SourceFile } from '../yaml-doc.js';
import { syntaxDiagnostics } from '../syntax.js';
import { ANCHOR, aliasExpansionDiagnostic } from '../aliases.js';
import type { FileRoots } from '../files.js';
import type { ReadConfig } from './read.js';

/** One document, parsed. */
export interface ParsedDocument {
  readonly file: string;
  readonly abs: string;
  /** Its index in {@link ParsedConfig.locations}. */
  readonly fileIndex: number;
  readonly roots: FileRoots;
  readonly source: SourceFile;
  /** js-yaml's value (YAML 1.2 core schema), not yet copied nor interpolated. */
  readonly parsed: unknown;
}

export interface ParsedConfig {
  /** The documents that parsed, in order. */
  readonly documents: readonly ParsedDocument[];
  /** Every document's text (those that did not parse too), for code frames. */
  readonly texts: Map<string, string>;
  readonly locations: LocationIndex;
  /** Every document's shown name, in order. */
  readonly files: readonly string[];
  /** Shown file name → where that document may read local files from. */
  readonly roots: Map<string, FileRoots>;
  /** Shown file name → absolute path (relative paths in a document resolve against its directory). */
  readonly paths: Map<string, string>;
  /** The documents' reading and parsing problems, in the documents' order. */
  readonly diagnostics: Diagnostic[];
}

export function parseConfig(read: ReadConfig): ParsedConfig {
  const texts = new Map<string, string>();
  const locations = new LocationIndex();
  const diagnostics: Diagnostic[] = [];
  const documents: ParsedDocument[] = [];
  const roots = new Map<string, FileRoots>();
  for (const doc of read.documents) {
    roots.set(doc.file, doc.roots);
    if (doc.text === undefined) {
      if (doc.problem) diagnostics.push(doc.problem);
      continue;
    }
    const { file, abs, text } = doc;
    texts.set(file, text);
    const source: SourceFile = { file, abs, text };
    const fileIndex = locations.addFile(source);
    // Anchors are rare in configurations; a file that has one is measured before it is expanded.
    const expansion = ANCHOR.test(text) ? aliasExpansionDiagnostic(source) : undefined;
    if (expansion) {
      diagnostics.push(expansion);
      continue;
    }
    let parsed: unknown;
    try {
      parsed = jsYaml.load(text, { schema: jsYaml.CORE_SCHEMA, filename: file });
    } catch (err) {
      diagnostics.push(...syntaxDiagnostics(source, err));
      continue;
    }
    documents.push({ file, abs, fileIndex, roots: doc.roots, source, parsed });
  }
  return { documents, texts, locations, files: read.documents.map((d) => d.file), roots, paths: read.files, diagnostics };
}
