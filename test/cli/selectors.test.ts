/**
 * Selectors (issue 23, docs/config.md#selectors) against the emulator over loopback: `GROUP/*` and
 * `GROUP/**` in `projects:` and `groups:`, expanded through the group's own lists at plan, merged
 * under explicit entries with origins, placeholders per match, counts in the plan, the zero-match
 * warning, the shared-sink refusal and the blast radius of a moved count.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fileHarness } from '../resources/repository-files/helpers.js';
import type { FileHarness } from '../resources/repository-files/helpers.js';
import { ADMIN_TOKEN } from '../resources/repository-files/helpers.js';
import { startTestEmulator } from '../helpers/emulator.js';
import type { TestEmulator } from '../helpers/emulator.js';
import { addDays, BASE_DAY, harness as tokenHarness, seedToken } from '../resources/group-access-tokens/helpers.js';
import type { Harness as TokenHarness } from '../resources/group-access-tokens/helpers.js';

const README = { 'README.md': 'x\n' };
/** platform/{a,b,c} (c archived), platform/team/{d,e}, platform/team/deep/f, other/g. */
const SEED = {
  groups: [{ full_path: 'platform' }, { full_path: 'platform/team' }, { full_path: 'platform/team/deep' }, { full_path: 'platform/empty' }, { full_path: 'other' }],
  projects: [
    ...['a', 'b'].map((n) => ({ path_with_namespace: `platform/${n}`, default_branch: 'main', files: README })),
    { path_with_namespace: 'platform/c', default_branch: 'main', files: README, archived: true },
    ...['d', 'e'].map((n) => ({ path_with_namespace: `platform/team/${n}`, default_branch: 'main', files: README })),
    { path_with_namespace: 'platform/team/deep/f', default_branch: 'main', files: README },
    { path_with_namespace: 'other/g', default_branch: 'main', files: README },
  ],
};

let h: FileHarness | undefined;
let t: TokenHarness | undefined;
let other: TestEmulator | undefined;
afterEach(async () => {
  await h?.close();
  await t?.close();
  await other?.close();
  h = t = other = undefined;
});

/** plumb.yaml from the lines under `projects:` (indented by 6). */
function projects(lines: string[], extra: string[] = []): void {
  h!.wd.write('plumb.yaml', ['version: 1', 'instances:', '  local:', `    url: ${h!.emu.url}`, '    token_env: PLUMB_TOKEN', ...extra, '    projects:', ...lines].join('\n') + '\n');
}

interface JsonPlan {
  changes: { address: string; action: string; selector?: string; origin?: Record<string, string>; attributes: { name: string; origin?: Record<string, string> }[]; payload: Record<string, unknown> }[];
  selectors?: { instance: string; container: string; selector: string; matched: number; at?: string }[];
  risks: { id: string; address: string; summary: string }[];
  diagnostics: { severity: string; code: string; summary: string; file?: string; line?: number; related?: { message: string; file?: string; line?: number }[] }[];
}
const plan = async (args: string[] = []): Promise<JsonPlan> => JSON.parse((await h!.run(['plan', '--json', ...args])).stdout) as JsonPlan;
const created = (p: JsonPlan, file: string) => p.changes.filter((c) => c.action === 'create' && c.address.endsWith(`.file["${file}"]`)).map((c) => /project\["([^"]+)"\]/.exec(c.address)![1]).sort();

