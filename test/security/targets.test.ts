/**
 * `--target` globs come from the command line, but are matched against every address of a
 * configuration a merge request writes: a pattern like `*a*a*a*b` must cost time linear in the
 * address, not polynomial (issue 18 item 7). Timing targets belong in bench/; this test only makes
 * sure the old regular-expression matcher would not finish in its time limit.
 */
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { segmentMatches, targetSet } from '../../src/engine/targets.js';
import { distModule } from './harness.js';

describe('a --target glob', () => {
  it('matches by its literal pieces in order, stars within one segment, escapes literal', () => {
    const cases: [string, string, boolean][] = [
      ['*a*a*a*b', 'xaxaxab', true],
      ['*a*a*a*b', 'aab', false],
      ['*a*a*a*b', 'aaab', true],
      ['a*a', 'a', false],
      ['a*a', 'aa', true],
      ['*', '', true],
      ['**', 'x', true],
      ['ab*', 'ab', true],
      ['*ab', 'xab', true],
      ['*ab', 'abx', false],
      ['a*b*c', 'abc', true],
      ['a*b*c', 'acb', false],
      ['a*bc*bc', 'abcbc', true],
      ['a*bc*bc', 'abc', false],
      ['x\\*y', 'x*y', true],
      ['x\\*y', 'xay', false],
      ['x\\\\y', 'x\\y', true],
      ['group["platform/*"]', 'group["platform/a/b"]', true],
      ['group["platform/*"]', 'group["other/a"]', false],
    ];
    for (const [pattern, segment, expected] of cases) expect(segmentMatches(pattern, segment), `${pattern} ~ ${segment}`).toBe(expected);
    const t = targetSet(['prod.*a*a*a*b']);
    expect(t.targeted('prod.aaab.pages')).toBe(true);
    expect(t.targeted('prod.aaa')).toBe(false);
  });

  it('of the pathological form *a*a*a*b answers at once on a long segment', () => {
    const script = `
      const { targetSet } = await import(${JSON.stringify(pathToFileURL(distModule('engine/targets.js')).href)});
      const t = targetSet(['prod.*a*a*a*b', 'prod.group[*a*a*a*a*a*a*a*a*b]']);
      const long = 'a'.repeat(20000);
      const out = [t.targeted('prod.' + long), t.targeted('prod.' + long + 'b'), t.targeted('prod.group[' + long + ']')];
      console.log(JSON.stringify(out));
    `;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000, killSignal: 'SIGKILL' });
    expect(r.signal, 'the matcher did not finish within 20 s').toBeNull();
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual([false, true, false]);
  });
});
