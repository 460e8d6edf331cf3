/** Merge requests, as the real v4 API has them (docs/emulator.md#merge-requests). */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN, DEVELOPER, GUEST, MAINTAINER, OWNER, REPORTER, start, type Api } from './helpers.js';
import type { RunningEmulator } from '../../src/emulator/index.js';

let emulator: RunningEmulator;
let api: Api;

beforeEach(async () => {
  ({ emulator, api } = await start());
});
afterEach(() => emulator.close());

const P = '/projects/platform%2Finfra%2Fconfig';
const MR = `${P}/merge_requests`;
const project = () => emulator.state.projectByRef('30')!;

async function open(body: Record<string, unknown> = {}, token = DEVELOPER) {
  return api.post(MR, { token, json: { source_branch: 'feature', target_branch: 'main', title: 'Add feature', ...body } });
}

describe('creating merge requests', () => {
  it('opens one with the real entity and numbers it per project', async () => {
    const r = await open({ description: 'files: a, b', labels: 'plumb,config', remove_source_branch: true });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      iid: 1,
      project_id: 30,
      title: 'Add feature',
      description: 'files: a, b',
      state: 'opened',
      source_branch: 'feature',
      target_branch: 'main',
      labels: ['plumb', 'config'],
      merge_when_pipeline_succeeds: false,
      force_remove_source_branch: true,
      author: { username: 'dev' },
      sha: project().repo.branchHead('feature')!.id,
      merge_commit_sha: null,
      references: { full: 'platform/infra/config!1' },
    });
    expect(r.body.web_url).toBe(`${emulator.url}/platform/infra/config/-/merge_requests/1`);
  });

  it('answers a second open merge request for the same branches 409 with the real message', async () => {
    await open();
    const again = await open({ title: 'Again' });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ message: ['Another open merge request already exists for this source branch: !1'] });
  });

  it('refuses the same branch twice, a missing branch, missing parameters and a Reporter', async () => {
    expect((await open({ source_branch: 'main' })).body).toEqual({ message: ["You can't use same project/branch for source and target"] });
    const gone = await open({ source_branch: 'nope' });
    expect(gone.status).toBe(422);
    expect(gone.body).toEqual({ message: ['Source branch "nope" does not exist'] });
    expect((await api.post(MR, { token: DEVELOPER, json: {} })).body).toEqual({ error: 'source_branch is missing, target_branch is missing, title is missing' });
    expect((await open({}, REPORTER)).status).toBe(403);
  });
});

describe('listing merge requests', () => {
  it('filters by source_branch, target_branch, state and labels, per project', async () => {
    await open({ labels: ['plumb'] });
    await api.post(`${P}/repository/branches`, { token: DEVELOPER, json: { branch: 'other', ref: 'feature' } });
    await open({ source_branch: 'other', title: 'Other', labels: 'plumb,extra' });
    const titles = async (query: string) => (await api.get(MR, { token: REPORTER, query })).body.map((m: { title: string }) => m.title);
    expect(await titles('')).toEqual(['Other', 'Add feature']);
    expect(await titles('source_branch=feature')).toEqual(['Add feature']);
    expect(await titles('target_branch=main&labels=plumb,extra')).toEqual(['Other']);
    await api.put(`${MR}/2`, { token: DEVELOPER, json: { state_event: 'close' } });
    expect(await titles('state=opened')).toEqual(['Add feature']);
    expect(await titles('state=closed')).toEqual(['Other']);
    expect((await api.get(MR, { token: REPORTER, query: 'state=bogus' })).body).toEqual({ error: 'state does not have a valid value' });
    expect((await api.get(MR, { token: GUEST })).status).toBe(403);
  });

  it('lists instance-wide: created_by_me by default, scope=all for every visible one', async () => {
    await open();
    const mine = await api.get('/merge_requests', { token: DEVELOPER });
    expect(mine.body.map((m: { iid: number }) => m.iid)).toEqual([1]);
    expect((await api.get('/merge_requests', { token: OWNER })).body).toEqual([]);
    const all = await api.get('/merge_requests', { token: OWNER, query: 'scope=all&source_branch=feature&state=opened' });
    expect(all.body.map((m: { references: { full: string } }) => m.references.full)).toEqual(['platform/infra/config!1']);
    expect(all.headers.get('x-total')).toBe('1');
  });
});

describe('getting and updating merge requests', () => {
  it('gets one, 404 Not found otherwise', async () => {
    await open();
    expect((await api.get(`${MR}/1`, { token: REPORTER })).body.title).toBe('Add feature');
    expect((await api.get(`${MR}/9`, { token: REPORTER })).body).toEqual({ message: '404 Not found' });
  });

  it('updates fields, closes and reopens with state_event, and refuses a reopen that would duplicate', async () => {
    await open();
    const r = await api.put(`${MR}/1`, { token: DEVELOPER, json: { title: 'New title', description: 'd', labels: 'x', state_event: 'close' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ title: 'New title', description: 'd', labels: ['x'], state: 'closed', closed_by: { username: 'dev' } });
    await open({ title: 'Replacement' });
    const reopen = await api.put(`${MR}/1`, { token: DEVELOPER, json: { state_event: 'reopen' } });
    expect(reopen.status).toBe(409);
    expect(reopen.body).toEqual({ message: ['Another open merge request already exists for this source branch: !2'] });
    expect((await api.put(`${MR}/1`, { token: DEVELOPER, json: {} })).status).toBe(400);
  });
});

describe('merging', () => {
  it('merges into the target with a merge commit and removes the source branch when asked', async () => {
    await open({ remove_source_branch: true });
    const before = project().repo.branchHead('main')!;
    const sourceHead = project().repo.branchHead('feature')!;
    const r = await api.put(`${MR}/1/merge`, { token: MAINTAINER });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ state: 'merged', merged_by: { username: 'max' }, should_remove_source_branch: true });
    const head = project().repo.branchHead('main')!;
    expect(r.body.merge_commit_sha).toBe(head.id);
    expect(head.parentIds).toEqual([before.id, sourceHead.id]);
    expect(head.files.get('feature.txt')!.data.toString()).toBe('on feature\n');
    expect(project().repo.branches.has('feature')).toBe(false);
    expect((await api.put(`${MR}/1/merge`, { token: MAINTAINER })).body).toEqual({ message: '405 Method Not Allowed' });
  });

  it('needs the merge level of the protected target: a Developer is 401', async () => {
    await open();
    const r = await api.put(`${MR}/1/merge`, { token: DEVELOPER });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ message: '401 Unauthorized' });
  });

  it('records auto-merge and leaves the merge request open; checks sha', async () => {
    await open();
    const stale = await api.put(`${MR}/1/merge`, { token: MAINTAINER, json: { sha: '0'.repeat(40) } });
    expect(stale.status).toBe(409);
    const r = await api.put(`${MR}/1/merge`, { token: MAINTAINER, json: { merge_when_pipeline_succeeds: true } });
    expect(r.body).toMatchObject({ state: 'opened', merge_when_pipeline_succeeds: true, merge_user: { username: 'max' } });
    const a = await api.put(`${MR}/1/merge`, { token: ADMIN, json: { auto_merge: true } });
    expect(a.body.merge_when_pipeline_succeeds).toBe(true);
  });

  it('refuses a merge whose branches changed one file differently', async () => {
    await open();
    emulator.state.pushFile(30, { branch: 'main', path: 'feature.txt', content: 'on main\n' });
    const r = await api.put(`${MR}/1/merge`, { token: MAINTAINER });
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ message: 'Branch cannot be merged' });
  });
});
