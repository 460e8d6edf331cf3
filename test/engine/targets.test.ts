/**
 * `--target ADDRESS` on plan, apply and drift (docs/plans.md#targeting): the glob rules, and against
 * the emulator over HTTP that only targeted resources are read, planned and applied, and that a saved
 * plan carries its targets into apply.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { targetProblem, targetSet } from '../../src/engine/targets.js';
import { startTestEmulator } from '../helpers/emulator.js';
import { ADMIN, SEED } from '../helpers/emulator.js';
import { workdir } from '../helpers/cli.js';
import { harness, seedToken } from '../resources/group-access-tokens/helpers.js';
import type { Harness } from '../resources/group-access-tokens/helpers.js';

describe('target addresses', () => {
  const token = (group: string, name: string) => `prod.group[${JSON.stringify(group)}].access_token[${JSON.stringify(name)}]`;

  it('matches a star within one segment, across slashes inside the quotes', () => {
    const t = targetSet(['prod.group["platform/*"]']);
    expect(t.targeted(token('platform/a', 'ci'))).toBe(true);
    expect(t.targeted(token('platform/a/deep', 'ci'))).toBe(true);
    expect(t.targeted(token('platformer', 'ci'))).toBe(false);
    expect(t.targeted('staging.group["platform/a"].access_token["ci"]')).toBe(false);
    expect(t.targeted('prod.application_settings')).toBe(false);
  });

  it('selects a resource and everything beneath it, and a lone star matches any one segment', () => {
    expect(targetSet(['prod.project["app"].pages']).targeted('prod.project["app"].pages.deployments')).toBe(true);
    const any = targetSet(['*.application_settings']);
    expect(any.targeted('prod.application_settings')).toBe(true);
    expect(any.targeted('prod.group["x"].access_token["y"]')).toBe(false);
    expect(targetSet(['prod.group["a"].*']).targeted(token('a', 'ci'))).toBe(true);
  });

  it('does not split at a dot inside quotes, and takes \\* as a literal star', () => {
    const t = targetSet(['prod.project["app"].branch["main"].file["README.md"]']);
    expect(t.targeted('prod.project["app"].branch["main"].file["README.md"]')).toBe(true);
    expect(t.targeted('prod.project["app"].branch["main"].file["READMEXmd"]')).toBe(false);
    const literal = targetSet(['prod.project["app"].branch["main"].file["a\\*"]']);
    expect(literal.targeted('prod.project["app"].branch["main"].file["a*"]')).toBe(true);
    expect(literal.targeted('prod.project["app"].branch["main"].file["ab"]')).toBe(false);
  });

  it("ignores an undeclared token's #ID, and answers whether a target can select something beneath a prefix", () => {
    const t = targetSet([token('a', 'old')]);
    expect(t.targeted(`${token('a', 'old')}#17`)).toBe(true);
    expect(t.within('prod.group["a"]')).toBe(true);
    expect(t.within('prod.group["b"]')).toBe(false);
    expect(t.within('prod')).toBe(true);
    expect(t.within('staging')).toBe(false);
  });

  it('answers for a prefix with a segment not known yet (the default branch) by what the segment starts with', () => {
    const unknownBranch = ['prod', 'project["app"]', { startsWith: 'branch[' }, 'file["a"]'] as const;
    expect(targetSet(['prod.project["app"].pages']).withinSegments(unknownBranch)).toBe(false);
    expect(targetSet(['prod.project["app"].branch["main"]']).withinSegments(unknownBranch)).toBe(true);
    expect(targetSet(['prod.project["app"].*.file["a"]']).withinSegments(unknownBranch)).toBe(true);
    expect(targetSet(['prod.project["app"].branch[*].file["b"]']).withinSegments(unknownBranch)).toBe(false);
    expect(targetSet(['prod.project["app"]']).withinSegments(unknownBranch)).toBe(true);
  });

  it('names what is wrong with a malformed target', () => {
    expect(targetProblem('prod.group["a')).toBe('a quote is not closed');
    expect(targetProblem('prod..x')).toMatch(/segment 2 is empty/);
    expect(targetProblem('')).toBe('it is empty');
    expect(targetProblem('prod.group["a.b"]')).toBeUndefined();
  });
});

let h: Harness;
afterEach(async () => {
  await h?.close();
});

async function fleet(): Promise<Harness> {
  const hh = await harness({ groups: [{ full_path: 'platform' }, { full_path: 'platform/a' }, { full_path: 'platform/b' }, { full_path: 'other' }] });
  hh.config({
    'platform/a': { tokens: { 'a-ci': {} } },
    'platform/b': { tokens: { 'b-ci': {} } },
    other: { tokens: { 'other-ci': {} } },
  });
  return hh;
}

describe('plumb plan, apply and drift with --target', () => {
  it('reads and plans only the groups a glob target selects', async () => {
    h = await fleet();
    h.emu.resetRequests();
    const r = await h.run(['plan', '--json', '--target', 'local.group["platform/*"]']);
    expect(r.code).toBe(0);
    const plan = JSON.parse(r.stdout) as { changes: { address: string }[]; targets: string[] };
    expect(plan.changes.map((c) => c.address).sort()).toEqual(['local.group["platform/a"].access_token["a-ci"]', 'local.group["platform/b"].access_token["b-ci"]']);
    expect(plan.targets).toEqual(['local.group["platform/*"]']);
    expect(h.emu.requests.map((q) => `${q.method} ${q.path}`).sort()).toEqual(['GET /groups/platform%2Fa/access_tokens', 'GET /groups/platform%2Fb/access_tokens']);
  });

  it('saves the targets in the plan, and apply of that plan applies only them', async () => {
    h = await fleet();
    const planned = await h.run(['plan', '--out', 'plan.json', '--target', 'local.group["other"]']);
    expect(planned.code).toBe(0);
    expect(planned.stdout).toContain('Targeted plan: only resources matching local.group["other"]');
    expect(JSON.parse(h.wd.read('plan.json')).targets).toEqual(['local.group["other"]']);
    h.emu.resetRequests();
    const applied = await h.run(['apply', 'plan.json']);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('1 applied');
    expect(h.emu.requests.every((q) => q.path.startsWith('/groups/other/'))).toBe(true);
    const after = await h.run(['plan', '--json']);
    const rest = (JSON.parse(after.stdout) as { changes: { address: string; action: string }[] }).changes.filter((c) => c.action !== 'no-op').map((c) => c.address);
    expect(rest.sort()).toEqual(['local.group["platform/a"].access_token["a-ci"]', 'local.group["platform/b"].access_token["b-ci"]']);
  });

  it('refuses --target on apply of a saved plan made with other targets', async () => {
    h = await fleet();
    await h.run(['plan', '--out', 'plan.json', '--target', 'local.group["other"]']);
    const r = await h.run(['apply', 'plan.json', '--target', 'local.group["platform/a"]']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--target does not apply to a saved plan');
  });

  it('checks drift only for the targets, and refuses a target that matches nothing', async () => {
    h = await fleet();
    h.emu.resetRequests();
    const drift = await h.run(['drift', '--json', '--target', 'local.group["other"].access_token["other-ci"]']);
    expect(drift.code).toBe(2);
    const report = JSON.parse(drift.stdout) as { pendingChanges: { address: string }[] };
    expect(report.pendingChanges.map((c) => c.address)).toEqual(['local.group["other"].access_token["other-ci"]']);
    expect(h.emu.requests.map((q) => q.path)).toEqual(['/groups/other/access_tokens']);
    const none = await h.run(['plan', '--target', 'local.group["nope"]']);
    expect(none.code).toBe(1);
    expect(none.stdout + none.stderr).toContain('PLUMB_TARGET_MATCHES_NOTHING');
  });

  it('neither checks the sink nor reads the credential for tokens a target leaves out', async () => {
    h = await harness({ groups: [{ full_path: 'platform', access_tokens: [seedToken('stray', 'seeded-stray-target-01', { id: 40 })] }] });
    h.config({ platform: { prune: true, tokens: { wanted: {}, broken: { sink: '{file: /nonexistent-dir/x/broken.token}' } } } });
    h.emu.resetRequests();
    const r = await h.run(['plan', '--json', '--target', 'local.group["platform"].access_token["wanted"]']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { changes: { address: string }[] }).changes.map((c) => c.address)).toEqual(['local.group["platform"].access_token["wanted"]']);
    expect(h.emu.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['GET /groups/platform/access_tokens']);
  });

  it('fails plan, apply and drift when one target matches nothing, even beside one that matches', async () => {
    h = await fleet();
    const drift = await h.run(['drift', '--target', 'prd.*']);
    expect(drift.code).toBe(1);
    expect(drift.stdout + drift.stderr).toContain('PLUMB_TARGET_MATCHES_NOTHING');
    const plan = await h.run(['plan', '--target', 'local.group["other"]', '--target', 'local.group["othr"]']);
    expect(plan.code).toBe(1);
    expect(plan.stdout + plan.stderr).toMatch(/No declared resource matches --target local\.group\["othr"\]/);
    h.emu.resetRequests();
    const apply = await h.run(['apply', '--auto-approve', '--target', 'local.group["othr"]']);
    expect(apply.code).toBe(1);
    expect(h.emu.requests.filter((q) => q.method !== 'GET')).toEqual([]);
  });

  it('reports a malformed target as a usage mistake before reading anything', async () => {
    h = await fleet();
    h.emu.resetRequests();
    const r = await h.run(['plan', '--target', 'local.group["platform']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_USAGE');
    expect(r.stderr).toContain('a quote is not closed');
    expect(h.emu.requests).toEqual([]);
  });
});

describe('repository files with --target', () => {
  it('reads only the targeted file of the targeted project and branch', async () => {
    const emu = await startTestEmulator({ seed: SEED });
    try {
      const wd = workdir({ PLUMB_TOKEN: ADMIN });
      wd.write(
        'plumb.yaml',
        `version: 1
instances:
  local:
    url: ${emu.url}
    token_env: PLUMB_TOKEN
    projects:
      platform/site:
        files:
          index.html: {content: "<h1>hello</h1>\\n", branches: [main]}
          README.md: {content: "site\\n", branches: [main]}
      platform/nopages:
        files:
          a.txt: {content: "b\\n", branches: [main]}
`,
      );
      emu.resetRequests();
      const r = await wd.run(['plan', '--json', '--target', 'local.project["platform/site"].branch["main"].file["index.*"]']);
      expect(r.code).toBe(0);
      const plan = JSON.parse(r.stdout) as { changes: { address: string }[] };
      expect(plan.changes.map((c) => c.address)).toEqual(['local.project["platform/site"].branch["main"].file["index.html"]']);
      // The project of a planned change is read once, to warn when it is archived, and its branch once,
      // for its protection; the branch is protected, so who plumb is too (docs/plans.md#repository-files).
      const asked = emu.requests.map((q) => `${q.method} ${q.path}`);
      expect(asked.slice(0, 3)).toEqual(['HEAD /projects/platform%2Fsite/repository/files/index%2Ehtml', 'GET /projects/platform%2Fsite', 'GET /projects/platform%2Fsite/repository/branches/main']);
      expect(asked.slice(3).sort()).toEqual(['GET /personal_access_tokens/self', 'GET /user']);
    } finally {
      await emu.close();
    }
  });
});
