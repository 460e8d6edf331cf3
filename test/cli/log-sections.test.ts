/**
 * Collapsible job-log sections: with GITLAB_CI set, reading the instance, the plan's body
 * (collapsed, headed by its summary) and apply's results are sections of the service's job log;
 * without it, or with --json, no marker is written.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestEmulator } from '../helpers/emulator.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { secret, workdir } from '../helpers/cli.js';
import type { Workdir } from '../helpers/cli.js';

const ADMIN_TOKEN = secret('admin-token-sections-0123456789');
const MARKER = /\x1b\[0Ksection_(start|end):(\d+):([\w.-]+)(\[collapsed=true\])?\r\x1b\[0K(.*)/g;

const markers = (out: string) => [...out.matchAll(MARKER)].map((m) => ({ kind: m[1], name: m[3], collapsed: !!m[4], header: m[5], at: Number(m[2]) }));

describe('job-log sections', () => {
  let emu: RunningEmulator;
  let wd: Workdir;
  beforeEach(async () => {
    emu = await startTestEmulator({ seed: { users: [{ username: 'root', admin: true, personal_access_tokens: [{ name: 'plumb', token: ADMIN_TOKEN, scopes: ['api'] }] }] } });
    wd = workdir({ PLUMB_TOKEN: ADMIN_TOKEN });
    wd.write('plumb.yaml', `version: 1\ninstances:\n  local:\n    url: ${emu.url}\n    token_env: PLUMB_TOKEN\n    settings:\n      signup_enabled: false\n`);
  });
  afterEach(async () => {
    await emu.close();
  });

  it('groups reading, the collapsed plan body and apply results when GITLAB_CI is set', async () => {
    const plan = await wd.run(['plan'], { GITLAB_CI: 'true' });
    expect(plan.code).toBe(0);
    const m = markers(plan.stdout);
    expect(m.map((x) => `${x.kind}:${x.name}`)).toEqual(['start:plumb_read', 'end:plumb_read', 'start:plumb_plan', 'end:plumb_plan']);
    expect(m[2]).toMatchObject({ collapsed: true, header: 'plumb Plan: 0 to add, 1 to change, 0 to destroy.' });
    expect(Math.abs(m[0]!.at - Date.now() / 1000)).toBeLessThan(60);
    // the body sits between its markers
    const body = plan.stdout.slice(plan.stdout.indexOf('plumb_plan[collapsed=true]'), plan.stdout.lastIndexOf('section_end'));
    expect(body).toContain('signup_enabled');

    const apply = await wd.run(['apply', '--auto-approve'], { GITLAB_CI: 'true' });
    expect(apply.code).toBe(0);
    const a = markers(apply.stdout);
    expect(a.find((x) => x.name === 'plumb_apply' && x.kind === 'start')).toMatchObject({ collapsed: false, header: 'plumb apply: 1 applied, 0 failed' });
    expect(a.at(-1)).toMatchObject({ kind: 'end', name: 'plumb_apply' });
  });

  it('writes no marker outside the service CI, nor into JSON output', async () => {
    const plain = await wd.run(['plan']);
    expect(plain.stdout).not.toContain('section_start');
    const json = await wd.run(['plan', '--json'], { GITLAB_CI: 'true' });
    expect(json.stdout).not.toContain('section_');
    expect(JSON.parse(json.stdout).changes).toHaveLength(1);
  });
});
