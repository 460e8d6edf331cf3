/** Which files a configuration is: the paths of the command line expanded, and how each is shown. */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Diagnostic } from '../diagnostics/index.js';
import { configRoot } from './files.js';
import { fileErrorSentence } from '../util/file-error.js';

const DEFAULT_NAMES = ['plumb.yaml', 'plumb.yml', 'plumb'];

/** Expands the paths given on the command line into the YAML files to read, in a stable order. */
export function resolveConfigFiles(paths: readonly string[], cwd = process.cwd()): { files: string[]; diagnostics: Diagnostic[]; roots: Map<string, string> } {
  const diagnostics: Diagnostic[] = [];
  const roots = new Map<string, string>();
  let inputs = [...paths];
  if (inputs.length === 0) {
    const found = DEFAULT_NAMES.find((n) => exists(path.resolve(cwd, n)));
    if (!found) {
      diagnostics.push({
        severity: 'error',
        code: 'PLUMB_CONFIG_NOT_FOUND',
        summary: 'No configuration given and none found in the current directory',
        detail: `Looked for ${DEFAULT_NAMES.join(', ')} in ${cwd}.`,
        suggestion: 'pass a file or directory, e.g. `plumb validate config/`',
      });
      return { files: [], diagnostics, roots };
    }
    // Both plumb.yaml and plumb.yml: reading one would silently ignore the other.
    const both = DEFAULT_NAMES.slice(0, 2).filter((n) => exists(path.resolve(cwd, n)));
    if (both.length > 1) {
      diagnostics.push({ severity: 'error', code: 'PLUMB_CONFIG_AMBIGUOUS', summary: `Both ${both.join(' and ')} exist in ${cwd}; plumb would read one and ignore the other`, suggestion: 'merge them into one file (or a plumb/ directory), or name the one to read: `plumb validate plumb.yaml`' });
      return { files: [], diagnostics, roots };
    }
    inputs = [found];
  }
  const files: string[] = [];
  for (const p of inputs) {
    const abs = path.resolve(cwd, p);
    let st;
    try {
      st = statSync(abs);
    } catch (err) {
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
      diagnostics.push({
        severity: 'error',
        code: missing ? 'PLUMB_CONFIG_NOT_FOUND' : 'PLUMB_CONFIG_UNREADABLE',
        summary: missing ? `Configuration path "${p}" does not exist` : `Cannot read configuration path "${p}": ${fileErrorSentence(err)}`,
        suggestion: 'check the path; plumb reads a YAML file or a directory of YAML files',
      });
      continue;
    }
    if (st.isDirectory()) {
      let found: string[];
      try {
        found = walkYaml(abs);
      } catch (err) {
        diagnostics.push({
          severity: 'error',
          code: 'PLUMB_CONFIG_UNREADABLE',
          summary: `Cannot read directory "${p}": ${fileErrorSentence(err)}`,
          suggestion: 'check the permissions of the directory and the ones inside it',
        });
        continue;
      }
      if (found.length === 0) {
        diagnostics.push({
          severity: 'error',
          code: 'PLUMB_CONFIG_NOT_FOUND',
          summary: `Directory "${p}" holds no .yaml or .yml file`,
        });
      }
      const root = configRoot(abs, cwd);
      for (const f of found) if (!roots.has(f)) roots.set(f, root);
      files.push(...found);
    } else {
      if (!roots.has(abs)) roots.set(abs, configRoot(abs, cwd));
      files.push(abs);
    }
  }
  return { files: [...new Set(files)], diagnostics, roots };
}

function walkYaml(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walkYaml(full));
    else if (/\.ya?ml$/i.test(entry.name)) out.push(full);
  }
  return out;
}

function exists(p: string): boolean {
  try {
    statSync(p);
    return true;
  } catch {
    return false;
  }
}

export function displayName(abs: string, cwd: string): string {
  const rel = path.relative(cwd, abs);
  return rel.startsWith('..') || path.isAbsolute(rel) ? abs : rel.split(path.sep).join('/');
}
