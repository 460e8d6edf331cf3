/** Branches and protected branches, as the real v4 API has them (docs/emulator.md#branches-and-protected-branches). */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN, DEVELOPER, GUEST, MAINTAINER, OUTSIDER, REPORTER, SEED, enc, start, startTestEmulator, type Api } from './helpers.js';
import type { RunningEmulator } from '../../src/emulator/index.js';

let emulator: RunningEmulator;
let api: Api;

beforeEach(async () => {
  ({ emulator, api } = await start());
});
afterEach(() => emulator.close());

const P = '/projects/platform%2Finfra%2Fconfig';
const B = `${P}/repository/branches`;
const PB = `${P}/protected_branches`;
const SHA1 = /^[0-9a-f]{40}$/;

async function writeFile(branch: string, token: string, path = 'new.txt') {
  return api.post(`${P}/repository/files/${enc(path)}`, { token, json: { branch, content: 'x', commit_message: 'add' } });
}

describe('branches', () => {
  it('lists the branches by name with the branch entity', async () => {
    const r = await api.get(B, { token: REPORTER });
    expect(r.status).toBe(200);
    expect(r.body.map((b: { name: string }) => b.name)).toEqual(['feature', 'main']);
    const main = r.body[1];
    expect(main).toMatchObject({ name: 'main', merged: false, protected: true, developers_can_push: false, developers_can_merge: false, can_push: false, default: true });
    expect(main.web_url).toBe(`${emulator.url}/platform/infra/config/-/tree/main`);
    expect(main.commit).toMatchObject({ title: 'Initial commit', message: 'Initial commit', parent_ids: [], trailers: {} });
    expect(main.commit.id).toMatch(SHA1);
    expect(main.commit.short_id).toBe(main.commit.id.slice(0, 8));
    expect(r.headers.get('x-total')).toBe('2');
    const feature = r.body[0];
    expect(feature).toMatchObject({ protected: false, default: false, can_push: false });
    expect((await api.get(B, { token: DEVELOPER })).body[0].can_push).toBe(true);
    expect((await api.get(B, { token: REPORTER, query: 'search=feat' })).body.map((b: { name: string }) => b.name)).toEqual(['feature']);
  });

  it('gets one branch, 404 Branch Not Found otherwise; a Guest on a private project is refused', async () => {
    expect((await api.get(`${B}/feature`, { token: REPORTER })).body.name).toBe('feature');
    expect((await api.get(`${B}/nope`, { token: REPORTER })).body).toEqual({ message: '404 Branch Not Found' });
    expect((await api.get(`${B}/main`, { token: GUEST })).status).toBe(403);
    expect((await api.get(`${B}/main`, { token: OUTSIDER })).body).toEqual({ message: '404 Project Not Found' });
  });

  it('creates a branch from a ref (Developer+) with the real refusals', async () => {
    const r = await api.post(B, { token: DEVELOPER, json: { branch: 'topic/x', ref: 'main' } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ name: 'topic/x', merged: true, protected: false, default: false });
    expect(emulator.state.projectByRef('30')!.repo.branches.get('topic/x')).toBe(emulator.state.projectByRef('30')!.repo.branches.get('main'));
    expect((await api.get(`${B}/${encodeURIComponent('topic/x')}`, { token: DEVELOPER })).status).toBe(200);
    expect((await api.post(B, { token: DEVELOPER, json: { branch: 'topic/x', ref: 'main' } })).body).toEqual({ message: 'Branch already exists' });
    expect((await api.post(B, { token: DEVELOPER, json: { branch: 'y', ref: 'nothing' } })).body).toEqual({ message: 'Invalid reference name: nothing' });
    expect((await api.post(B, { token: DEVELOPER, json: { branch: 'bad..name', ref: 'main' } })).body).toEqual({ message: 'Branch name is invalid' });
    expect((await api.post(B, { token: DEVELOPER, json: {} })).body).toEqual({ error: 'branch is missing, ref is missing' });
    expect((await api.post(B, { token: REPORTER, json: { branch: 'z', ref: 'main' } })).status).toBe(403);
  });

  it('deletes a branch with 204, never the default branch, a protected one only as Maintainer', async () => {
    expect((await api.delete(`${B}/feature`, { token: DEVELOPER })).status).toBe(204);
    expect((await api.delete(`${B}/feature`, { token: DEVELOPER })).body).toEqual({ message: '404 Branch Not Found' });
    expect((await api.delete(`${B}/main`, { token: MAINTAINER })).body).toEqual({ message: 'The default branch of a project cannot be deleted.' });
    await api.post(B, { token: DEVELOPER, json: { branch: 'release/1', ref: 'main' } });
    await api.post(PB, { token: MAINTAINER, json: { name: 'release/*' } });
    const dev = await api.delete(`${B}/${encodeURIComponent('release/1')}`, { token: DEVELOPER });
    expect(dev.status).toBe(400);
    expect(dev.body.message).toMatch(/^You are not allowed to delete protected branches/);
    expect((await api.delete(`${B}/${encodeURIComponent('release/1')}`, { token: MAINTAINER })).status).toBe(204);
  });
});

