/**
 * File delivery plans against the declared protection (issue 32, Done-when: "A protected_branches:
 * round trip …; file delivery then plans against the declared protection"): a `delivery: commit`
 * onto a branch is judged under the protection the configuration gives it once applied, not only the
 * one the instance holds now; and `plumb drift` does not judge push rights at all. Through the CLI
 * against the emulator over loopback.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { secret } from '../../helpers/cli.js';
import { ADMIN_TOKEN, fileHarness } from './helpers.js';
import type { FileHarness } from './helpers.js';

const MAINTAINER = secret('maintainer-token-for-declared-protection-01');
const DEVELOPER = secret('developer-token-for-declared-protection-01');
const FLEET = ['fleet/a', 'fleet/b'];

let h: FileHarness;
afterEach(() => h?.close());

/** Root (an administrator), a Maintainer and a Developer of the group `fleet`, and its projects with an unprotected main and a release branch. */
async function fleet(): Promise<FileHarness> {
  return fileHarness({
    users: [
      { username: 'root', admin: true, personal_access_tokens: [{ name: 'plumb', token: ADMIN_TOKEN, scopes: ['api'] }] },
      { username: 'max', personal_access_tokens: [{ name: 'plumb', token: MAINTAINER, scopes: ['api'] }] },
      { username: 'dee', personal_access_tokens: [{ name: 'plumb', token: DEVELOPER, scopes: ['api'] }] },
    ],
    groups: [
      {
        full_path: 'fleet',
        members: [
          { username: 'max', access_level: 40 },
          { username: 'dee', access_level: 30 },
        ],
      },
    ],
    projects: FLEET.map((p) => ({ path_with_namespace: p, default_branch: 'main', files: { 'README.md': 'hello\n' }, branches: { 'release/1.0': { from: 'main' } } })),
  });
}

/** plumb.yaml: the instance (with `extra` lines) and `projects` (YAML lines under `projects:`). */
const write = (projects: string, extra = '', tokenEnv = 'PLUMB_TOKEN') =>
  h.wd.write('plumb.yaml', `version: 1\ninstances:\n  local:\n    url: ${h.emu.url}\n    token_env: ${tokenEnv}\n${extra}    projects:\n${projects}`);

const rules = (project: string) => h.emu.state.projectByRef(project)!.protectedBranches.map((r) => ({ name: r.name, push: r.pushAccessLevel }));
const run = (args: readonly string[], env: Record<string, string> = {}) => h.wd.run([...args, '--state', 'state.json'], { MAINTAINER_TOKEN: MAINTAINER, DEVELOPER_TOKEN: DEVELOPER, ...env });

