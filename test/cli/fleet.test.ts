/**
 * Fleet-scale plans against the emulator (issue 23): identical changes across many projects are
 * shown once in the human plan and the merge-request comment, with every change kept in the JSON
 * plan; and an apply that touches more than --max-changes resources of an instance is the risk
 * `large-change-set`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileHarness } from '../resources/repository-files/helpers.js';
import type { FileHarness } from '../resources/repository-files/helpers.js';

const PROJECTS = Array.from({ length: 8 }, (_, i) => `platform/app-${i}`);

let h: FileHarness;
beforeEach(async () => {
  h = await fileHarness({ projects: PROJECTS.map((p) => ({ path_with_namespace: p, default_branch: 'main', files: { CODEOWNERS: '* @old\n' } })) });
});
afterEach(() => h.close());

/** CODEOWNERS changed in every project; SECURITY.md created in the first `security` of them. */
function fleetConfig(security: number, extra: Record<string, unknown> = {}): void {
  const projects = Object.fromEntries(
    PROJECTS.map((p, i) => [
      p,
      {
        files: {
          CODEOWNERS: { content: '* @platform\n', branches: ['main'] },
          ...(i < security && { 'SECURITY.md': { content: '# Security\n', branches: ['main'] } }),
        },
      },
    ]),
  );
  h.wd.write('plumb.yaml', JSON.stringify({ version: 1, instances: { local: { url: h.emu.url, token_env: 'PLUMB_TOKEN', ...extra, projects } } }));
}

const codeowners = (p: string) => h.file('CODEOWNERS', 'main', p)?.data.toString('utf8');

describe('a plan across many projects', () => {
  it('shows identical changes once with how many projects they apply to, and keeps fewer than five as they were', async () => {
    fleetConfig(3);
    const r = await h.run(['plan']);
    expect(r.code).toBe(0);
    const template = 'local.project[*].branch["main"].file["CODEOWNERS"]';
    expect(r.stdout).toContain(`# ${template} will be updated in place (its content differs from the configuration) in 8 projects:`);
    expect(r.stdout).toContain('#   platform/app-0, platform/app-1, platform/app-2, … and 5 more (plumb plan --json lists every one)');
    expect(r.stdout).toContain(`~ repository_file ${JSON.stringify(template)} {`);
    // Shown once, not per project.
    expect(r.stdout).not.toContain('local.project["platform/app-5"].branch["main"].file["CODEOWNERS"]');
    // Three identical creates are fewer than the threshold: each is shown with its own address.
    for (const p of PROJECTS.slice(0, 3)) expect(r.stdout).toContain(`# local.project["${p}"].branch["main"].file["SECURITY.md"] will be created`);
    expect(r.stdout).toContain('Plan: 3 to add, 8 to change, 0 to destroy.');
    expect(r.stdout).toContain('Grouped: 8 changes identical but for their project or group are shown as 1 block; plumb plan --json lists every change.');
    expect(r.stdout).toContain(`repository_file ${template}: update in 8 projects`);
  });

  it('keeps every change in the JSON plan', async () => {
    fleetConfig(3);
    const plan = JSON.parse((await h.run(['plan', '--json'])).stdout);
    expect(plan.formatVersion).toBe('1.4');
    expect(plan.changes.filter((c: { action: string }) => c.action === 'update').map((c: { address: string }) => c.address)).toEqual(
      PROJECTS.map((p) => `local.project["${p}"].branch["main"].file["CODEOWNERS"]`),
    );
  });

  it('lists the projects of a group in a collapsible block of the merge-request comment, each escaped as code', async () => {
    fleetConfig(0);
    const r = await h.run(['plan', '--markdown', 'plan.md']);
    expect(r.code).toBe(0);
    const md = h.wd.read('plan.md');
    expect(md).toContain('| update | `local.project[*].branch["main"].file["CODEOWNERS"]` in 8 projects | its content differs from the configuration |');
    expect(md).toContain('<details><summary>8 projects</summary>');
    for (const p of PROJECTS) expect(md).toContain(`- \`${p}\``);
    expect(md).toContain('Grouped: 8 changes');
  });
});

describe('the blast radius', () => {
  it('refuses an apply of more changes to an instance than --max-changes, before any write, naming the risk and both ways to accept it', async () => {
    fleetConfig(0);
    const plan = await h.run(['plan', '--max-changes', '5']);
    expect(plan.stdout).toContain('! local [large-change-set]: 8 changes to instance "local", more than --max-changes (5)');
    const r = await h.run(['apply', '--auto-approve', '--max-changes', '5']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_RISK_NOT_ACCEPTED');
    expect(r.stderr).toContain('large-change-set');
    expect(r.stderr).toMatch(/--allow-risky, or add "large-change-set" to allow_risky of instance "local"/);
    expect(h.emu.requests.filter((q) => q.method !== 'HEAD' && q.method !== 'GET')).toEqual([]);
    expect(PROJECTS.map(codeowners)).toEqual(PROJECTS.map(() => '* @old\n'));
  });

  it('applies it with --allow-risky', async () => {
    fleetConfig(0);
    const r = await h.run(['apply', '--auto-approve', '--max-changes', '5', '--allow-risky']);
    expect(r.code).toBe(0);
    expect(PROJECTS.map(codeowners)).toEqual(PROJECTS.map(() => '* @platform\n'));
  });

  it('applies it when the instance lists large-change-set under allow_risky', async () => {
    fleetConfig(0, { allow_risky: ['large-change-set'] });
    const r = await h.run(['apply', '--auto-approve', '--max-changes', '5']);
    expect(r.code).toBe(0);
    expect(PROJECTS.map(codeowners)).toEqual(PROJECTS.map(() => '* @platform\n'));
  });

  it('is no risk up to 100 changes by default', async () => {
    fleetConfig(3);
    const plan = JSON.parse((await h.run(['plan', '--json'])).stdout);
    expect(plan.risks).toEqual([]);
  });

  it("judges a saved plan by the apply's own --max-changes, not the one the plan was made with", async () => {
    fleetConfig(0);
    expect((await h.run(['plan', '--out', 'plan.json', '--max-changes', '5'])).code).toBe(0);
    const refused = await h.run(['apply', 'plan.json', '--max-changes', '7']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('large-change-set');
    expect(refused.stderr).not.toContain('PLUMB_PLAN_EDITED');
    const applied = await h.run(['apply', 'plan.json']);
    expect(applied.stderr).not.toContain('PLUMB_PLAN_EDITED');
    expect(applied.code).toBe(0);
    expect(PROJECTS.map(codeowners)).toEqual(PROJECTS.map(() => '* @platform\n'));
  });

  it('refuses --max-changes that is not a whole number of 1 or more', async () => {
    fleetConfig(0);
    const r = await h.run(['plan', '--max-changes', '0']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--max-changes must be a whole number of 1 or more, not "0"');
  });
});
