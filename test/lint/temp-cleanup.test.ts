/**
 * The suite cleans up after itself (issue 29.18): a run left about 1,070 directories (55 MB) in the
 * temp directory, most of them the CLI harness's working directories. `workdir()` removes its
 * directory when the test that made it ends, or, made outside a test, when the file's tests end.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { workdir } from '../helpers/cli.js';

const atCollection = workdir();
let inTest = '';

describe('workdir()', () => {
  it('gives a directory that exists while its test runs', () => {
    inTest = workdir().dir;
    expect(existsSync(inTest)).toBe(true);
    expect(existsSync(atCollection.dir)).toBe(true);
  });

  it('has removed the directory once the test that made it ended', () => {
    expect(inTest).not.toBe('');
    expect(existsSync(inTest)).toBe(false);
    // One made at collection lives until the file's tests end.
    expect(existsSync(atCollection.dir)).toBe(true);
  });
});
