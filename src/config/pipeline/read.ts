/**
 * Stage 1 of loading a configuration (docs/architecture.md, steps 2–3): **read**. Which documents
 * (the paths given, expanded into their YAML files by ../paths.ts, or documents another front-end
 * holds in memory), each document's configuration root (a real path), and each file's bytes, read
 * only through ../files.ts (inside the root, not in .git/, a regular file within the cap) and
 * checked to be UTF-8 text a code frame may show. Nothing is parsed here.
 *
 * A document that cannot be read keeps its place with its problem, so the diagnostics of reading
 * and parsing come out in the documents' order (./parse.ts passes the problem on).
 */
import type { Diagnostic } from '../../diagnostics/index.js';
import { fileErrorSentence } from '../../util/file-error.js';
import { configRoot, isShowableText, LocalFileError, readLocalFile, secretRootsFrom } from '../files.js';
import type { FileRoots } from '../files.js';
import { displayName, resolveConfigFiles } from '../paths.js';
import { foreignEncoding } from '../syntax.js';
import type { ConfigDocument } from '../load.js';

/** What to read: configuration paths as the command line gives them, or documents. */
export type ReadInput = { readonly paths: readonly string[] } | { readonly documents: readonly ConfigDocument[] };

export interface ReadOptions {
  /** Directory file names are shown relative to. */
  readonly cwd: string;
  /** For PLUMB_FILE_ROOTS. */
  readonly env: NodeJS.ProcessEnv;
  /** The configuration root of every document, when the caller knows it (LoadOptions.root). */
  readonly root?: string;
}

/** One document, read: its text, or why it has none. */
export interface ReadDocument {
  readonly file: string;
  readonly abs: string;
  readonly roots: FileRoots;
  readonly text?: string;
  /** Set when there is no text. */
  readonly problem?: Diagnostic;
}

export interface ReadConfig {
  readonly documents: readonly ReadDocument[];
  /** Shown file name → absolute path, for every document (read or not). */
  readonly files: Map<string, string>;
  /** Problems of the paths themselves (nothing there, two candidates, …), before any document's. */
  readonly diagnostics: readonly Diagnostic[];
}

export function readConfig(input: ReadInput, opts: ReadOptions): ReadConfig {
  let docs: readonly ConfigDocument[];
  let diagnostics: readonly Diagnostic[] = [];
  if ('paths' in input) {
    const resolved = resolveConfigFiles(input.paths, opts.cwd);
    diagnostics = resolved.diagnostics;
    docs = resolved.files.map((abs) => ({ abs, root: opts.root === undefined ? resolved.roots.get(abs) : undefined }));
  } else {
    docs = input.documents;
  }
  const secretRoots = secretRootsFrom(opts.env);
  const files = new Map<string, string>();
  const documents = docs.map((doc): ReadDocument => {
    const file = doc.file ?? displayName(doc.abs, opts.cwd);
    files.set(file, doc.abs);
    const roots: FileRoots = { root: doc.root ?? opts.root ?? configRoot(doc.abs, opts.cwd), secretRoots };
    const read = readText(doc, file, roots);
    return typeof read === 'string' ? { file, abs: doc.abs, roots, text: read } : { file, abs: doc.abs, roots, problem: read };
  });
  return { documents, files, diagnostics };
}

function readText(doc: ConfigDocument, file: string, roots: FileRoots): string | Diagnostic {
  let bytes: Buffer;
  try {
    bytes = doc.text === undefined ? readLocalFile(doc.abs, 'config', roots) : Buffer.from(doc.text, 'utf8');
  } catch (err) {
    const refused = err instanceof LocalFileError && err.code === 'PLUMB_LOCAL_FILE_REFUSED';
    return {
      severity: 'error',
      code: refused ? 'PLUMB_LOCAL_FILE_REFUSED' : 'PLUMB_CONFIG_UNREADABLE',
      summary: `${refused ? 'Refused to read' : 'Cannot read'} ${file}: ${fileErrorSentence(err)}`,
      suggestion: refused ? 'keep configuration files inside the configuration root, as regular files (docs/config.md#local-files)' : 'check the path and its permissions',
      location: { file, line: 1, column: 1 },
    };
  }
  const encoding = foreignEncoding(bytes);
  if (encoding) {
    return {
      severity: 'error',
      code: 'PLUMB_CONFIG_ENCODING',
      summary: `${file} is encoded as ${encoding}; plumb reads configuration files as UTF-8`,
      suggestion: `save the file as UTF-8, e.g. \`iconv -f ${encoding.replace(/ .*/, '')} -t UTF-8\``,
      location: { file, line: 1, column: 1 },
    };
  }
  if (!isShowableText(bytes)) {
    // Not text: none of its bytes may reach a code frame (nor a terminal).
    return {
      severity: 'error',
      code: 'PLUMB_CONFIG_ENCODING',
      summary: `${file} is not UTF-8 text (it holds invalid UTF-8 or control characters); plumb reads configuration files as UTF-8 text`,
      suggestion: 'check that the file is the YAML file you meant; save it as UTF-8 text',
      location: { file, line: 1, column: 1 },
    };
  }
  const text = bytes.toString('utf8');
  // A byte order mark is not content: dropping it keeps line 1's columns right.
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
