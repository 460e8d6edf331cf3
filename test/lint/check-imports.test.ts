/**
 * The import rules of docs/architecture.md (scripts/check-imports.ts): each rule fails on a fixture
 * tree that breaks it, and the repository itself passes.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { checkImports } from '../../scripts/check-imports.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A fixture tree: src/ files by path. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'plumb-imports-'));
  dirs.push(root);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, 'src', rel)), { recursive: true });
    writeFileSync(path.join(root, 'src', rel), text);
  }
  return root;
}

const rules = (files: Record<string, string>) => checkImports(tree(files)).map((v) => `${v.rule} ${v.file}`);

describe('the import rules', () => {
  it('pass on the repository', () => {
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
    expect(checkImports(root)).toEqual([]);
  });

  it('pass on a tree that follows the table', () => {
    expect(rules({
      'engine/plan.ts': 'export type Plan = {};',
      'render/human.ts': "import type { Plan } from '../engine/plan.js';\nexport const x = (p: Plan) => p;",
      'resources/pages/provider.ts': "import { y } from '../../engine/engine.js';\nexport const p = y;",
      'engine/engine.ts': 'export const y = 1;',
    })).toEqual([]);
  });

  it('fail when the engine imports a resource kind', () => {
    expect(rules({ 'engine/engine.ts': "import { k } from '../resources/pages/provider.js';\nexport const x = k;", 'resources/pages/provider.ts': 'export const k = 1;' })).toEqual(['table engine/engine.ts']);
  });

  it('fail when a renderer imports anything but the plan types', () => {
    expect(rules({ 'render/human.ts': "import { l } from '../config/load.js';\nexport const x = l;", 'config/load.ts': 'export const l = 1;' })).toEqual(['table render/human.ts']);
  });

  it('fail when the emulator imports product code beyond the catalogue and util', () => {
    expect(rules({ 'emulator/server.ts': "import { e } from '../engine/engine.js';\nexport const x = e;", 'engine/engine.ts': 'export const e = 1;' })).toEqual(['table emulator/server.ts']);
  });

  it('fail when the provider imports a kind directly instead of through the registry', () => {
    expect(rules({ 'provider/resources.ts': "import { p } from '../resources/repository-files/payload.js';\nexport const x = p;", 'resources/repository-files/payload.ts': 'export const p = 1;' })).toEqual(['table provider/resources.ts']);
  });

  it('fail when config/ reaches a kind or the registry: the kinds are passed in from the top', () => {
    expect(rules({ 'config/validate.ts': "import { r } from '../resources/pages/config.js';\nexport const x = r;", 'resources/pages/config.ts': 'export const r = 1;' })).toEqual(['table config/validate.ts']);
    expect(rules({ 'config/load.ts': "import { K } from '../resources/index.js';\nexport const x = K;", 'resources/index.ts': 'export const K = 1;' })).toEqual(['table config/load.ts']);
    expect(rules({ 'config/validate.ts': "import { R } from '../engine/risks.js';\nexport const x = R;", 'engine/risks.ts': 'export const R = 1;' })).toEqual(['table config/validate.ts']);
  });

  it('fail when the schema generator or the CDKTF reader reaches the registry instead of taking the kinds', () => {
    expect(rules({ 'schema/build.ts': "import { K } from '../resources/index.js';\nexport const x = K;", 'resources/index.ts': 'export const K = 1;' })).toEqual(['table schema/build.ts']);
    expect(rules({ 'cdktf/documents.ts': "import { K } from '../resources/index.js';\nexport const x = K;", 'resources/index.ts': 'export const K = 1;' })).toEqual(['table cdktf/documents.ts']);
  });

  it('fail when the api imports the engine', () => {
    expect(rules({ 'api/client.ts': "import { e } from '../engine/engine.js';\nexport const x = e;", 'engine/engine.ts': 'export const e = 1;' })).toEqual(['table api/client.ts']);
  });

  it('fail when the schema generator imports beyond the catalogue', () => {
    expect(rules({ 'schema/terraform.ts': "import { r } from '../resources/index.js';\nexport const x = r;", 'resources/index.ts': 'export const r = 1;' })).toEqual(['table schema/terraform.ts']);
  });

  it('fail on a kind importing another kind', () => {
    expect(rules({ 'resources/pages/provider.ts': "import { t } from '../group-access-tokens/identity.js';\nexport const x = t;", 'resources/group-access-tokens/identity.ts': 'export const t = 1;' })).toEqual(['kind-to-kind resources/pages/provider.ts']);
  });

  it('fail on a dynamic import() where a static import is banned', () => {
    expect(rules({ 'engine/engine.ts': "export async function f() { return import('../resources/index.js'); }", 'resources/index.ts': 'export const r = 1;' })).toEqual(['dynamic-import engine/engine.ts']);
  });

  it('fail on a runtime import cycle, and not on a type-only one', () => {
    expect(rules({
      'engine/engine.ts': "import { p } from './plan.js';\nexport const e = p;",
      'engine/plan.ts': "import { s } from './state.js';\nexport const p = s;",
      'engine/state.ts': "import { e } from './engine.js';\nexport const s = () => e;",
    })).toEqual(['cycle engine/engine.ts']);
    expect(rules({
      'engine/engine.ts': "import { p } from './plan.js';\nexport const e = p;",
      'engine/plan.ts': "import { s } from './state.js';\nexport const p = s;",
      'engine/state.ts': "import type { E } from './engine.js';\nexport const s = (x: E) => x;",
    })).toEqual([]);
  });

  it('fail on a cycle among folders, even through type-only imports the table allows', () => {
    // commands/ and cli.ts may import anything, so only the folder rule sees this circle.
    expect(rules({
      'cli.ts': "import type { R } from './commands/run.js';\nexport const c = (r: R) => r;",
      'commands/run.ts': "import { c } from '../cli.js';\nexport type R = typeof c;\nexport const r = c;",
    })).toEqual(['folder-cycle cli']);
    // One folder importing the other, never back: no cycle.
    expect(rules({
      'commands/run.ts': "import { e } from '../engine/engine.js';\nexport const r = e;",
      'engine/engine.ts': 'export const e = 1;',
    })).toEqual([]);
  });

  it('fail on a write to standard output outside the views', () => {
    expect(rules({ 'engine/engine.ts': "export function f() { process.stdout.write('x'); }" })).toEqual(['stdout engine/engine.ts']);
    expect(rules({ 'render/human.ts': "export function f() { process.stdout.write('x'); }" })).toEqual([]);
  });

  it('fail on a command that writes standard output itself instead of through its view', () => {
    // Every command: the phase-2 exceptions (comment, export, reconcile, show, validate) are gone.
    for (const command of ['comment', 'export', 'reconcile', 'show', 'validate']) {
      expect(rules({ [`commands/${command}.ts`]: "export function f(io: { stdout(s: string): void }) { io.stdout('x'); }" })).toEqual([`stdout commands/${command}.ts`]);
    }
    // However the Io is named or reached.
    expect(rules({ 'commands/reconcile.ts': "export function f(io0: { stdout(s: string): void }) { io0.stdout('x'); }" })).toEqual(['stdout commands/reconcile.ts']);
    expect(rules({ 'commands/export.ts': "export class C { constructor(private io: { stdout(s: string): void }) {} f() { this.io.stdout('x'); } }" })).toEqual(['stdout commands/export.ts']);
    expect(rules({ 'commands/views/show.ts': "export function f(io: { stdout(s: string): void }) { io.stdout('x'); }" })).toEqual([]);
  });
});