describe('project selectors', () => {
  it('selects the direct children with /* and every depth with /**, skipping archived projects, and states each count', async () => {
    h = await fileHarness(SEED);
    projects(['      "platform/*":', '        files:', '          CODEOWNERS: {content: "* @platform\\n"}', '      "platform/**":', '        files:', '          SECURITY.md: {content: "# Security\\n"}']);
    const p = await plan();
    expect(created(p, 'CODEOWNERS')).toEqual(['platform/a', 'platform/b']);
    expect(created(p, 'SECURITY.md')).toEqual(['platform/a', 'platform/b', 'platform/team/d', 'platform/team/deep/f', 'platform/team/e']);
    expect(p.selectors).toEqual([
      { instance: 'local', container: 'projects', selector: 'platform/*', matched: 2, at: 'plumb.yaml:7:7' },
      { instance: 'local', container: 'projects', selector: 'platform/**', matched: 5, at: 'plumb.yaml:10:7' },
    ]);
    expect(p.changes.find((c) => c.address.includes('platform/team/d'))!.selector).toBe('platform/**');
    // Only the group's own lists were read, never the instance's.
    expect(h.emu.requests.some((r) => r.path === '/projects' && r.method === 'GET')).toBe(false);
    expect(h.emu.requests.filter((r) => r.path === '/groups/platform/projects')).toHaveLength(2);
    const human = await h.run(['plan']);
    expect(human.stdout).toContain('local.projects["platform/**"] matched 5 projects (plumb.yaml:10:7)');
    expect(human.stdout).toContain('in 5 projects matching platform/**');
  });

  it('leaves out the paths and patterns of exclude, and takes archived projects with include_archived', async () => {
    h = await fileHarness(SEED);
    projects(['      "platform/**":', '        exclude: [platform/b, "platform/team/deep/**"]', '        include_archived: true', '        files:', '          CODEOWNERS: {content: "* @platform\\n"}']);
    const p = await plan();
    expect(created(p, 'CODEOWNERS')).toEqual(['platform/a', 'platform/c', 'platform/team/d', 'platform/team/e']);
    expect(p.selectors![0]!.matched).toBe(4);
  });

  it('takes the same path patterns in exclude as the Terraform data sources (* within a segment), and refuses a wildcard it does not know, located', async () => {
    h = await fileHarness(SEED);
    projects(['      "platform/**":', '        exclude: ["platform/[ab]"]', '        files:', '          CODEOWNERS: {content: "* @platform\\n"}']);
    const bad = await h.run(['validate']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/plumb\.yaml:\d+:\d+/);
    expect(bad.stderr).toContain('"[" is not a wildcard here');
    projects(['      "platform/**":', '        exclude: ["platform/team/*", "Platform/B"]', '        files:', '          CODEOWNERS: {content: "* @platform\\n"}']);
    expect(created(await plan(), 'CODEOWNERS')).toEqual(['platform/a', 'platform/team/deep/f']);
  });

  it('lets an explicit entry override a file of the selector, keeping the selector\'s other files, and names both lines', async () => {
    h = await fileHarness(SEED);
    projects([
      '      "platform/*":',
      '        files:',
      '          CODEOWNERS: {content: "* @platform\\n"}',
      '          SECURITY.md: {content: "# Security\\n"}',
      '      platform/a:',
      '        files:',
      '          CODEOWNERS: {content: "* @team-a\\n"}',
    ]);
    const p = await plan();
    const own = p.changes.find((c) => c.address === 'local.project["platform/a"].branch["main"].file["CODEOWNERS"]')!;
    expect(own.origin).toEqual({ from: 'overridden', selector: 'platform/*', declared: 'plumb.yaml:9:11', override: 'plumb.yaml:13:11' });
    const inherited = p.changes.find((c) => c.address === 'local.project["platform/a"].branch["main"].file["SECURITY.md"]')!;
    expect(inherited.origin).toEqual({ from: 'inherited', selector: 'platform/*', declared: 'plumb.yaml:10:11' });
    const human = await h.run(['plan']);
    expect(human.stdout).toContain('# overrides selector platform/* at plumb.yaml:9:11 (set at plumb.yaml:13:11)');
    // The explicit content is the one planned for platform/a.
    const b = p.changes.find((c) => c.address === 'local.project["platform/b"].branch["main"].file["CODEOWNERS"]')!;
    expect(own.payload).not.toEqual(b.payload);
  });

  it('replaces {project}, {group} and {instance} per match in content and commit messages', async () => {
    h = await fileHarness(SEED);
    projects(['      "platform/**":', '        exclude: [platform/team/deep/f]', '        files:', '          OWNER.md:', '            content: "{project} in {group} on {instance}\\n"', '            commit_message: "plumb: {action} {path} for {group}"']);
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(h.file('OWNER.md', 'main', 'platform/team/d')!.data.toString()).toBe('platform/team/d in platform/team on local\n');
    expect(h.file('OWNER.md', 'main', 'platform/a')!.data.toString()).toBe('platform/a in platform on local\n');
  });

  it('warns about a selector that matches nothing, at its line, and checks its syntax offline', async () => {
    h = await fileHarness(SEED);
    projects(['      "platform/empty/*":', '        files:', '          CODEOWNERS: {content: "x\\n"}']);
    const p = await plan();
    const w = p.diagnostics.find((d) => d.code === 'PLUMB_SELECTOR_MATCHES_NOTHING')!;
    expect(w).toMatchObject({ severity: 'warning', file: 'plumb.yaml', line: 7 });
    expect(p.selectors![0]!.matched).toBe(0);
    projects(['      "platform/*/x":', '        files:', '          CODEOWNERS: {content: "x\\n"}', '      "platform/**":', '        exclude: [1]', '        files:', '          C: {content: "x\\n"}']);
    const v = await h.run(['validate', '--json']);
    expect(v.code).toBe(1);
    const codes = (JSON.parse(v.stdout) as JsonPlan).diagnostics.map((d) => `${d.code}@${d.line}`);
    expect(codes).toEqual(expect.arrayContaining(['PLUMB_SELECTOR_SYNTAX@7', 'PLUMB_SELECTOR_SYNTAX@11']));
    expect(h.emu.requests.filter((r) => r.path.includes('/groups/')).length).toBe(1 + 0); // only the plan above listed
  });

  it('plans and applies only a selector-expanded address given to --target', async () => {
    h = await fileHarness(SEED);
    projects(['      "platform/*":', '        files:', '          CODEOWNERS: {content: "* @platform\\n"}']);
    const r = await h.run(['apply', '--auto-approve', '--target', 'local.project["platform/b"]']);
    expect(r.code).toBe(0);
    expect(h.file('CODEOWNERS', 'main', 'platform/b')).toBeDefined();
    expect(h.file('CODEOWNERS', 'main', 'platform/a')).toBeUndefined();
  });

  it('does not list a selector\'s group when no --target can select one of its matches, and lists it when one can', async () => {
    h = await fileHarness(SEED);
    projects(['      "platform/**":', '        files:', '          CODEOWNERS: {content: "* @platform\\n"}', '      other/g:', '        files:', '          CODEOWNERS: {content: "* @other\\n"}']);
    const lists = () => h!.emu.requests.filter((r) => /^\/groups\/[^/]+\/projects$/.test(r.path)).length;
    const outside = await plan(['--target', 'local.project["other/g"]']);
    expect(outside.changes.map((c) => c.address)).toEqual(['local.project["other/g"].branch["main"].file["CODEOWNERS"]']);
    expect(lists()).toBe(0);
    expect(outside.diagnostics.filter((d) => d.code === 'PLUMB_SELECTOR_MATCHES_NOTHING')).toEqual([]);
    expect(outside.selectors ?? []).toEqual([]);
    const inside = await plan(['--target', 'local.project["platform/team/*"]']);
    expect(created(inside, 'CODEOWNERS')).toEqual(['platform/team/d', 'platform/team/deep/f', 'platform/team/e']);
    expect(lists()).toBe(1);
    await plan(['--target', 'local']); // the instance: everything in it
    expect(lists()).toBe(2);
  });

  it('collapses a plan-time problem of the selector\'s body found in every match into one, at the selector\'s line, naming the first match and how many more', async () => {
    h = await fileHarness(SEED);
    projects(['      "platform/**":', '        files:', '          CODEOWNERS: {content: "* @platform\\n", branches: [release]}']);
    const p = await plan();
    const missing = p.diagnostics.filter((d) => d.code === 'PLUMB_FILE_BRANCH_MISSING');
    expect(missing).toHaveLength(1);
    expect(missing[0]).toMatchObject({ severity: 'error', file: 'plumb.yaml', line: 9 });
    expect(missing[0]!.summary).toContain('platform/a');
    expect(missing[0]!.related!.map((r) => r.message)).toEqual(['declared by selector "platform/**" for project "platform/a"', 'and 4 more of its matches']);
    const human = await h.run(['plan']);
    const out = human.stdout + human.stderr;
    expect(out.match(/error\[PLUMB_FILE_BRANCH_MISSING\]/g)).toHaveLength(1);
    expect(out).toContain('and 4 more of its matches');
    // Every match is blocked for the one reason: one line says so (docs/plans.md#blocked-matches).
    expect(out).not.toContain('The instance matches the configuration');
    expect(out).toContain('⊘ 5 matches: local.project["platform/a"], local.project["platform/b"], local.project["platform/team/d"], … and 2 more (selector platform/**): PLUMB_FILE_BRANCH_MISSING');
  });

  it('blocks only the match whose configuration check fails (a source its {group} names does not exist), keeping its count, and plans the rest', async () => {
    h = await fileHarness(SEED);
    h.wd.write('files/platform/CODEOWNERS', '* @platform\n');
    h.wd.write('files/platform/team/CODEOWNERS', '* @team\n');
    // platform/team/deep is a subgroup someone created: no files/platform/team/deep/ for it.
    projects(['      "platform/**":', '        files:', '          CODEOWNERS: {source: "files/{group}/CODEOWNERS"}', '      other/g:', '        files:', '          README.md: {content: "g\\n"}']);
    const r = await h.run(['plan', '--json']);
    expect(r.code).toBe(1);
    const p = JSON.parse(r.stdout) as JsonPlan & { applicable: boolean; blocked: { address: string; selector: string; codes: string[] }[] };
    expect(p.applicable).toBe(true);
    expect(p.blocked.map((b) => [b.address, b.selector])).toEqual([['local.project["platform/team/deep/f"]', 'platform/**']]);
    expect(p.changes.filter((c) => c.action !== 'no-op').map((c) => c.address).sort()).toEqual([
      'local.project["other/g"].branch["main"].file["README.md"]',
      ...['platform/a', 'platform/b', 'platform/team/d', 'platform/team/e'].map((x) => `local.project["${x}"].branch["main"].file["CODEOWNERS"]`),
    ]);
    expect(p.selectors![0]!.matched).toBe(5);
    const blocking = p.diagnostics.filter((d) => d.severity === 'error');
    expect(blocking).toHaveLength(1);
    expect(blocking[0]).toMatchObject({ file: 'plumb.yaml', blocks: 'local.project["platform/team/deep/f"]' });
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(1);
    expect(h.file('CODEOWNERS', 'main', 'platform/team/d')!.data.toString()).toBe('* @team\n');
    expect(h.file('README.md', 'main', 'other/g')!.data.toString()).toBe('g\n');
    expect(h.file('CODEOWNERS', 'main', 'platform/team/deep/f')).toBeUndefined();
  });

  it('flags a selector whose count moved by more than 10% and 5 projects since the last apply, and applies it only when accepted', async () => {
    const more = Array.from({ length: 20 }, (_, i) => `platform/n${i}`);
    h = await fileHarness({ ...SEED, projects: [...SEED.projects, ...more.map((p) => ({ path_with_namespace: p, default_branch: 'main', files: README }))] });
    const write = (exclude: string[]) => projects(['      "platform/*":', `        exclude: ${JSON.stringify(exclude)}`, '        files:', '          CODEOWNERS: {content: "* @platform\\n"}']);
    write(more);
    expect((await plan()).risks).toEqual([]); // no count recorded yet
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    write([...more.slice(4), 'platform/a']); // 2 → 5: fewer than 6 more
    expect((await plan()).risks).toEqual([]);
    write([]); // 2 → 22
    const risk = (await plan()).risks.find((r) => r.id === 'selector-match-count-changed')!;
    expect(risk.address).toBe('local.projects["platform/*"]');
    expect(risk.summary).toContain('matches 22 projects, 2 at the last apply (+1000%)');
    const refused = await h.run(['apply', '--auto-approve']);
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toContain('PLUMB_RISK_NOT_ACCEPTED');
    expect(h.file('CODEOWNERS', 'main', 'platform/n0')).toBeUndefined();
    expect((await h.run(['apply', '--auto-approve', '--allow-risky'])).code).toBe(0);
    expect(h.file('CODEOWNERS', 'main', 'platform/n0')).toBeDefined();
    expect((await plan()).risks).toEqual([]); // 22 is the count now
  });

  it('takes the percent a selector count may move from --max-match-change, and refuses a value that is not a percent', async () => {
    const more = Array.from({ length: 20 }, (_, i) => `platform/n${i}`);
    h = await fileHarness({ ...SEED, projects: [...SEED.projects, ...more.map((p) => ({ path_with_namespace: p, default_branch: 'main', files: README }))] });
    const write = (exclude: string[]) => projects(['      "platform/*":', `        exclude: ${JSON.stringify(exclude)}`, '        files:', '          CODEOWNERS: {content: "* @platform\\n"}']);
    write(more.slice(10)); // 12 matches
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    write([]); // 12 → 22: +83%
    expect((await plan()).risks.map((r) => r.id)).toContain('selector-match-count-changed');
    expect((await plan(['--max-match-change', '90'])).risks).toEqual([]);
    expect((await plan(['--max-match-change', '80'])).risks.map((r) => r.id)).toContain('selector-match-count-changed');
    const bad = await h.run(['plan', '--max-match-change', '10%']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--max-match-change must be a whole number of percent');
  });
});

describe('selectors under defaults:', () => {
  it('expands the defaults\' selector through each instance\'s own lists, under an instance\'s explicit entry, with origins at the defaults\' line', async () => {
    h = await fileHarness(SEED);
    other = await startTestEmulator({
      seed: {
        users: [{ username: 'root', admin: true, personal_access_tokens: [{ name: 'plumb', token: ADMIN_TOKEN, scopes: ['api'] }] }],
        groups: [{ full_path: 'platform' }],
        projects: ['x', 'y'].map((n) => ({ path_with_namespace: `platform/${n}`, default_branch: 'main', protected_branches: [], files: README })),
      },
    });
    h.wd.write(
      'plumb.yaml',
      [
        'version: 1',
        'defaults:',
        '  projects:',
        '    "platform/*":',
        '      files:',
        '        CODEOWNERS: {content: "* @{group} on {instance}\\n"}',
        '        SECURITY.md: {content: "# Security\\n"}',
        'instances:',
        '  prod:',
        `    url: ${h.emu.url}`,
        '    token_env: PLUMB_TOKEN',
        '  staging:',
        `    url: ${other.url}`,
        '    token_env: PLUMB_TOKEN',
        '    projects:',
        '      platform/x:',
        '        files:',
        '          CODEOWNERS: {content: "* @x\\n"}',
      ].join('\n') + '\n',
    );
    const p = await plan();
    expect(p.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const codeowners = p.changes.filter((c) => c.action === 'create' && c.address.endsWith('.file["CODEOWNERS"]')).map((c) => c.address.replace(/\.branch.*/, '')).sort();
    expect(codeowners).toEqual(['prod.project["platform/a"]', 'prod.project["platform/b"]', 'staging.project["platform/x"]', 'staging.project["platform/y"]']);
    expect(p.selectors).toEqual([
      { instance: 'prod', container: 'projects', selector: 'platform/*', matched: 2, at: 'plumb.yaml:4:5' },
      { instance: 'staging', container: 'projects', selector: 'platform/*', matched: 2, at: 'plumb.yaml:4:5' },
    ]);
    const at = (a: string) => p.changes.find((c) => c.address === a)!;
    expect(at('staging.project["platform/x"].branch["main"].file["CODEOWNERS"]').origin).toEqual({ from: 'overridden', selector: 'platform/*', declared: 'plumb.yaml:6:9', override: 'plumb.yaml:18:11' });
    expect(at('staging.project["platform/x"].branch["main"].file["SECURITY.md"]').origin).toEqual({ from: 'inherited', selector: 'platform/*', declared: 'plumb.yaml:7:9' });
    expect(at('prod.project["platform/a"].branch["main"].file["CODEOWNERS"]').origin).toEqual({ from: 'inherited', selector: 'platform/*', declared: 'plumb.yaml:6:9' });
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(h.file('CODEOWNERS', 'main', 'platform/b')!.data.toString()).toBe('* @platform on prod\n');
    const x = other.state.projects.find((q) => q.pathWithNamespace === 'platform/x')!.repo.branchHead('main')!.files.get('CODEOWNERS')!;
    expect(x.data.toString()).toBe('* @x\n');
  });
});

describe('group selectors', () => {
  const teams = { groups: [{ full_path: 'teams' }, { full_path: 'teams/a' }, { full_path: 'teams/b' }, { full_path: 'teams/b/inner' }] };
  const write = (sink: string) =>
    t!.wd.write(
      'plumb.yaml',
      ['version: 1', 'instances:', '  local:', `    url: ${t!.emu.url}`, '    token_env: PLUMB_TOKEN', '    groups:', '      "teams/**":', '        access_tokens:', '          ci:', '            scopes: [read_api]', '            rotation: {lifetime_days: 30}', `            sink: {file: "${sink}"}`].join('\n') + '\n',
    );

  it('issues a token in every group at every depth, each into the file its {group} names', async () => {
    t = await tokenHarness(teams);
    for (const d of ['secrets/teams/a', 'secrets/teams/b/inner']) mkdirSync(path.join(t.wd.dir, d), { recursive: true });
    write('secrets/{group}/ci.token');
    for (const g of ['teams/a', 'teams/b', 'teams/b/inner']) t.allow(`secrets/${g}/ci.token`);
    const r = await t.run(['apply', '--auto-approve']);
    expect(r.code).toBe(0);
    for (const g of ['teams/a', 'teams/b', 'teams/b/inner']) {
      expect(t.active(g, 'ci')).toHaveLength(1);
      expect(t.wd.read(`secrets/${g}/ci.token`)).toMatch(/^svc-/);
    }
  });

  it('blocks only the match whose sink directory does not exist: the plan of the rest is saved and applied, drift reports the rest, and each run exits 1 naming the match', async () => {
    t = await tokenHarness({ groups: [...teams.groups, { full_path: 'ops' }] });
    // teams/b is a subgroup someone created; nobody made secrets/teams/b/ci/ for it.
    for (const d of ['secrets/teams/a/ci', 'secrets/teams/b/inner/ci']) mkdirSync(path.join(t.wd.dir, d), { recursive: true });
    write('secrets/{group}/ci/ci.token');
    t.wd.write('plumb.yaml', t.wd.read('plumb.yaml') + ['      ops:', '        access_tokens:', '          deploy:', '            scopes: [read_api]', '            rotation: {lifetime_days: 30}', '            sink: {file: "secrets/ops-deploy.token"}'].join('\n') + '\n');
    for (const f of ['secrets/teams/a/ci/ci.token', 'secrets/teams/b/inner/ci/ci.token', 'secrets/ops-deploy.token']) t.allow(f);
    const human = await t.run(['plan', '--out', 'plan.json', '--markdown', 'plan.md']);
    expect(human.code).toBe(1);
    expect(human.stdout).toContain('Blocked (left out of this plan; apply carries out the rest and exits 1):');
    expect(human.stdout).toContain('⊘ local.group["teams/b"] (selector teams/**): PLUMB_TOKEN_SINK_UNUSABLE');
    expect(human.stdout).toMatch(/error\[PLUMB_TOKEN_SINK_UNUSABLE\]: Token "ci" cannot receive its secret in file secrets\/teams\/b\/ci\/ci\.token: the sink's directory .*secrets\/teams\/b\/ci does not exist \(plumb\.yaml:12:\d+\)/);
    expect(human.stdout).not.toContain('cannot be applied');
    expect(t.wd.read('plan.md')).toContain('⊘ `local.group["teams/b"]` (selector `teams/**`): `PLUMB_TOKEN_SINK_UNUSABLE`');
    const saved = JSON.parse(t.wd.read('plan.json'));
    expect(saved.applicable).toBe(true);
    expect(saved.blocked).toEqual([{ instance: 'local', address: 'local.group["teams/b"]', selector: 'teams/**', codes: ['PLUMB_TOKEN_SINK_UNUSABLE'] }]);
    expect(saved.diagnostics.find((d: { code: string }) => d.code === 'PLUMB_TOKEN_SINK_UNUSABLE').blocks).toBe('local.group["teams/b"]');
    expect(saved.changes.map((c: { address: string }) => c.address).sort()).toEqual([
      'local.group["ops"].access_token["deploy"]',
      'local.group["teams/a"].access_token["ci"]',
      'local.group["teams/b/inner"].access_token["ci"]',
    ]);

    const drift = await t.run(['drift']);
    expect(drift.code).toBe(1);
    expect(drift.stdout).toContain('Drift check incomplete: 1 unit(s) could not be checked (local.group["teams/b"]); of the rest: 3 resource(s) differ from the configuration.');
    expect(drift.stdout).toContain('drift: local.group["ops"].access_token["deploy"]');

    const applied = await t.run(['apply', 'plan.json']);
    expect(applied.code, applied.stderr).toBe(1);
    expect(applied.stderr + applied.stdout).toContain('⊘ local.group["teams/b"]: blocked, not planned and not applied (PLUMB_TOKEN_SINK_UNUSABLE)');
    expect(applied.stderr + applied.stdout).toContain('3 applied, 0 failed, 0 skipped, 1 blocked');
    for (const g of ['teams/a', 'teams/b/inner']) expect(t.active(g, 'ci')).toHaveLength(1);
    expect(t.active('ops', 'deploy')).toHaveLength(1);
    expect(t.active('teams/b', 'ci')).toHaveLength(0);

    // Once the directory exists, the saved plan no longer says what apply would do.
    mkdirSync(path.join(t.wd.dir, 'secrets/teams/b/ci'));
    t.allow('secrets/teams/b/ci/ci.token');
    const stale = await t.run(['apply', 'plan.json']);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('PLUMB_PLAN_STALE');
    expect(t.active('teams/b', 'ci')).toHaveLength(0);
    expect((await t.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(t.active('teams/b', 'ci')).toHaveLength(1);
  });

  it('leaves out a lower token lifetime limit while a match of its instance is blocked: it would revoke the tokens apply should have re-issued there first', async () => {
    t = await tokenHarness({
      groups: [{ full_path: 'teams' }, ...['a', 'b'].map((n, i) => ({ full_path: `teams/${n}`, access_tokens: [seedToken('ci', `seeded-ci-teams-${n}-0001`, { id: 20 + i, expires_at: addDays(BASE_DAY, 60) })] }))],
    });
    mkdirSync(path.join(t.wd.dir, 'secrets/teams/a/ci'), { recursive: true });
    t.allow('secrets/teams/a/ci/ci.token');
    t.wd.write(
      'plumb.yaml',
      ['version: 1', 'instances:', '  local:', `    url: ${t.emu.url}`, '    token_env: PLUMB_TOKEN', '    settings_verify_seconds: 0', '    allow_risky: [token-lifetime-lowered]', '    settings:', '      max_personal_access_token_lifetime: 30', '    groups:', '      "teams/*":', '        access_tokens:', '          ci:', '            scopes: [read_api]', '            rotation: {lifetime_days: 20}', '            sink: {file: "secrets/{group}/ci/ci.token"}'].join('\n') + '\n',
    );
    const p = JSON.parse((await t.run(['plan', '--json'])).stdout);
    expect(p.applicable).toBe(true);
    expect(p.changes.map((c: { address: string }) => c.address)).not.toContain('local.application_settings');
    expect(p.changes.map((c: { address: string }) => c.address)).toContain('local.group["teams/a"].access_token["ci"]');
    expect(p.blocked).toContainEqual({ instance: 'local', address: 'local.application_settings', codes: ['PLUMB_BLOCKED_BY_MATCH'], after: ['local.group["teams/b"]'] });
    expect(p.diagnostics.find((d: { code: string }) => d.code === 'PLUMB_BLOCKED_BY_MATCH').blocks).toBe('local.application_settings');
    // Once nothing of the instance is blocked, the limit is planned again, after every token change.
    mkdirSync(path.join(t.wd.dir, 'secrets/teams/b/ci'), { recursive: true });
    const whole = JSON.parse((await t.run(['plan', '--json'])).stdout);
    expect(whole.blocked).toBeUndefined();
    expect(whole.changes.map((c: { address: string }) => c.address)).toContain('local.application_settings');
  });

  it('withholds from a merge-request plan the names of the groups a selector found, showing counts and declared names only', async () => {
    t = await tokenHarness(teams);
    for (const d of ['secrets/teams/a/ci', 'secrets/teams/b/ci', 'secrets/teams/b/inner/ci']) mkdirSync(path.join(t.wd.dir, d), { recursive: true });
    write('secrets/{group}/ci/ci.token');
    // teams/a is declared by name in the configuration: the author wrote it, so it may be shown.
    t.wd.write('plumb.yaml', t.wd.read('plumb.yaml') + ['      teams/a:', '        access_tokens:', '          deploy:', '            scopes: [read_api]', '            rotation: {lifetime_days: 30}', '            sink: {file: "secrets/teams/a/ci/deploy.token"}'].join('\n') + '\n');
    const mr = { CI_PIPELINE_SOURCE: 'merge_request_event', CI_MERGE_REQUEST_IID: '7' };
    const human = await t.run(['plan', '--markdown', 'plan.md', '--out', 'plan.json'], mr);
    expect(human.code, human.stderr).toBe(0);
    const json = await t.run(['plan', '--json'], mr);
    for (const out of [human.stdout, human.stderr, t.wd.read('plan.md'), t.wd.read('plan.json'), json.stdout]) expect(out).not.toMatch(/teams\/b|teams%2Fb|inner/);
    for (const out of [human.stdout, t.wd.read('plan.md'), t.wd.read('plan.json'), json.stdout]) expect(out).toContain('teams/a');
    expect(human.stdout).toContain('Merge-request plan (CI_MERGE_REQUEST_IID is set): the names of 2 selector matches are withheld');
    expect(human.stdout).toContain('local.groups["teams/**"] matched 3 groups');
    expect(human.stdout).toContain('local.group["(match 2 of teams/**)"].access_token["ci"]');
    expect(human.stdout).toContain('file secrets/(match 2 of teams/**)/ci/ci.token');
    expect(JSON.parse(json.stdout).withheld).toEqual({ why: 'CI_MERGE_REQUEST_IID is set', matches: 2 });
    expect(t.wd.read('plan.md')).toContain('the names of 2 selector matches are withheld');
    // Such a plan is never applied: the protected default-branch job plans with every name.
    const refused = await t.run(['apply', 'plan.json']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('PLUMB_PLAN_WITHHELD');
    expect(t.count('POST', /access_tokens/)).toBe(0);
    // Outside a merge request, or with --show-matches, every name is shown; --withhold-matches asks for it anywhere.
    expect((await t.run(['plan'])).stdout).toContain('local.group["teams/b/inner"]');
    expect((await t.run(['plan', '--show-matches'], mr)).stdout).toContain('local.group["teams/b/inner"]');
    expect((await t.run(['plan', '--withhold-matches'])).stdout).not.toContain('teams/b');
  });

  it('refuses a group selector\'s fixed sink file offline, at validate: every match would write the same file', async () => {
    t = await tokenHarness(teams);
    mkdirSync(path.join(t.wd.dir, 'secrets'), { recursive: true });
    write('secrets/ci.token');
    const v = await t.run(['validate']);
    expect(v.code).toBe(1);
    expect(v.stderr).toContain('error[PLUMB_TOKEN_SINK_SHARED]: Token "ci" of selector "teams/**" delivers the secret of every group it matches into the same file "secrets/ci.token"');
    expect(v.stderr).toContain('plumb.yaml:12');
    expect(v.stderr).toContain('help: give each group its own file: {group} in the path is the group\'s full path (file: "secrets/{group}/ci.token", quoted)');
    const r = await t.run(['plan']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_TOKEN_SINK_SHARED');
    expect(t.count('POST', /access_tokens/)).toBe(0);
  });

  it('refuses {project} in a group selector and a placeholder in a sink command\'s program, offline', async () => {
    t = await tokenHarness(teams);
    t.wd.write('plumb.yaml', ['version: 1', 'instances:', '  local:', `    url: ${t.emu.url}`, '    token_env: PLUMB_TOKEN', '    groups:', '      "teams/*":', '        access_tokens:', '          ci:', '            scopes: [read_api]', '            rotation: {lifetime_days: 30}', '            sink: {command: ["bin/{group}", "{project}"]}'].join('\n') + '\n');
    const v = await t.run(['validate']);
    expect(v.code).toBe(1);
    expect(v.stderr.match(/PLUMB_SELECTOR_PLACEHOLDER/g)).toHaveLength(2);
  });
});

describe('selector mistakes visible offline', () => {
  it('reports an unknown placeholder and a placeholder in a key at validate, with what to write instead', async () => {
    h = await fileHarness(SEED);
    projects(['      "platform/*":', '        files:', '          "docs/{project}.md": {content: "x\\n"}', '          README.md: {content: "x\\n", branches: ["{projct}"]}']);
    const v = await h.run(['validate']);
    expect(v.code).toBe(1);
    expect(v.stderr).toContain('error[PLUMB_SELECTOR_PLACEHOLDER]: {project} in the file path "docs/{project}.md" of selector "platform/*" is not replaced: placeholders are replaced in values only, never in keys');
    expect(v.stderr).toContain('plumb.yaml:9:11');
    expect(v.stderr).toContain('error[PLUMB_SELECTOR_PLACEHOLDER]: {projct} in selector "platform/*" is not a placeholder plumb knows, so every match gets it as written');
    expect(v.stderr).toContain('help: did you mean {project}?');
    expect(h.count('GET', /./)).toBe(0);
  });

  it('refuses, at validate, a selector over the lock project that declares the lock path as a file', async () => {
    h = await fileHarness(SEED);
    projects(['      "platform/**":', '        exclude: [platform/b]', '        files:', '          locks/plumb.json: {content: "{}"}'], ['    lock: {project: platform/team/d, path: locks/plumb.json}']);
    const v = await h.run(['validate']);
    expect(v.code).toBe(1);
    expect(v.stderr).toContain('error[PLUMB_LOCK_PATH_DECLARED]: The lock file "locks/plumb.json" of project "platform/team/d" is also declared as a repository file by selector "platform/**", which covers that project');
    // Excluded from the selector: no collision.
    projects(['      "platform/**":', '        exclude: ["platform/team/**"]', '        files:', '          locks/plumb.json: {content: "{}"}'], ['    lock: {project: platform/team/d, path: locks/plumb.json}']);
    expect((await h.run(['validate'])).stderr).not.toContain('PLUMB_LOCK_PATH_DECLARED');
  });
});
