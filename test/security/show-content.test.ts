/**
 * `plan --show-content` in a merge-request pipeline (issue 18 item 6): the admin token can read every
 * project, and the CI log reaches people who cannot. The live side of a diff is shown only for
 * files of public and internal projects; a private project's file says how many lines change, unless
 * `--show-private-content` is given on the command line. Runs the CLI in-process against the emulator.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fileHarness, PROJECT } from '../resources/repository-files/helpers.js';
import type { FileHarness } from '../resources/repository-files/helpers.js';

/** A line of a private file that only the project's members may read. */
const PRIVATE_LINE = 'internal-hostname: db-7.corp.example';
const LIVE = `# runbook\n${PRIVATE_LINE}\nend\n`;
const DECLARED = '# runbook\nend\nnew line\n';

let h: FileHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function harness(visibility: 'private' | 'internal' | 'public'): Promise<FileHarness> {
  h = await fileHarness({ projects: [{ path_with_namespace: PROJECT, default_branch: 'main', visibility, files: { 'RUNBOOK.md': LIVE } }] });
  h.config({ 'RUNBOOK.md': { content: DECLARED } });
  return h;
}

const projectReads = (x: FileHarness) => x.count('GET', /^\/projects\/[^/]+$/);

describe('plan --show-content of a private project', () => {
  it("withholds the live content of a private project's file, in the plan, the JSON and the markdown, and says how much changes", async () => {
    const x = await harness('private');
    const r = await x.run(['plan', '--show-content', '--markdown', 'plan.md']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`(content of a private project not shown: "${PROJECT}" is private; 1 line(s) removed, 1 added; plan --show-private-content shows it)`);
    expect(r.stdout + r.stderr).not.toContain(PRIVATE_LINE);
    expect(readFileSync(path.join(x.wd.dir, 'plan.md'), 'utf8')).not.toContain(PRIVATE_LINE);
    const json = await x.run(['plan', '--show-content', '--json']);
    expect(json.stdout).not.toContain(PRIVATE_LINE);
    expect(JSON.parse(json.stdout).changes[0].diff).toMatch(/^\(content of a private project not shown/);
  });

  it('shows it with --show-private-content given on the command line', async () => {
    const x = await harness('private');
    const r = await x.run(['plan', '--show-private-content']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`-${PRIVATE_LINE}`);
    expect(r.stdout).toContain('+new line');
  });

  it.each(['public', 'internal'] as const)('shows the diff of a %s project, reading the project once', async (visibility) => {
    const x = await harness(visibility);
    const r = await x.run(['plan', '--show-content']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`-${PRIVATE_LINE}`);
    expect(r.stdout).not.toContain('not shown');
    expect(projectReads(x)).toBe(1);
  });

  it('costs no project read beyond the one plan makes anyway, one per project', async () => {
    const x = await harness('private');
    expect((await x.run(['plan'])).code).toBe(0);
    const without = projectReads(x);
    expect((await x.run(['plan', '--show-content'])).code).toBe(0);
    expect(projectReads(x) - without).toBe(without);
    expect(without).toBeLessThanOrEqual(1);
  });

  it('applies a saved plan made with or without --show-private-content, and refuses one whose withheld diff was replaced', async () => {
    for (const flag of ['--show-content', '--show-private-content']) {
      const x = await harness('private');
      expect((await x.run(['plan', flag, '--out', 'plan.json'])).code).toBe(0);
      const a = await x.run(['apply', 'plan.json', '--auto-approve']);
      expect(a.stderr + a.stdout).not.toContain('PLUMB_PLAN_EDITED');
      expect(a.code).toBe(0);
      expect(x.file('RUNBOOK.md')?.data.toString()).toBe(DECLARED);
      await x.close();
      h = undefined;
    }
    const x = await harness('private');
    expect((await x.run(['plan', '--show-content', '--out', 'plan.json'])).code).toBe(0);
    const plan = JSON.parse(x.wd.read('plan.json'));
    plan.changes[0].diff = '--- a/RUNBOOK.md\n+++ b/RUNBOOK.md\n@@ -1 +1 @@\n-nothing to see\n+new line';
    x.wd.write('plan.json', JSON.stringify(plan));
    const a = await x.run(['apply', 'plan.json', '--auto-approve']);
    expect(a.code).toBe(1);
    // Refused as an edited plan, or as content that is not the planned one (the diff follows from it).
    expect(a.stderr + a.stdout).toMatch(/PLUMB_PLAN_EDITED|PLUMB_FILE_SOURCE_CHANGED/);
    expect(a.stderr + a.stdout).not.toContain(PRIVATE_LINE);
    expect(x.file('RUNBOOK.md')?.data.toString()).toBe(LIVE);
  });

  it('never shows a file whose declared content is a secret, even with --show-private-content', async () => {
    const x = await harness('public');
    x.config({ 'RUNBOOK.md': { content: '${env:RUNBOOK_SECRET}' } });
    const r = await x.wd.run(['plan', '--show-private-content', '--state', 'state.json'], { RUNBOOK_SECRET: 'declared-secret-runbook' });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('(content not shown: it comes from a secret)');
    expect(r.stdout).not.toContain(PRIVATE_LINE);
  });
});
