/** Conformance: repository files, spec sections 2.2-2.4, 4.2, 5, 7 and 8. */
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UPDATE_FAILED } from '../../src/emulator/files.js';
import {
  ADMIN,
  DEVELOPER,
  GUEST,
  MAINTAINER,
  OUTSIDER,
  OWNER,
  OWNER_READ,
  OWNER_READ_REPO,
  REPORTER,
  enc,
  start,
  type Api,
  type Clock,
} from './helpers.js';
import type { RunningEmulator } from '../../src/emulator/index.js';

/**
 * The metadata headers of HEAD on a file endpoint and the field each repeats, written from the spec
 * (tokens-files-pages.md 2.2, "Metadata headers"), not read from the catalogue the emulator runs on.
 */
const METADATA_HEADERS: Readonly<Record<string, string>> = {
  'X-Service-Blob-Id': 'blob_id',
  'X-Service-Commit-Id': 'commit_id',
  'X-Service-Content-Sha256': 'content_sha256',
  'X-Service-Encoding': 'encoding',
  'X-Service-File-Name': 'file_name',
  'X-Service-File-Path': 'file_path',
  'X-Service-Last-Commit-Id': 'last_commit_id',
  'X-Service-Ref': 'ref',
  'X-Service-Size': 'size',
  'X-Service-Execute-Filemode': 'execute_filemode',
};

let emulator: RunningEmulator;
let api: Api;
let clock: Clock;

beforeEach(async () => {
  ({ emulator, api, clock } = await start());
});
afterEach(() => emulator.close());

const P = '/projects/platform%2Finfra%2Fconfig';
const file = (path: string, suffix = ''): string => `${P}/repository/files/${enc(path)}${suffix}`;
const gitBlobId = (content: Buffer | string): string => {
  const data = Buffer.isBuffer(content) ? content : Buffer.from(content);
  return createHash('sha1').update(Buffer.concat([Buffer.from(`blob ${data.length}\0`), data])).digest('hex');
};
const SHA1 = /^[0-9a-f]{40}$/;
const README = 'line one\nline two\nline three\n';

async function write(method: 'POST' | 'PUT' | 'DELETE', path: string, body: Record<string, unknown>, token = MAINTAINER) {
  return api.call(method, file(path), { token, json: { branch: 'main', commit_message: `${method} ${path}`, ...body } });
}

