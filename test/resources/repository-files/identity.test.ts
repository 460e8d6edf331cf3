/**
 * A project's files declared under two names (its numeric id and its path): every apply would flip
 * the file between the two contents. Both declarations are refused, as for groups.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT, fileHarness } from './helpers.js';
import type { FileHarness } from './helpers.js';

let h: FileHarness;
afterEach(async () => {
  await h?.close();
});

describe('one project under two names', () => {
  it('is PLUMB_DUPLICATE_RESOURCE at plan, and apply writes nothing', async () => {
    h = await fileHarness();
    const id = h.emu.state.projects.find((p) => p.pathWithNamespace === PROJECT)!.id;
    const doc = {
      version: 1,
      instances: {
        local: {
          url: h.emu.url,
          token_env: 'PLUMB_TOKEN',
          projects: { [PROJECT]: { files: { 'NOTICE.md': { content: 'one\n' } } }, [String(id)]: { files: { 'NOTICE.md': { content: 'two\n' } } } },
        },
      },
    };
    h.wd.write('plumb.yaml', JSON.stringify(doc, null, 2));
    const plan = await h.run(['plan', '--json']);
    expect(plan.code).toBe(1);
    const diags = (JSON.parse(plan.stdout) as { diagnostics: { code: string; summary: string }[] }).diagnostics.filter((d) => d.code === 'PLUMB_DUPLICATE_RESOURCE');
    expect(diags).toHaveLength(1);
    expect(diags[0]!.summary).toContain(`(id ${id})`);
    const apply = await h.run(['apply', '--auto-approve']);
    expect(apply.code).toBe(1);
    expect(h.count('POST', /repository\/files/) + h.count('PUT', /repository\/files/)).toBe(0);
    expect(h.file('NOTICE.md')).toBeUndefined();
  });

  it('compares paths offline, case-insensitively, without an extra request', async () => {
    h = await fileHarness();
    const doc = {
      version: 1,
      instances: {
        local: {
          url: h.emu.url,
          token_env: 'PLUMB_TOKEN',
          projects: { [PROJECT]: { files: { 'NOTICE.md': { content: 'one\n', branches: ['main'] } } }, [PROJECT.toUpperCase()]: { files: { 'NOTICE.md': { content: 'two\n', branches: ['main'] } } } },
        },
      },
    };
    h.wd.write('plumb.yaml', JSON.stringify(doc, null, 2));
    h.emu.resetRequests();
    const plan = await h.run(['plan', '--json']);
    expect(plan.code).toBe(1);
    expect(plan.stdout).toContain('PLUMB_DUPLICATE_RESOURCE');
    expect(h.emu.requests.filter((r) => /^\/projects\/[^/]+$/.test(r.path))).toEqual([]);
  });
});

describe('drift without a state file', () => {
  it('counts and lists a file that differs, instead of "0 resource(s) differ" with exit 2', async () => {
    h = await fileHarness();
    h.config({ 'README.md': { content: 'changed\n' } });
    const r = await h.run(['drift']);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('Drift detected: 1 resource(s) differ');
    expect(r.stdout).toContain('differs: local.project["platform/app"].branch["main"].file["README.md"]: apply would update it');
  });
});

describe('commit message templates', () => {
  it('write {{ and }} as literal braces around the placeholders', async () => {
    h = await fileHarness();
    h.config({ 'README.md': { content: 'changed\n', commit_message: 'chore {{x}}: {{{path}}} on {branch}' } });
    const r = await h.run(['plan', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout) as { changes: { payload: { commitMessage: string } }[] };
    expect(plan.changes[0]!.payload.commitMessage).toBe('chore {x}: {README.md} on main');
  });
});
