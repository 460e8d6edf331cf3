/**
 * The CI/CD component's pipelines, run by gitlab-ci-local (a shell executor for `.gitlab-ci.yml`
 * and local components) against the emulator: a merge-request pipeline with the read-only token
 * and no secrets plans exit 2 for a real change and "not compared" for the unavailable secret,
 * posts one comment and updates it on the second run; the default branch applies under the state
 * backend's lock; a second plan shows no change; drift's JUnit and validate's Code Quality parse.
 *
 * Needs gitlab-ci-local (the devDependency, GITLAB_CI_LOCAL=path, or on PATH), rsync and git, on
 * Node 22 or later (gitlab-ci-local uses Set.prototype.union). Skipped when it is absent or Node is
 * older, except under CI=true on Node 22 or later, where it must run.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addJobToken, addMergeRequest, mergeRequestNotes, terraformState, type RunningEmulator } from '../../src/emulator/index.js';
import { startTestEmulator } from '../helpers/emulator.js';
import { gcl, initRepo, usable } from './gitlab-ci-local.js';

const root = path.resolve(__dirname, '../..');

const READ = 'admin-read-token-gcl-000000001';
const APPLY = 'admin-api-token-gcl-0000000001';
const COMMENT = 'comment-token-gcl-00000000001';
const JOB = 'ci-job-token-gcl-000000000001';
const CAPTCHA = 'captcha-key-gcl-0000000000001';

let emu: RunningEmulator;
let repo: string;

beforeAll(async () => {
  if (!usable) return;
  emu = await startTestEmulator({
    seed: {
      users: [
        { username: 'root', admin: true, personal_access_tokens: [{ name: 'apply', token: APPLY, scopes: ['api'] }, { name: 'read', token: READ, scopes: ['read_api'] }] },
        { username: 'bot', personal_access_tokens: [{ name: 'comment', token: COMMENT, scopes: ['api'] }] },
      ],
      groups: [{ full_path: 'ops', members: [{ username: 'bot', access_level: 20 }] }],
      projects: [{ path_with_namespace: 'ops/config', default_branch: 'main', files: { 'README.md': 'x\n' } }],
    },
  });
  addJobToken(emu.state, JOB, 'root', 'ops/config');
  addMergeRequest(emu.state, 'ops/config', 1);
  repo = mkdtempSync(path.join(os.tmpdir(), 'plumb-gcl-'));
  cpSync(path.join(root, 'templates'), path.join(repo, 'templates'), { recursive: true });
  mkdirSync(path.join(repo, 'config'));
  writeFileSync(
    path.join(repo, 'config/plumb.yaml'),
    `version: 1\ninstances:\n  local:\n    url: ${emu.url}\n    token_env: PLUMB_TOKEN\n    settings:\n      signup_enabled: false\n      captcha_enabled: true\n      captcha_site_key: site\n      captcha_private_key: \${env:CAPTCHA_KEY}\n`,
  );
  writePipeline();
  initRepo(repo, 'https://gitlab.example.test/ops/config.git');
}, 60_000);

/**
 * The project's pipeline file: the full component with the emulator's inputs (the executable pinned
 * by its SHA-256), `extra` inputs and a `head` before the include (e.g. the project's own stages).
 */
function writePipeline(extra: Record<string, string> = {}, head = ''): void {
  const project = emu.state.projectByRef('ops/config')!.id;
  const executable = path.join(root, 'bin/plumb.js');
  const inputs: Record<string, string> = {
    executable,
    executable_sha256: createHash('sha256').update(readFileSync(executable)).digest('hex'),
    instance_url: emu.url,
    state: `${emu.url}/api/v4/projects/${project}/terraform/state/plumb`,
    apply_when: 'on_success',
    ...extra,
  };
  const lines = Object.entries(inputs).map(([k, v]) => `      ${k}: ${JSON.stringify(v)}\n`);
  writeFileSync(path.join(repo, '.gitlab-ci.yml'), `${head}include:\n  - local: templates/full.yml\n    inputs:\n${lines.join('')}`);
}

afterAll(async () => {
  await emu?.close();
  if (repo) rmSync(repo, { recursive: true, force: true });
});

