/**
 * What a saved plan's refusal says when something moved since it was made (issue 29, items 7 and
 * 20): an instance that moved under a selector (a project created, archived or renamed) is
 * PLUMB_PLAN_STALE naming the match, as docs/security.md promises, never PLUMB_PLAN_EDITED "(it was
 * edited)"; a configuration that changed is PLUMB_PLAN_STALE_CONFIG naming the file; and a comment
 * or a change of layout in the YAML does not make a saved plan stale at all.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fileHarness } from '../resources/repository-files/helpers.js';
import type { FileHarness } from '../resources/repository-files/helpers.js';

const README = { 'README.md': 'x\n' };
const SEED = {
  groups: [{ full_path: 'platform' }, { full_path: 'other' }],
  projects: [
    ...['a', 'b'].map((n) => ({ path_with_namespace: `platform/${n}`, default_branch: 'main', files: README })),
    { path_with_namespace: 'other/g', default_branch: 'main', files: README },
  ],
};

let h: FileHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A selector over platform's projects: its changes carry an origin naming the selector's place (file:line:col). */
function config(comment = ''): void {
  h!.wd.write(
    'plumb.yaml',
    [
      'version: 1',
      comment,
      'instances:',
      '  local:',
      `    url: ${h!.emu.url}`,
      '    token_env: PLUMB_TOKEN',
      '    projects:',
      '      "platform/*":',
      '        files:',
      '          CODEOWNERS: {content: "* @platform\\n"}',
      '',
    ].join('\n'),
  );
}

const writes = (hh: FileHarness) => hh.emu.requests.filter((r) => ['POST', 'PUT', 'DELETE'].includes(r.method)).length;

describe('a saved plan whose instance moved under a selector', () => {
  it('is stale, naming the project created (moved in) since the plan', async () => {
    h = await fileHarness(SEED);
    config();
    expect((await h.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    const moved = h.emu.state.projectByRef('other/g')!;
    moved.pathWithNamespace = 'platform/g';
    moved.namespaceId = h.emu.state.groupByRef('platform')!.id;
    const r = await h.run(['apply', 'plan.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_PLAN_STALE');
    expect(r.stderr).toContain('Selector "platform/*" matches local.project["platform/g"] now, which it did not match when the plan was made');
    expect(r.stderr).toContain('the live state moved since the plan was made');
    expect(r.stderr).not.toContain('PLUMB_PLAN_EDITED');
    expect(r.stderr).not.toContain('it was edited');
    expect(writes(h)).toBe(0);
  });

  it('is stale, naming the project archived since the plan', async () => {
    h = await fileHarness(SEED);
    config();
    expect((await h.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    h.emu.state.projectByRef('platform/b')!.archived = true;
    const r = await h.run(['apply', 'plan.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Selector "platform/*" no longer matches local.project["platform/b"], which it matched when the plan was made');
    expect(r.stderr).not.toContain('PLUMB_PLAN_EDITED');
    expect(writes(h)).toBe(0);
  });

  it('is stale, naming both sides of a project renamed since the plan', async () => {
    h = await fileHarness(SEED);
    config();
    expect((await h.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    h.emu.state.projectByRef('platform/b')!.pathWithNamespace = 'platform/renamed';
    const r = await h.run(['apply', 'plan.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no longer matches local.project["platform/b"]');
    expect(r.stderr).toContain('matches local.project["platform/renamed"] now');
    expect(r.stderr).not.toContain('PLUMB_PLAN_EDITED');
    expect(writes(h)).toBe(0);
  });

  it('is still edited when a change is removed from the file while the instance stayed put', async () => {
    h = await fileHarness(SEED);
    config();
    expect((await h.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    const plan = JSON.parse(h.wd.read('plan.json')) as { changes: { address: string }[] };
    const before = plan.changes.length;
    plan.changes = plan.changes.filter((c) => !(c.address.includes('platform/a') && c.address.includes('CODEOWNERS')));
    expect(plan.changes.length, JSON.stringify(plan.changes.map((c) => c.address))).toBe(before - 1);
    h.wd.write('plan.json', JSON.stringify(plan));
    const r = await h.run(['apply', 'plan.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_PLAN_EDITED');
    expect(writes(h)).toBe(0);
  });
});

describe('a saved plan and its configuration', () => {
  it('applies after a comment and a change of layout in the YAML (the meaning is the same)', async () => {
    h = await fileHarness(SEED);
    config();
    expect((await h.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    config('# reviewed by the platform team\n# (a comment moves every line below it)\n');
    const r = await h.run(['apply', 'plan.json']);
    expect(r.code, r.stderr).toBe(0);
    expect(h.file('CODEOWNERS', 'main', 'platform/a')).toBeDefined();
  });

  it('is stale when the meaning changed, and the error names the file that moved', async () => {
    h = await fileHarness(SEED);
    config();
    expect((await h.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    h.wd.write('plumb.yaml', h.wd.read('plumb.yaml').replace('@platform', '@platform-team'));
    const r = await h.run(['apply', 'plan.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_PLAN_STALE_CONFIG');
    expect(r.stderr).toContain('The configuration is not the one this plan was made from: plumb.yaml changed');
    expect(writes(h)).toBe(0);
  });
});
