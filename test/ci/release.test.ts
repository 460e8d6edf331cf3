/**
 * plumb's own pipeline (.gitlab-ci.yml) under gitlab-ci-local (issue 29 item 14): a tag vX.Y.Z
 * runs the release jobs and a branch does not, and the release refuses a tag that is not
 * package.json's version before it builds anything. What the jobs build is tested in
 * test/install/release.test.ts. Same prerequisites as gitlab-ci-local.test.ts: gitlab-ci-local
 * (the devDependency, GITLAB_CI_LOCAL=path, or on PATH), rsync and git, on Node 22 or later;
 * skipped otherwise, except under CI=true on Node 22 or later.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gcl, initRepo, usable } from './gitlab-ci-local.js';

const root = path.resolve(__dirname, '../..');
const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };

let repo: string;

beforeAll(() => {
  if (!usable) return;
  repo = mkdtempSync(path.join(os.tmpdir(), 'plumb-gcl-release-'));
  for (const f of ['.gitlab-ci.yml', 'package.json']) cpSync(path.join(root, f), path.join(repo, f));
  initRepo(repo, 'https://gitlab.example.test/plumb/plumb-gitops.git');
});

afterAll(() => {
  if (repo) rmSync(repo, { recursive: true, force: true });
});

function gitlabCiLocal(args: string[], variables: Record<string, string>): Promise<{ code: number | null; log: string }> {
  const all = ['--force-shell-executor', '--no-color', ...args, ...Object.entries(variables).flatMap(([k, v]) => ['--variable', `${k}=${v}`])];
  const child = spawn(gcl, all, { cwd: repo, env: { ...process.env, GCL_IGNORE_PREDEFINED_VARS: 'CI_COMMIT_TAG,CI_COMMIT_BRANCH,CI_PIPELINE_SOURCE' } });
  let log = '';
  child.stdout.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr.on('data', (d: Buffer) => (log += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, log })));
}

const jobsOf = async (variables: Record<string, string>): Promise<string[]> => {
  const r = await gitlabCiLocal(['--list-json'], variables);
  expect(r.code, r.log).toBe(0);
  return (JSON.parse(r.log.slice(r.log.indexOf('['))) as { name: string; when: string }[]).filter((j) => j.when !== 'never').map((j) => j.name).sort();
};

describe.runIf(usable)('plumb\'s release pipeline under gitlab-ci-local', () => {
  it('runs the release jobs on a version tag, not on a branch', async () => {
    expect(await jobsOf({ CI_COMMIT_TAG: `v${version}`, CI_COMMIT_BRANCH: '', CI_PIPELINE_SOURCE: 'push' })).toEqual(['release', 'release:check', 'release:executables', 'release:mirror', 'release:npm', 'test']);
    expect(await jobsOf({ CI_COMMIT_TAG: '', CI_COMMIT_BRANCH: 'main', CI_PIPELINE_SOURCE: 'push' })).toEqual(['test']);
  }, 120_000);

  it('refuses a tag that is not package.json\'s version before building anything', async () => {
    const r = await gitlabCiLocal(['release:check'], { CI_COMMIT_TAG: 'v99.0.0', CI_COMMIT_BRANCH: '', CI_PIPELINE_SOURCE: 'push' });
    expect(r.log).toContain(`tag v99.0.0 is not v${version} (package.json)`);
    expect(r.log).not.toContain('npm ci');
    expect(r.code).not.toBe(0);
  }, 120_000);
});
