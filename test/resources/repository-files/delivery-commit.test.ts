/**
 * `delivery: commit` against the emulator (docs/config.md#delivering-files): every changed file of
 * a project and branch in one commit through the commits API, guarded per file by the last commit
 * the plan saw (a commit made since refuses the whole commit, naming the file that moved), and
 * `skip_ci` putting the service's marker in the message.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fileHarness, PROJECT, README } from './helpers.js';
import type { FileHarness } from './helpers.js';

let h: FileHarness;
afterEach(() => h?.close());

/** The commits on `branch` of the harness's project, newest first (first-parent history). */
function history(branch = 'main') {
  const p = h.emu.state.projects.find((x) => x.pathWithNamespace === PROJECT)!;
  const out = [];
  for (let c = p.repo.branchHead(branch); c; c = p.repo.parent(c)) out.push(c);
  return out;
}

const writes = () => h.emu.requests.filter((q) => q.method !== 'GET' && q.method !== 'HEAD');

describe('delivery: commit', () => {
  it('writes every changed file of the branch in one commit through the commits API', async () => {
    h = await fileHarness();
    const before = history().length;
    h.config({ 'README.md': { content: 'updated\n' }, 'CODEOWNERS': { content: '* @platform\n' }, 'scripts/run.sh': { state: 'absent' } });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(history().length).toBe(before + 1);
    expect(writes().map((q) => `${q.method} ${q.path}`)).toEqual([`POST /projects/${encodeURIComponent(PROJECT)}/repository/commits`]);
    const head = history()[0]!;
    expect(head.message).toBe('plumb: 3 files on main\n\nplumb: update README.md\nplumb: create CODEOWNERS\nplumb: delete scripts/run.sh');
    expect(h.file('README.md')?.data.toString()).toBe('updated\n');
    expect(h.file('CODEOWNERS')?.data.toString()).toBe('* @platform\n');
    expect(h.file('scripts/run.sh')).toBeUndefined();
    // Recorded for drift, and the next plan is empty.
    expect((await h.run(['plan', '--detailed-exitcode'])).code).toBe(0);
  });

  it('applies a saved plan of several files as the one commit it shows (order.batch), and reports drift from it', async () => {
    h = await fileHarness();
    h.config({ 'README.md': { content: 'updated\n' }, 'CODEOWNERS': { content: '* @platform\n' } });
    expect((await h.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    const saved = JSON.parse(h.wd.read('plan.json')) as { changes: { order?: { lane?: string; batch?: string } }[] };
    expect(new Set(saved.changes.map((c) => c.order?.batch)).size).toBe(1);
    expect(saved.changes[0]!.order?.batch).toBeDefined();
    const before = history().length;
    const r = await h.run(['apply', 'plan.json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(history().length).toBe(before + 1);
    expect(await h.push('PUT', 'CODEOWNERS', { content: '* @someone\n' })).toBe(200);
    const d = await h.run(['drift']);
    expect(d.code).toBe(2);
    expect(d.stdout).toContain("file CODEOWNERS on main was changed by a push after plumb's last apply");
  });

  it('keeps a shared commit message as it is, and one changed file a single files-API write', async () => {
    h = await fileHarness();
    const before = history().length;
    h.config({ 'README.md': { content: 'updated\n', commit_message: 'chore: sync files' }, 'CODEOWNERS': { content: '* @platform\n', commit_message: 'chore: sync files' } });
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(history().length).toBe(before + 1);
    expect(history()[0]!.message).toBe('chore: sync files');
    h.config({ 'README.md': { content: 'again\n' }, 'CODEOWNERS': { content: '* @platform\n' } });
    const n = writes().length;
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(writes().slice(n).map((q) => q.method)).toEqual(['PUT']);
  });

  it('with skip_ci puts [skip ci] in the message, for a commit of several files and for a single write', async () => {
    h = await fileHarness();
    const doc = (files: Record<string, unknown>) =>
      h.wd.write('plumb.yaml', JSON.stringify({ version: 1, instances: { local: { url: h.emu.url, token_env: 'PLUMB_TOKEN', projects: { [PROJECT]: { delivery: { commit: { skip_ci: true } }, files } } } } }));
    doc({ 'README.md': { content: 'updated\n' }, 'CODEOWNERS': { content: '* @platform\n' } });
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(history()[0]!.message.split('\n')[0]).toBe('plumb: 2 files on main [skip ci]');
    doc({ 'README.md': { content: 'again\n' }, 'CODEOWNERS': { content: '* @platform\n' } });
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(history()[0]!.message).toBe('plumb: update README.md [skip ci]');
  });
});

describe('a commit made since the plan', () => {
  it('refuses the whole commit and names the file that moved; no file of it is written', async () => {
    h = await fileHarness();
    h.config({ 'README.md': { content: 'from plumb\n' }, 'CODEOWNERS': { content: '* @platform\n' }, 'scripts/run.sh': { content: 'echo plumb\n' } });
    const r = await h.applyWithEditBetween(async () => {
      expect(await h.push('PUT', 'scripts/run.sh', { content: 'echo colleague\n' })).toBe(200);
    });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/PLUMB_FILE_CONFLICT.*scripts\/run\.sh on main was changed by commit [0-9a-f]{12} since the plan/);
    expect(r.out).toContain('plumb committed none of README.md, CODEOWNERS, scripts/run.sh');
    expect(r.out).toContain('plumb.yaml:');
    expect(r.out).toContain('not committed: the commit was refused as a whole: scripts/run.sh moved since the plan');
    // Nothing of the commit reached the branch: the colleague's commit is its head.
    expect(h.file('scripts/run.sh')?.data.toString()).toBe('echo colleague\n');
    expect(h.file('README.md')?.data.toString()).toBe(README);
    expect(h.file('CODEOWNERS')).toBeUndefined();
    expect(history()[0]!.message).toBe('out of band PUT');
  });
});

describe('a commit whose answer is not a 201', () => {
  const twoFiles = () => h.config({ 'README.md': { content: 'updated\n' }, 'CODEOWNERS': { content: '* @platform\n' } });

  it('that was made (a 500 after the commit) is read back, reported as applied and recorded, never sent twice', async () => {
    h = await fileHarness();
    twoFiles();
    h.emu.addFault({ method: 'POST', path: '/projects/*/repository/commits', action: { kind: 'status', status: 500, after: true } });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout + r.stderr).toContain('answered 500, but reading the files again shows main holds the declared files: the commit was made');
    expect(writes()).toHaveLength(1);
    expect(JSON.stringify(JSON.parse(h.wd.read('state.json')))).toContain('CODEOWNERS');
  });

  it('that was lost before the service acted says the files are unchanged, without "outcome unknown"', async () => {
    h = await fileHarness();
    twoFiles();
    h.emu.addFault({ method: 'POST', path: '/projects/*/repository/commits', action: { kind: 'drop', when: 'before' } });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain('reading the files again shows them unchanged since the plan, so nothing was committed');
    expect(r.stdout + r.stderr).not.toMatch(/outcome unknown/i);
    expect(h.file('CODEOWNERS')).toBeUndefined();
  });

  it("refused by the branch's protection says so, once, and the other file went with it", async () => {
    h = await fileHarness();
    twoFiles();
    h.emu.addFault({ method: 'POST', path: '/projects/*/repository/commits', action: { kind: 'status', status: 403, body: { message: '403 Forbidden - You are not allowed to push into this branch' } } });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    const said = r.stdout + r.stderr;
    expect(said.match(/PLUMB_FILE_BRANCH_PROTECTED/g)).toHaveLength(1);
    expect(said).toContain('The instance refused the commit of README.md, CODEOWNERS to main of project "platform/app": "You are not allowed to push into this branch" (the branch is protected)');
    expect(said).toContain('not committed: the commit with README.md failed (reported there)');
    expect(h.file('README.md')?.data.toString()).toBe(README);
  });
});
