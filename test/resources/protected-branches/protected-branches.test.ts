/**
 * Protected branches as a kind (issue 32 item 6), through the CLI against the emulator over
 * loopback: a selector's round trip (apply, a hand change named by drift, apply, no changes),
 * wildcards, pruning, located validation errors and the replacement of a level change.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN, SEED, startTestEmulator } from '../../helpers/emulator.js';
import type { TestEmulator } from '../../helpers/emulator.js';
import type { EmulatorSeed } from '../../../src/emulator/types.js';
import { secret, workdir } from '../../helpers/cli.js';
import type { Workdir } from '../../helpers/cli.js';

secret(ADMIN);

let emu: TestEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

const FLEET = ['fleet/a', 'fleet/b', 'fleet/c'];

function seed(extra: Partial<EmulatorSeed['projects'] extends (infer P)[] | undefined ? P : never> = {}): EmulatorSeed {
  return {
    ...SEED,
    groups: [...(SEED.groups ?? []), { full_path: 'fleet', id: 60 }],
    projects: [
      ...(SEED.projects ?? []),
      ...FLEET.map((path, i) => ({ path_with_namespace: path, id: 70 + i, files: { 'README.md': 'x\n' }, branches: { 'release/1.0': { from: 'main' } }, ...extra })),
    ],
  };
}

async function start(s: EmulatorSeed = seed()): Promise<{ emu: TestEmulator; wd: Workdir }> {
  emu = await startTestEmulator({ seed: s });
  return { emu, wd: workdir({ PLUMB_TOKEN: ADMIN }) };
}

const header = (url: string, extra = '') => `version: 1\ninstances:\n  local:\n    url: ${url}\n    token_env: PLUMB_TOKEN\n${extra}    projects:\n`;

function rules(e: TestEmulator, project: string) {
  return e.state.projectByRef(project)!.protectedBranches.map((r) => ({ name: r.name, push: r.pushAccessLevel, merge: r.mergeAccessLevel, force: r.allowForcePush }));
}

describe('protected branches over a selector', () => {
  it('apply protects every match, drift names a hand change, apply puts it back, and the plan is then empty', async () => {
    const { emu, wd } = await start();
    wd.write(
      'plumb.yaml',
      `${header(emu.url)}      fleet/*:\n        protected_branches:\n          main: {push_access_level: maintainer, allow_force_push: false}\n          release/*: {push_access_level: 40, merge_access_level: 40, allow_force_push: false}\n`,
    );
    const applied = await wd.run(['apply', '--auto-approve']);
    expect(applied.code, applied.stderr + applied.stdout).toBe(0);
    for (const p of FLEET) {
      expect(rules(emu, p)).toEqual([
        { name: 'main', push: 40, merge: 40, force: false },
        { name: 'release/*', push: 40, merge: 40, force: false },
      ]);
    }

    // A hand change: a Maintainer lets developers push to main of fleet/b.
    const b = emu.state.projectByRef('fleet/b')!;
    b.protectedBranches.find((r) => r.name === 'main')!.pushAccessLevel = 30;
    const drift = await wd.run(['drift']);
    expect(drift.code, drift.stderr).toBe(2);
    expect(drift.stdout).toContain('drift: local.project["fleet/b"].protected_branch["main"]: protected branch "main" of project "fleet/b": push_access_level is developer, declared maintainer');
    expect(drift.stdout).not.toContain('fleet/a"].protected_branch');

    // A level cannot change in place: the plan replaces the rule and flags the unprotected moment.
    const plan = await wd.run(['plan', '--json']);
    const doc = JSON.parse(plan.stdout) as { changes: { address: string; action: string }[]; risks: { id: string; acknowledged: boolean }[] };
    expect(doc.changes.filter((c) => c.action !== 'no-op')).toEqual([expect.objectContaining({ address: 'local.project["fleet/b"].protected_branch["main"]', action: 'replace' })]);
    expect(doc.risks).toEqual([expect.objectContaining({ id: 'protected-branch-replaced', acknowledged: false })]);
    const refused = await wd.run(['apply', '--auto-approve']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Risky change not accepted: push_access_level of protected branch "main" of project "fleet/b" cannot change in place');
    // Not a lock-out: the refusal does not say it is one.
    expect(refused.stderr).not.toContain('lock administrators or plumb itself out');
    expect(b.protectedBranches.find((r) => r.name === 'main')!.pushAccessLevel).toBe(30);

    const again = await wd.run(['apply', '--auto-approve', '--allow-risky']);
    expect(again.code, again.stderr + again.stdout).toBe(0);
    expect(rules(emu, 'fleet/b')).toContainEqual({ name: 'main', push: 40, merge: 40, force: false });
    const quiet = await wd.run(['plan']);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stdout).toContain('No changes');
  });

  it('changes a flag in place (PATCH, no replacement and no risk), and shows a replacement as one change with its window', async () => {
    const { emu, wd } = await start();
    wd.write('plumb.yaml', `${header(emu.url, '    allow_risky: [protected-branch-replaced]\n')}      fleet/a:\n        protected_branches:\n          main: {allow_force_push: true}\n`);
    const first = await wd.run(['plan']);
    expect(first.stdout).toMatch(/~ allow_force_push\s+= false -> true/);
    expect(first.stdout).not.toContain('protected-branch-replaced');
    const ids = emu.state.projectByRef('fleet/a')!.protectedBranches.map((r) => r.id);
    // A saved plan: apply checks it against the instance (the rule's fingerprint) and carries it out.
    expect((await wd.run(['plan', '--out', 'flag.json'])).code).toBe(0);
    const saved = await wd.run(['apply', 'flag.json', '-c', 'plumb.yaml', '--auto-approve']);
    expect(saved.code, saved.stderr + saved.stdout).toBe(0);
    expect(emu.state.projectByRef('fleet/a')!.protectedBranches.map((r) => r.id)).toEqual(ids);
    expect(rules(emu, 'fleet/a')).toEqual([{ name: 'main', push: 40, merge: 40, force: true }]);

    wd.write('plumb.yaml', `${header(emu.url, '    allow_risky: [protected-branch-replaced]\n')}      fleet/a:\n        protected_branches:\n          main: {allow_force_push: true, push_access_level: no_access}\n`);
    const plan = await wd.run(['plan']);
    expect(plan.stdout).toContain('local.project["fleet/a"].protected_branch["main"]');
    expect(plan.stdout).toContain('will be replaced (an access level differs, which the update request cannot change: apply unprotects the branch, then protects it again at once)');
    expect(plan.stdout).toContain('in between anyone with the Developer role may push or force-push to it');
    expect((await wd.run(['apply', '--auto-approve'])).code).toBe(0);
    // The whole rule came back: the declared level, and what was not declared as it was.
    expect(rules(emu, 'fleet/a')).toEqual([{ name: 'main', push: 0, merge: 40, force: true }]);
  });
});

describe('wildcards and pruning', () => {
  it('matches a wildcard rule by its exact name, leaves undeclared rules alone and reports them, and prunes them only when asked', async () => {
    const { emu, wd } = await start(seed({ protected_branches: ['main', { name: 'legacy-*', push_access_level: 30 }] }));
    wd.write('plumb.yaml', `${header(emu.url)}      fleet/a:\n        protected_branches:\n          main: {}\n          'release/*': {merge_access_level: developer}\n`);
    const plan = await wd.run(['plan']);
    expect(plan.stdout).toContain('+ protected_branch "local.project[\\"fleet/a\\"].protected_branch[\\"release/*\\"]"');
    const drift = await wd.run(['drift']);
    expect(drift.stdout).toContain('note: local.project["fleet/a"].protected_branch["legacy-*"]: protected branch "legacy-*" of project "fleet/a" is not declared; left as it is');
    expect((await wd.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(rules(emu, 'fleet/a').map((r) => r.name)).toEqual(['main', 'legacy-*', 'release/*']);
    // The wildcard protects the existing release branch as the service matches it: a Developer may not push.
    const branch = await emu.api.get('/projects/fleet%2Fa/repository/branches/release%2F1.0', { token: ADMIN });
    expect(branch.body).toMatchObject({ protected: true, developers_can_push: false, developers_can_merge: true });

    wd.write('plumb.yaml', `${header(emu.url)}      fleet/a:\n        prune_protected_branches: true\n        protected_branches:\n          main: {}\n          'release/*': {merge_access_level: developer}\n`);
    const pruning = await wd.run(['plan']);
    expect(pruning.stdout).toContain('local.project["fleet/a"].protected_branch["legacy-*"] will be destroyed (it is not declared and pruning is on)');
    expect((await wd.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(rules(emu, 'fleet/a').map((r) => r.name)).toEqual(['main', 'release/*']);
    expect(rules(emu, 'fleet/b').map((r) => r.name)).toEqual(['main', 'legacy-*']);
  });
});

describe('validation', () => {
  it('locates a level plumb does not know, a name no branch can have and a prune that is not a boolean, before any request', async () => {
    const wd = workdir({ PLUMB_TOKEN: ADMIN });
    wd.write(
      'plumb.yaml',
      `${header('https://plumb.invalid')}      fleet/a:\n        prune_protected_branches: "yes"\n        protected_branches:\n          main: {push_access_level: owner}\n          "bad..name": {}\n`,
    );
    const r = await wd.run(['validate']);
    expect(r.code).toBe(1);
    const said = r.stdout + r.stderr;
    expect(said).toMatch(/plumb\.yaml:8:35/);
    expect(said).toMatch(/plumb\.yaml:10:37/);
    expect(said).toContain('PLUMB_PROTECTED_BRANCH_NAME');
    expect(said).toMatch(/plumb\.yaml:11:11/);
    expect(said).toContain('can never match a branch');
  });

  it('refuses an allow_risky id no kind knows, and accepts the kind\'s own', async () => {
    const wd = workdir({ PLUMB_TOKEN: ADMIN });
    wd.write('plumb.yaml', `${header('https://plumb.invalid', '    allow_risky: [protected-branch-replaced]\n')}      fleet/a:\n        protected_branches:\n          main: {}\n`);
    expect((await wd.run(['validate'])).code).toBe(0);
    wd.write('plumb.yaml', `${header('https://plumb.invalid', '    allow_risky: [protected-branch-replace]\n')}      fleet/a:\n        protected_branches:\n          main: {}\n`);
    const r = await wd.run(['validate']);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain('did you mean "protected-branch-replaced"?');
  });
});

describe('defaults', () => {
  it('give every instance the rules declared under defaults:, an instance\'s own rule replacing the default\'s whole', async () => {
    const { emu, wd } = await start();
    wd.write(
      'plumb.yaml',
      `version: 1\ndefaults:\n  projects:\n    fleet/a:\n      protected_branches:\n        main: {allow_force_push: true}\n        release/*: {push_access_level: no_access}\ninstances:\n  local:\n    url: ${emu.url}\n    token_env: PLUMB_TOKEN\n    projects:\n      fleet/a:\n        protected_branches:\n          release/*: {merge_access_level: developer}\n`,
    );
    expect((await wd.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(rules(emu, 'fleet/a')).toEqual([
      { name: 'main', push: 40, merge: 40, force: true },
      { name: 'release/*', push: 40, merge: 30, force: false },
    ]);
  });
});
