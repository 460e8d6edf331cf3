/**
 * Protection is planned (issue 32 item 3; docs/config.md#delivering-files): an administrator's
 * commit onto a protected branch is the risk `admin-push-protected-branch`, flagged in the plan and
 * refused at apply until accepted; and `delivery:` given by a selector reaches each match, an
 * explicit entry overriding it whole.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { pushVerdict } from '../../../src/resources/repository-files/protection.js';
import { fileHarness, PROJECT } from './helpers.js';
import type { FileHarness } from './helpers.js';

let h: FileHarness;
afterEach(() => h?.close());

const doc = (instance: Record<string, unknown>) => h.wd.write('plumb.yaml', JSON.stringify({ version: 1, instances: { local: { url: h.emu.url, token_env: 'PLUMB_TOKEN', ...instance } } }, null, 2));
const writes = () => h.emu.requests.filter((q) => q.method !== 'GET' && q.method !== 'HEAD');

describe("an administrator's commit onto a protected branch", () => {
  it('is a risk in the plan, refused at apply until allow_risky accepts it', async () => {
    // The default branch protected as the instance protects a new project's (Maintainers push and merge).
    h = await fileHarness({ projects: [{ path_with_namespace: PROJECT, default_branch: 'main', protected_branches: ['main'], files: { 'README.md': 'hello\n' } }] });
    doc({ projects: { [PROJECT]: { files: { 'README.md': { content: 'new\n' }, 'CODEOWNERS': { content: '* @x\n' } } } } });
    const plan = await h.run(['plan', '--json']);
    expect(plan.code, plan.stderr).toBe(0);
    const risks = (JSON.parse(plan.stdout) as { risks: { id: string; summary: string; acknowledged: boolean; address: string }[] }).risks;
    expect(risks).toHaveLength(1);
    expect(risks[0]).toMatchObject({ id: 'admin-push-protected-branch', acknowledged: false });
    expect(risks[0]!.summary).toContain('2 file(s) (README.md, CODEOWNERS) would be committed straight to protected branch "main"');
    expect((await h.run(['plan'])).stdout).toContain('admin-push-protected-branch');
    const refused = await h.run(['apply', '--auto-approve']);
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toContain('PLUMB_RISK_NOT_ACCEPTED');
    expect(writes()).toEqual([]);

    doc({ allow_risky: ['admin-push-protected-branch'], projects: { [PROJECT]: { files: { 'README.md': { content: 'new\n' }, 'CODEOWNERS': { content: '* @x\n' } } } } });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(h.file('README.md')?.data.toString()).toBe('new\n');
  });

  it('is no risk on an unprotected branch', async () => {
    h = await fileHarness();
    doc({ projects: { [PROJECT]: { files: { 'README.md': { content: 'new\n' } } } } });
    const plan = JSON.parse((await h.run(['plan', '--json'])).stdout) as { risks: unknown[] };
    expect(plan.risks).toEqual([]);
    // An unprotected branch needs no identity read.
    expect(h.emu.requests.filter((q) => q.path === '/user')).toEqual([]);
  });
});

describe('delivery from a selector', () => {
  it('reaches every match, and an explicit entry replaces it whole', async () => {
    const projects = ['platform/a', 'platform/b'];
    h = await fileHarness({ projects: projects.map((p) => ({ path_with_namespace: p, default_branch: 'main', protected_branches: [], files: { 'README.md': 'hello\n' } })) });
    const files = { 'README.md': { content: 'new\n' }, 'CODEOWNERS': { content: '* @x\n' } };
    doc({ projects: { 'platform/*': { delivery: { commit: { skip_ci: true } }, files }, 'platform/b': { delivery: 'commit' } } });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const head = (project: string) => h.emu.state.projects.find((p) => p.pathWithNamespace === project)!.repo.branchHead('main')!.message.split('\n')[0];
    expect(head('platform/a')).toBe('plumb: 2 files on main [skip ci]');
    expect(head('platform/b')).toBe('plumb: 2 files on main');
    expect(writes().map((q) => q.path)).toEqual(expect.arrayContaining(projects.map((p) => `/projects/${encodeURIComponent(p)}/repository/commits`)));
    expect(writes()).toHaveLength(2);
  });
});

describe('the push verdict, from the protection the branch will have', () => {
  it('denies what the protection refuses, and flags an administrator on a protected branch', () => {
    expect(pushVerdict({ protected: false, canPush: true }, true)).toBe('allowed');
    expect(pushVerdict({ protected: true, canPush: true }, false)).toBe('allowed');
    expect(pushVerdict({ protected: true, canPush: true }, true)).toBe('admin-on-protected');
    expect(pushVerdict({ protected: true, canPush: false }, true)).toBe('denied');
  });
});