describe('protected branches', () => {
  it('lists and gets the default branch protection the seed gave (Maintainers push and merge)', async () => {
    const r = await api.get(PB, { token: MAINTAINER });
    expect(r.status).toBe(200);
    expect(r.body).toHaveLength(1);
    expect(r.body[0]).toMatchObject({
      name: 'main',
      push_access_levels: [{ access_level: 40, access_level_description: 'Maintainers', user_id: null, group_id: null, deploy_key_id: null }],
      merge_access_levels: [{ access_level: 40, access_level_description: 'Maintainers' }],
      unprotect_access_levels: [{ access_level: 40 }],
      allow_force_push: false,
      code_owner_approval_required: false,
    });
    expect((await api.get(`${PB}/main`, { token: MAINTAINER })).body).toEqual(r.body[0]);
    expect((await api.get(`${PB}/nope`, { token: MAINTAINER })).body).toEqual({ message: '404 Not found' });
    expect((await api.get(PB, { token: DEVELOPER })).status).toBe(403);
  });

  it('creates a rule (409 for a second of one name) and deletes it with 204', async () => {
    const r = await api.post(PB, { token: MAINTAINER, json: { name: 'feature', push_access_level: 30, merge_access_level: 40, allow_force_push: true } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ name: 'feature', push_access_levels: [{ access_level: 30, access_level_description: 'Developers + Maintainers' }], allow_force_push: true });
    const again = await api.post(PB, { token: MAINTAINER, json: { name: 'feature' } });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ message: "Protected branch 'feature' already exists" });
    expect((await api.post(PB, { token: MAINTAINER, json: { name: 'x', push_access_level: 20 } })).body).toEqual({ error: 'push_access_level does not have a valid value' });
    expect((await api.post(PB, { token: DEVELOPER, json: { name: 'x' } })).status).toBe(403);
    expect((await api.delete(`${PB}/feature`, { token: MAINTAINER })).status).toBe(204);
    expect((await api.delete(`${PB}/feature`, { token: MAINTAINER })).body).toEqual({ message: '404 Not found' });
  });

  it('enforces the push level on file writes, wildcards included, with the real message', async () => {
    expect((await writeFile('feature', DEVELOPER)).status).toBe(201);
    await api.post(PB, { token: MAINTAINER, json: { name: 'feat*', push_access_level: 40 } });
    const refused = await writeFile('feature', DEVELOPER, 'second.txt');
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ message: 'You are not allowed to push into this branch' });
    expect((await writeFile('feature', MAINTAINER, 'second.txt')).status).toBe(201);
  });

  it('lets Developers push where the rule says Developers + Maintainers, and nobody where it says No one', async () => {
    await api.delete(`${PB}/main`, { token: MAINTAINER });
    await api.post(PB, { token: MAINTAINER, json: { name: 'main', push_access_level: 30 } });
    expect((await writeFile('main', DEVELOPER)).status).toBe(201);
    await api.delete(`${PB}/main`, { token: MAINTAINER });
    await api.post(PB, { token: MAINTAINER, json: { name: 'main', push_access_level: 0 } });
    expect((await writeFile('main', MAINTAINER, 'b.txt')).body).toEqual({ message: 'You are not allowed to push into this branch' });
    expect((await writeFile('main', ADMIN, 'b.txt')).status).toBe(400);
    await api.delete(`${PB}/main`, { token: MAINTAINER });
    expect((await writeFile('main', DEVELOPER, 'c.txt')).status).toBe(201);
  });
});

