/**
 * The requests of a fleet rollout (issue 29.11): a file that exists in none of the projects a
 * selector matched costs its HEAD, its create and the branch's protection (one GET of the branch per
 * project with changes, issue 32), nothing more. The selector's listing already shows
 * each project and its default branch, so a 404 on that branch is the file's: no `GET /projects/:id`
 * to tell "project missing", no GET of the file to tell "branch missing". Counted at the emulator.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fileHarness } from '../resources/repository-files/helpers.js';
import type { FileHarness } from '../resources/repository-files/helpers.js';

/** Three list pages of 100 (the emulator's and plumb's page size). */
const PROJECTS = Array.from({ length: 203 }, (_, i) => `platform/app-${String(i).padStart(3, '0')}`);
const PAGES = 3;

let h: FileHarness;
afterEach(() => h.close());

async function fleet(file: Record<string, unknown>): Promise<void> {
  h = await fileHarness({ projects: PROJECTS.map((p) => ({ path_with_namespace: p, default_branch: 'main', files: { 'README.md': 'hello\n' } })) });
  h.wd.write(
    'plumb.yaml',
    JSON.stringify({ version: 1, instances: { local: { url: h.emu.url, token_env: 'PLUMB_TOKEN', allow_risky: ['large-change-set'], projects: { 'platform/**': { files: { CODEOWNERS: { content: '* @platform\n', ...file } } } } } } }),
  );
}

/** Requests by route, ids and paths folded. */
function routes(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of h.emu.requests) {
    const route = `${r.method} ${r.path.replace(/^\/projects\/[^/]+/, '/projects/:id').replace(/\/repository\/files\/[^/]+/, '/repository/files/:path').replace(/^\/groups\/[^/]+/, '/groups/:id')}`;
    out[route] = (out[route] ?? 0) + 1;
  }
  return out;
}

describe('rolling out a file that no matched project has', () => {
  it('makes one HEAD, one GET of the branch and one create per project after the listing, on the branch the file names', async () => {
    await fleet({ branches: ['main'] });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code, r.stderr).toBe(0);
    expect(routes()).toEqual({
      'GET /groups/:id/projects': PAGES,
      'HEAD /projects/:id/repository/files/:path': PROJECTS.length,
      'GET /projects/:id/repository/branches/main': PROJECTS.length,
      'POST /projects/:id/repository/files/:path': PROJECTS.length,
    });
    expect(h.emu.requests).toHaveLength(PAGES + 3 * PROJECTS.length);
    for (const p of [PROJECTS[0]!, PROJECTS.at(-1)!]) expect(h.file('CODEOWNERS', 'main', p)?.data.toString('utf8')).toBe('* @platform\n');
  });

  it('takes the default branch of a file that names none from the listing too', async () => {
    await fleet({});
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code, r.stderr).toBe(0);
    expect(h.emu.requests).toHaveLength(PAGES + 3 * PROJECTS.length);
    expect(h.file('CODEOWNERS', 'main', PROJECTS[7]!)?.data.toString('utf8')).toBe('* @platform\n');
  });

  it('still asks whether another branch exists: the listing only vouches for the default branch', async () => {
    await fleet({ branches: ['release'] });
    const r = await h.run(['plan']);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain('Branch "release" of project "platform/app-000" does not exist');
    expect(h.emu.requests.filter((q) => q.method === 'POST')).toHaveLength(0);
  });
});
