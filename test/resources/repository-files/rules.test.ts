/** Repository file rules: secrets, roles and scopes, execute bit, saved plans, templates, defaults. */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { secret } from '../../helpers/cli.js';
import { ADMIN_TOKEN, fileHarness, PROJECT, README } from './helpers.js';
import type { FileHarness } from './helpers.js';

let h: FileHarness;
afterEach(() => h?.close());

const DEV_TOKEN = secret('developer-token-for-file-tests-0123456789');
const READER_TOKEN = secret('reader-token-for-file-tests-0123456789');
const FILE_SECRET = secret('s3cr3t-file-content-for-tests');

function withUsers() {
  return fileHarness({
    users: [
      { username: 'root', admin: true, personal_access_tokens: [{ name: 'plumb', token: ADMIN_TOKEN, scopes: ['api'] }] },
      { username: 'dev', personal_access_tokens: [{ name: 'dev', token: DEV_TOKEN, scopes: ['api'] }] },
      { username: 'reader', personal_access_tokens: [{ name: 'reader', token: READER_TOKEN, scopes: ['read_repository'] }] },
    ],
    projects: [
      {
        path_with_namespace: PROJECT,
        default_branch: 'main',
        visibility: 'private',
        members: [
          { username: 'dev', access_level: 30 },
          { username: 'reader', access_level: 40 },
        ],
        files: { 'README.md': README },
        branches: { work: { from: 'main' } },
        protected_branches: ['main'],
      },
    ],
  });
}

describe('content from a secret', () => {
  it('is never shown, never hashed in clear into the plan or the state file, and its drift is still found', async () => {
    h = await fileHarness();
    h.config({ 'config/secret.txt': { content: '${env:FILE_SECRET}' } });
    const env = { FILE_SECRET };
    const plan = await h.wd.run(['plan', '--show-content', '--json', '--state', 'state.json'], env);
    expect(plan.code).toBe(0);
    const change = JSON.parse(plan.stdout).changes[0];
    expect(change.payload.sha256).toBeUndefined();
    expect(change.payload.contentFingerprint.salt).toEqual(expect.any(String));
    const sha = (await import('node:crypto')).createHash('sha256').update(FILE_SECRET).digest('hex');
    expect(plan.stdout).not.toContain(sha.slice(0, 12));
    expect((await h.wd.run(['apply', '--auto-approve', '--state', 'state.json'], env)).code).toBe(0);
    expect(h.file('config/secret.txt')?.data.toString()).toBe(FILE_SECRET);
    expect(readFileSync(path.join(h.wd.dir, 'state.json'), 'utf8')).not.toContain(sha);
    expect((await h.wd.run(['drift', '--state', 'state.json'], env)).code).toBe(0);
    expect(await h.push('PUT', 'config/secret.txt', { content: 'tampered\n' })).toBe(200);
    const d = await h.wd.run(['drift', '--state', 'state.json'], env);
    expect(d.code).toBe(2);
    expect(d.stdout).toContain('changed by a push');
  });
});

