/** Seed loading and validation, the example seed, the CLI, routing, start-up time and the Git helpers. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runEmulatorCommand } from '../../src/emulator/cli.js';
import { blobId, commitId, makeBlob, Repository, treeId } from '../../src/emulator/git.js';
import { createEmulatorState, loadSeedFile, SeedError, type EmulatorSeed } from '../../src/emulator/index.js';
import { startTestEmulator } from '../helpers/emulator.js';
import { ADMIN, Api, SEED, start } from './helpers.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/emulator-seed.yaml', import.meta.url));
const tmp = (): string => mkdtempSync(path.join(os.tmpdir(), 'plumb-emulator-'));

describe('example seed', () => {
  it('loads and describes the small instance the docs promise', async () => {
    const seed = await loadSeedFile(EXAMPLE);
    const state = createEmulatorState(seed);
    const admin = state.users.find((u) => u.admin)!;
    expect(state.tokens.some((t) => t.userId === admin.id && t.scopes.includes('api'))).toBe(true);
    expect(state.users.some((u) => !u.admin && !u.bot)).toBe(true);
    expect(state.groupByRef('platform/infra')!.parentId).toBe(state.groupByRef('platform')!.id);
    expect(state.projects).toHaveLength(2);
    expect(state.projects.some((p) => p.visibility === 'public')).toBe(true);
    expect(state.projects.find((p) => p.pages.domains.length > 0)!.pages.domains).toHaveLength(2);
    expect(state.tokens.filter((t) => t.kind === 'group')).toHaveLength(2);
  });

  it('serves the example over HTTP with the admin token of the file', async () => {
    const emulator = await startTestEmulator({ seed: EXAMPLE });
    try {
      const api = new Api(emulator);
      expect((await api.get('/application/settings', { token: 'local-admin-token-change-me' })).body.deletion_adjourned_period).toBe(14);
      const file = await api.get('/projects/platform%2Fhandbook/repository/files/index%2Emd/raw');
      expect(file.text).toBe('# Platform handbook\n');
      const tokens = await api.get('/groups/platform/access_tokens', { token: 'local-admin-token-change-me' });
      expect(tokens.body.map((t: { name: string }) => t.name)).toEqual(['ci-deploy', 'renovate']);
    } finally {
      await emulator.close();
    }
  });
});

describe('seed loading and validation', () => {
  it('reads JSON seed files as well as YAML', async () => {
    const file = path.join(tmp(), 'seed.json');
    writeFileSync(file, JSON.stringify({ users: [{ username: 'a', admin: true }] }));
    expect((await loadSeedFile(file)).users![0]!.username).toBe('a');
  });

  it('reports a missing file, invalid YAML and structural problems clearly', async () => {
    await expect(loadSeedFile('/nonexistent/seed.yaml')).rejects.toThrow(/cannot read seed file/);
    const dir = tmp();
    writeFileSync(path.join(dir, 'bad.yaml'), 'users: [\n');
    await expect(loadSeedFile(path.join(dir, 'bad.yaml'))).rejects.toThrow(/not valid YAML/);
    writeFileSync(path.join(dir, 'typo.yaml'), 'users:\n  - usernme: a\n');
    await expect(loadSeedFile(path.join(dir, 'typo.yaml'))).rejects.toThrow(/seed\.users\[0\]: unknown key 'usernme'/);
  });

  it('lists every semantic problem of a seed at once', () => {
    const bad: EmulatorSeed = {
      users: [{ username: 'a', id: 1 }, { username: 'b', id: 1 }],
      groups: [
        { full_path: 'x/y', members: [{ username: 'nobody', access_level: 45 }] },
        { full_path: 'g', access_tokens: [{ name: 't', token: 'tttttttttt', scopes: ['sudo'], access_level: 41 }] },
      ],
      projects: [
        { path_with_namespace: 'missing/p' },
        { path_with_namespace: 'g/p', files: { a: 'a' }, branches: { b: { from: 'nope' } }, pages: { domains: ['d.test'], primary_domain: 'e.test' } },
      ],
    };
    let error: SeedError | undefined;
    try {
      createEmulatorState(bad);
    } catch (e) {
      error = e as SeedError;
    }
    expect(error).toBeInstanceOf(SeedError);
    const text = error!.problems.join('\n');
    expect(text).toMatch(/user id 1 is used twice/);
    expect(text).toMatch(/parent group 'x' is not seeded/);
    expect(text).toMatch(/unknown user 'nobody'/);
    expect(text).toMatch(/access_level: must be one of 10, 15, 20, 30, 40, 50/);
    expect(text).toMatch(/unknown scope\(s\) sudo/);
    expect(text).toMatch(/namespace group 'missing' is not seeded/);
    expect(text).toMatch(/branch 'nope' to start from does not exist/);
    expect(text).toMatch(/'e\.test' is not one of the project's domains/);
  });

  it('accepts an empty seed', async () => {
    const emulator = await startTestEmulator();
    try {
      expect((await fetch(`${emulator.url}/api/v4/application/settings`)).status).toBe(401);
    } finally {
      await emulator.close();
    }
  });
});

describe('server', () => {
  it('starts in well under a second', async () => {
    const t0 = performance.now();
    const emulator = await startTestEmulator({ seed: SEED });
    const elapsed = performance.now() - t0;
    await emulator.close();
    expect(elapsed).toBeLessThan(500);
  });

  it('listens on 127.0.0.1 with an ephemeral port by default and gives a URL without /api/v4', async () => {
    const { emulator } = await start();
    try {
      expect(emulator.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      await emulator.close();
    }
  });

  it('answers 404 for unknown routes and 405 for a known path with another method', async () => {
    const { emulator, api } = await start();
    try {
      expect((await api.get('/nowhere', { token: ADMIN })).body).toEqual({ error: '404 Not Found' });
      const res = await fetch(`${emulator.url}/elsewhere`);
      expect(res.status).toBe(404);
      expect((await api.post('/application/settings', { token: ADMIN })).status).toBe(405);
      expect((await api.get('/groups/platform/access_tokens/100/rotate', { token: ADMIN })).status).toBe(405);
    } finally {
      await emulator.close();
    }
  });

  it('rejects a malformed JSON body with 400', async () => {
    const { emulator } = await start();
    try {
      const res = await fetch(`${emulator.url}/api/v4/application/settings`, {
        method: 'PUT',
        headers: { 'PRIVATE-TOKEN': ADMIN, 'content-type': 'application/json' },
        body: '{"signup_enabled": ',
      });
      expect(res.status).toBe(400);
    } finally {
      await emulator.close();
    }
  });

  it('closes promptly even with keep-alive connections open', async () => {
    const { emulator, api } = await start();
    await api.get('/application/settings', { token: ADMIN });
    const t0 = performance.now();
    await emulator.close();
    expect(performance.now() - t0).toBeLessThan(500);
  });
});

describe('plumb emulator (CLI)', () => {
  it('prints the base URL and the seeded token names, never their values, and stops on a signal', async () => {
    let out = '';
    let served = 0;
    const code = await runEmulatorCommand(['--seed', EXAMPLE, '--port', '0', '--tier', 'premium', '--cache-seconds', '5'], {
      stdout: (t) => (out += t),
      stderr: (t) => (out += t),
      waitForStop: async () => {
        const url = /listening on (http:\/\/\S+)/.exec(out)![1]!;
        served = (await fetch(`${url}/api/v4/application/settings`, { headers: { 'PRIVATE-TOKEN': 'local-admin-token-change-me' } })).status;
        return 'SIGTERM';
      },
    });
    expect(code).toBe(0);
    expect(served).toBe(200);
    expect(out).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(out).toContain('plumb-admin');
    expect(out).toContain('ci-deploy');
    expect(out).not.toContain('local-admin-token-change-me');
    expect(out).not.toContain('local-group-token-ci-deploy');
    expect(out).toContain('stopped (SIGTERM)');
  });

  it('falls back to the packaged example seed without --seed', async () => {
    let out = '';
    const code = await runEmulatorCommand([], { stdout: (t) => (out += t), stderr: (t) => (out += t), waitForStop: async () => 'SIGINT' });
    expect(code).toBe(0);
    expect(out).toContain(`seed: ${EXAMPLE}`);
  });

  it('fails with usage errors (2) and seed errors (1)', async () => {
    let err = '';
    const io = { stdout: () => undefined, stderr: (t: string) => (err += t) };
    expect(await runEmulatorCommand(['--seed', EXAMPLE, '--tier', 'gold'], io)).toBe(2);
    expect(err).toMatch(/--tier must be free, premium or ultimate/);
    expect(await runEmulatorCommand(['--seed', EXAMPLE, '--port', 'x'], io)).toBe(2);
    expect(await runEmulatorCommand(['--bogus'], io)).toBe(2);
    expect(await runEmulatorCommand(['--seed', '/nonexistent.yaml'], io)).toBe(1);
    let help = '';
    expect(await runEmulatorCommand(['--help'], { stdout: (t) => (help += t), stderr: () => undefined })).toBe(0);
    expect(help).toMatch(/Usage: plumb emulator/);
  });
});

describe('git object ids', () => {
  it('hashes blobs, trees and commits exactly as git does', () => {
    expect(blobId(Buffer.from('hello\nworld\n'))).toBe('94954abda49de8615a048f8d2e64b5de848e27a1');
    const files = new Map([
      ['README.md', makeBlob(Buffer.from('hello\nworld\n'))],
      ['a/b.sh', makeBlob(Buffer.from('#!/bin/sh\n'), true)],
      ['a-b', makeBlob(Buffer.from('x'))],
      ['a/c/d.txt', makeBlob(Buffer.from('d'))],
    ]);
    // `git write-tree` of the same files.
    expect(treeId(files)).toBe('ad14086433f5b4041f3040a778f7d1d73bbe59e7');
    const d = new Date(1_700_000_000_000);
    // `git commit-tree` with the same tree, people, dates and message.
    expect(
      commitId({
        treeId: 'ad14086433f5b4041f3040a778f7d1d73bbe59e7',
        parentIds: [],
        author: { name: 'A B', email: 'a@x' },
        committer: { name: 'C D', email: 'c@x' },
        authoredDate: d,
        committedDate: d,
        message: 'msg',
      }),
    ).toBe('e3fe6c2135d30a108b5560c3b6ab314702b4363f');
  });

  it('finds the last commit of a path through first-parent history', () => {
    const repo = new Repository();
    const who = { name: 'n', email: 'e' };
    const c1 = repo.commit({ branch: 'main', changes: new Map([['a', makeBlob(Buffer.from('1'))]]), author: who, committer: who, message: '1', date: new Date(0) });
    const c2 = repo.commit({ branch: 'main', parent: c1, changes: new Map([['b', makeBlob(Buffer.from('2'))]]), author: who, committer: who, message: '2', date: new Date(1000) });
    expect(repo.lastCommitFor(c2, 'a').id).toBe(c1.id);
    expect(repo.lastCommitFor(c2, 'b').id).toBe(c2.id);
    expect(repo.resolve(c2.id.slice(0, 7))!.id).toBe(c2.id);
  });
});
