/**
 * Pages of an archived project (issue 29, item 6): the service keeps an archived project read-only
 * and refuses a change of its Pages settings with a bare 403. Apply says the project is archived
 * instead of asking for the Maintainer role (plan keeps its one GET per project: no warning).
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestEmulator } from '../../helpers/emulator.js';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { ADMIN, SEED } from '../../helpers/emulator.js';
import { secret, workdir } from '../../helpers/cli.js';
import type { Workdir } from '../../helpers/cli.js';

secret(ADMIN);

let emu: RunningEmulator;
let wd: Workdir;
afterEach(async () => {
  await emu?.close();
  if (wd) rmSync(wd.dir, { recursive: true, force: true });
});

async function start(archived: boolean): Promise<void> {
  emu = await startTestEmulator({
    seed: { ...SEED, projects: [...(SEED.projects ?? []), { path_with_namespace: 'platform/docs', id: 34, archived, pages: { https_only: false, deployments: [{ created_at: '2025-07-01T10:00:00.000Z' }] } }] },
  });
  wd = workdir({ PLUMB_TOKEN: ADMIN });
  wd.write('plumb.yaml', `version: 1\ninstances:\n  local:\n    url: ${emu.url}\n    token_env: PLUMB_TOKEN\n    projects:\n      platform/docs:\n        pages:\n          pages_https_only: true\n`);
}

describe('the Pages of an archived project', () => {
  it('fail at apply with a message naming the archived project, not the role, located at the pages block', async () => {
    await start(true);
    const r = await wd.run(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    const said = r.stdout + r.stderr;
    expect(said).toContain('PLUMB_PAGES_PROJECT_ARCHIVED');
    expect(said).toContain('the project is archived');
    expect(said).not.toContain('Maintainer role');
    expect(said).toContain('(plumb.yaml:8:9)');
    expect(emu.state.projectByRef('platform/docs')!.pages!.httpsOnly).toBe(false);
  });

  it('are changed as usual when the project is not archived', async () => {
    await start(false);
    const r = await wd.run(['apply', '--auto-approve']);
    expect(r.code, r.stderr).toBe(0);
    expect(emu.state.projectByRef('platform/docs')!.pages!.httpsOnly).toBe(true);
  });
});
