/**
 * The benchmark's configuration generator: it must reach the sizes the benchmarks and the
 * large-configuration tests ask for. It overflowed the stack at 40,000 resources, because it passed
 * every generated line as one argument of `Array.prototype.push` (a spread).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeLargeConfig } from '../../bench/generate-config.js';

describe('bench/generate-config.js', () => {
  it('writes a configuration of 40,000 resources without overflowing the stack', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-genconfig-'));
    const { file, resources } = writeLargeConfig(dir, 40_000);
    expect(resources).toBe(40_000);
    const text = readFileSync(file, 'utf8');
    // Half tokens, half files and Pages: every resource is one declaration line.
    const tokens = text.match(/^ {10}tok-\d+:$/gm)?.length ?? 0;
    const files = text.match(/^ {10}config\/file-\d+\.yaml:$/gm)?.length ?? 0;
    const pages = text.match(/^ {8}pages: /gm)?.length ?? 0;
    const settings = text.match(/^ {6}[a-z_]+: /gm)?.length ?? 0;
    expect(settings + tokens + files + pages).toBe(40_000);
    expect(tokens + settings).toBe(20_000);
  });
});
