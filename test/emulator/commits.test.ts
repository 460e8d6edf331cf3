/** The commits API, as the real v4 API has it (docs/emulator.md#commits). */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEVELOPER, GUEST, MAINTAINER, REPORTER, start, type Api } from './helpers.js';
import type { RunningEmulator } from '../../src/emulator/index.js';

let emulator: RunningEmulator;
let api: Api;

beforeEach(async () => {
  ({ emulator, api } = await start());
});
afterEach(() => emulator.close());

const P = '/projects/platform%2Finfra%2Fconfig';
const C = `${P}/repository/commits`;
const project = () => emulator.state.projectByRef('30')!;
const text = (branch: string, path: string) => project().repo.branchHead(branch)?.files.get(path)?.data.toString('utf8');

describe('POST /projects/:id/repository/commits', () => {
  it('commits every action as one commit and answers the commit detail with stats', async () => {
    const before = project().repo.branchHead('feature')!.id;
    const r = await api.post(C, {
      token: DEVELOPER,
      json: {
        branch: 'feature',
        commit_message: 'Two files at once\n\nbody',
        actions: [
          { action: 'create', file_path: 'a.txt', content: 'one\ntwo\n' },
          { action: 'update', file_path: 'README.md', content: 'line one\nline 2\nline three\n' },
          { action: 'move', previous_path: 'feature.txt', file_path: 'moved/feature.txt' },
          { action: 'chmod', file_path: 'scripts/deploy.sh', execute_filemode: false },
          { action: 'create', file_path: 'b.bin', content: Buffer.from([0, 1, 2]).toString('base64'), encoding: 'base64' },
        ],
      },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ title: 'Two files at once', message: 'Two files at once\n\nbody', parent_ids: [before], project_id: 30, status: null, last_pipeline: null });
    // a.txt +2, README +1 -1, the move -1 +1 (no rename detection), the binary and the chmod nothing.
    expect(r.body.stats).toEqual({ additions: 4, deletions: 2, total: 6 });
    const head = project().repo.branchHead('feature')!;
    expect(head.id).toBe(r.body.id);
    expect(project().repo.parent(head)!.id).toBe(before);
    expect(text('feature', 'a.txt')).toBe('one\ntwo\n');
    expect(text('feature', 'moved/feature.txt')).toBe('on feature\n');
    expect(head.files.has('feature.txt')).toBe(false);
    expect(head.files.get('scripts/deploy.sh')!.mode).toBe('100644');
    expect(head.files.get('b.bin')!.data).toEqual(Buffer.from([0, 1, 2]));
  });

  it('is all-or-nothing: one action that cannot apply refuses the whole commit with the real message', async () => {
    const before = project().repo.branchHead('main')!.id;
    const cases: [Record<string, unknown>, string][] = [
      [{ action: 'create', file_path: 'README.md', content: 'x' }, 'A file with this name already exists'],
      [{ action: 'update', file_path: 'nope.txt', content: 'x' }, "A file with this name doesn't exist"],
      [{ action: 'delete', file_path: 'nope.txt' }, "A file with this name doesn't exist"],
      [{ action: 'move', previous_path: 'nope.txt', file_path: 'x.txt' }, "A file with this name doesn't exist"],
      [{ action: 'create', file_path: 'scripts', content: 'x' }, 'A directory with this name already exists'],
    ];
    for (const [bad, message] of cases) {
      const r = await api.post(C, {
        token: MAINTAINER,
        json: { branch: 'main', commit_message: 'm', actions: [{ action: 'create', file_path: 'fine.txt', content: 'ok' }, bad] },
      });
      expect(r.status, message).toBe(400);
      expect(r.body).toEqual({ message });
    }
    expect(project().repo.branchHead('main')!.id).toBe(before);
    expect(text('main', 'fine.txt')).toBeUndefined();
  });

  it('refuses the whole commit when one action has a stale last_commit_id, naming the file', async () => {
    const seen = project().repo.branchHead('main')!.id;
    emulator.state.pushFile(30, { path: 'scripts/deploy.sh', content: 'changed by someone\n' });
    const r = await api.post(C, {
      token: MAINTAINER,
      json: {
        branch: 'main',
        commit_message: 'm',
        actions: [
          { action: 'update', file_path: 'README.md', content: 'new', last_commit_id: seen },
          { action: 'update', file_path: 'scripts/deploy.sh', content: 'mine', last_commit_id: seen },
        ],
      },
    });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ message: 'The file has changed since you started editing it: scripts/deploy.sh' });
    expect(text('main', 'README.md')).toBe('line one\nline two\nline three\n');
    const ok = await api.post(C, { token: MAINTAINER, json: { branch: 'main', commit_message: 'm', actions: [{ action: 'update', file_path: 'README.md', content: 'new', last_commit_id: seen }] } });
    expect(ok.status).toBe(201);
  });

  it('starts a new branch from start_branch, refuses an existing one unless force', async () => {
    const r = await api.post(C, { token: DEVELOPER, json: { branch: 'plumb/x', start_branch: 'main', commit_message: 'm', actions: [{ action: 'create', file_path: 'n.txt', content: 'n' }] } });
    expect(r.status).toBe(201);
    expect(r.body.parent_ids).toEqual([project().repo.branchHead('main')!.id]);
    const again = { branch: 'plumb/x', start_branch: 'main', commit_message: 'm', actions: [{ action: 'create', file_path: 'o.txt', content: 'o' }] };
    expect((await api.post(C, { token: DEVELOPER, json: again })).body).toEqual({ message: "A branch called 'plumb/x' already exists. Switch to that branch in order to make changes" });
    const forced = await api.post(C, { token: DEVELOPER, json: { ...again, force: true } });
    expect(forced.status).toBe(201);
    // Rebuilt from main: the earlier commit of plumb/x is gone from the branch.
    expect(text('plumb/x', 'n.txt')).toBeUndefined();
    expect(text('plumb/x', 'o.txt')).toBe('o');
    expect((await api.post(C, { token: DEVELOPER, json: { ...again, branch: 'y', start_branch: 'nope' } })).body).toEqual({ message: 'You can only create or edit files when you are on a branch' });
  });

  it('answers 403 with the reason on a branch the caller may not push to, and checks its parameters', async () => {
    const r = await api.post(C, { token: DEVELOPER, json: { branch: 'main', commit_message: 'm', actions: [{ action: 'create', file_path: 'x', content: 'x' }] } });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ message: '403 Forbidden - You are not allowed to push into this branch' });
    expect((await api.post(C, { token: REPORTER, json: { branch: 'feature', commit_message: 'm', actions: [{ action: 'create', file_path: 'x' }] } })).status).toBe(403);
    const missing = await api.post(C, { token: DEVELOPER, json: {} });
    expect(missing.body).toEqual({ error: 'branch is missing, commit_message is missing, actions is missing' });
    const badAction = await api.post(C, { token: DEVELOPER, json: { branch: 'feature', commit_message: 'm', actions: [{ action: 'rename' }] } });
    expect(badAction.body).toEqual({ error: 'actions[0][file_path] is missing, actions[0][action] does not have a valid value' });
  });
});