describe('protected branches declared over a selector, and the files delivered onto them', () => {
  it('round trip (apply, drift after a hand change, apply, no changes); then a commit the declaration forbids is a located error, and an administrator\'s commit onto a branch only the declaration protects is a risk', async () => {
    h = await fleet();
    const declared = (main: string, more = '') => `      fleet/*:\n        protected_branches:\n          main: {push_access_level: ${main}}\n${more}`;
    write(declared('maintainer'));
    const applied = await run(['apply', '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    for (const p of FLEET) expect(rules(p)).toEqual([{ name: 'main', push: 40 }]);

    h.emu.state.projectByRef('fleet/b')!.protectedBranches.find((r) => r.name === 'main')!.pushAccessLevel = 30;
    const drift = await run(['drift']);
    expect(drift.code, drift.stderr).toBe(2);
    expect(drift.stdout).toContain('protected branch "main" of project "fleet/b": push_access_level is developer, declared maintainer');
    const back = await run(['apply', '--auto-approve', '--allow-risky']);
    expect(back.code, back.stdout + back.stderr).toBe(0);
    expect(rules('fleet/b')).toEqual([{ name: 'main', push: 40 }]);
    const quiet = await run(['plan']);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stdout).toContain('No changes');

    // main is protected (Maintainers push) on the instance, which lets an administrator push; the
    // configuration now says no one may push to it: the commit would be refused once applied.
    write(`${declared('no_access')}      fleet/a:\n        files:\n          README.md: {content: "new\\n"}\n`, '    allow_risky: [protected-branch-replaced]\n');
    const denied = await run(['plan']);
    expect(denied.code).toBe(1);
    expect(denied.stdout).toMatch(
      /error\[PLUMB_FILE_PUSH_DENIED\]: plumb's token may not push to branch "main" of project "fleet\/a" once the configuration's protected branches are applied \(rule "main": no one may push\), where 1 file\(s\) \(README\.md\) would be committed \(plumb\.yaml:13:11\)/,
    );
    expect(denied.stdout).toContain('delivery: merge_request');
    // The declared rule is shown where it is written.
    expect(denied.stdout).toMatch(/protected branch "main" is declared here \(plumb\.yaml:10:11\)/);
    expect((await run(['apply', '--auto-approve'])).code).toBe(1);
    expect(h.file('README.md', 'main', 'fleet/a')?.data.toString()).toBe('hello\n');
    expect(rules('fleet/a')).toEqual([{ name: 'main', push: 40 }]);

    // release/1.0 is not protected on the instance; the configuration protects release/*: an
    // administrator's commit onto it is the risk, before anything is applied.
    write(`${declared('maintainer', '          release/*: {push_access_level: maintainer}\n')}      fleet/b:\n        files:\n          CODEOWNERS: {content: "* @x\\n", branches: [release/1.0]}\n`);
    expect(h.emu.state.projectByRef('fleet/b')!.protectedBranches.map((r) => r.name)).toEqual(['main']);
    const risky = await run(['plan', '--json']);
    expect(risky.code, risky.stderr).toBe(0);
    const plan = JSON.parse(risky.stdout) as { risks: { id: string; summary: string }[]; changes: { address: string; action: string; order?: { after?: string[] } }[] };
    expect(plan.risks).toEqual([
      expect.objectContaining({
        id: 'admin-push-protected-branch',
        summary: expect.stringContaining('1 file(s) (CODEOWNERS) would be committed straight to protected branch "release/1.0" of project "fleet/b" (protected once the configuration\'s rule "release/*" is applied) with an administrator\'s token'),
      }),
    ]);
    // The commit comes after the rule that protects the branch.
    const file = plan.changes.find((c) => c.address.endsWith('.file["CODEOWNERS"]'))!;
    expect(file.order?.after).toEqual(['local.project["fleet/b"].protected_branch["release/*"]']);
    const refused = await run(['apply', '--auto-approve']);
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toContain('PLUMB_RISK_NOT_ACCEPTED');
  });

  it("lets a Maintainer's commit through where the declaration opens the branch to Maintainers, and applies it after the protection", async () => {
    h = await fleet();
    // No one may push to main of fleet/a on the instance: the service's can_push says no today.
    h.emu.state.projectByRef('fleet/a')!.protectedBranches.push({ id: 900, name: 'main', pushAccessLevel: 0, mergeAccessLevel: 40, unprotectAccessLevel: 40, allowForcePush: false, codeOwnerApprovalRequired: false });
    const config = (main: string) => `      fleet/a:\n        protected_branches:\n          main: {push_access_level: ${main}}\n        files:\n          README.md: {content: "new\\n"}\n`;
    write(config('maintainer'), '    allow_risky: [protected-branch-replaced]\n', 'MAINTAINER_TOKEN');
    const plan = await run(['plan']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stdout).not.toContain('PLUMB_FILE_PUSH_DENIED');
    // plumb's role came from the project's permissions: read once.
    expect(h.emu.requests.filter((q) => q.method === 'GET' && q.path === '/projects/fleet%2Fa')).toHaveLength(1);
    const seen = h.emu.requests.length;
    const applied = await run(['apply', '--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(h.file('README.md', 'main', 'fleet/a')?.data.toString()).toBe('new\n');
    const writes = h.emu.requests.slice(seen).filter((q) => q.method !== 'GET' && q.method !== 'HEAD').map((q) => `${q.method} ${q.path}`);
    expect(writes, writes.join('\n')).toContain('POST /projects/fleet%2Fa/protected_branches');
    expect(writes.indexOf('PUT /projects/fleet%2Fa/repository/files/README%2Emd'), writes.join(' ; ')).toBeGreaterThan(writes.indexOf('POST /projects/fleet%2Fa/protected_branches'));

    // A Developer may not push where the declaration lets Maintainers only (it is no member of fleet/a itself, of its group only).
    h.emu.state.projectByRef('fleet/b')!.protectedBranches.length = 0;
    write(`      fleet/b:\n        protected_branches:\n          main: {push_access_level: maintainer}\n        files:\n          README.md: {content: "new\\n"}\n`, '', 'DEVELOPER_TOKEN');
    const dev = await run(['plan']);
    expect(dev.code).toBe(1);
    expect(dev.stdout).toContain('PLUMB_FILE_PUSH_DENIED');
    expect(dev.stdout).toContain('rule "main": Maintainers may push');
  });
});

describe('plumb drift', () => {
  it('reports a file changed on a branch plumb\'s token may not push to as drift (exit 2), not as an error', async () => {
    h = await fleet();
    write(`      fleet/a:\n        files:\n          README.md: {content: "new\\n"}\n`);
    expect((await run(['apply', '--auto-approve'])).code).toBe(0);
    // main is protected since (Maintainers push), and someone changed the file there.
    h.emu.state.projectByRef('fleet/a')!.protectedBranches.push({ id: 901, name: 'main', pushAccessLevel: 40, mergeAccessLevel: 40, unprotectAccessLevel: 40, allowForcePush: false, codeOwnerApprovalRequired: false });
    expect(await h.push('PUT', 'README.md', { content: 'by hand\n' }, 'fleet/a')).toBe(200);

    // A Developer's token: reading is all drift needs.
    write(`      fleet/a:\n        files:\n          README.md: {content: "new\\n"}\n`, '', 'DEVELOPER_TOKEN');
    const drift = await run(['drift']);
    expect(drift.code, drift.stdout + drift.stderr).toBe(2);
    expect(drift.stdout).toContain('file README.md on main was changed by a push after plumb\'s last apply');
    expect(drift.stdout).not.toContain('PLUMB_FILE_PUSH_DENIED');
    // A plan (which apply would carry out) still says the token may not push there.
    const plan = await run(['plan']);
    expect(plan.code).toBe(1);
    expect(plan.stdout).toContain('PLUMB_FILE_PUSH_DENIED');
  });
});