/** Runs jobs with gitlab-ci-local's shell executor; the emulator answers from this process. */
async function pipeline(jobs: string[], variables: Record<string, string>): Promise<{ code: number | null; log: string }> {
  const args = ['--force-shell-executor', '--no-color', ...jobs, ...Object.entries(variables).flatMap(([k, v]) => ['--variable', `${k}=${v}`])];
  const child = spawn(gcl, args, { cwd: repo, env: { ...process.env, GCL_IGNORE_PREDEFINED_VARS: 'CI_PIPELINE_SOURCE,CI_MERGE_REQUEST_IID,CI_JOB_TOKEN,CI_COMMIT_BRANCH,CI_API_V4_URL,CI_PROJECT_ID,CI_JOB_URL' } });
  let log = '';
  child.stdout.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr.on('data', (d: Buffer) => (log += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, log };
}

const common = () => ({ CI_JOB_TOKEN: JOB, CI_API_V4_URL: `${emu.url}/api/v4`, CI_PROJECT_ID: String(emu.state.projectByRef('ops/config')!.id) });
const mr = () => ({ ...common(), CI_PIPELINE_SOURCE: 'merge_request_event', CI_MERGE_REQUEST_IID: '1', CI_COMMIT_BRANCH: '', PLUMB_READ_TOKEN: READ, PLUMB_COMMENT_TOKEN: COMMENT, CI_JOB_URL: 'https://ci.example.test/jobs/1' });
const main = () => ({ ...common(), CI_PIPELINE_SOURCE: 'push', CI_COMMIT_BRANCH: 'main', PLUMB_APPLY_TOKEN: APPLY, CAPTCHA_KEY: CAPTCHA });

describe.runIf(usable)('the component under gitlab-ci-local', () => {
  it('plans a merge request read-only, comments once, applies on the default branch under the lock, and reports', async () => {
    const first = await pipeline(['plumb-validate', 'plumb-plan'], mr());
    expect(first.log).toContain('signup_enabled');
    expect(first.log).toContain('captcha_private_key: not compared here (unavailable to this pipeline)');
    // exit 2 (changes) is allowed: a warning, not a failure
    expect(first.log).toMatch(/WARN\s+plumb-plan/);
    expect(first.log).toMatch(/PASS\s+plumb-validate/);
    expect(first.log).not.toContain(READ);
    const issues = JSON.parse(readFileSync(path.join(repo, 'gl-code-quality-report.json'), 'utf8')) as { check_name: string }[];
    expect(issues.map((i) => i.check_name)).toEqual(['PLUMB_SECRET_UNAVAILABLE']);
    // The page the merge request links (artifacts:expose_as).
    expect(readFileSync(path.join(repo, 'plan.html'), 'utf8')).toContain('<h1>plumb plan</h1>');
    expect(mergeRequestNotes(emu.state, 'ops/config', 1)).toHaveLength(1);
    await pipeline(['plumb-plan'], mr());
    expect(mergeRequestNotes(emu.state, 'ops/config', 1)).toHaveLength(1);

    const apply = await pipeline(['plumb-plan-default-branch', 'plumb-apply'], main());
    expect(apply.code, apply.log).toBe(0);
    expect(emu.requests.filter((r) => r.path.endsWith('/terraform/state/plumb/lock')).map((r) => r.method)).toEqual(['POST', 'DELETE']);
    expect(terraformState(emu.state, 'ops/config', 'plumb')!.versions.length).toBeGreaterThan(0);

    // The protected CAPTCHA_KEY is absent from merge-request pipelines: never "No changes" over it (issue 28.1).
    const again = await pipeline(['plumb-plan'], mr());
    expect(again.code, again.log).toBe(0);
    expect(again.log).toContain('new value from ${env:CAPTCHA_KEY}, not available here');
    expect(again.log).not.toContain('No changes');

    const drift = await pipeline(['plumb-drift'], { ...common(), CI_PIPELINE_SOURCE: 'schedule', PLUMB_READ_TOKEN: READ, CAPTCHA_KEY: CAPTCHA });
    expect(drift.code, drift.log).toBe(0);
    const junit = readFileSync(path.join(repo, 'drift-junit.xml'), 'utf8');
    expect(junit).toMatch(/<testsuites name="plumb drift" tests="1" failures="0" errors="0"/);
    expect(readFileSync(path.join(repo, 'drift.html'), 'utf8')).toContain('In sync: the instance matches the configuration.');
    expect(existsSync(path.join(repo, 'plan.json'))).toBe(true);
  }, 600_000);

  it('fails the scheduled drift when the instance drifted, unless drift_alert is warn', async () => {
    const put = await fetch(`${emu.url}/api/v4/application/settings?signup_enabled=true`, { method: 'PUT', headers: { 'PRIVATE-TOKEN': APPLY } });
    expect(put.status).toBe(200);
    try {
      const schedule = { ...common(), CI_PIPELINE_SOURCE: 'schedule', PLUMB_READ_TOKEN: READ, CAPTCHA_KEY: CAPTCHA };
      const failed = await pipeline(['plumb-drift'], schedule);
      expect(failed.log).toMatch(/FAIL\s+plumb-drift/);
      expect(failed.log).toContain('the instance drifted from the configuration: the job fails (input drift_alert: fail');
      writePipeline({ drift_alert: 'warn' });
      const warned = await pipeline(['plumb-drift'], schedule);
      expect(warned.log).toMatch(/WARN\s+plumb-drift/);
      expect(warned.code, warned.log).toBe(0);
    } finally {
      writePipeline();
      await fetch(`${emu.url}/api/v4/application/settings?signup_enabled=false`, { method: 'PUT', headers: { 'PRIVATE-TOKEN': APPLY } });
    }
  }, 600_000);

  it('keeps the plan job orange when the comment fails, and with an empty comment_token_variable prints no variable', async () => {
    await fetch(`${emu.url}/api/v4/application/settings?signup_enabled=true`, { method: 'PUT', headers: { 'PRIVATE-TOKEN': APPLY } });
    try {
      const notes = mergeRequestNotes(emu.state, 'ops/config', 1).length;
      const refused = await pipeline(['plumb-plan'], { ...mr(), PLUMB_COMMENT_TOKEN: 'unknown-comment-token-0000001' });
      expect(refused.log).toContain('the plan comment was not posted');
      expect(refused.log).toMatch(/WARN\s+plumb-plan/);
      expect(refused.code, refused.log).toBe(0);

      writePipeline({ comment_token_variable: '' });
      const none = await pipeline(['plumb-plan'], mr());
      expect(none.log).toContain('no plan comment (the input comment_token_variable is empty)');
      expect(none.log).toMatch(/WARN\s+plumb-plan/);
      for (const leaked of [READ, COMMENT, JOB]) expect(none.log).not.toContain(leaked);
      expect(mergeRequestNotes(emu.state, 'ops/config', 1)).toHaveLength(notes);

      // an empty token_env stops the job before the token is copied (`export =TOKEN` prints it)
      writePipeline({ token_env: '' });
      const noEnv = await pipeline(['plumb-plan'], mr());
      expect(noEnv.log).toContain('the input token_env must name a variable');
      expect(noEnv.log).toMatch(/FAIL\s+plumb-plan/);
      expect(noEnv.log).not.toContain(READ);
    } finally {
      writePipeline();
      await fetch(`${emu.url}/api/v4/application/settings?signup_enabled=false`, { method: 'PUT', headers: { 'PRIVATE-TOKEN': APPLY } });
    }
  }, 600_000);

  it("runs in a project's own stages, set by inputs, and refuses an executable whose SHA-256 is not the pinned one", async () => {
    try {
      const stages = { validate_stage: 'check', plan_stage: 'check', apply_plan_stage: 'check', apply_stage: 'release', drift_stage: 'check' };
      writePipeline(stages, 'stages: [check, release]\n');
      const own = await pipeline(['plumb-validate'], mr());
      expect(own.log).toMatch(/PASS\s+plumb-validate/);
      expect(own.code, own.log).toBe(0);

      writePipeline({ executable_sha256: '0'.repeat(64) });
      const other = await pipeline(['plumb-validate'], mr());
      expect(other.log).toContain('is not the executable the input executable_sha256 pins');
      expect(other.log).toMatch(/FAIL\s+plumb-validate/);
      expect(other.log).not.toMatch(/plumb \d+\.\d+\.\d+/);
    } finally {
      writePipeline();
    }
  }, 600_000);
});
