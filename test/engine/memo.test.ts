/**
 * The run's memo (src/engine/memo.ts): what a kind remembers lives exactly as long as the run and
 * the session it belongs to.
 */
import { describe, expect, it } from 'vitest';
import { Memo, RunMemo } from '../../src/engine/memo.js';

describe('the run memo', () => {
  it('gives every session a memo of its own, so a plan of one session never reuses another session\'s reads', () => {
    const run = new RunMemo();
    const a = run.open('prod');
    const b = run.open('prod');
    const lists = a.session.own('k:lists', () => new Map<string, number>());
    lists.set('g', 1);
    expect(a.session.own('k:lists', () => new Map<string, number>()).get('g')).toBe(1);
    expect(b.session.own('k:lists', () => new Map<string, number>()).has('g')).toBe(false);
  });

  it('reads who the credential is once per instance per run, across sessions', async () => {
    const run = new RunMemo();
    let reads = 0;
    const load = async () => ++reads;
    expect(await run.open('prod').identity.get('credential', load)).toBe(1);
    expect(await run.open('prod').identity.get('credential', load)).toBe(1);
    expect(await run.open('staging').identity.get('credential', load)).toBe(2);
  });

  it('shares reads across sessions only when the front-end asks (the provider), and never for a fresh plan', () => {
    expect(new RunMemo().open('i').reads).toBeUndefined();
    const walk = RunMemo.sharing();
    expect(walk.open('i').reads).toBe(walk.reads);
    const fresh = walk.fresh();
    expect(fresh.open('i').reads).toBeUndefined();
    expect(fresh.identity).toBe(walk.identity);
  });

  it('never shares a read that failed', async () => {
    const memo = new Memo();
    await expect(memo.get('k', () => Promise.reject(new Error('503')))).rejects.toThrow('503');
    expect(await memo.get('k', async () => 'again')).toBe('again');
  });

  it('records a write in a cached read and leaves an uncached key alone', async () => {
    const memo = new Memo();
    memo.update<number[]>('absent', (l) => [...l, 1]);
    expect(await memo.get('absent', async () => [0])).toEqual([0]);
    memo.update<number[]>('absent', (l) => [...l, 1]);
    expect(await memo.get('absent', async () => [9])).toEqual([0, 1]);
  });

  it('replaces an owned value when asked (a plan that checks its sinks afresh)', () => {
    const memo = new Memo();
    const first = memo.own('k:checks', () => new Map());
    const second = memo.replace('k:checks', new Map());
    expect(second).not.toBe(first);
    expect(memo.own('k:checks', () => new Map())).toBe(second);
  });
});
