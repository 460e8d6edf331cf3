/**
 * Protected branches through the other doors (issue 32 item 6): `plumb export` (its output plans
 * no change), the CDKTF reader (a `plumb_protected_branch` of a synthesized stack is the YAML rule),
 * and the pure protection function the files kind plans delivery with, which must match a branch
 * exactly as the service (and the emulator, which follows it) does.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN, SEED, startTestEmulator } from '../../helpers/emulator.js';
import type { TestEmulator } from '../../helpers/emulator.js';
import { secret, workdir } from '../../helpers/cli.js';
import { fromStacks } from '../../helpers/kinds.js';
import { removeWhenDone } from '../../helpers/scratch.js';
import { matchesProtection } from '../../../src/emulator/branches.js';
import { mayPush, protectionAfterApply, protectionMatches } from '../../../src/resources/protected-branches/protection.js';
import { protectedBranchesOf } from '../../../src/resources/protected-branches/model.js';

secret(ADMIN);

let emu: TestEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

describe('plumb export --protected-branches', () => {
  it('writes every rule of the project, levels by their words, and a plan of what it wrote changes nothing', async () => {
    emu = await startTestEmulator({
      seed: {
        ...SEED,
        groups: [...(SEED.groups ?? []), { full_path: 'fleet', id: 60 }],
        projects: [...(SEED.projects ?? []), { path_with_namespace: 'fleet/a', id: 70, files: { 'README.md': 'x\n' }, protected_branches: ['main', { name: 'release/*', push_access_level: 0, merge_access_level: 30, allow_force_push: true }] }],
      },
    });
    const wd = workdir({ PLUMB_TOKEN: ADMIN });
    const out = await wd.run(['export', '--instance-url', emu.url, '--out', 'exported', '--instance', 'local', '--protected-branches', 'fleet/a']);
    expect(out.code, out.stderr).toBe(0);
    const files = readdirSync(path.join(wd.dir, 'exported'), { recursive: true }) as string[];
    const text = files.filter((f) => f.endsWith('.yaml')).map((f) => readFileSync(path.join(wd.dir, 'exported', f), 'utf8')).join('\n');
    expect(text).toContain('protected_branches:');
    expect(text).toMatch(/release\/\*:\n\s+allow_force_push: true\n\s+code_owner_approval_required: false\n\s+merge_access_level: developer\n\s+push_access_level: no_access\n/);
    const plan = await wd.run(['plan', 'exported'], { PLUMB_TOKEN: ADMIN });
    expect(plan.code, plan.stderr + plan.stdout).toBe(0);
    expect(plan.stdout).toContain('No changes');
  });
});

describe('a plumb_protected_branch of a CDKTF stack', () => {
  it('is the rule a YAML user would write under the project', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-cdktf-pb-'));
    removeWhenDone(dir);
    const stack = {
      name: 'prod',
      json: {
        provider: { plumb: [{ url: 'https://code.example.com', token_env: 'PLUMB_TOKEN' }] },
        resource: { plumb_protected_branch: { release: { '//': { metadata: { path: 'prod/release' } }, project: 'fleet/a', branch: 'release/*', push_access_level: 'no_access', allow_force_push: false } } },
      },
    };
    const r = fromStacks([stack], dir, { cwd: dir, env: { PATH: process.env.PATH ?? '' } });
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const [project] = protectedBranchesOf(r.config!.instances[0]!);
    expect(project).toMatchObject({ ref: 'fleet/a', prune: false, protections: [{ name: 'release/*', push_access_level: 0, allow_force_push: false }] });
  });
});

describe('the protection a branch has after apply', () => {
  const CASES: [string, string][] = [
    ['main', 'main'],
    ['main', 'main2'],
    ['release/*', 'release/1.0'],
    ['release/*', 'release/1.0/hotfix'],
    ['release/*', 'release/'],
    ['release/*', 'releases/1.0'],
    ['*-stable', '9-0-stable'],
    ['*-stable', 'stable'],
    ['*', 'anything/at/all'],
    ['a*b*c', 'abc'],
    ['a*b*c', 'aXbYbZc'],
    ['a*b*c', 'acb'],
    ['feat.*', 'featX1'],
    ['v1.*', 'v1.2'],
    ['**', ''],
  ];

  it('matches a name or wildcard exactly as the service (and the emulator) does: * is any run of characters, / included', () => {
    for (const [pattern, branch] of CASES) expect(protectionMatches(pattern, branch), `${pattern} ~ ${branch}`).toBe(matchesProtection(pattern, branch));
    expect(CASES.filter(([p, b]) => protectionMatches(p, b)).length).toBeGreaterThan(5);
    expect(protectionMatches('release/*', 'release/1.0/hotfix')).toBe(true);
    expect(protectionMatches('feat.*', 'featX1')).toBe(false);
  });

  it('adds the matching rules up (any rule lets a role through), keeps undeclared live rules unless pruned, and fills undeclared fields from the instance', () => {
    const live = [
      { name: 'main', push_access_level: 40, merge_access_level: 40, unprotect_access_level: 40, allow_force_push: true, code_owner_approval_required: false },
      { name: 'legacy-*', push_access_level: 30, merge_access_level: 30, unprotect_access_level: 40, allow_force_push: false, code_owner_approval_required: false },
    ] as const;
    const declared = { prune: false, protections: [{ name: 'main', pointer: '', push_access_level: 0 as const }, { name: 'release/*', pointer: '', merge_access_level: 30 as const }] };
    const main = protectionAfterApply(declared, 'main', live);
    expect(main).toMatchObject({ protected: true, rules: ['main'], push_access_level: 0, merge_access_level: 40, allow_force_push: true });
    expect(mayPush(main, 60)).toBe(false);
    const release = protectionAfterApply(declared, 'release/2.0', live);
    expect(release).toMatchObject({ protected: true, push_access_level: 40, merge_access_level: 30, allow_force_push: false });
    expect(mayPush(release, 30)).toBe(false);
    expect(mayPush(release, 40)).toBe(true);
    expect(protectionAfterApply(declared, 'legacy-x', live)).toMatchObject({ protected: true, push_access_level: 30 });
    expect(protectionAfterApply({ ...declared, prune: true }, 'legacy-x', live)).toMatchObject({ protected: false });
    expect(mayPush(protectionAfterApply({ ...declared, prune: true }, 'legacy-x', live), 30)).toBe(true);
    // Without the live rules: only what the configuration guarantees, new rules with the service's defaults.
    expect(protectionAfterApply(declared, 'main')).toMatchObject({ push_access_level: 0, merge_access_level: 40, allow_force_push: false });
    // Two rules on one branch: the lower non-zero level wins.
    expect(protectionAfterApply({ prune: true, protections: [{ name: 'main', pointer: '', push_access_level: 0 }, { name: 'm*', pointer: '', push_access_level: 40 }] }, 'main')).toMatchObject({ rules: ['main', 'm*'], push_access_level: 40 });
  });
});
