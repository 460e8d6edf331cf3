/**
 * The npm registry's `plumb` is someone else's package. Nothing users read or run may resolve
 * through that name: installs, imports, `$schema` paths and `npx` calls name `plumb-gitops`.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const SKIP = new Set(['node_modules', '.git', 'dist', 'test-results', 'package-lock.json']);

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name)) continue;
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) yield* walk(file);
    else if (/\.(md|ya?ml|ts|js|json|tf|sh)$/.test(name) || name === 'run') yield file;
  }
}

/** Ways a user's command or code resolves a package by name. */
const OLD_NAME = [
  /npm (?:install|i|add)(?:\s+(?:-[\w-]+|[\w@/.-]+))*?\s+plumb(?:@[\w.^~-]*)?(?=[\s`"']|$)/,
  /\bnpx (?:--yes |-y )?plumb(?![\w-])/,
  /\b(?:pnpm|yarn) add(?:\s+(?:-[\w-]+|[\w@/.-]+))*?\s+plumb(?:@[\w.^~-]*)?(?=[\s`"']|$)/,
  /from ['"]plumb(?:\/[\w-]+)?['"]/,
  /import\(['"]plumb(?:\/[\w-]+)?['"]\)/,
  /node_modules\/plumb\//,
  /reinstall plumb(?![\w-])/,
  // A subpath of the package named on its own (`plumb/cdktn`), as a doc names an import.
  /`plumb\/(?:cdktf|cdktn|schemas)\b/,
];

describe('the package name', () => {
  it('is plumb-gitops in package.json and the lock file, with the command plumb kept', () => {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { name: string; bin: Record<string, string> };
    const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as { name: string };
    expect(pkg.name).toBe('plumb-gitops');
    expect(lock.name).toBe('plumb-gitops');
    expect(Object.keys(pkg.bin)).toEqual(expect.arrayContaining(['plumb', 'plumb-gitops']));
  });

  it('no doc, template, example, script or message tells anyone to install or import the old name', () => {
    const offenders: string[] = [];
    for (const file of walk(root)) {
      if (file === import.meta.filename) continue;
      readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
        if (OLD_NAME.some((re) => re.test(line))) offenders.push(`${path.relative(root, file)}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(offenders).toEqual([]);
  });
});
