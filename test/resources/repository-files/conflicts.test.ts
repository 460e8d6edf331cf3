/** Concurrent edits, refused writes, drift and large files: repository files against the emulator. */
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, fileHarness, PROJECT, README } from './helpers.js';
import type { FileHarness } from './helpers.js';

let h: FileHarness;
afterEach(() => h?.close());

describe('a commit between plan and apply', () => {
  it('makes the update fail and is reported as a conflict on that file: no lost update', async () => {
    h = await fileHarness();
    // One file on main and one on another branch: two single writes (several files of one branch
    // go in one commit, refused whole: delivery-commit.test.ts).
    h.config({ 'README.md': { content: 'from plumb\n' }, 'other.md': { content: 'other\n', branches: ['side'], start_branch: 'main' } });
    const r = await h.applyWithEditBetween(async () => {
      expect(await h.push('PUT', 'README.md', { content: 'from a colleague\n' })).toBe(200);
    });
    expect(r.code).toBe(1);
    expect(r.out).toContain('PLUMB_FILE_CONFLICT');
    expect(r.out).toContain('plumb.yaml:');
    expect(h.file('README.md')?.data.toString()).toBe('from a colleague\n');
    // Another branch's file is still written.
    expect(h.file('other.md', 'side')?.data.toString()).toBe('other\n');
  });

  it('makes a delete fail as a conflict too', async () => {
    h = await fileHarness();
    h.config({ 'README.md': { state: 'absent' } });
    const r = await h.applyWithEditBetween(async () => {
      expect(await h.push('PUT', 'README.md', { content: 'edited\n' })).toBe(200);
    });
    expect(r.code).toBe(1);
    expect(r.out).toContain('PLUMB_FILE_CONFLICT');
    expect(h.file('README.md')?.data.toString()).toBe('edited\n');
  });

  it('makes a create fail as a conflict when someone created the file meanwhile', async () => {
    h = await fileHarness();
    h.config({ 'new.md': { content: 'mine\n' } });
    const r = await h.applyWithEditBetween(async () => {
      expect(await h.push('POST', 'new.md', { content: 'theirs\n' })).toBe(201);
    });
    expect(r.code).toBe(1);
    expect(r.out).toContain('PLUMB_FILE_CONFLICT');
    expect(h.file('new.md')?.data.toString()).toBe('theirs\n');
  });

  it('that already made the file as declared is a no-op, not a failure (the 400 is re-checked with HEAD)', async () => {
    h = await fileHarness();
    h.config({ 'README.md': { content: 'same\n' } });
    const r = await h.applyWithEditBetween(async () => {
      expect(await h.push('PUT', 'README.md', { content: 'same\n' })).toBe(200);
    });
    expect(r.out).toContain('nothing changed');
    expect(r.code).toBe(0);
    expect(h.emu.requests.filter((q) => q.method === 'PUT' && q.status === 400)).toHaveLength(1);
  });

  it('refuses a saved plan whose file moved since (the live fingerprint is the HEAD metadata)', async () => {
    h = await fileHarness();
    h.config({ 'README.md': { content: 'from plumb\n' } });
    expect((await h.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    expect(await h.push('PUT', 'README.md', { content: 'from a colleague\n' })).toBe(200);
    const r = await h.run(['apply', 'plan.json']);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain('PLUMB_PLAN_STALE');
    expect(h.file('README.md')?.data.toString()).toBe('from a colleague\n');
  });

  it('refuses a saved plan whose local source changed since, without writing', async () => {
    h = await fileHarness();
    h.wd.write('files/doc.md', 'v1\n');
    h.config({ 'doc.md': { source: 'files/doc.md' } });
    expect((await h.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    h.wd.write('files/doc.md', 'v2\n');
    const r = await h.run(['apply', 'plan.json']);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain('PLUMB_FILE_SOURCE_CHANGED');
    expect(h.file('doc.md')).toBeUndefined();
  });
});

describe('a lost answer', () => {
  it('to a write that happened is re-checked with HEAD and reported as applied, without writing twice', async () => {
    h = await fileHarness();
    h.config({ 'README.md': { content: 'new\n' } });
    h.emu.addFault({ method: 'PUT', path: '/projects/*/repository/files/*', action: { kind: 'drop', when: 'after' } });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.stdout + r.stderr).toContain('the answer was lost');
    expect(r.code).toBe(0);
    expect(h.file('README.md')?.data.toString()).toBe('new\n');
    expect(h.emu.requests.filter((q) => q.method === 'PUT')).toHaveLength(1);
  });

  it('to a write that did not happen is reported as a failure at the file', async () => {
    h = await fileHarness();
    h.config({ 'README.md': { content: 'new\n' } });
    h.emu.addFault({ method: 'PUT', path: '/projects/*/repository/files/*', action: { kind: 'drop', when: 'before' } });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain('plumb.yaml:');
    // plumb checked with HEAD: the outcome is known (nothing was written), so it is not "unknown".
    expect(r.stdout + r.stderr).not.toMatch(/outcome unknown/i);
    expect(r.stdout + r.stderr).toContain('reading the file again shows it unchanged');
    expect(h.file('README.md')?.data.toString()).toBe(README);
  });
});

describe('a write answered with an error after the instance committed it', () => {
  for (const [method, files] of [
    ['PUT', { 'README.md': { content: 'new\n' } }],
    ['POST', { 'NEW.md': { content: 'new\n' } }],
  ] as const) {
    it(`is re-checked with HEAD after a 500 to ${method}, reported as applied and recorded, without writing twice`, async () => {
      h = await fileHarness();
      h.config(files);
      h.emu.addFault({ method, path: '/projects/*/repository/files/*', action: { kind: 'status', status: 500, after: true } });
      const r = await h.run(['apply', '--auto-approve']);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout + r.stderr).toContain('answered 500, but reading the file again shows main holds the declared file');
      expect(h.file(Object.keys(files)[0]!)?.data.toString()).toBe('new\n');
      expect(h.emu.requests.filter((q) => q.method === method)).toHaveLength(1);
      expect(JSON.stringify(JSON.parse(h.wd.read('state.json')))).toContain(Object.keys(files)[0]!);
    });
  }

  it('says the file is unchanged after a 500 that wrote nothing, without "outcome unknown"', async () => {
    h = await fileHarness();
    h.config({ 'README.md': { content: 'new\n' } });
    h.emu.addFault({ method: 'PUT', path: '/projects/*/repository/files/*', action: { kind: 'status', status: 500 } });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain('reading the file again shows it unchanged since the plan');
    expect(r.stdout + r.stderr).not.toMatch(/outcome unknown/i);
    expect(h.file('README.md')?.data.toString()).toBe(README);
  });
});

describe('drift', () => {
  it('reports a file edited by a push after the last apply (exit 2), and apply restores it', async () => {
    h = await fileHarness();
    h.config({ 'README.md': { content: 'managed\n' } });
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    expect((await h.run(['drift'])).code).toBe(0);
    expect(await h.push('PUT', 'README.md', { content: 'edited by hand\n' })).toBe(200);
    const d = await h.run(['drift']);
    expect(d.code).toBe(2);
    expect(d.stdout).toContain("changed by a push after plumb's last apply");
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(h.file('README.md')?.data.toString()).toBe('managed\n');
    expect((await h.run(['drift'])).code).toBe(0);
  });

  it('reports a managed file deleted by a push', async () => {
    h = await fileHarness();
    h.config({ 'README.md': { content: 'managed\n' } });
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(await h.push('DELETE', 'README.md', {})).toBe(200);
    const d = await h.run(['drift']);
    expect(d.code).toBe(2);
    expect(d.stdout).toContain('deleted by a push');
  });
});

describe('large files', () => {
  const ELEVEN_MB = 11 * 1024 * 1024;

  it('plans a file over 10 MB with HEAD only, even with --show-content, and writes it', async () => {
    h = await fileHarness({
      projects: [{ path_with_namespace: PROJECT, default_branch: 'main', protected_branches: [], files: { 'README.md': README, 'big.txt': 'a'.repeat(ELEVEN_MB) } }],
    });
    h.wd.write('files/big.txt', 'b'.repeat(ELEVEN_MB));
    h.config({ 'big.txt': { source: 'files/big.txt' } });
    const r = await h.run(['plan', '--show-content']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('larger than 10 MB');
    expect(h.count('HEAD', /big(\.|%2E)txt$/)).toBe(1);
    expect(h.emu.requests.filter((q) => q.method === 'GET' && q.path.includes('/repository/files/'))).toEqual([]);
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(h.file('big.txt')?.data.equals(Buffer.from('b'.repeat(ELEVEN_MB)))).toBe(true);
    expect(h.emu.requests.filter((q) => q.method === 'GET' && q.path.includes('/repository/files/'))).toEqual([]);
  });
});

describe('reading errors', () => {
  it('names the file in the configuration when the project does not exist', async () => {
    h = await fileHarness();
    h.config({ 'README.md': { content: README, branches: ['main'] } }, 'platform/missing');
    const r = await h.run(['plan']);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain('PLUMB_API_NOT_FOUND');
    expect(r.stdout + r.stderr).toContain('plumb.yaml:');
    expect(h.emu.requests.filter((q) => q.method === 'POST')).toEqual([]);
  });

  it('reports a token without access to the project at the file, before any write', async () => {
    h = await fileHarness({
      users: [
        { username: 'root', admin: true, personal_access_tokens: [{ name: 'plumb', token: ADMIN_TOKEN, scopes: ['api'] }] },
      ],
      projects: [{ path_with_namespace: PROJECT, default_branch: 'main', visibility: 'private', files: { 'README.md': README } }],
    });
    h.config({ 'README.md': { content: 'x\n' } });
    h.emu.addFault({ method: 'HEAD', path: /repository\/files/, action: { kind: 'status', status: 403 } });
    const r = await h.run(['plan']);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain('PLUMB_API_FORBIDDEN');
    expect(r.stdout + r.stderr).toContain('plumb.yaml:');
    expect(h.emu.requests.filter((q) => q.method === 'PUT')).toEqual([]);
  });
});