describe('roles and scopes', () => {
  it('plans with a read_repository token (HEAD only) and reports its refused write at the file', async () => {
    h = await withUsers();
    h.config({ 'README.md': { content: 'new\n', branches: ['work'] } });
    const plan = await h.wd.run(['plan', '--state', 'state.json'], { PLUMB_TOKEN: READER_TOKEN });
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('will be updated');
    const apply = await h.wd.run(['apply', '--auto-approve', '--state', 'state.json'], { PLUMB_TOKEN: READER_TOKEN });
    expect(apply.code).toBe(1);
    expect(apply.stdout + apply.stderr).toContain('PLUMB_API_FORBIDDEN');
    expect(apply.stdout + apply.stderr).toContain('plumb.yaml:');
    expect(h.file('README.md', 'work')?.data.toString()).toBe(README);
  });

  it("refuses at plan a Developer's commit to a protected branch, located, suggesting a merge request, and writes nothing", async () => {
    h = await withUsers();
    h.config({ 'README.md': { content: 'new\n' } });
    const plan = await h.wd.run(['plan', '--json', '--state', 'state.json'], { PLUMB_TOKEN: DEV_TOKEN });
    expect(plan.code).toBe(1);
    const denied = (JSON.parse(plan.stdout) as { diagnostics: { code: string; summary: string; suggestion?: string; file?: string; line?: number }[] }).diagnostics.find((d) => d.code === 'PLUMB_FILE_PUSH_DENIED');
    expect(denied).toMatchObject({ file: 'plumb.yaml' });
    expect(denied!.summary).toContain('may not push to protected branch "main"');
    expect(denied!.suggestion).toContain('delivery: merge_request');
    const apply = await h.wd.run(['apply', '--auto-approve', '--state', 'state.json'], { PLUMB_TOKEN: DEV_TOKEN });
    expect(apply.code).toBe(1);
    expect(apply.stdout + apply.stderr).toContain('PLUMB_FILE_PUSH_DENIED');
    expect(h.emu.requests.filter((q) => q.method !== 'GET' && q.method !== 'HEAD')).toEqual([]);
    // The Developer may write to an unprotected branch.
    h.config({ 'README.md': { content: 'new\n', branches: ['work'] } });
    expect((await h.wd.run(['apply', '--auto-approve', '--state', 'state.json'], { PLUMB_TOKEN: DEV_TOKEN })).code).toBe(0);
    expect(h.file('README.md', 'work')?.data.toString()).toBe('new\n');
  });
});

describe('details', () => {
  it('keeps the execute bit of an existing file when the configuration does not declare it', async () => {
    h = await fileHarness();
    h.config({ 'scripts/run.sh': { content: '#!/bin/sh\necho changed\n' } });
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(h.file('scripts/run.sh')).toEqual({ data: Buffer.from('#!/bin/sh\necho changed\n'), executable: true });
  });

  it('plans nothing for an absent file that is absent, and reports a file re-created after plumb deleted it', async () => {
    h = await fileHarness();
    h.config({ 'README.md': { state: 'absent' }, 'never.md': { state: 'absent' } });
    const plan = JSON.parse((await h.run(['plan', '--json'])).stdout);
    expect(plan.changes.map((c: { action: string }) => c.action)).toEqual(['delete', 'no-op']);
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(h.file('README.md')).toBeUndefined();
    expect(await h.push('POST', 'README.md', { content: 'back\n' })).toBe(201);
    const d = await h.run(['drift']);
    expect(d.code).toBe(2);
    expect(d.stdout).toContain('re-created by a push after plumb deleted it');
  });

  it('sends the declared author and learns the default branch with one GET per project', async () => {
    h = await fileHarness();
    h.config({ 'a.md': { content: 'a\n', author_name: 'Config Bot', author_email: 'bot@example.com' }, 'b.md': { content: 'b\n' } });
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    const repo = h.emu.state.projects[0]!.repo;
    expect(repo.lastCommitFor(repo.branchHead('main')!, 'a.md').author).toEqual({ name: 'Config Bot', email: 'bot@example.com' });
    expect(repo.lastCommitFor(repo.branchHead('main')!, 'b.md').author.name).toBe('root');
    h.emu.resetRequests();
    expect((await h.run(['plan', '--detailed-exitcode'])).code).toBe(0);
    expect(h.emu.requests.map((q) => q.method).sort()).toEqual(['GET', 'HEAD', 'HEAD']);
  });

  it('refuses a saved plan whose file change lost its last commit id, naming the field', async () => {
    h = await fileHarness();
    h.config({ 'README.md': { content: 'new\n' } });
    expect((await h.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    const file = path.join(h.wd.dir, 'plan.json');
    const plan = JSON.parse(readFileSync(file, 'utf8'));
    delete plan.changes[0].payload.lastCommitId;
    writeFileSync(file, JSON.stringify(plan));
    const r = await h.run(['apply', 'plan.json']);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain('PLUMB_PLAN_INVALID');
    expect(r.stdout + r.stderr).toContain('payload.lastCommitId');
    expect(h.emu.requests.filter((q) => q.method === 'PUT')).toEqual([]);
  });

  it('rejects an unknown placeholder in a commit message template offline', async () => {
    h = await fileHarness();
    h.config({ 'README.md': { content: 'x\n', commit_messages: { update: 'update {file}' } } });
    const r = await h.run(['validate']);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain('PLUMB_FILE_COMMIT_TEMPLATE');
  });
});