describe('GET /projects/:id/repository/files/:file_path', () => {
  it('returns every field of 2.2 with Base64 content and real Git/SHA-256 digests', async () => {
    const r = await api.get(file('README.md'), { token: REPORTER, query: 'ref=main' });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(
      ['blob_id', 'commit_id', 'content', 'content_sha256', 'encoding', 'execute_filemode', 'file_name', 'file_path', 'last_commit_id', 'ref', 'size'].sort(),
    );
    expect(r.body).toMatchObject({
      file_name: 'README.md',
      file_path: 'README.md',
      size: Buffer.byteLength(README),
      encoding: 'base64',
      content: Buffer.from(README).toString('base64'),
      content_sha256: createHash('sha256').update(README).digest('hex'),
      ref: 'main',
      blob_id: gitBlobId(README),
      execute_filemode: false,
    });
    expect(r.body.commit_id).toMatch(SHA1);
    expect(r.body.last_commit_id).toBe(r.body.commit_id);
  });

  it('also sends the X-Service-* metadata headers', async () => {
    const r = await api.get(file('README.md'), { token: REPORTER, query: 'ref=main' });
    expect(r.headers.get('x-service-blob-id')).toBe(r.body.blob_id);
  });

  it('reports the execute flag', async () => {
    const r = await api.get(file('scripts/deploy.sh'), { token: REPORTER, query: 'ref=main' });
    expect(r.body.execute_filemode).toBe(true);
    expect(r.body.file_name).toBe('deploy.sh');
    expect(r.body.file_path).toBe('scripts/deploy.sh');
  });

  it('selects the default branch with ref=HEAD, and accepts a tag, a commit id and a short commit id', async () => {
    const main = await api.get(file('README.md'), { token: REPORTER, query: 'ref=main' });
    for (const ref of ['HEAD', 'v1.0', main.body.commit_id, main.body.commit_id.slice(0, 8)]) {
      const r = await api.get(file('README.md'), { token: REPORTER, query: `ref=${ref}` });
      expect(r.status, ref).toBe(200);
      expect(r.body.ref).toBe(ref);
      expect(r.body.commit_id).toBe(main.body.commit_id);
    }
  });

  it('reads a file of another branch', async () => {
    const r = await api.get(file('feature.txt'), { token: REPORTER, query: 'ref=feature' });
    expect(Buffer.from(r.body.content, 'base64').toString()).toBe('on feature\n');
    expect((await api.get(file('feature.txt'), { token: REPORTER, query: 'ref=main' })).body).toEqual({ message: '404 File Not Found' });
  });

  it('keeps last_commit_id on the commit that last changed the file while commit_id follows the ref', async () => {
    const before = await api.get(file('README.md'), { token: REPORTER, query: 'ref=main' });
    await write('POST', 'other.txt', { content: 'x' });
    const after = await api.get(file('README.md'), { token: REPORTER, query: 'ref=main' });
    expect(after.body.commit_id).not.toBe(before.body.commit_id);
    expect(after.body.last_commit_id).toBe(before.body.commit_id);
  });

  it('requires ref', async () => {
    expect((await api.get(file('README.md'), { token: REPORTER })).body).toEqual({ error: 'ref is missing' });
  });

  it('returns 404 Commit, File and Project Not Found', async () => {
    expect((await api.get(file('README.md'), { token: REPORTER, query: 'ref=nope' })).body).toEqual({ message: '404 Commit Not Found' });
    expect((await api.get(file('missing.md'), { token: REPORTER, query: 'ref=main' })).body).toEqual({ message: '404 File Not Found' });
    expect((await api.get(`/projects/999/repository/files/a/raw`, { token: ADMIN })).body).toEqual({ message: '404 Project Not Found' });
  });

  it('rejects a path with directory traversal', async () => {
    const r = await api.get(file('scripts/../README.md'), { token: REPORTER, query: 'ref=main' });
    expect(r).toMatchObject({ status: 400, body: { error: 'file_path should be a valid file path' } });
  });

  it('hides a private project from non-members and anonymous callers (404) and refuses a Guest (403)', async () => {
    expect((await api.get(file('README.md'), { token: OUTSIDER, query: 'ref=main' })).body).toEqual({ message: '404 Project Not Found' });
    expect((await api.get(file('README.md'), { query: 'ref=main' })).status).toBe(404);
    expect((await api.get(file('README.md'), { token: GUEST, query: 'ref=main' })).status).toBe(403);
    expect((await api.get(file('README.md'), { token: ADMIN, query: 'ref=main' })).status).toBe(200);
  });

  it('serves a file of a public project without a token', async () => {
    const r = await api.get(`/projects/platform%2Fsite/repository/files/${enc('index.html')}`, { query: 'ref=main' });
    expect(r.status).toBe(200);
  });

  it('serves an internal project to any signed-in user but not anonymously', async () => {
    const path = `/projects/32/repository/files/${enc('a.txt')}`;
    expect((await api.get(path, { token: OUTSIDER, query: 'ref=main' })).status).toBe(200);
    expect((await api.get(path, { query: 'ref=main' })).status).toBe(404);
  });

  it('accepts api, read_api and read_repository tokens for reading', async () => {
    for (const token of [OWNER, OWNER_READ, OWNER_READ_REPO]) {
      expect((await api.get(file('README.md'), { token, query: 'ref=main' })).status).toBe(200);
    }
  });
});

