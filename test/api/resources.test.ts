/** The per-resource functions against the emulator, including path encoding. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createFile,
  createGroupAccessToken,
  deleteFile,
  getApplicationSettings,
  getFile,
  getFileBlame,
  getFileMetadata,
  getGroupAccessToken,
  getPages,
  getRawFile,
  listGroupAccessTokens,
  revokeGroupAccessToken,
  rotateGroupAccessToken,
  unpublishPages,
  updateApplicationSettings,
  updateFile,
  updatePages,
} from '../../src/api/index.js';
import type { ApiError } from '../../src/api/index.js';
import { AWKWARD_FILE, PROJECT, startHarness } from './emulator-fixture.js';
import type { Harness } from './emulator-fixture.js';
import { recordChannel, rejection } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const lastPath = (): string | undefined => h.emulator.requests.at(-1)?.path;
const ENCODED_PROJECT = 'platform%2Finfra%2Fhandbook';
const ENCODED_FILE = 'conf%2Fapp%20settings%2Ev2%231%2Eyml';

describe('repository files', () => {
  it('keeps the connection open after a HEAD, found or not (a fleet plan makes thousands: a new TCP and TLS handshake each would double its time)', async () => {
    const client = h.clientWith({ concurrency: 1 });
    const connected = recordChannel('undici:client:connected');
    try {
      for (let i = 0; i < 5; i++) {
        await getFileMetadata(client, PROJECT, 'bin/run.sh', 'main');
        await getFileMetadata(client, PROJECT, 'no/such/file.txt', 'main').catch(() => undefined);
      }
    } finally {
      connected.stop();
    }
    expect(connected.messages).toHaveLength(1);
  });

  it('reads a file whose path has slashes, dots, spaces and # in a project addressed by full path', async () => {
    const file = await getFile(h.client, PROJECT, AWKWARD_FILE, 'main');
    expect(lastPath()).toBe(`/projects/${ENCODED_PROJECT}/repository/files/${ENCODED_FILE}`);
    expect(file.file_path).toBe(AWKWARD_FILE);
    expect(file.file_name).toBe('app settings.v2#1.yml');
    expect(Buffer.from(file.content, 'base64').toString('utf8')).toBe('a: 1\nb: 2\nc: 3\n');
  });

  it('reads the metadata headers of a HEAD request into typed fields', async () => {
    const [meta, file] = await Promise.all([
      getFileMetadata(h.client, PROJECT, 'bin/run.sh', 'main'),
      getFile(h.client, PROJECT, 'bin/run.sh', 'main'),
    ]);
    expect(meta).toEqual({
      blob_id: file.blob_id,
      commit_id: file.commit_id,
      content_sha256: file.content_sha256,
      encoding: file.encoding,
      file_name: 'run.sh',
      file_path: 'bin/run.sh',
      last_commit_id: file.last_commit_id,
      ref: 'main',
      size: file.size,
      execute_filemode: true,
    });
  });

  it('asks blame for a line range with range[start] and range[end]', async () => {
    const ranges = await getFileBlame(h.client, PROJECT, AWKWARD_FILE, 'main', { start: 2, end: 3 });
    expect(ranges.flatMap((r) => r.lines)).toEqual(['b: 2', 'c: 3']);
    expect(ranges[0]?.commit.id).toMatch(/^[0-9a-f]{40}$/);
    expect(decodeURIComponent(h.emulator.requests.at(-1)?.query ?? '')).toContain('range[start]=2&range[end]=3');
  });

  it('returns raw content as bytes', async () => {
    const bytes = await getRawFile(h.client, PROJECT, AWKWARD_FILE, { ref: 'main' });
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(bytes).toString('utf8')).toBe('a: 1\nb: 2\nc: 3\n');
  });

  it('creates, updates and deletes a file with JSON bodies, one commit each', async () => {
    const path = 'policies/new file.json';
    const commit = { branch: 'main', author_name: 'plumb', author_email: 'plumb@example.test' };
    expect(await createFile(h.client, PROJECT, path, { ...commit, commit_message: 'add', content: '{}' })).toEqual({
      file_path: path,
      branch: 'main',
    });
    const before = await getFile(h.client, PROJECT, path, 'main');
    await updateFile(h.client, PROJECT, path, {
      ...commit,
      commit_message: 'update',
      content: Buffer.from('{"a":1}').toString('base64'),
      encoding: 'base64',
      last_commit_id: before.last_commit_id,
    });
    expect(Buffer.from((await getFile(h.client, PROJECT, path, 'main')).content, 'base64').toString()).toBe('{"a":1}');
    await deleteFile(h.client, PROJECT, path, { ...commit, commit_message: 'remove' });
    const gone = await rejection<ApiError>(getFile(h.client, PROJECT, path, 'main'));
    expect(gone.code).toBe('PLUMB_API_NOT_FOUND');
  });

  it('reports an update that would be an empty commit as a bad request', async () => {
    const err = await rejection<ApiError>(
      updateFile(h.client, PROJECT, 'README.md', { branch: 'main', commit_message: 'same', content: '# Handbook\n' }),
    );
    expect(err.code).toBe('PLUMB_API_BAD_REQUEST');
  });
});

describe('group access tokens', () => {
  it('creates, reads, rotates and revokes a token in a group addressed by full path', async () => {
    const created = await createGroupAccessToken(h.client, 'platform', {
      name: 'deployer',
      description: 'deploys',
      scopes: ['read_api', 'self_rotate'],
      access_level: 30,
      expires_at: '2025-12-01',
    });
    expect(created).toMatchObject({ name: 'deployer', access_level: 30, active: true, revoked: false });
    expect(created.token).toBeTypeOf('string');
    expect(await getGroupAccessToken(h.client, 'platform', created.id)).toMatchObject({ id: created.id, name: 'deployer' });

    const rotated = await rotateGroupAccessToken(h.client, 'platform', created.id, { expires_at: '2026-01-15' });
    expect(rotated.id).not.toBe(created.id);
    expect(rotated).toMatchObject({ name: 'deployer', expires_at: '2026-01-15' });
    expect(rotated.token).not.toBe(created.token);

    await revokeGroupAccessToken(h.client, 'platform', rotated.id);
    const revoked = await listGroupAccessTokens(h.client, 'platform', { revoked: true, search: 'deployer' });
    expect(revoked.map((t) => t.id).sort()).toEqual([created.id, rotated.id].sort());
  });

  it('lets a group token rotate itself with the self keyword', async () => {
    const created = await createGroupAccessToken(h.client, 'platform', { name: 'selfish', scopes: ['self_rotate'] });
    const asToken = h.clientWith({ token: created.token });
    const rotated = await rotateGroupAccessToken(asToken, 'platform', 'self');
    expect(lastPath()).toBe('/groups/platform/access_tokens/self/rotate');
    expect(rotated.name).toBe('selfish');
  });

  it('encodes a nested group path as one segment', async () => {
    await listGroupAccessTokens(h.client, 'platform/infra');
    expect(lastPath()).toBe('/groups/platform%2Finfra/access_tokens');
  });
});

describe('application settings and Pages', () => {
  it('updates settings with a JSON body and reads them back', async () => {
    const updated = await updateApplicationSettings(h.client, { signup_enabled: false, domain_denylist: ['a.test'] });
    expect(updated).toMatchObject({ signup_enabled: false });
    expect(await getApplicationSettings(h.client)).toMatchObject({ signup_enabled: false });
  });

  it('reads, changes and unpublishes Pages', async () => {
    expect(await getPages(h.client, PROJECT)).toMatchObject({ deployments: [{ path_prefix: '' }] });
    const updated = await updatePages(h.client, PROJECT, {
      pages_https_only: true,
      pages_primary_domain: 'handbook.example.com',
      pages_unique_domain_enabled: false,
    });
    expect(updated).toMatchObject({ force_https: true, primary_domain: 'handbook.example.com', is_unique_domain_enabled: false });
    await unpublishPages(h.client, PROJECT);
    expect(h.emulator.requests.at(-1)).toMatchObject({ method: 'DELETE', status: 204 });
  });
});
