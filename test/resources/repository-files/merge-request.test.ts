/**
 * Delivery by merge request (issue 32 items 4 and 5, docs/config.md#delivering-files), end to end
 * against the emulator: one merge request per project, kept up to date across runs, never spammed;
 * left alone when someone else pushed to its branch; closed when the target branch already holds
 * the files; and where each stands in the plan, the drift report and the fleet's count.
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { secret } from '../../helpers/cli.js';
import { ADMIN_TOKEN, fileHarness } from './helpers.js';
import type { FileHarness } from './helpers.js';

const DEV_TOKEN = secret('developer-token-for-mr-tests-01234');
const N = 20;
const name = (i: number) => `platform/app-${String(i).padStart(2, '0')}`;

let h: FileHarness;
afterEach(async () => {
  await h?.close();
  if (h) rmSync(h.wd.dir, { recursive: true, force: true });
});

interface Mr {
  iid: number;
  project_id: number;
  state: string;
  source_branch: string;
  target_branch: string;
  title: string;
  description: string;
  labels: string[];
  web_url: string;
  references: { full: string };
  merge_when_pipeline_succeeds: boolean;
}

async function fleet(projects = N): Promise<FileHarness> {
  return fileHarness({
    users: [
      { username: 'root', admin: true, personal_access_tokens: [{ name: 'plumb', token: ADMIN_TOKEN, scopes: ['api'] }] },
      { username: 'dee', email: 'dee@example.test', personal_access_tokens: [{ name: 'dee', token: DEV_TOKEN, scopes: ['api'] }] },
    ],
    groups: [{ full_path: 'platform', members: [{ username: 'dee', access_level: 30 }] }],
    // Protected default branches, as the instance setting gives new projects: plumb never writes them.
    projects: Array.from({ length: projects }, (_, i) => ({ path_with_namespace: name(i), default_branch: 'main', protected_branches: ['main'], files: { 'README.md': 'hello\n' } })),
  });
}

function configure(files: Record<string, unknown>, delivery: unknown = { merge_request: { labels: ['plumb'] } }): void {
  const doc = { version: 1, instances: { local: { url: h.emu.url, token_env: 'PLUMB_TOKEN', projects: { 'platform/*': { delivery, files } } } } };
  h.wd.write('plumb.yaml', JSON.stringify(doc, null, 2));
}

async function api<T>(method: string, path: string, body?: unknown, token = ADMIN_TOKEN): Promise<{ status: number; body: T }> {
  const res = await fetch(`${h.emu.url}/api/v4${path}`, { method, headers: { 'PRIVATE-TOKEN': token, 'content-type': 'application/json' }, ...(body !== undefined && { body: JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}

const openMrs = async () => (await api<Mr[]>('GET', '/merge_requests?scope=all&state=opened&per_page=100')).body;
const allMrs = async () => (await api<Mr[]>('GET', '/merge_requests?scope=all&state=all&per_page=100')).body;
const writes = () => h.emu.requests.filter((r) => r.method !== 'GET' && r.method !== 'HEAD');
const project = (i: number) => h.emu.state.projects.find((p) => p.pathWithNamespace === name(i))!;

const FILES = { CODEOWNERS: { content: '* @platform\n' }, 'README.md': { content: 'hello, fleet\n' } };

describe('delivery by merge request over a selector of 20 projects with protected default branches', () => {
  it('opens one merge request per project with one commit holding both files, then keeps them: no write when nothing changed, updated in place when a file changes, "No changes" once merged', async () => {
    h = await fleet();
    expect(project(0).protectedBranches.map((p) => p.name)).toContain('main');
    configure(FILES);

    const plan = await h.run(['plan']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('2 files → new merge request (plumb/local into main)');
    expect(plan.stdout).toContain(`merge requests: ${N} to open`);
    // The fleet's merge requests are one block of the grouped plan.
    expect(plan.stdout).toContain(`local.project[*].merge_request["plumb/local"]: 2 files → new merge request (plumb/local into main) in ${N} projects matching platform/*:`);

    const first = await h.run(['apply', '--auto-approve']);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const mrs = await openMrs();
    expect(mrs).toHaveLength(N);
    for (let i = 0; i < N; i++) {
      const p = project(i);
      const mr = mrs.find((m) => m.project_id === p.id)!;
      expect(mr).toMatchObject({ source_branch: 'plumb/local', target_branch: 'main', labels: ['plumb'] });
      // The default branch is untouched; the merge request's branch is one commit on top of it, with both files.
      const main = p.repo.branchHead('main')!;
      expect(main.files.get('README.md')!.data.toString()).toBe('hello\n');
      expect(main.files.has('CODEOWNERS')).toBe(false);
      const head = p.repo.branchHead('plumb/local')!;
      expect(head.parentIds).toEqual([main.id]);
      expect(head.files.get('CODEOWNERS')!.data.toString()).toBe('* @platform\n');
      expect(head.files.get('README.md')!.data.toString()).toBe('hello, fleet\n');
      // The description lists the files; the commit carries plumb's trailers.
      expect(mr.description).toContain('- create `CODEOWNERS`');
      expect(mr.description).toContain('- update `README.md`');
      expect(head.message).toMatch(/^Plumb-Instance: local$/m);
    }
    const commits = h.emu.requests.filter((r) => r.method === 'POST' && /\/repository\/commits$/.test(r.path));
    expect(commits).toHaveLength(N);

    // Nothing changed: the plan says where each merge request stands, and apply writes nothing.
    const again = await h.run(['plan']);
    expect(again.stdout).toContain(`No changes to apply; ${N} open merge requests of plumb's wait for review (below).`);
    expect(again.stdout).toContain(`merge requests: ${N} up to date`);
    expect((await h.run(['plan', '--html', 'plan.html'])).code).toBe(0);
    expect(h.wd.read('plan.html')).toContain(`No changes to apply; ${N} open merge requests of plumb&#39;s wait for review.`);
    h.emu.resetRequests();
    const second = await h.run(['apply', '--auto-approve']);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(writes()).toEqual([]);

    // One file changes: every merge request is updated in place, its branch rebuilt from main in one commit.
    configure({ ...FILES, CODEOWNERS: { content: '* @platform @security\n' } });
    const changed = await h.run(['plan']);
    expect(changed.stdout).toContain('will be updated (1 file changed)');
    const third = await h.run(['apply', '--auto-approve']);
    expect(third.code, third.stdout + third.stderr).toBe(0);
    const after = await openMrs();
    expect(after.map((m) => [m.project_id, m.iid]).sort()).toEqual(mrs.map((m) => [m.project_id, m.iid]).sort());
    expect(await allMrs()).toHaveLength(N);
    for (let i = 0; i < N; i++) {
      const p = project(i);
      const head = p.repo.branchHead('plumb/local')!;
      expect(head.parentIds).toEqual([p.repo.branchHead('main')!.id]);
      expect(head.files.get('CODEOWNERS')!.data.toString()).toBe('* @platform @security\n');
    }

    // Merged through the API: the plan has nothing left to do.
    for (const m of after) expect((await api('PUT', `/projects/${m.project_id}/merge_requests/${m.iid}/merge`)).status).toBe(200);
    const merged = await h.run(['plan']);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toContain('No changes. The instance matches the configuration.');
  });

  it('leaves a merge request whose branch someone else pushed to untouched, and says so in the plan and at apply', async () => {
    h = await fleet(2);
    configure(FILES);
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    const theirs = await api<{ id: string }>('POST', `/projects/${encodeURIComponent(name(0))}/repository/commits`, { branch: 'plumb/local', commit_message: 'fix the owners by hand', actions: [{ action: 'update', file_path: 'CODEOWNERS', content: '* @dee\n' }] }, DEV_TOKEN);
    expect(theirs.status).toBe(201);

    configure({ ...FILES, CODEOWNERS: { content: '* @platform @security\n' } });
    const plan = await h.run(['plan']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('PLUMB_FILE_MR_FOREIGN_COMMIT');
    expect(plan.stdout).toContain(`Merge request !1 of project "${name(0)}"`);
    expect(plan.stdout).toContain('left untouched (someone else pushed to plumb/local)');
    expect(plan.stdout).toContain('will be updated (1 file changed)');
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // Their commit is still the head; the other project's merge request was updated.
    expect(project(0).repo.branchHead('plumb/local')!.id).toBe(theirs.body.id);
    expect(project(1).repo.branchHead('plumb/local')!.files.get('CODEOWNERS')!.data.toString()).toBe('* @platform @security\n');
    expect(await openMrs()).toHaveLength(2);
  });

  it('rebuilds its merge request on top of the target branch when someone changes one of its files there (no conflict left to merge)', async () => {
    h = await fleet(1);
    configure(FILES);
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    const edit = await api('POST', `/projects/${encodeURIComponent(name(0))}/repository/commits`, { branch: 'main', commit_message: 'by hand', actions: [{ action: 'update', file_path: 'README.md', content: 'hello, world\n' }] });
    expect(edit.status).toBe(201);
    const plan = await h.run(['plan']);
    expect(plan.stdout).toContain('merge request !1 will be updated (1 file changed)');
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    const p = project(0);
    expect(p.repo.branchHead('plumb/local')!.parentIds).toEqual([p.repo.branchHead('main')!.id]);
    const [mr] = await openMrs();
    expect((await api('PUT', `/projects/${mr!.project_id}/merge_requests/${mr!.iid}/merge`)).status).toBe(200);
    expect(p.repo.branchHead('main')!.files.get('README.md')!.data.toString()).toBe('hello, fleet\n');
  });

  it('closes its merge request and removes its branch when the target branch already holds the files', async () => {
    h = await fleet(1);
    configure(FILES);
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    // Someone commits the same content to main directly.
    const direct = await api('POST', `/projects/${encodeURIComponent(name(0))}/repository/commits`, { branch: 'main', commit_message: 'by hand', actions: [{ action: 'create', file_path: 'CODEOWNERS', content: '* @platform\n' }, { action: 'update', file_path: 'README.md', content: 'hello, fleet\n' }] });
    expect(direct.status).toBe(201);
    const plan = await h.run(['plan']);
    expect(plan.stdout).toContain('merge request !1 will be closed and its branch plumb/local removed');
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(await openMrs()).toEqual([]);
    expect(project(0).repo.branches.has('plumb/local')).toBe(false);
    expect((await h.run(['plan'])).stdout).toContain('No changes. The instance matches the configuration.');
  });

  it('delivers a file whose content is a secret without a digest of it in the commit, and finds it up to date on the branch', async () => {
    const SECRET = secret('mr-file-secret-value-0123456789');
    h = await fleet(1);
    configure({ 'deploy/token.txt': { content: '${env:MR_FILE_SECRET}' } });
    const env = { MR_FILE_SECRET: SECRET };
    const applied = await h.wd.run(['apply', '--auto-approve', '--state', 'state.json'], env);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const head = project(0).repo.branchHead('plumb/local')!;
    expect(head.files.get('deploy/token.txt')!.data.toString()).toBe(SECRET);
    expect(head.message).not.toMatch(/^Plumb-File:/m);
    const [mr] = await openMrs();
    expect(mr!.description).not.toContain(SECRET);
    const again = await h.wd.run(['plan', '--state', 'state.json'], env);
    expect(again.stdout).toContain('merge request !1 up to date (waiting for review)');
  });

  it("opens a new merge request from a branch a merged one left behind, rebuilding it only because its head is plumb's commit", async () => {
    h = await fleet(1);
    configure(FILES, { merge_request: { remove_source_branch: false } });
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    const [first] = await openMrs();
    expect((await api('PUT', `/projects/${first!.project_id}/merge_requests/${first!.iid}/merge`)).status).toBe(200);
    expect(project(0).repo.branches.has('plumb/local')).toBe(true);
    configure({ ...FILES, CODEOWNERS: { content: '* @platform @security\n' } }, { merge_request: { remove_source_branch: false } });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const [second] = await openMrs();
    expect(second!.iid).toBe(first!.iid + 1);
    const p = project(0);
    expect(p.repo.branchHead('plumb/local')!.parentIds).toEqual([p.repo.branchHead('main')!.id]);
    expect(p.repo.branchHead('plumb/local')!.files.get('CODEOWNERS')!.data.toString()).toBe('* @platform @security\n');
  });

  it('does not overwrite a branch a merged merge request left behind once someone else pushed to it', async () => {
    h = await fleet(1);
    configure(FILES, { merge_request: { remove_source_branch: false } });
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    const [first] = await openMrs();
    expect((await api('PUT', `/projects/${first!.project_id}/merge_requests/${first!.iid}/merge`)).status).toBe(200);
    const theirs = await api<{ id: string }>('POST', `/projects/${encodeURIComponent(name(0))}/repository/commits`, { branch: 'plumb/local', commit_message: 'work in progress', actions: [{ action: 'create', file_path: 'NOTES.md', content: 'mine\n' }] }, DEV_TOKEN);
    expect(theirs.status).toBe(201);
    configure({ ...FILES, CODEOWNERS: { content: '* @platform @security\n' } }, { merge_request: { remove_source_branch: false } });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain('PLUMB_FILE_MR_FOREIGN_COMMIT');
    expect(r.stdout + r.stderr).toContain('plumb did not overwrite it');
    expect(project(0).repo.branchHead('plumb/local')!.id).toBe(theirs.body.id);
    expect(await openMrs()).toEqual([]);
  });

  it('asks the service to merge when the pipeline succeeds with auto_merge: true', async () => {
    h = await fleet(1);
    configure(FILES, { merge_request: { auto_merge: true, title: 'Fleet files' } });
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    const [mr] = await openMrs();
    expect(mr).toMatchObject({ title: 'Fleet files', merge_when_pipeline_succeeds: true });
  });
});

describe('drift of files pending in an open merge request', () => {
  it('is its own category, counted as drift (exit 2), with the merge request URL', async () => {
    h = await fleet(1);
    configure(FILES);
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    const [mr] = await openMrs();
    const human = await h.run(['drift']);
    expect(human.code).toBe(2);
    expect(human.stdout).toContain('Pending in open merge requests (2 file(s) in 1 merge request(s), waiting for review)');
    expect(human.stdout).toContain(`pending: merge request !1 ${mr!.web_url}`);
    const json = await h.run(['drift', '--json']);
    expect(json.code).toBe(2);
    const doc = JSON.parse(json.stdout) as { inSync: boolean; drift: { address: string; mergeRequest?: { iid: number; url: string } }[]; pendingInMergeRequests: { iid: number; url: string; addresses: string[] }[] };
    expect(doc.inSync).toBe(false);
    expect(doc.drift.filter((d) => d.mergeRequest).map((d) => d.address).sort()).toEqual([`local.project["${name(0)}"].branch["main"].file["CODEOWNERS"]`, `local.project["${name(0)}"].branch["main"].file["README.md"]`]);
    expect(doc.pendingInMergeRequests).toEqual([{ iid: 1, url: mr!.web_url, addresses: expect.any(Array) }]);
    // The HTML page counts them in a card of their own.
    expect((await h.run(['drift', '--html', 'drift.html'])).code).toBe(2);
    const page = h.wd.read('drift.html');
    expect(page).toContain('pending in merge request');
    expect(page).toContain('merge request !1 up to date (waiting for review)');
  });
});

describe('a saved plan', () => {
  it('whose source file changed since the plan is refused as such, nothing written', async () => {
    h = await fleet(1);
    h.wd.write('files/SECURITY.md', '# Security\n');
    configure({ 'SECURITY.md': { source: 'files/SECURITY.md' } });
    expect((await h.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    h.wd.write('files/SECURITY.md', '# Security, edited\n');
    h.emu.resetRequests();
    const r = await h.run(['apply', 'plan.json']);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain('PLUMB_FILE_SOURCE_CHANGED');
    expect(writes()).toEqual([]);
  });
});

describe('the report', () => {
  it('lists files pending in an open merge request as drifted, naming the merge request', async () => {
    h = await fleet(1);
    configure(FILES);
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    const [mr] = await openMrs();
    const r = await h.run(['report', '--json']);
    const doc = JSON.parse(r.stdout) as { resources: { address: string; status: string; notes: string[] }[] };
    const pending = doc.resources.filter((x) => x.notes.some((n) => n.startsWith('pending in merge request')));
    expect(pending.map((x) => [x.address, x.status]).sort()).toEqual([
      [`local.project["${name(0)}"].branch["main"].file["CODEOWNERS"]`, 'drifted'],
      [`local.project["${name(0)}"].branch["main"].file["README.md"]`, 'drifted'],
    ]);
    expect(pending[0]!.notes[0]).toContain(mr!.web_url);
  });
});

describe('finding the merge requests again', () => {
  it('lists the open merge requests once for the whole fleet when plumb is an administrator, once per project otherwise', async () => {
    h = await fleet(3);
    configure(FILES);
    const listings = (re: RegExp) => h.emu.requests.filter((r) => r.method === 'GET' && re.test(r.path)).length;
    // A Developer's token (not an administrator) delivers and plans: one listing per project.
    const dev = (args: string[]) => h.wd.run([...args, '--state', 'state.json'], { PLUMB_TOKEN: DEV_TOKEN });
    expect((await dev(['apply', '--auto-approve'])).code).toBe(0);
    h.emu.resetRequests();
    const r = await dev(['plan']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('merge requests: 3 up to date');
    expect(listings(/^\/merge_requests$/)).toBe(0);
    expect(listings(/\/projects\/[^/]+\/merge_requests$/)).toBe(3);

    // An administrator's: one listing for the fleet. The branches hold the Developer's commits, not
    // this user's: left untouched, as any other user's push.
    h.emu.resetRequests();
    const admin = await h.run(['plan']);
    expect(admin.code).toBe(0);
    expect(admin.stdout).toContain('No changes to apply; 3 merge requests are left untouched (someone else pushed to their branches) (below).');
    expect(listings(/^\/merge_requests$/)).toBe(1);
    expect(listings(/\/projects\/[^/]+\/merge_requests$/)).toBe(0);
  });
});

describe('the plan says where each merge request stands', () => {
  it('in the JSON plan (format 1.4), a saved plan applies, and the markdown comment says it too', async () => {
    h = await fleet(1);
    configure(FILES);
    const out = await h.run(['plan', '--out', 'plan.json', '--markdown', 'plan.md']);
    expect(out.code, out.stderr).toBe(0);
    const plan = JSON.parse(h.wd.read('plan.json')) as { formatVersion: string; changes: { address: string; action: string; mergeRequest?: unknown }[]; risks: unknown[] };
    expect(plan.formatVersion).toBe('1.4');
    // An administrator's merge request leaves the protected default branch alone: no push there to check or flag.
    expect(plan.risks).toEqual([]);
    expect(h.emu.requests.filter((r) => /\/repository\/branches\/main$/.test(r.path))).toEqual([]);
    expect(plan.changes).toEqual([expect.objectContaining({ address: `local.project["${name(0)}"].merge_request["plumb/local"]`, action: 'create', mergeRequest: { state: 'new', sourceBranch: 'plumb/local', targetBranch: 'main', files: 2 } })]);
    expect(h.wd.read('plan.md')).toContain('2 files → new merge request');
    // Shown offline: the payload says what the change shows (describePayload).
    const shown = await h.wd.run(['show', 'plan.json']);
    expect(shown.code, shown.stdout + shown.stderr).toBe(0);
    expect(shown.stdout).toContain('2 files → new merge request (plumb/local into main)');
    const applied = await h.run(['apply', 'plan.json']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const [mr] = await openMrs();

    const again = JSON.parse((await h.run(['plan', '--json'])).stdout) as { changes: { action: string; mergeRequest?: unknown }[]; drift: { mergeRequest?: unknown }[] };
    expect(again.changes).toEqual([expect.objectContaining({ action: 'no-op', mergeRequest: { state: 'up-to-date', sourceBranch: 'plumb/local', targetBranch: 'main', iid: mr!.iid, url: mr!.web_url, files: 2 } })]);
    expect(again.drift.filter((d) => d.mergeRequest)).toHaveLength(2);

    configure({ ...FILES, CODEOWNERS: { content: '* @x\n' } });
    const md = await h.run(['plan', '--markdown', 'update.md']);
    expect(md.code).toBe(0);
    expect(h.wd.read('update.md')).toContain(`merge request !${mr!.iid} will be updated (1 file changed)`);
  });
});