describe('rate limit (section 8): GET file on blobs larger than 10 MB', () => {
  /** GET without reading the (14 MB) body: only the status and headers matter here. */
  async function getStatus(path: string): Promise<{ status: number; retryAfter: string | null; body?: unknown }> {
    const res = await fetch(`${emulator.url}/api/v4${file(path)}?ref=main`, { headers: { 'PRIVATE-TOKEN': REPORTER } });
    const out = { status: res.status, retryAfter: res.headers.get('retry-after') };
    if (res.status === 429) return { ...out, body: await res.json() };
    await res.body?.cancel();
    return out;
  }

  it('allows 5 requests per minute, then answers 429 with Retry-After until the minute is over', async () => {
    emulator.state.pushFile(30, { path: 'huge.bin', content: Buffer.alloc(10 * 1024 * 1024 + 1, 0x61) });
    for (let i = 0; i < 5; i++) expect((await getStatus('huge.bin')).status).toBe(200);
    clock.advance(20_000);
    const limited = await getStatus('huge.bin');
    expect(limited.status).toBe(429);
    expect(limited.retryAfter).toBe('40');
    expect(limited.body).toEqual({ message: { error: 'This endpoint has been requested too many times. Try again later.' } });
    // Small blobs and HEAD are not limited.
    expect((await getStatus('README.md')).status).toBe(200);
    expect((await api.head(file('huge.bin'), { token: REPORTER, query: 'ref=main' })).status).toBe(200);
    clock.advance(40_000);
    expect((await getStatus('huge.bin')).status).toBe(200);
  });

  it('does not limit a blob of exactly 10 MB', async () => {
    emulator.state.pushFile(30, { path: 'ten.bin', content: Buffer.alloc(10 * 1024 * 1024, 0x61) });
    for (let i = 0; i < 6; i++) expect((await getStatus('ten.bin')).status).toBe(200);
  });
});

describe('HEAD /projects/:id/repository/files/:file_path', () => {
  it('returns only the ten X-Service-* metadata headers with the values of the GET fields', async () => {
    const get = await api.get(file('scripts/deploy.sh'), { token: REPORTER, query: 'ref=main' });
    const head = await api.head(file('scripts/deploy.sh'), { token: REPORTER, query: 'ref=main' });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    for (const [header, field] of Object.entries(METADATA_HEADERS)) {
      expect(head.headers.get(header), header).toBe(String(get.body[field]));
    }
  });

  it('answers 404 without a body for a missing file', async () => {
    const r = await api.head(file('missing'), { token: REPORTER, query: 'ref=main' });
    expect(r.status).toBe(404);
    expect(r.text).toBe('');
  });
});

