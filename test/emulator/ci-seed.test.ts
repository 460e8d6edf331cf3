/**
 * The seed declares what a pipeline of a project has (issue 29.17): merge requests to comment on and
 * running jobs' CI job tokens, so docs/ci.md can be walked with `plumb emulator --seed` alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulatorState, mergeRequestNotes, type RunningEmulator } from '../../src/emulator/index.js';
import { startTestEmulator } from '../helpers/emulator.js';

const ADMIN = 'ci-seed-admin-token-0001';
const JOB = 'ci-seed-job-token-000001';
const seed = {
  users: [
    { username: 'root', admin: true, personal_access_tokens: [{ name: 'a', token: ADMIN, scopes: ['api'] }] },
    { username: 'maria', name: 'Maria Maintainer' },
  ],
  groups: [{ full_path: 'ops' }],
  projects: [
    {
      path_with_namespace: 'ops/config',
      members: [{ username: 'maria', access_level: 40 }],
      merge_requests: [{ iid: 1, title: 'Raise the token lifetime' }, { iid: 2 }],
      ci_job_tokens: [{ token: JOB, username: 'maria' }],
    },
    { path_with_namespace: 'ops/other' },
  ],
};

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ seed });
});
afterAll(() => emu.close());

const asJob = { authorization: `Basic ${Buffer.from(`gitlab-ci-token:${JOB}`).toString('base64')}`, 'content-type': 'application/json' };
const api = (p: string) => `${emu.url}/api/v4/projects/${encodeURIComponent('ops/config')}${p}`;

describe('a seed with merge_requests and ci_job_tokens', () => {
  it('has the merge requests: a note can be posted on !1 and !2, not on !3', async () => {
    for (const iid of [1, 2]) {
      const r = await fetch(api(`/merge_requests/${iid}/notes`), { method: 'POST', headers: { 'PRIVATE-TOKEN': ADMIN, 'content-type': 'application/json' }, body: JSON.stringify({ body: `plan ${iid}` }) });
      expect(r.status, `!${iid}`).toBe(201);
    }
    expect(mergeRequestNotes(emu.state, 'ops/config', 1).map((n) => n.body)).toEqual(['plan 1']);
    const none = await fetch(api('/merge_requests/3/notes'), { method: 'POST', headers: { 'PRIVATE-TOKEN': ADMIN, 'content-type': 'application/json' }, body: JSON.stringify({ body: 'x' }) });
    expect(none.status).toBe(404);
  });

  it("has the job token: it acts as its user in its own project's Terraform state, and nowhere else", async () => {
    const url = api('/terraform/state/prod');
    expect((await fetch(url, { method: 'POST', headers: asJob, body: '{"version":4}' })).status).toBe(200);
    expect(await (await fetch(url, { headers: asJob })).text()).toBe('{"version":4}');
    const other = await fetch(`${emu.url}/api/v4/projects/${encodeURIComponent('ops/other')}/terraform/state/prod`, { headers: asJob });
    expect([403, 404]).toContain(other.status);
  });

  it('refuses a seed whose job token names an unknown user, or whose merge requests repeat an iid', () => {
    const bad = (project: Record<string, unknown>) => () => createEmulatorState({ ...seed, projects: [{ path_with_namespace: 'ops/x', ...project }] });
    expect(bad({ ci_job_tokens: [{ token: 'another-job-token-01', username: 'nobody' }] })).toThrow("seed.projects[0].ci_job_tokens[0]: unknown user 'nobody'");
    expect(bad({ merge_requests: [{ iid: 4 }, { iid: 4 }] })).toThrow('seed.projects[0].merge_requests[1]: iid 4 is used twice');
    expect(bad({ ci_job_tokens: [{ token: 'short', username: 'maria' }] })).toThrow();
  });
});

describe('examples/ci/emulator-seed.yaml and docs/ci.md (the local walkthrough)', () => {
  it('loads, with the merge request and the job token the walkthrough uses', async () => {
    const { loadSeedFile } = await import('../../src/emulator/seed.js');
    const state = createEmulatorState(await loadSeedFile(new URL('../../examples/ci/emulator-seed.yaml', import.meta.url).pathname));
    expect(state.projectByRef('ops/config')?.id).toBe(100);
    const { ciState } = await import('../../src/emulator/ci.js');
    expect(ciState(state).mergeRequests).toMatchObject([{ projectId: 100, iid: 1, title: 'Turn sign-up off', state: 'opened' }]);
    expect(ciState(state).mergeRequests).toHaveLength(1);
    expect([...ciState(state).jobTokens.keys()]).toEqual(['local-ci-job-token-change-me']);
  });

  it("names gitlab-ci-local's prerequisites and the variables it must not predefine", async () => {
    const { readFileSync } = await import('node:fs');
    const doc = readFileSync(new URL('../../docs/ci.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## 9. Try it locally'));
    expect(section).toContain('Node 22 or later');
    expect(section).toContain('rsync');
    expect(section).toContain('examples/ci/emulator-seed.yaml');
    // The list the suite's own run of the component uses (test/ci/gitlab-ci-local.test.ts).
    const suite = readFileSync(new URL('../ci/gitlab-ci-local.test.ts', import.meta.url), 'utf8');
    const used = /GCL_IGNORE_PREDEFINED_VARS: '([^']+)'/.exec(suite)![1]!;
    expect(section).toContain(`GCL_IGNORE_PREDEFINED_VARS=${used}`);
  });
});
