/** Repository files planned and applied against the emulator over HTTP. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileHarness, README, sha256 } from './helpers.js';
import type { FileHarness } from './helpers.js';

let h: FileHarness;
beforeEach(async () => {
  h = await fileHarness();
});
afterEach(() => h.close());

const HEADS = /\/repository\/files\/[^/]+$/;

describe('plan', () => {
  it('makes one HEAD per declared file and branch and never downloads a file', async () => {
    h.config({ 'README.md': { content: README }, 'docs/new.md': { content: 'new\n', branches: ['main'] } });
    const r = await h.run(['plan', '--json']);
    expect(r.code).toBe(0);
    const plan = JSON.parse(r.stdout);
    expect(plan.changes.map((c: { action: string }) => c.action)).toEqual(['no-op', 'create']);
    expect(h.count('HEAD', HEADS)).toBe(2);
    // README.md was found on main, so main exists: the missing file costs no other request, and nothing is downloaded.
    const gets = h.emu.requests.filter((q) => q.method === 'GET' && /\/repository\/files\//.test(q.path));
    expect(gets).toEqual([]);
    expect(plan.diagnostics.filter((d: { code: string }) => d.code === 'PLUMB_KIND_NOT_MANAGED')).toEqual([]);
  });

  it('asks once per branch whether it exists when no declared file of that branch was found, and reads the project only to know whether it is archived', async () => {
    h.config({ 'docs/a.md': { content: 'a\n', branches: ['main'] }, 'docs/b.md': { content: 'b\n', branches: ['main'] } });
    const r = await h.run(['plan', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).changes.map((c: { action: string }) => c.action)).toEqual(['create', 'create']);
    expect(h.count('HEAD', HEADS)).toBe(2);
    // One GET of a missing file on main, answered "404 File Not Found": main exists, and so does the
    // project; the project itself is read once, after the files, because it has changes (archived?),
    // and so is the branch (may plumb push there?).
    const gets = h.emu.requests.filter((q) => q.method === 'GET');
    expect(gets.map((q) => [q.status, /\/repository\/files\//.test(q.path)])).toEqual([[404, true], [200, false], [200, false]]);
    expect(gets.filter((q) => q.path.endsWith('/repository/branches/main'))).toHaveLength(1);
  });

  it('makes no request beyond one HEAD per file, and one GET of the project and one of the branch per declared project with changes, for projects where one file of each exists and one is missing', async () => {
    const projects = ['platform/a', 'platform/b', 'platform/c'];
    await h.close();
    h = await fileHarness({ projects: projects.map((p) => ({ path_with_namespace: p, default_branch: 'main', protected_branches: [], files: { CODEOWNERS: '* @x\n' } })) });
    const files = { CODEOWNERS: { content: '* @x\n', branches: ['main'] }, 'SECURITY.md': { content: 's\n', branches: ['main'] } };
    h.wd.write('plumb.yaml', JSON.stringify({ version: 1, instances: { local: { url: h.emu.url, token_env: 'PLUMB_TOKEN', projects: Object.fromEntries(projects.map((p) => [p, { files }])) } } }));
    const r = await h.run(['plan', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).summary).toMatchObject({ create: 3, noop: 3 });
    expect(h.emu.requests.map((q) => q.method)).toEqual([...Array(6).fill('HEAD'), ...Array(6).fill('GET')]);
    expect(h.emu.requests.filter((q) => q.path.endsWith('/repository/branches/main'))).toHaveLength(3);
  });

  it("records the file's last commit id from X-Service-Last-Commit-Id in the change and orders writes by project and branch", async () => {
    h.config({ 'README.md': { content: 'changed\n' } });
    const plan = JSON.parse((await h.run(['plan', '--json'])).stdout);
    const res = await fetch(`${h.emu.url}/api/v4/projects/platform%2Fapp/repository/files/README.md?ref=main`, { method: 'HEAD', headers: { 'PRIVATE-TOKEN': 'admin-token-for-file-tests-0123456789' } });
    const change = plan.changes[0];
    expect(change.action).toBe('update');
    expect(change.reasons).toEqual(['content-changed']);
    expect(change.payload.lastCommitId).toBe(res.headers.get('x-service-last-commit-id'));
    expect(change.payload.sha256).toBe(sha256('changed\n'));
    expect(change.order).toEqual({ lane: 'platform/app:main' });
  });

  it('with --show-content shows a unified diff of a text file, and says so for a binary one', async () => {
    h.config({ 'README.md': { content: 'hello\nworld\n' }, 'logo.png': { content: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]).toString('base64'), encoding: 'base64' } });
    const r = await h.run(['plan', '--show-content']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--- a/README.md');
    expect(r.stdout).toContain('+world');
    expect(r.stdout).toContain('binary file');
    const plain = await h.run(['plan']);
    expect(plain.stdout).not.toContain('--- a/README.md');
  });
});

describe('plan --show-content', () => {
  it('says that only the line endings differ when the declared file has CRLF where the repository has LF', async () => {
    h.config({ 'README.md': { content: README.replace(/\n/g, '\r\n') } });
    const r = await h.run(['plan', '--show-content']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('only line endings differ: the declared file uses CRLF');
    expect(r.stdout).toContain("the repository's copy LF");
  });

  it('bounds the diff of a large change and reads the file through GET raw, once', async () => {
    const lines = Array.from({ length: 1000 }, (_, i) => `line ${i}`);
    await h.close();
    h = await fileHarness({ projects: [{ path_with_namespace: 'platform/app', default_branch: 'main', visibility: 'internal', files: { 'big.md': lines.join('\n') + '\n' } }] });
    h.config({ 'big.md': { content: lines.map((l) => `${l} changed`).join('\n') + '\n' } });
    const r = await h.run(['plan', '--show-content']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('@@ -1,1000 +1,1000 @@');
    expect(r.stdout).toMatch(/… \d+ more line\(s\) of diff not shown/);
    expect(r.stdout.split('\n').filter((l) => /^\s+[-+]line /.test(l)).length).toBeLessThanOrEqual(200);
    expect(h.count('GET', /\/raw$/)).toBe(1);
  });

  it('shows the unchanged lines around a change as context, like diff -u', async () => {
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i}`);
    await h.close();
    h = await fileHarness({ projects: [{ path_with_namespace: 'platform/app', default_branch: 'main', visibility: 'internal', files: { 'a.md': lines.join('\n') + '\n' } }] });
    const changed = [...lines];
    changed[10] = 'line ten';
    h.config({ 'a.md': { content: changed.join('\n') + '\n' } });
    const r = await h.run(['plan', '--show-content']);
    const diff = r.stdout.split('\n').map((l) => l.trim()).filter((l) => /^(@@|[-+ ]line)/.test(l) || l.startsWith('line '));
    expect(diff).toEqual(['@@ -8,7 +8,7 @@', 'line 7', 'line 8', 'line 9', '-line 10', '+line ten', 'line 11', 'line 12', 'line 13']);
  });
});

describe('apply', () => {
  it('creates, updates and deletes files, one commit each, and then plans no changes', async () => {
    h.config({ 'docs/new.md': { content: 'new\n', commit_messages: { create: 'add {path} to {branch}' } }, 'README.md': { content: 'changed\n' }, 'scripts/run.sh': { state: 'absent' } });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.stderr + r.stdout).not.toContain('error');
    expect(r.code).toBe(0);
    expect(h.file('docs/new.md')?.data.toString()).toBe('new\n');
    expect(h.file('README.md')?.data.toString()).toBe('changed\n');
    expect(h.file('scripts/run.sh')).toBeUndefined();
    const p = h.emu.state.projects[0]!;
    expect(p.repo.branchHead('main')!.message).toMatch(/./);
    const again = await h.run(['plan', '--detailed-exitcode']);
    expect(again.code).toBe(0);
  });

  it('uses the commit message template of the action', async () => {
    h.config({ 'docs/new.md': { content: 'new\n', commit_messages: { create: 'add {path} to {branch} of {project}' } } });
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(h.emu.state.projects[0]!.repo.branchHead('main')!.message).toBe('add docs/new.md to main of platform/app');
  });

  it('writes a binary file and finds it unchanged on the next plan', async () => {
    const bytes = Buffer.from([0, 1, 2, 3, 255, 254, 0x89, 0x50]);
    h.config({ 'assets/blob.bin': { content: bytes.toString('base64'), encoding: 'base64' } });
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(h.file('assets/blob.bin')?.data.equals(bytes)).toBe(true);
    expect((await h.run(['plan', '--detailed-exitcode'])).code).toBe(0);
  });

  it('turns the execute bit on, off and on again', async () => {
    h.config({ 'README.md': { content: README, execute_filemode: true } });
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(h.file('README.md')?.executable).toBe(true);
    h.config({ 'README.md': { content: README, execute_filemode: false } });
    const plan = JSON.parse((await h.run(['plan', '--json'])).stdout);
    expect(plan.changes[0].reasons).toEqual(['execute-bit-changed']);
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(h.file('README.md')?.executable).toBe(false);
    h.config({ 'README.md': { content: README, execute_filemode: true } });
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(h.file('README.md')?.executable).toBe(true);
    expect(h.file('README.md')?.data.toString()).toBe(README);
    expect((await h.run(['plan', '--detailed-exitcode'])).code).toBe(0);
  });

  it('creates a branch from start_branch with the first write and writes the next files to it', async () => {
    h.config({ 'a.md': { content: 'a\n', branches: ['feature'], start_branch: 'main' }, 'b.md': { content: 'b\n', branches: ['feature'], start_branch: 'main' } });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.stderr).not.toContain('error');
    expect(r.code).toBe(0);
    expect(h.file('a.md', 'feature')?.data.toString()).toBe('a\n');
    expect(h.file('b.md', 'feature')?.data.toString()).toBe('b\n');
    expect(h.file('README.md', 'feature')?.data.toString()).toBe(README);
    expect(h.file('a.md', 'main')).toBeUndefined();
    expect((await h.run(['plan', '--detailed-exitcode'])).code).toBe(0);
  });

  it('reports a branch that does not exist at the file, with start_branch as the fix', async () => {
    h.config({ 'a.md': { content: 'a\n', branches: ['nope'] } });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain('PLUMB_FILE_BRANCH_MISSING');
    expect(r.stdout + r.stderr).toContain('plumb.yaml:');
  });

  it('reports a missing branch without start_branch at plan, not as a create that fails at apply', async () => {
    h.config({ 'a.md': { content: 'a\n', branches: ['nope'] } });
    const r = await h.run(['plan', '--json']);
    expect(r.code).toBe(1);
    const plan = JSON.parse(r.stdout) as { changes: unknown[]; diagnostics: { code: string; line?: number }[] };
    expect(plan.changes).toEqual([]);
    expect(plan.diagnostics.map((d) => d.code)).toEqual(['PLUMB_FILE_BRANCH_MISSING']);
    expect(plan.diagnostics[0]!.line).toBeDefined();
  });

  it('reports a start_branch that does not exist (a typo) at plan, at the start_branch line', async () => {
    h.config({ 'a.md': { content: 'a\n', branches: ['feature'], start_branch: 'mian' } });
    const r = await h.run(['plan', '--json']);
    expect(r.code).toBe(1);
    const plan = JSON.parse(r.stdout) as { diagnostics: { code: string; summary: string }[] };
    expect(plan.diagnostics.map((d) => d.code)).toEqual(['PLUMB_FILE_START_BRANCH_MISSING']);
    expect(plan.diagnostics[0]!.summary).toContain('"mian"');
    expect(h.count('POST', /repository\/files/)).toBe(0);
  });

  it('says at plan that a branch cannot be created when every file on it equals its copy on start_branch', async () => {
    h.config({ 'README.md': { content: README, branches: ['feature'], start_branch: 'main' } });
    const r = await h.run(['plan', '--json']);
    expect(r.code).toBe(1);
    const plan = JSON.parse(r.stdout) as { diagnostics: { code: string; summary: string }[] };
    expect(plan.diagnostics.map((d) => d.code)).toEqual(['PLUMB_FILE_BRANCH_MISSING']);
    expect(plan.diagnostics[0]!.summary).toContain('no declared file can create it');
  });

  it('deletes a state: absent file on a branch created from start_branch in the same apply', async () => {
    h.config({ 'a.md': { content: 'a\n', branches: ['feature'], start_branch: 'main' }, 'README.md': { state: 'absent', branches: ['feature'], start_branch: 'main' } });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(h.file('a.md', 'feature')?.data.toString()).toBe('a\n');
    expect(h.file('README.md', 'feature')).toBeUndefined();
    expect(h.file('README.md', 'main')?.data.toString()).toBe(README);
    expect((await h.run(['plan', '--detailed-exitcode'])).code).toBe(0);
  });

  it('creates a file missing on an existing branch instead of comparing it with start_branch', async () => {
    await h.push('POST', 'other.md', { branch: 'feature', start_branch: 'main', content: 'x\n' });
    h.config({ 'README.md': { content: README, branches: ['feature'], start_branch: 'main' } });
    await h.push('DELETE', 'README.md', { branch: 'feature' });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(h.file('README.md', 'feature')?.data.toString()).toBe(README);
  });
});