describe('GET /projects/:id/repository/files/:file_path/blame', () => {
  it('returns one range with every line for a file of one commit', async () => {
    const r = await api.get(file('README.md', '/blame'), { token: REPORTER, query: 'ref=main' });
    expect(r.status).toBe(200);
    expect(r.body).toHaveLength(1);
    expect(r.body[0].lines).toEqual(['line one', 'line two', 'line three']);
    expect(Object.keys(r.body[0].commit).sort()).toEqual(
      ['author_email', 'author_name', 'authored_date', 'committed_date', 'committer_email', 'committer_name', 'id', 'message', 'parent_ids'].sort(),
    );
    expect(r.body[0].commit).toMatchObject({ message: 'Initial commit', parent_ids: [], author_name: 'Administrator' });
    expect(r.body[0].commit.authored_date).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('attributes each line to the commit that introduced it', async () => {
    const initial = (await api.get(file('README.md'), { token: REPORTER, query: 'ref=main' })).body.commit_id;
    clock.advance(60_000);
    await write('PUT', 'README.md', { content: 'line one\nline 2\nline three\nline four\n', author_name: 'Ann', author_email: 'ann@example.test' });
    const r = await api.get(file('README.md', '/blame'), { token: REPORTER, query: 'ref=main' });
    expect(r.body.map((x: { lines: string[] }) => x.lines)).toEqual([['line one'], ['line 2'], ['line three'], ['line four']]);
    expect(r.body[0].commit.id).toBe(initial);
    expect(r.body[1].commit).toMatchObject({ author_name: 'Ann', author_email: 'ann@example.test', committer_name: 'Max Maintainer', parent_ids: [initial] });
    expect(r.body[2].commit.id).toBe(initial);
    expect(r.body[3].commit.id).toBe(r.body[1].commit.id);
  });

  it('returns only the lines of range[start]..range[end]', async () => {
    const r = await api.get(file('README.md', '/blame'), { token: REPORTER, query: 'ref=main&range[start]=2&range[end]=3' });
    expect(r.body.flatMap((x: { lines: string[] }) => x.lines)).toEqual(['line two', 'line three']);
  });

  it('validates the range', async () => {
    const q = (range: string) => api.get(file('README.md', '/blame'), { token: REPORTER, query: `ref=main&${range}` });
    expect((await q('range[start]=3&range[end]=2')).body).toEqual({ message: 'range[start] must be less than or equal to range[end]' });
    expect((await q('range[start]=0&range[end]=2')).body).toEqual({ error: 'range[start] does not have a valid value' });
    expect((await q('range[start]=1')).body).toEqual({ error: 'range[end] is missing' });
    expect((await q('range[start]=x&range[end]=2')).body).toEqual({ error: 'range[start] is invalid' });
  });

  it('returns the metadata headers on HEAD', async () => {
    const r = await api.head(file('README.md', '/blame'), { token: REPORTER, query: 'ref=main' });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-service-file-path')).toBe('README.md');
    expect(r.text).toBe('');
  });
});

describe('GET /projects/:id/repository/files/:file_path/raw', () => {
  it('returns the raw content of the default branch when ref is omitted', async () => {
    const r = await api.get(file('README.md', '/raw'), { token: REPORTER });
    expect(r.status).toBe(200);
    expect(r.text).toBe(README);
    expect(r.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(r.headers.get('x-service-ref')).toBe('main');
  });

  it('returns binary content byte for byte', async () => {
    const res = await fetch(`${emulator.url}/api/v4${file('bin/data.bin', '/raw')}?ref=main`, { headers: { 'PRIVATE-TOKEN': REPORTER } });
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect([...new Uint8Array(await res.arrayBuffer())]).toEqual([0, 1, 2, 255]);
  });

  it('returns the LFS pointer by default and the LFS content with lfs=true', async () => {
    const pointer = await api.get(file('assets/big.bin', '/raw'), { token: REPORTER });
    expect(pointer.text).toMatch(/^version https:\/\/git-lfs\.github\.com\/spec\/v1\noid sha256:[0-9a-f]{64}\nsize 22\n$/);
    const content = await api.get(file('assets/big.bin', '/raw'), { token: REPORTER, query: 'lfs=true' });
    expect(content.text).toBe('the real large content');
    expect((await api.get(file('README.md', '/raw'), { token: REPORTER, query: 'lfs=true' })).text).toBe(README);
  });

  it('answers HEAD with the metadata headers only', async () => {
    const r = await api.head(file('README.md', '/raw'), { token: REPORTER, query: 'ref=main' });
    expect(r.status).toBe(200);
    expect(r.text).toBe('');
    expect(r.headers.get('x-service-size')).toBe(String(Buffer.byteLength(README)));
    for (const h of ['content-disposition', 'cache-control', 'pragma', 'expires']) expect(r.headers.get(h), h).toBeNull();
    expect(r.headers.get('content-type')).toBeNull();
    const own = [...r.headers.keys()].filter((h) => h.startsWith('x-service-')).sort();
    expect(own).toEqual(Object.keys(METADATA_HEADERS).map((h) => h.toLowerCase()).sort());
  });

  it('answers HEAD without ref with the default branch metadata', async () => {
    const r = await api.head(file('README.md', '/raw'), { token: REPORTER });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-service-ref')).toBe('main');
  });
});

describe('POST /projects/:id/repository/files/:file_path (create)', () => {
  it('creates the file with a commit and answers 201 {file_path, branch}', async () => {
    const r = await write('POST', 'docs/new.md', { content: '# New\n' });
    expect(r).toMatchObject({ status: 201, body: { file_path: 'docs/new.md', branch: 'main' } });
    const got = await api.get(file('docs/new.md'), { token: REPORTER, query: 'ref=main' });
    expect(Buffer.from(got.body.content, 'base64').toString()).toBe('# New\n');
    expect(got.body.blob_id).toBe(gitBlobId('# New\n'));
  });

  it('answers 400 when the file already exists', async () => {
    expect((await write('POST', 'README.md', { content: 'x' })).body).toEqual({ message: 'A file with this name already exists' });
  });

  it('requires branch, commit_message and content', async () => {
    const r = await api.post(file('x.txt'), { token: MAINTAINER, json: {} });
    expect(r).toMatchObject({ status: 400, body: { error: 'branch is missing, commit_message is missing, content is missing' } });
  });

  it('decodes base64 content and rejects an unknown encoding', async () => {
    await write('POST', 'b64.bin', { content: Buffer.from([9, 8, 7]).toString('base64'), encoding: 'base64' });
    const got = await api.get(file('b64.bin'), { token: REPORTER, query: 'ref=main' });
    expect([...Buffer.from(got.body.content, 'base64')]).toEqual([9, 8, 7]);
    expect((await write('POST', 'c.txt', { content: 'x', encoding: 'hex' })).body).toEqual({ error: 'encoding does not have a valid value' });
  });

  it('sets the execute flag with execute_filemode', async () => {
    await write('POST', 'run.sh', { content: 'echo\n', execute_filemode: true });
    expect((await api.get(file('run.sh'), { token: REPORTER, query: 'ref=main' })).body.execute_filemode).toBe(true);
  });

  it('creates a new branch from start_branch', async () => {
    const r = await write('POST', 'topic.txt', { branch: 'topic', start_branch: 'main', content: 't\n' });
    expect(r).toMatchObject({ status: 201, body: { branch: 'topic' } });
    expect((await api.get(file('README.md'), { token: REPORTER, query: 'ref=topic' })).status).toBe(200);
    expect((await api.get(file('topic.txt'), { token: REPORTER, query: 'ref=main' })).status).toBe(404);
  });

  it('refuses a missing branch without start_branch, a missing start_branch, and an existing branch with another start_branch', async () => {
    expect((await write('POST', 'a.txt', { branch: 'nope', content: 'x' })).body).toEqual({ message: 'You can only create or edit files when you are on a branch' });
    expect((await write('POST', 'a.txt', { branch: 'new', start_branch: 'nope', content: 'x' })).body).toEqual({ message: 'You can only create or edit files when you are on a branch' });
    expect((await write('POST', 'a.txt', { branch: 'feature', start_branch: 'main', content: 'x' })).body).toEqual({
      message: "A branch called 'feature' already exists. Switch to that branch in order to make changes",
    });
  });

  it('lets a Developer push to an unprotected branch but not to the protected default branch', async () => {
    expect((await write('POST', 'd.txt', { branch: 'feature', content: 'x' }, DEVELOPER)).status).toBe(201);
    expect((await write('POST', 'd.txt', { content: 'x' }, DEVELOPER)).body).toEqual({ message: 'You are not allowed to push into this branch' });
  });

  it('refuses a Reporter (403), an outsider (404), an anonymous caller (401) and a read_api token (403)', async () => {
    expect((await write('POST', 'r.txt', { content: 'x' }, REPORTER)).status).toBe(403);
    expect((await write('POST', 'r.txt', { content: 'x' }, OUTSIDER)).body).toEqual({ message: '404 Project Not Found' });
    expect((await api.post(file('r.txt'), { json: { branch: 'main', commit_message: 'm', content: 'x' } })).status).toBe(401);
    const scoped = await write('POST', 'r.txt', { content: 'x' }, OWNER_READ);
    expect(scoped.status).toBe(403);
    expect(scoped.body.error).toBe('insufficient_scope');
  });

  it('creates the first commit of an empty repository', async () => {
    const r = await api.post(`/projects/platform%2Fempty/repository/files/${enc('README.md')}`, {
      token: ADMIN,
      json: { branch: 'main', commit_message: 'first', content: 'hello\n' },
    });
    expect(r.status).toBe(201);
    const blame = await api.get(`/projects/33/repository/files/${enc('README.md')}/blame`, { token: ADMIN, query: 'ref=main' });
    expect(blame.body[0].commit).toMatchObject({ message: 'first', parent_ids: [] });
  });

  it('accepts a form body', async () => {
    const r = await api.post(file('form.txt'), { token: MAINTAINER, form: { branch: 'main', commit_message: 'form', content: 'f' } });
    expect(r.status).toBe(201);
  });
});

describe('PUT /projects/:id/repository/files/:file_path (update)', () => {
  it('updates the file with a new commit and answers 200 {file_path, branch}', async () => {
    const before = await api.get(file('README.md'), { token: REPORTER, query: 'ref=main' });
    const r = await write('PUT', 'README.md', { content: 'changed\n' });
    expect(r).toMatchObject({ status: 200, body: { file_path: 'README.md', branch: 'main' } });
    const after = await api.get(file('README.md'), { token: REPORTER, query: 'ref=main' });
    expect(after.body.blob_id).toBe(gitBlobId('changed\n'));
    expect(after.body.last_commit_id).not.toBe(before.body.last_commit_id);
    expect(after.body.last_commit_id).toBe(after.body.commit_id);
  });

  it('400 with the non-specific message: the file path contains /../', async () => {
    const r = await write('PUT', 'scripts/../README.md', { content: 'x' });
    expect(r).toMatchObject({ status: 400, body: { message: UPDATE_FAILED } });
    expect(r.headers.get('content-type')).toMatch(/application\/json/);
  });

  it('400 with the non-specific message: the commit would be empty because the content is unchanged', async () => {
    const r = await write('PUT', 'README.md', { content: README });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ message: UPDATE_FAILED });
  });

  it('answers every failed update commit with one message, so no cause can be told from the text', async () => {
    const causes = [
      await write('PUT', 'scripts/../README.md', { content: 'x' }),
      await write('PUT', 'README.md', { content: README }),
      await write('PUT', 'README.md', { content: 'x\n', last_commit_id: '0'.repeat(40) }),
      await write('PUT', 'nope.txt', { content: 'x' }),
      await write('PUT', 'README.md', { content: 'x\n', branch: 'nope' }),
      await write('PUT', 'README.md', { content: 'x\n' }, DEVELOPER),
    ];
    expect(new Set(causes.map((r) => `${r.status} ${JSON.stringify(r.body)}`))).toEqual(new Set([`400 ${JSON.stringify({ message: UPDATE_FAILED })}`]));
  });

  it('keeps parameter errors of an update specific', async () => {
    const r = await api.put(file('README.md'), { token: MAINTAINER, json: {} });
    expect(r.body).toEqual({ error: 'branch is missing, commit_message is missing, content is missing' });
  });

  it('400: the branch moved (last_commit_id is not the last commit of the file); 200 when it matches', async () => {
    const known = (await api.get(file('README.md'), { token: REPORTER, query: 'ref=main' })).body.last_commit_id;
    emulator.state.pushFile(30, { path: 'README.md', content: 'pushed meanwhile\n' });
    const stale = await write('PUT', 'README.md', { content: 'mine\n', last_commit_id: known });
    expect(stale).toMatchObject({ status: 400, body: { message: UPDATE_FAILED } });
    const fresh = (await api.get(file('README.md'), { token: REPORTER, query: 'ref=main' })).body.last_commit_id;
    expect((await write('PUT', 'README.md', { content: 'mine\n', last_commit_id: fresh })).status).toBe(200);
  });

  it('400: the file does not exist', async () => {
    expect((await write('PUT', 'nope.txt', { content: 'x' })).body).toEqual({ message: UPDATE_FAILED });
  });

  it('keeps the execute flag unless execute_filemode is given, and a mode-only change is a real commit', async () => {
    await write('PUT', 'scripts/deploy.sh', { content: '#!/bin/sh\necho v2\n' });
    expect((await api.get(file('scripts/deploy.sh'), { token: REPORTER, query: 'ref=main' })).body.execute_filemode).toBe(true);
    const r = await write('PUT', 'scripts/deploy.sh', { content: '#!/bin/sh\necho v2\n', execute_filemode: false });
    expect(r.status).toBe(200);
    expect((await api.get(file('scripts/deploy.sh'), { token: REPORTER, query: 'ref=main' })).body.execute_filemode).toBe(false);
  });
});

describe('DELETE /projects/:id/repository/files/:file_path', () => {
  it('deletes the file with a commit and answers 200 (spec 4.2) with an empty body; older commits still have it', async () => {
    const before = (await api.get(file('README.md'), { token: REPORTER, query: 'ref=main' })).body.commit_id;
    const r = await write('DELETE', 'README.md', {});
    expect(r.status).toBe(200);
    expect(r.text).toBe('');
    expect(r.headers.get('content-length')).toBe('0');
    expect((await api.get(file('README.md'), { token: REPORTER, query: 'ref=main' })).status).toBe(404);
    expect((await api.get(file('README.md'), { token: REPORTER, query: `ref=${before}` })).status).toBe(200);
  });

  it('honours last_commit_id', async () => {
    const r = await write('DELETE', 'README.md', { last_commit_id: '0'.repeat(40) });
    expect(r.body).toEqual({ message: 'You are attempting to update a file that has changed since you started editing it.' });
  });

  it('answers 400 for a missing file and requires branch and commit_message', async () => {
    expect((await write('DELETE', 'nope.txt', {})).status).toBe(400);
    expect((await api.delete(file('README.md'), { token: MAINTAINER, json: {} })).body).toEqual({ error: 'branch is missing, commit_message is missing' });
  });

  it('accepts the parameters in the query string', async () => {
    const r = await api.delete(file('README.md'), { token: MAINTAINER, query: 'branch=main&commit_message=bye' });
    expect(r.status).toBe(200);
  });
});

describe('commits', () => {
  it('gives every write a distinct commit id derived from its content, parent, author and time', async () => {
    const ids = new Set<string>();
    for (const n of [1, 2, 3]) {
      await write('PUT', 'README.md', { content: `v${n}\n` });
      ids.add((await api.get(file('README.md'), { token: REPORTER, query: 'ref=main' })).body.commit_id);
    }
    expect(ids.size).toBe(3);
    for (const id of ids) expect(id).toMatch(SHA1);
  });
});

describe('paths outside Latin-1 (docs/日本.md)', () => {
  const NAME = 'docs/日本.md';
  const utf8 = (v: string | null): string | null => (v === null ? null : Buffer.from(v, 'latin1').toString('utf8'));
  beforeEach(() => {
    emulator.state.pushFile(30, { path: NAME, content: '# 日本\n' });
  });

  it('GET answers 200 with the path in the body and as UTF-8 bytes in the metadata headers', async () => {
    const r = await api.get(file(NAME), { token: REPORTER, query: 'ref=main' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ file_path: NAME, file_name: '日本.md' });
    expect(utf8(r.headers.get('x-service-file-path'))).toBe(NAME);
    expect(utf8(r.headers.get('x-service-file-name'))).toBe('日本.md');
  });

  it('HEAD answers 200 with the metadata headers', async () => {
    const r = await api.head(file(NAME), { token: REPORTER, query: 'ref=main' });
    expect(r.status).toBe(200);
    expect(utf8(r.headers.get('x-service-file-name'))).toBe('日本.md');
  });

  it('raw answers 200 with the bytes and an ASCII filename plus the exact filename*', async () => {
    const r = await api.get(file(NAME, '/raw'), { token: REPORTER, query: 'ref=main' });
    expect(r.status).toBe(200);
    expect(r.text).toBe('# 日本\n');
    expect(r.headers.get('content-disposition')).toBe(`inline; filename="%3F%3F.md"; filename*=UTF-8''${encodeURIComponent('日本.md')}`);
    const head = await api.head(file(NAME, '/raw'), { token: REPORTER, query: 'ref=main' });
    expect(head.status).toBe(200);
  });
});
