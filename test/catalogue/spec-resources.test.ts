/**
 * The catalogue's group access token, repository file and Pages facts (src/catalogue/resources.ts)
 * against `shared/spec/tokens-files-pages.md`, read table by table (test/helpers/spec-tables.ts).
 * As for the settings document: in CI the checks run and fail when the document is missing;
 * elsewhere they are skipped without it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ACCESS_LEVELS,
  BLAME_COMMIT_FIELDS,
  BLAME_RANGE_FIELDS,
  DEFAULT_TOKEN_ACCESS_LEVEL,
  FILE_METADATA_HEADERS,
  FILE_WRITE_FIELDS,
  FILE_WRITE_RESULT_FIELDS,
  GROUP_ACCESS_TOKEN_FIELDS,
  LIMITS,
  PAGES_DEPLOYMENT_FIELDS,
  PAGES_SETTINGS_FIELDS,
  PAGES_UPDATE_FIELDS,
  REPOSITORY_FILE_FIELDS,
  REVOKE_ERRORS,
  ROTATE_ERRORS,
  TOKEN_CREATE_FIELDS,
  TOKEN_LIST_QUERY_FIELDS,
  TOKEN_LIST_SORTS,
  TOKEN_LIST_STATES,
  TOKEN_ROTATE_FIELDS,
} from '../../src/catalogue/index.js';
import type { ResourceFieldSpec } from '../../src/catalogue/index.js';
import { SPEC_DIR, specDir, specTestMode } from '../helpers/spec-names.js';
import { namesOf, specLine, specTable, specType } from '../helpers/spec-tables.js';

const dir = specDir();
const markdownPath = join(dir ?? SPEC_DIR, 'tokens-files-pages.md');
const md = dir && existsSync(markdownPath) ? readFileSync(markdownPath, 'utf8') : '';

const shape = (fields: readonly ResourceFieldSpec[]) => fields.map((f) => ({ name: f.name, type: f.type, nullable: f.nullable === true }));

/** Rows `name | type | …` → the same shape as the catalogue's. */
function specShape(rows: string[][], rename: (n: string) => string = (n) => n) {
  return rows.flatMap(([name = '', type = '']) => namesOf(name).map((n) => ({ name: rename(n), ...specType(type) })));
}

/** `a (string), b (array of string)` → fields. */
function inlineFields(text: string) {
  return [...text.matchAll(/([a-z_]+) \(([^)]+)\)/g)].map((m) => {
    const t = m[2]!.split(';')[0]!.trim();
    return { name: m[1]!, ...specType(t) };
  });
}

