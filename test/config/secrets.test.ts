/** The secret registry: every registered value is masked wherever it appears, in any form. */
import { describe, expect, it } from 'vitest';
import { MASK, SecretRegistry } from '../../src/config/secrets.js';

describe('SecretRegistry.redact', () => {
  it('masks a value, its JSON-escaped form and its doubly escaped form whole', () => {
    const r = new SecretRegistry();
    r.add('pa"ss\\word');
    const json = JSON.stringify({ v: 'pa"ss\\word' });
    expect(r.redact(`raw pa"ss\\word, json ${json}, twice ${JSON.stringify(json)}`)).not.toMatch(/pa|ss|word/);
  });

  it('masks values registered before and after the matcher was built, across many rebuilds', () => {
    const r = new SecretRegistry();
    const values = Array.from({ length: 500 }, (_, i) => `svc-secret-${String(i).padStart(6, '0')}-tail`);
    const seen: string[] = [];
    for (const v of values) {
      r.add(v);
      seen.push(v);
      // Interleaved: a message after every addition, naming the first, the latest and a middle one.
      const probe = [seen[0], seen[Math.floor(seen.length / 2)], v].join(' | ');
      expect(r.redact(probe)).toBe([MASK, MASK, MASK].join(' | '));
    }
    expect(r.redact(values.join('\n'))).toBe(values.map(() => MASK).join('\n'));
  });

  it('masks the longer of two values that overlap at one position, so no part of it remains', () => {
    const r = new SecretRegistry();
    r.add('abcd');
    for (let i = 0; i < 70; i++) r.add(`filler-${i}-xyz`); // forces a rebuild with "abcd" compiled
    r.add('abcdefgh-long'); // pending, contains the compiled "abcd"
    expect(r.redact('x abcdefgh-long y abcd z')).toBe(`x ${MASK} y ${MASK} z`);
  });

  it('leaves text without secrets unchanged and ignores values shorter than four characters', () => {
    const r = new SecretRegistry();
    r.add('abc');
    r.add('secret-value');
    expect(r.redact('abc and nothing else')).toBe('abc and nothing else');
  });
});