describe('GET /projects/:id/repository/commits', () => {
  it('lists the first-parent history of a ref, newest first, optionally of one path', async () => {
    emulator.state.pushFile(30, { path: 'README.md', content: 'v2\n', message: 'Second' });
    emulator.state.pushFile(30, { path: 'other.txt', content: 'o\n', message: 'Third' });
    const all = await api.get(C, { token: REPORTER });
    expect(all.status).toBe(200);
    expect(all.body.map((c: { title: string }) => c.title)).toEqual(['Third', 'Second', 'Initial commit']);
    expect(all.headers.get('x-total')).toBe('3');
    const readme = await api.get(C, { token: REPORTER, query: 'path=README.md' });
    expect(readme.body.map((c: { title: string }) => c.title)).toEqual(['Second', 'Initial commit']);
    const feature = await api.get(C, { token: REPORTER, query: 'ref_name=feature' });
    expect(feature.body.map((c: { title: string }) => c.title)).toEqual(['Update feature', 'Initial commit']);
    expect((await api.get(C, { token: GUEST })).status).toBe(403);
  });

  it('gets one commit by id or ref with stats, 404 Commit Not Found otherwise', async () => {
    const head = project().repo.branchHead('feature')!;
    const r = await api.get(`${C}/${head.id}`, { token: REPORTER });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: head.id, short_id: head.id.slice(0, 8), stats: { additions: 1, deletions: 0, total: 1 } });
    expect((await api.get(`${C}/feature`, { token: REPORTER })).body.id).toBe(head.id);
    expect((await api.get(`${C}/${'0'.repeat(40)}`, { token: REPORTER })).body).toEqual({ message: '404 Commit Not Found' });
  });
});
