/**
 * Writes the service refuses for what the project or branch is, not for the token's role (issue 29,
 * item 6): an archived project is read-only (plan warns, apply says so), and a protected branch's
 * refusal at apply says what the service said ("You are not allowed to push into this branch"). A
 * Developer's commit onto a protected branch is refused at plan already (delivery-protection.test.ts).
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT, fileHarness } from './helpers.js';
import type { FileHarness } from './helpers.js';

let h: FileHarness;
afterEach(async () => {
  await h?.close();
  if (h) rmSync(h.wd.dir, { recursive: true, force: true });
});

describe('an archived project', () => {
  it('is warned about at plan, located at the project, and its refusal at apply says it is archived, not the token role', async () => {
    h = await fileHarness({ projects: [{ path_with_namespace: PROJECT, default_branch: 'main', archived: true, protected_branches: [], files: { 'README.md': 'hello\n' } }] });
    h.config({ 'README.md': { content: 'changed\n' }, 'NEW.md': { content: 'new\n' } });
    const plan = await h.run(['plan', '--json']);
    expect(plan.code, plan.stderr).toBe(0);
    const doc = JSON.parse(plan.stdout) as { diagnostics: { code: string; severity: string; summary: string; file?: string; line?: number }[]; changes: { action: string }[] };
    const warning = doc.diagnostics.find((d) => d.code === 'PLUMB_FILE_PROJECT_ARCHIVED');
    expect(warning).toMatchObject({ severity: 'warning', file: 'plumb.yaml' });
    expect(warning!.summary).toContain(`Project "${PROJECT}" is archived`);
    expect(warning!.summary).toContain('2 file change(s)');
    const human = await h.run(['plan']);
    expect(human.stdout + human.stderr).toContain('PLUMB_FILE_PROJECT_ARCHIVED');

    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    const said = r.stdout + r.stderr;
    expect(said).toContain('PLUMB_FILE_PROJECT_ARCHIVED');
    expect(said).toContain(`project "${PROJECT}" is archived`);
    expect(said).not.toContain("token's role");
    expect(h.file('NEW.md')).toBeUndefined();
  });

  it('is not warned about when it is not archived', async () => {
    h = await fileHarness();
    h.config({ 'README.md': { content: 'changed\n' } });
    const plan = await h.run(['plan']);
    expect(plan.stdout + plan.stderr).not.toContain('PLUMB_FILE_PROJECT_ARCHIVED');
  });
});

describe('a protected branch', () => {
  it('says what the service said when it answers 403 "You are not allowed to push into this branch", with a hint about the protection', async () => {
    h = await fileHarness();
    h.config({ 'NEW.md': { content: 'new\n' } });
    h.emu.addFault({ method: 'POST', path: /\/repository\/files\//, action: { kind: 'status', status: 403, body: { message: '403 Forbidden - You are not allowed to push into this branch' } } });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    const said = r.stdout + r.stderr;
    expect(said).toContain('PLUMB_FILE_BRANCH_PROTECTED');
    expect(said).toContain('"You are not allowed to push into this branch" (the branch is protected)');
    expect(said).toContain('protected branches');
    expect(said).not.toContain("token's role");
  });
});
