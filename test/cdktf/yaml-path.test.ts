import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from './helpers.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('the YAML path', () => {
  it('never imports cdktf or constructs: only the generated constructs do', () => {
    const offenders = sources(path.join(root, 'src'))
      .filter((f) => !f.includes(`${path.sep}generated${path.sep}cdktf${path.sep}`))
      .filter((f) => /from '(cdktf|constructs)'|import\('(cdktf|constructs)'\)/.test(readFileSync(f, 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('leaves cdktf and constructs out of the bundled CLI (run by every plumb command)', () => {
    const bundle = readFileSync(path.join(root, 'dist/plumb.cjs'), 'utf8');
    expect(bundle).toContain('PLUMB_CDKTF_SYNTH'); // the front-end itself is in, loaded only for an app
    for (const marker of ['TerraformStack', 'TerraformResource', 'constructs.Construct', 'Construct.isConstruct']) expect(bundle, marker).not.toContain(marker);
  });
});
