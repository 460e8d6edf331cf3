import { describe, expect, it } from 'vitest';
import { anyPathGlob, isPathGlob, matchesPathGlob, pathGlobProblem } from '../../src/util/path-glob.js';

describe('path patterns (one segment with *, any depth with **)', () => {
  it('matches a plain path only to itself, ignoring case as the service does', () => {
    expect(matchesPathGlob('platform/api', 'platform/api')).toBe(true);
    expect(matchesPathGlob('platform/api', 'Platform/API')).toBe(true);
    expect(matchesPathGlob('platform/api', 'platform/api2')).toBe(false);
    expect(matchesPathGlob('platform/api', 'platform/api/x')).toBe(false);
    expect(isPathGlob('platform/api')).toBe(false);
  });

  it('lets * match exactly one segment, or a run of characters inside one', () => {
    expect(matchesPathGlob('platform/*', 'platform/api')).toBe(true);
    expect(matchesPathGlob('platform/*', 'platform/infra/db')).toBe(false);
    expect(matchesPathGlob('platform/*', 'platform')).toBe(false);
    expect(matchesPathGlob('platform/legacy-*', 'platform/legacy-billing')).toBe(true);
    expect(matchesPathGlob('platform/legacy-*', 'platform/billing-legacy')).toBe(false);
    expect(matchesPathGlob('*/api', 'teams/api')).toBe(true);
    expect(matchesPathGlob('platform/*-svc-*', 'platform/a-svc-b')).toBe(true);
  });

  it('lets a trailing ** match every depth below, but not the group itself', () => {
    expect(matchesPathGlob('platform/**', 'platform/api')).toBe(true);
    expect(matchesPathGlob('platform/**', 'platform/infra/deep/cache')).toBe(true);
    expect(matchesPathGlob('platform/**', 'platform')).toBe(false);
    expect(matchesPathGlob('platform/**', 'platformer/api')).toBe(false);
    expect(matchesPathGlob('**', 'a/b/c')).toBe(true);
  });

  it('lets an inner ** match zero or more segments', () => {
    expect(matchesPathGlob('platform/**/api', 'platform/api')).toBe(true);
    expect(matchesPathGlob('platform/**/api', 'platform/a/b/api')).toBe(true);
    expect(matchesPathGlob('platform/**/api', 'platform/a/b/api/x')).toBe(false);
    expect(matchesPathGlob('**/legacy/**', 'x/legacy/y')).toBe(true);
    expect(matchesPathGlob('**/legacy/**', 'legacy/y')).toBe(true);
  });

  it('matches a list when any of its patterns or paths does', () => {
    const excluded = anyPathGlob(['platform/old', 'platform/infra/**']);
    expect(['platform/old', 'platform/api', 'platform/infra/db', 'platform/infra'].filter(excluded)).toEqual(['platform/old', 'platform/infra/db']);
  });

  it('refuses empty segments, partial ** and characters readers take for wildcards, with the reason', () => {
    expect(pathGlobProblem('')).toMatch(/empty/);
    expect(pathGlobProblem('/platform')).toMatch(/leading or trailing/);
    expect(pathGlobProblem('platform//api')).toMatch(/empty segment/);
    expect(pathGlobProblem('platform/a**')).toMatch(/whole segment/);
    expect(pathGlobProblem('platform/ap?')).toMatch(/"\?" is not a wildcard/);
    expect(pathGlobProblem('platform/{a,b}')).toMatch(/not a wildcard/);
    expect(pathGlobProblem('platform/**/a-*')).toBeUndefined();
    expect(() => matchesPathGlob('a//b', 'a/b')).toThrow(/invalid path pattern/);
  });

  it('stays fast on a pattern built to make a backtracking matcher explode', () => {
    const pattern = `${'*a'.repeat(30)}*b/${'**/'.repeat(30)}x`;
    const path = `${'a'.repeat(250)}/${'s/'.repeat(40)}y`;
    const started = Date.now();
    expect(matchesPathGlob(pattern, path)).toBe(false);
    expect(Date.now() - started).toBeLessThan(500);
  });
});
