import { describe, expect, it } from 'vitest';
import { apiPath, buildQuery, encodePathSegment } from '../../src/api/path.js';

describe('apiPath', () => {
  it('passes numeric ids through and encodes a group full path as one segment', () => {
    expect(apiPath`/groups/${42}/access_tokens`).toBe('/groups/42/access_tokens');
    expect(apiPath`/groups/${'platform/infra'}/access_tokens`).toBe('/groups/platform%2Finfra/access_tokens');
  });

  it('encodes slashes, dots, spaces and # in a file path', () => {
    expect(apiPath`/projects/${7}/repository/files/${'conf/app settings.v2#1.yml'}`).toBe(
      '/projects/7/repository/files/conf%2Fapp%20settings%2Ev2%231%2Eyml',
    );
  });

  it('encodes a dot-dot segment so URL normalisation cannot collapse it', () => {
    expect(encodePathSegment('..')).toBe('%2E%2E');
    expect(new URL(`http://h/api/v4${apiPath`/projects/${1}/repository/files/${'../x'}`}`).pathname).toBe(
      '/api/v4/projects/1/repository/files/%2E%2E%2Fx',
    );
  });

  it('encodes the characters encodeURIComponent leaves alone', () => {
    expect(encodePathSegment("a!b'c(d)e*f~g-h_i")).toBe('a%21b%27c%28d%29e%2Af~g-h_i');
  });

  it('rejects empty, negative and fractional parameters', () => {
    expect(() => apiPath`/groups/${''}`).toThrow(TypeError);
    expect(() => apiPath`/groups/${-1}`).toThrow(TypeError);
    expect(() => apiPath`/groups/${1.5}`).toThrow(TypeError);
  });

  it('rejects a query string written into the literal', () => {
    expect(() => apiPath`/groups?page=2`).toThrow(/query/);
  });
});

describe('buildQuery', () => {
  it('writes arrays as key[]= and nested objects as key[sub]=', () => {
    expect(buildQuery({ scopes: ['api', 'read_api'], range: { start: 2, end: 5 } })).toBe(
      'scopes[]=api&scopes[]=read_api&range[start]=2&range[end]=5',
    );
  });

  it('leaves out undefined and null, writes booleans and dates, and encodes values', () => {
    const at = new Date('2025-01-02T03:04:05.000Z');
    expect(buildQuery({ a: undefined, b: null, c: false, d: at, e: 'x y&z', f: 0 })).toBe(
      'c=false&d=2025-01-02T03%3A04%3A05.000Z&e=x%20y%26z&f=0',
    );
  });

  it('returns an empty string when there is nothing to send', () => {
    expect(buildQuery(undefined)).toBe('');
    expect(buildQuery({ range: { start: undefined } })).toBe('');
  });
});
