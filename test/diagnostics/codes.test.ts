import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIAGNOSTIC_CODES } from '../../src/diagnostics/codes.js';
import { KIND_ENTRIES } from '../../src/resources/index.js';

const src = path.resolve(import.meta.dirname, '../../src');

/** Product source, without the registry itself and the emulator (which speaks the service's language). */
function productSource(): string {
  const files = (readdirSync(src, { recursive: true }) as string[]).filter(
    (f) => f.endsWith('.ts') && !f.startsWith('emulator') && f !== path.join('diagnostics', 'codes.ts'),
  );
  return files.map((f) => readFileSync(path.join(src, f), 'utf8')).join('\n');
}

describe('the diagnostic code registry', () => {
  const text = productSource();

  it('lists no code that plumb never emits', () => {
    const dead = Object.keys(DIAGNOSTIC_CODES).filter((code) => !text.includes(`'${code}'`));
    expect(dead).toEqual([]);
  });

  it('gives every code, the kinds\' own included, a one-line meaning that ends with a full stop', () => {
    for (const [code, meaning] of [...Object.entries(DIAGNOSTIC_CODES), ...KIND_ENTRIES.flatMap((k) => Object.entries(k.ownCodes ?? {}))]) {
      expect(meaning, code).toMatch(/^\S.{10,}\.$/);
      expect(meaning, code).not.toContain('\n');
    }
  });

  it('lists in docs/diagnostics.md the codes the built-in kinds own in their folders too', () => {
    const doc = readFileSync(path.resolve(import.meta.dirname, '../../docs/diagnostics.md'), 'utf8');
    const own = KIND_ENTRIES.flatMap((k) => Object.keys(k.ownCodes ?? {}));
    expect(own.length).toBeGreaterThan(0);
    for (const code of own) expect(doc, code).toContain(`| \`${code}\` |`);
  });
});
