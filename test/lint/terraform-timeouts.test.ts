/**
 * Tests that drive the real terraform get a timeout that fits their work (issue 29.18): the suite's
 * default 30 s timed four of them out on a busy 2-core machine. Every suite of a test file that
 * finds terraform on PATH (`onPath('terraform'…)`) runs with `{ timeout: TERRAFORM_TEST_TIMEOUT_MS }`
 * (test/helpers/terraform.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? testFiles(p) : e.name.endsWith('.test.ts') ? [p] : [];
  });
}

const drivers = testFiles(path.join(root, 'test')).filter((f) => !f.includes(`${path.sep}lint${path.sep}`) && /onPath\(\s*'terraform'/.test(readFileSync(f, 'utf8')));

describe('suites that drive terraform', () => {
  it('are found (the check has something to check)', () => {
    expect(drivers.map((f) => path.relative(root, f)).sort()).toEqual(
      expect.arrayContaining(['test/provider/terraform.e2e.test.ts', 'test/provider/data-sources.e2e.test.ts', 'test/cdktf/secret-variable.test.ts']),
    );
  });

  it.each(drivers.map((f) => [path.relative(root, f)]))('%s gives each of its terraform suites TERRAFORM_TEST_TIMEOUT_MS', (rel) => {
    const text = readFileSync(path.join(root, rel), 'utf8');
    const suites = [...text.matchAll(/describe\.runIf\([^)]*\)\(([^\n]*)/g)].map((m) => m[1]!);
    expect(suites.length).toBeGreaterThan(0);
    for (const s of suites) expect(s, rel).toContain('{ timeout: TERRAFORM_TEST_TIMEOUT_MS }');
  });
});
