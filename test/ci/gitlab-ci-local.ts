/**
 * What the suites that run pipelines under gitlab-ci-local share: finding it, whether it can run
 * here, and a scratch Git repository of the shape it reads (a `main` branch and an origin remote).
 *
 * Needs gitlab-ci-local (the devDependency, GITLAB_CI_LOCAL=path, or on PATH), rsync and git, on
 * Node 22 or later (gitlab-ci-local uses Set.prototype.union). A suite skips when it is absent or
 * Node is older, except under CI=true on Node 22 or later, where importing this module throws.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const local = path.join(root, 'node_modules/.bin/gitlab-ci-local');

export const gcl = process.env.GITLAB_CI_LOCAL ?? (existsSync(local) ? local : spawnSync('sh', ['-c', 'command -v gitlab-ci-local']).stdout?.toString().trim() || '');
const nodeMajor = Number(process.versions.node.split('.')[0]);
export const usable = gcl !== '' && nodeMajor >= 22 && spawnSync(gcl, ['--version'], { encoding: 'utf8' }).status === 0;
if (!usable && process.env.CI === 'true' && nodeMajor >= 22) {
  throw new Error('gitlab-ci-local is required under CI=true on Node 22 or later (the devDependency gitlab-ci-local, or GITLAB_CI_LOCAL=path), with rsync and git');
}

/** Commits what `repo` holds on `main`, with `origin` at `remote` (gitlab-ci-local reads the project's path and default branch from it). */
export function initRepo(repo: string, remote: string): void {
  const git = (...args: string[]) => spawnSync('git', args, { cwd: repo, encoding: 'utf8' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('-c', 'user.email=ci@example.test', '-c', 'user.name=ci', 'commit', '-qm', 'configuration');
  git('remote', 'add', 'origin', remote);
  git('update-ref', 'refs/remotes/origin/main', 'HEAD');
  git('symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/main');
}
