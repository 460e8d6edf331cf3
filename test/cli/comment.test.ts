/**
 * `plumb comment PLAN.json`: one note per merge request, created then updated (found by its hidden
 * marker), linking the job, cut to the service's note limit, posted with a token that may comment
 * and never with the administrator token.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addMergeRequest, mergeRequestNotes } from '../../src/emulator/index.js';
import { startTestEmulator } from '../helpers/emulator.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { noteBody } from '../../src/commands/comment.js';
import { secret, workdir } from '../helpers/cli.js';
import type { Workdir } from '../helpers/cli.js';

const ADMIN_TOKEN = secret('admin-token-comment-0123456789');
const COMMENT_TOKEN = secret('comment-token-0123456789abcd');
const OTHER_TOKEN = secret('reviewer-token-0123456789abc');

let emu: RunningEmulator;
let wd: Workdir;
let ciEnv: Record<string, string>;

beforeEach(async () => {
  emu = await startTestEmulator({
    seed: {
      users: [
        { username: 'root', admin: true, personal_access_tokens: [{ name: 'plumb', token: ADMIN_TOKEN, scopes: ['api'] }] },
        { username: 'bot', personal_access_tokens: [{ name: 'comment', token: COMMENT_TOKEN, scopes: ['api'] }] },
        { username: 'rev', personal_access_tokens: [{ name: 'rev', token: OTHER_TOKEN, scopes: ['api'] }] },
      ],
      groups: [{ full_path: 'ops', members: [{ username: 'bot', access_level: 20 }, { username: 'rev', access_level: 30 }] }],
      projects: [{ path_with_namespace: 'ops/config', default_branch: 'main', files: { 'README.md': 'x\n' } }],
    },
  });
  addMergeRequest(emu.state, 'ops/config', 3);
  const project = emu.state.projectByRef('ops/config')!;
  ciEnv = { CI_API_V4_URL: `${emu.url}/api/v4`, CI_PROJECT_ID: String(project.id), CI_MERGE_REQUEST_IID: '3', CI_JOB_URL: 'https://ci.example.test/ops/config/-/jobs/77', PLUMB_COMMENT_TOKEN: COMMENT_TOKEN };
  wd = workdir({ PLUMB_TOKEN: ADMIN_TOKEN });
  wd.write('plumb.yaml', `version: 1\ninstances:\n  local:\n    url: ${emu.url}\n    token_env: PLUMB_TOKEN\n    settings:\n      signup_enabled: false\n`);
  expect((await wd.run(['plan', '--out', 'plan.json'])).code).toBe(0);
});
afterEach(async () => {
  await emu.close();
});

describe('plumb comment', () => {
  it('posts one note, then updates it on the next pipeline instead of adding another', async () => {
    // a reviewer quoting the marker does not capture the comment
    await fetch(`${emu.url}/api/v4/projects/${ciEnv.CI_PROJECT_ID}/merge_requests/3/notes`, { method: 'POST', headers: { 'PRIVATE-TOKEN': OTHER_TOKEN, 'content-type': 'application/json' }, body: JSON.stringify({ body: '<!-- plumb-plan: local -->\nquoted' }) });
    const first = await wd.run(['comment', 'plan.json'], ciEnv);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/Posted the plan comment \(note \d+\) on merge request !3/);
    const mine = () => mergeRequestNotes(emu.state, 'ops/config', 3).filter((n) => n.authorId === emu.state.userByUsername('bot')!.id);
    expect(mine()).toHaveLength(1);
    expect(mine()[0]!.body.startsWith('<!-- plumb-plan: local -->\n')).toBe(true);
    expect(mine()[0]!.body).toContain('signup_enabled');
    expect(mine()[0]!.body).toContain('(https://ci.example.test/ops/config/-/jobs/77)');

    wd.write('plumb.yaml', wd.read('plumb.yaml').replace('signup_enabled: false', 'signup_enabled: false\n      deletion_adjourned_period: 14'));
    expect((await wd.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    const second = await wd.run(['comment', 'plan.json'], { ...ciEnv, CI_JOB_URL: 'https://ci.example.test/ops/config/-/jobs/78' });
    expect(second.stdout).toContain(`Updated the plan comment (note ${mine()[0]!.id})`);
    expect(mine()).toHaveLength(1);
    expect(mine()[0]!.body).toContain('deletion_adjourned_period');
    expect(mine()[0]!.body).toContain('jobs/78');
    expect(mergeRequestNotes(emu.state, 'ops/config', 3)).toHaveLength(2);
  });

  it('keeps one note per key, for sharded jobs', async () => {
    expect((await wd.run(['comment', 'plan.json', '--key', 'shard-a'], ciEnv)).code).toBe(0);
    expect((await wd.run(['comment', 'plan.json', '--key', 'shard-b'], ciEnv)).code).toBe(0);
    expect((await wd.run(['comment', 'plan.json', '--key', 'shard-a'], ciEnv)).code).toBe(0);
    expect(mergeRequestNotes(emu.state, 'ops/config', 3).map((n) => n.body.split('\n')[0])).toEqual(['<!-- plumb-plan: shard-a -->', '<!-- plumb-plan: shard-b -->']);
  });

  it('refuses the administrator token, and a job outside a merge-request pipeline', async () => {
    const admin = await wd.run(['comment', 'plan.json'], { ...ciEnv, PLUMB_COMMENT_TOKEN: ADMIN_TOKEN });
    expect(admin.code).toBe(1);
    expect(admin.stderr).toContain('PLUMB_COMMENT_TOKEN holds the same token as PLUMB_TOKEN');
    const named = await wd.run(['comment', 'plan.json', '--token-env', 'PLUMB_READ_TOKEN'], { ...ciEnv, PLUMB_READ_TOKEN: COMMENT_TOKEN });
    expect(named.stderr).toContain('same token as PLUMB_READ_TOKEN');
    const noMr = await wd.run(['comment', 'plan.json'], { ...ciEnv, CI_MERGE_REQUEST_IID: '' });
    expect(noMr.stderr).toContain('CI_MERGE_REQUEST_IID is not set');
    expect(mergeRequestNotes(emu.state)).toHaveLength(0);
  });

  it('cuts a plan to the note limit and says so', async () => {
    const plan = JSON.parse(wd.read('plan.json'));
    const whole = noteBody(plan, '<!-- plumb-plan: local -->', undefined, 1_000_000);
    expect(whole).not.toContain('was cut');
    const cut = noteBody(plan, '<!-- plumb-plan: local -->', 'https://ci.example.test/j/1', 600);
    expect(cut.length).toBeLessThanOrEqual(600);
    expect(cut).toContain("this plan was cut to fit the service's limit of 600 characters");
    expect(cut).toContain('https://ci.example.test/j/1');
    expect(cut.startsWith('<!-- plumb-plan: local -->\n')).toBe(true);
  });
});

describe('plumb comment never echoes a token', () => {
  it('refuses a comment token that is not one token (printenv without a name printed every variable), echoing none of it', async () => {
    const READ = secret('admin-read-token-comment-01234');
    const dump = `HOME=/root\nPLUMB_TOKEN=${ADMIN_TOKEN}\nPLUMB_READ_TOKEN=${READ}\nPLUMB_COMMENT_TOKEN=${COMMENT_TOKEN}\n`;
    const before = emu.requests.length;
    const r = await wd.run(['comment', 'plan.json', '--token-env', 'PLUMB_READ_TOKEN'], { ...ciEnv, PLUMB_READ_TOKEN: READ, PLUMB_COMMENT_TOKEN: dump });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_COMMENT_TOKEN is not a token');
    for (const leaked of [ADMIN_TOKEN, READ, COMMENT_TOKEN, 'HOME=/root']) {
      expect(r.stderr).not.toContain(leaked);
      expect(r.stdout).not.toContain(leaked);
    }
    expect(emu.requests.length).toBe(before);
    expect(mergeRequestNotes(emu.state)).toHaveLength(0);
  });

  it('masks the comment token and every --token-env value in what it prints', async () => {
    const READ = secret('admin-read-token-comment-56789');
    // a project id that happens to hold a token's text reaches the error about the failed call
    const r = await wd.run(['comment', 'plan.json', '--token-env', 'PLUMB_READ_TOKEN'], { ...ciEnv, PLUMB_READ_TOKEN: READ, CI_PROJECT_ID: `${READ}-${COMMENT_TOKEN}-${ADMIN_TOKEN}` });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('(sensitive value)');
    for (const leaked of [READ, COMMENT_TOKEN, ADMIN_TOKEN]) expect(r.stderr + r.stdout).not.toContain(leaked);
  });
});

describe('plumb comment connects only to a pinned instance', () => {
  it('refuses a CI_API_V4_URL that is not pinned, before any connection', async () => {
    const before = emu.requests.length;
    const r = await wd.run(['comment', 'plan.json'], { ...ciEnv, PLUMB_LOOPBACK_IS_TRUSTED: '0' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_URL_NOT_ALLOWED');
    expect(r.stderr).toContain(`${emu.url}, which is not an instance plumb may send its token to`);
    expect(emu.requests.length).toBe(before);
    // pinned as the API is (here PLUMB_URL; in the service's CI, CI_SERVER_URL): it posts
    const pinned = await wd.run(['comment', 'plan.json'], { ...ciEnv, PLUMB_LOOPBACK_IS_TRUSTED: '0', PLUMB_URL: emu.url });
    expect(pinned.code, pinned.stderr).toBe(0);
    expect(mergeRequestNotes(emu.state, 'ops/config', 3)).toHaveLength(1);
  });

  it('refuses plain HTTP to a remote host, even when it is pinned', async () => {
    const r = await wd.run(['comment', 'plan.json'], { ...ciEnv, CI_API_V4_URL: 'http://gitlab.example.test/api/v4', PLUMB_ALLOWED_URLS: 'http://gitlab.example.test' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('http://gitlab.example.test is plain HTTP');
  });
});