describe.skipIf(specTestMode(md !== '') === 'skip')('the resource catalogue against the tokens, files and Pages document', () => {
  it(`finds the tokens, files and Pages document at ${markdownPath}`, () => {
    expect(md, `${markdownPath} is missing: CI must have ../shared/spec next to the repository`).not.toBe('');
  });
  if (!md) return;

  it('has the fields and types of the group access token object (2.1)', () => {
    expect(shape(GROUP_ACCESS_TOKEN_FIELDS)).toEqual(specShape(specTable(md, '### 2.1 Group access token')));
    const secret = GROUP_ACCESS_TOKEN_FIELDS.filter((f) => f.secret).map((f) => f.name);
    expect(secret).toEqual(specTable(md, '### 2.1 Group access token').filter(([, , notes]) => /secret value/.test(notes ?? '')).map(([n]) => n));
  });

  it('names the access levels as the spec lists them, with its default (2.1, 4.1, 8)', () => {
    const notes = specTable(md, '### 2.1 Group access token').find(([n]) => n === 'access_level')![2]!;
    const levels = Object.fromEntries([...notes.matchAll(/(\d+) ([A-Z][a-z]+)/g)].map((m) => [m[1]!, m[2]!.toLowerCase()]));
    expect(Object.fromEntries(Object.entries(ACCESS_LEVELS).map(([k, v]) => [k, v]))).toEqual(levels);
    const create = specTable(md, '### 4.1 Group access tokens', 1).find(([n]) => n === 'access_level')![3]!;
    expect(create).toContain(`default ${DEFAULT_TOKEN_ACCESS_LEVEL}`);
    const limit = specTable(md, '## 8. Limits').find(([n]) => n === 'Default access_level')!;
    expect(Number(limit[2])).toBe(DEFAULT_TOKEN_ACCESS_LEVEL);
  });

  it('has the fields of a repository file and every metadata header (2.2)', () => {
    expect(shape(REPOSITORY_FILE_FIELDS)).toEqual(specShape(specTable(md, '### 2.2 Repository file')));
    const headers = [...specLine(md, '### 2.2 Repository file', 'Metadata headers').matchAll(/`(X-Service-[A-Za-z0-9-]+)`/g)].map((m) => m[1]!);
    expect(Object.keys(FILE_METADATA_HEADERS)).toEqual(headers);
  });

  it('has the fields of a blame range and of its commit (2.3)', () => {
    const rows = specTable(md, '### 2.3 Blame range');
    expect(shape(BLAME_RANGE_FIELDS)).toEqual(specShape(rows));
    expect(shape(BLAME_COMMIT_FIELDS)).toEqual(inlineFields(rows.find(([n]) => n === 'commit')![2]!));
  });

  it('has the fields of a file write result (2.4)', () => {
    expect(shape(FILE_WRITE_RESULT_FIELDS)).toEqual(specShape(specTable(md, '### 2.4 File write result')));
  });

  it('has the fields of the Pages settings and of a deployment (2.5)', () => {
    expect(shape(PAGES_SETTINGS_FIELDS)).toEqual(specShape(specTable(md, '### 2.5 Pages settings'), (n) => n.replace(/\[\]$/, '')));
    expect(shape(PAGES_DEPLOYMENT_FIELDS)).toEqual(inlineFields(specLine(md, '### 2.5 Pages settings', 'Deployment:')));
  });

  it('has the query parameters of the token list, its sorts and states (4.1)', () => {
    const rows = specTable(md, '### 4.1 Group access tokens', 0).filter(([n]) => !n!.endsWith('(path)'));
    expect(TOKEN_LIST_QUERY_FIELDS.map((f) => ({ name: f.name, type: f.type, required: f.required }))).toEqual(
      rows.flatMap(([n = '', t = '', r = '']) => namesOf(n).map((name) => ({ name, type: specType(t).type, required: r === 'yes' }))),
    );
    expect([...TOKEN_LIST_SORTS]).toEqual(rows.find(([n]) => n === 'sort')![3]!.split(',').map((s) => s.trim()));
    expect([...TOKEN_LIST_STATES]).toEqual(rows.find(([n]) => n === 'state')![3]!.split(' or ').map((s) => s.trim()));
  });

  it('has the body of token create and rotate (4.1)', () => {
    const rows = specTable(md, '### 4.1 Group access tokens', 1);
    expect(TOKEN_CREATE_FIELDS.map((f) => ({ name: f.name, type: f.type, required: f.required }))).toEqual(
      rows.map(([n = '', t = '', r = '']) => ({ name: n, type: specType(t).type, required: r === 'yes' })),
    );
    const rotate = specLine(md, '### 4.1 Group access tokens', '**POST /groups/:id/access_tokens/:token_id/rotate**');
    expect(TOKEN_ROTATE_FIELDS.map((f) => f.name)).toEqual([...rotate.matchAll(/Optional body field `([a-z_]+)`/g)].map((m) => m[1]));
  });

  it('records per method which file write fields are required, optional or refused (4.2)', () => {
    const presence = (c: string) => (c === 'required' ? 'required' : c === 'optional' ? 'optional' : 'absent');
    expect(FILE_WRITE_FIELDS.map((f) => ({ name: f.name, type: f.type, methods: f.methods }))).toEqual(
      specTable(md, '### 4.2 Repository files').map(([n = '', t = '', post = '', put = '', del = '']) => ({
        name: n,
        type: specType(t).type,
        methods: { POST: presence(post), PUT: presence(put), DELETE: presence(del) },
      })),
    );
    const encoding = specTable(md, '### 4.2 Repository files').find(([n]) => n === 'encoding')![5]!;
    expect(FILE_WRITE_FIELDS.find((f) => f.name === 'encoding')).toMatchObject({ enum: [...encoding.matchAll(/`([a-z0-9]+)`/g)].map((m) => m[1]), default: /default (\w+)/.exec(encoding)![1] });
  });

  it('has the Pages update fields (4.3)', () => {
    expect(PAGES_UPDATE_FIELDS.map((f) => ({ name: f.name, type: f.type, required: f.required }))).toEqual(
      specTable(md, '### 4.3 Pages').map(([n = '', t = '', r = '']) => ({ name: n, type: specType(t).type, required: r === 'yes' })),
    );
  });

  it('has the error statuses of rotate and revoke (7)', () => {
    const rotate = specTable(md, '## 7. Errors').map(([s]) => Number(s)).filter((s) => s >= 400);
    expect(Object.keys(ROTATE_ERRORS).map(Number)).toEqual(rotate);
    const revoke = specLine(md, '## 7. Errors', 'Revoke');
    expect(Object.keys(REVOKE_ERRORS).map(Number)).toEqual([...revoke.matchAll(/\b(4\d\d)\b/g)].map((m) => Number(m[1])));
  });

  it('has the limits (8)', () => {
    const rows = specTable(md, '## 8. Limits');
    const rate = rows.find(([n]) => n === 'Rate')!;
    expect(`${LIMITS.largeBlobRateLimit.requestsPerMinute} requests per minute`).toBe(rate[2]);
    expect(rate[1]).toContain(`larger than ${LIMITS.largeBlobRateLimit.aboveBytes / 1024 / 1024} MB`);
    expect(rows.find(([n]) => n === 'Default rotation expiry')![2]).toBe(LIMITS.rotationDefaultExpiryDays === 7 ? '1 week' : `${LIMITS.rotationDefaultExpiryDays} days`);
  });

  it('dates the fields the versioning notes date (9)', () => {
    const notes = specLine(md, '## 9. Versioning', '- Introduction notes');
    const version = (what: string) => new RegExp(`${what} (\\d+\\.\\d+)`).exec(notes)?.[1];
    expect(TOKEN_LIST_QUERY_FIELDS.find((f) => f.name === 'state')?.since).toBe(version('state filter of token list'));
    expect(TOKEN_ROTATE_FIELDS.find((f) => f.name === 'expires_at')?.since).toBe(version('its `expires_at` field'));
    expect(PAGES_SETTINGS_FIELDS.find((f) => f.name === 'primary_domain')?.since).toBe(version('`primary_domain`'));
    expect(PAGES_UPDATE_FIELDS.find((f) => f.name === 'pages_primary_domain')?.since).toBe(version('`primary_domain`'));
  });
});
