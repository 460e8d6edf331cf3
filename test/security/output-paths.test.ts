/**
 * Every output the command line names (plan's --out, --markdown and --report, drift's --junit) is
 * refused when it would overwrite a configuration file, a file the configuration reads (`source:`)
 * or anything under .git/, as a token's sink is (issue 28, item 9): `drift --junit plumb.yaml`
 * overwrote the configuration. Refused before anything is written, with the file left as it was.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { harness } from '../resources/group-access-tokens/helpers.js';
import type { Harness } from '../resources/group-access-tokens/helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function configured(): Promise<Harness> {
  const hh = await harness({ projects: [{ path_with_namespace: 'platform/app', default_branch: 'main', files: { 'README.md': 'x\n' } }] });
  hh.config({ platform: { tokens: { deploy: {} } } });
  hh.wd.write('plumb.yaml', hh.wd.read('plumb.yaml') + '    projects:\n      platform/app:\n        files:\n          doc.md: {source: files/doc.md}\n');
  hh.wd.write('files/doc.md', '# the doc\n');
  mkdirSync(path.join(hh.wd.dir, '.git/hooks'), { recursive: true });
  writeFileSync(path.join(hh.wd.dir, '.git/hooks/pre-commit'), '#!/bin/sh\nexit 0\n');
  return hh;
}

const CASES: [string[], string, string][] = [
  [['drift', '--junit', 'plumb.yaml'], 'plumb.yaml', '--junit plumb.yaml would overwrite the configuration file plumb.yaml'],
  [['plan', '--out', 'files/doc.md'], 'files/doc.md', '--out files/doc.md would overwrite the source of repository file "doc.md"'],
  [['plan', '--markdown', '.git/hooks/pre-commit'], '.git/hooks/pre-commit', '--markdown .git/hooks/pre-commit would overwrite a file inside .git/'],
  [['plan', '--report', './plumb.yaml'], 'plumb.yaml', '--report ./plumb.yaml would overwrite the configuration file plumb.yaml'],
  [['plan', '--html', 'files/doc.md'], 'files/doc.md', '--html files/doc.md would overwrite the source of repository file "doc.md"'],
  [['drift', '--html', '.git/hooks/pre-commit'], '.git/hooks/pre-commit', '--html .git/hooks/pre-commit would overwrite a file inside .git/'],
  [['report', '--html', 'plumb.yaml'], 'plumb.yaml', '--html plumb.yaml would overwrite the configuration file plumb.yaml'],
];

describe('outputs never overwrite the configuration, its sources or .git/', () => {
  it.each(CASES)('plumb %j is refused, and %s is left as it was', async (args, file, message) => {
    h = await configured();
    const before = readFileSync(path.join(h.wd.dir, file), 'utf8');
    const r = await h.run(args);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_OUTPUT_UNWRITABLE');
    expect(r.stderr).toContain(message);
    expect(readFileSync(path.join(h.wd.dir, file), 'utf8')).toBe(before);
  });

  it('writes an output beside the configuration', async () => {
    h = await configured();
    const r = await h.run(['drift', '--junit', 'drift-junit.xml']);
    expect(r.stderr).not.toContain('PLUMB_OUTPUT_UNWRITABLE');
    expect(readFileSync(path.join(h.wd.dir, 'drift-junit.xml'), 'utf8')).toContain('<testsuites name="plumb drift"');
  });
});