describe('updating a protected branch (PATCH)', () => {
  it('changes allow_force_push and code-owner approval in place, keeping the rule and its id (Maintainer+)', async () => {
    const before = (await api.get(`${PB}/main`, { token: MAINTAINER })).body;
    const r = await api.patch(`${PB}/main`, { token: MAINTAINER, json: { allow_force_push: true, code_owner_approval_required: true } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: before.id, name: 'main', allow_force_push: true, code_owner_approval_required: true, push_access_levels: before.push_access_levels });
    expect((await api.get(`${PB}/main`, { token: MAINTAINER })).body.allow_force_push).toBe(true);
    expect((await api.patch(`${PB}/main`, { token: DEVELOPER, json: { allow_force_push: false } })).status).toBe(403);
    expect((await api.patch(`${PB}/nope`, { token: MAINTAINER, json: { allow_force_push: false } })).body).toEqual({ message: '404 Not found' });
    expect((await api.patch(`${PB}/main`, { token: MAINTAINER, json: { allow_force_push: 'maybe' } })).body).toEqual({ error: 'allow_force_push is invalid' });
  });

  it('replaces an access level through allowed_to_push ({id, _destroy} and a new entry) or changes it by id; the same level twice is a 422', async () => {
    const rule = (await api.get(`${PB}/main`, { token: MAINTAINER })).body;
    const pushId = rule.push_access_levels[0].id;
    const r = await api.patch(`${PB}/main`, { token: MAINTAINER, json: { allowed_to_push: [{ id: pushId, _destroy: true }, { access_level: 30 }] } });
    expect(r.status).toBe(200);
    expect(r.body.push_access_levels[0]).toMatchObject({ access_level: 30, access_level_description: 'Developers + Maintainers' });
    expect((await writeFile('main', DEVELOPER)).status).toBe(201);
    const mergeId = rule.merge_access_levels[0].id;
    expect((await api.patch(`${PB}/main`, { token: MAINTAINER, json: { allowed_to_merge: [{ id: mergeId, access_level: 0 }] } })).body.merge_access_levels[0].access_level).toBe(0);
    const twice = await api.patch(`${PB}/main`, { token: MAINTAINER, json: { allowed_to_push: [{ access_level: 30 }] } });
    expect(twice.status).toBe(422);
    expect(twice.body).toEqual({ message: ['Push access levels access level has already been taken'] });
  });

  it('ignores the Premium parameters on the free tier, as its API does not declare them', async () => {
    const free = await startTestEmulator({ seed: SEED, tier: 'free' });
    try {
      const r = await free.api.patch(`${PB}/main`, { token: MAINTAINER, json: { allow_force_push: true, code_owner_approval_required: true, allowed_to_push: [{ access_level: 30 }] } });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ allow_force_push: true, code_owner_approval_required: false, push_access_levels: [{ access_level: 40 }] });
    } finally {
      await free.close();
    }
  });
});

describe('the default branch protection of new projects', () => {
  it('follows default_branch_protection_defaults when the seed names no protected branches', async () => {
    const seeded = await startTestEmulator({
      seed: {
        ...SEED,
        settings: { default_branch_protection_defaults: { allowed_to_push: [{ access_level: 30 }], allowed_to_merge: [{ access_level: 40 }], allow_force_push: false } },
      },
    });
    try {
      const r = await seeded.api.get(PB, { token: MAINTAINER });
      expect(r.body).toHaveLength(1);
      expect(r.body[0]).toMatchObject({ name: 'main', push_access_levels: [{ access_level: 30 }], merge_access_levels: [{ access_level: 40 }] });
      expect((await seeded.api.post(`${P}/repository/files/x.txt`, { token: DEVELOPER, json: { branch: 'main', content: 'x', commit_message: 'm' } })).status).toBe(201);
    } finally {
      await seeded.close();
    }
  });

  it('protects nothing when the setting lets developers push and merge and allows force push', async () => {
    const seeded = await startTestEmulator({
      seed: {
        ...SEED,
        settings: { default_branch_protection_defaults: { allowed_to_push: [{ access_level: 30 }], allowed_to_merge: [{ access_level: 30 }], allow_force_push: true } },
      },
    });
    try {
      expect((await seeded.api.get(PB, { token: MAINTAINER })).body).toEqual([]);
      expect((await seeded.api.get(`${B}/main`, { token: DEVELOPER })).body).toMatchObject({ protected: false, can_push: true });
    } finally {
      await seeded.close();
    }
  });

  it('takes the seed rules as given, names or rules with levels', async () => {
    const seeded = await startTestEmulator({
      seed: { ...SEED, projects: SEED.projects!.map((p) => (p.id === 30 ? { ...p, protected_branches: ['release/*', { name: 'main', push_access_level: 0 }] } : p)) },
    });
    try {
      const r = await seeded.api.get(PB, { token: MAINTAINER });
      expect(r.body.map((x: { name: string; push_access_levels: { access_level: number }[] }) => [x.name, x.push_access_levels[0]!.access_level])).toEqual([
        ['release/*', 40],
        ['main', 0],
      ]);
    } finally {
      await seeded.close();
    }
  });
});
