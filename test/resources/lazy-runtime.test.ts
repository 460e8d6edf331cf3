/**
 * A kind's registry entry is light and its runtime parts load only when a door needs them
 * (`KindEntry.load()`, src/resources/index.ts): `plumb validate` reads every kind's configuration
 * side and loads no provider, exporter or Terraform part, nor the API client; `plumb plan` loads
 * them. Checked on the unbundled build (dist/cli.js) in a child process, with a module hook that
 * lists every module it resolves.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, root } from '../provider/harness.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-lazy-kinds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(() => {
  ensureBuilt();
  writeFileSync(
    path.join(dir, 'hooks.mjs'),
    "import { appendFileSync } from 'node:fs';\nexport async function resolve(specifier, context, next) {\n  const r = await next(specifier, context);\n  appendFileSync(process.env.LOADED_OUT, r.url + '\\n');\n  return r;\n}\n",
  );
  writeFileSync(path.join(dir, 'register.mjs'), "import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n");
}, 300_000);

/** The modules of dist/ (relative paths) and the packages one `plumb ARGS` run resolves. */
function loaded(args: string[]): string[] {
  const out = path.join(dir, `out-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(out, '');
  const cli = pathToFileURL(path.join(root, 'dist/cli.js')).href;
  const run = `const { main } = await import(${JSON.stringify(cli)});\nawait main(${JSON.stringify(args)}, { stdout: () => {}, stderr: () => {}, isTTY: false, env: {}, cwd: ${JSON.stringify(root)} });`;
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(path.join(dir, 'register.mjs')).href, '--input-type=module', '-e', run], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
    env: { PATH: process.env.PATH ?? '', LOADED_OUT: out },
  });
  expect(r.error).toBeUndefined();
  const dist = pathToFileURL(path.join(root, 'dist')).href + '/';
  return readFileSync(out, 'utf8')
    .split('\n')
    .filter((u) => u.startsWith(dist) || u.includes('/node_modules/'))
    .map((u) => (u.startsWith(dist) ? u.slice(dist.length) : u.slice(u.lastIndexOf('/node_modules/') + 1)));
}

const RUNTIME = /^resources\/[^/]+\/(provider|runtime|export|terraform)\.js$/;

describe('a kind\'s runtime parts', () => {
  it('are not loaded by plumb validate, which reads every kind\'s configuration side', () => {
    const mods = loaded(['validate', 'examples/plumb']);
    expect(mods).toEqual(expect.arrayContaining(['resources/index.js', 'resources/settings/config.js', 'resources/pages/config.js']));
    expect(mods.filter((m) => RUNTIME.test(m) || m === 'api/client.js' || m.startsWith('node_modules/undici/'))).toEqual([]);
  });

  it('are loaded by plumb plan (so the check above can fail)', () => {
    const mods = loaded(['plan', 'examples/plumb']);
    for (const kind of ['settings', 'group-access-tokens', 'repository-files', 'pages']) expect(mods).toContain(`resources/${kind}/provider.js`);
  });
});
