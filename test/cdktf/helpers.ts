/**
 * CDKTF apps for the tests, set up as a user's app would be: a directory with cdktf.json and its
 * own node_modules holding cdktf, constructs, tsx and plumb (links into this repository, so the
 * app imports the built `plumb-gitops/cdktf` exactly as an installed package). Needs `npm run build`.
 */
import { cpSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { removeWhenDone } from '../helpers/scratch.js';

export const root = path.resolve(import.meta.dirname, '../..');

/** A fresh app directory; `files` are written relative to it (cdktf.json defaults to running main.ts with tsx). */
export function cdktfApp(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-cdktf-app-'));
  removeWhenDone(dir);
  const modules = path.join(dir, 'node_modules');
  mkdirSync(path.join(modules, '.bin'), { recursive: true });
  for (const name of ['cdktf', 'constructs', 'tsx', 'typescript']) symlinkSync(path.join(root, 'node_modules', name), path.join(modules, name), 'dir');
  symlinkSync(root, path.join(modules, 'plumb-gitops'), 'dir');
  symlinkSync(path.join(root, 'node_modules/.bin/tsx'), path.join(modules, '.bin/tsx'));
  const all = { 'cdktf.json': JSON.stringify({ language: 'typescript', app: 'tsx main.ts' }), 'package.json': '{ "type": "module" }\n', ...files };
  for (const [rel, text] of Object.entries(all)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

/** Copies files or folders of this repository into `dir`, at the same relative paths. */
export function copyFromRepo(dir: string, rels: readonly string[]): void {
  for (const rel of rels) cpSync(path.join(root, rel), path.join(dir, rel), { recursive: true });
}

/** A TypeScript app body: imports plumb's constructs and synthesizes one stack named `stack`. */
export function appSource(stack: string, body: string): string {
  return `import { App, TerraformStack } from 'cdktf';
import { applicationSettings, groupAccessToken, projectPages, provider, repositoryFile } from 'plumb-gitops/cdktf';

const app = new App();
const stack = new TerraformStack(app, ${JSON.stringify(stack)});
void applicationSettings; void groupAccessToken; void projectPages; void provider; void repositoryFile;
${body}
app.synth();
`;
}
