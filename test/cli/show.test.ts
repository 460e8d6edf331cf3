/**
 * `plumb show PLAN.json` through the built CLI, with the preload that refuses and records every
 * network connection (fixtures/no-network.cjs): a saved plan is rendered from the file alone.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { scratchArea } from '../helpers/scratch.js';
import { settingsPlan } from '../helpers/plans.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.resolve(here, '../../bin/plumb.js');
const preload = path.join(here, 'fixtures/no-network.cjs');
const { dir: scratch, project } = scratchArea('plumb-show');
let counter = 0;

function plumb(args: readonly string[], cwd: string) {
  const netLog = path.join(scratch, `net-${++counter}.log`);
  const r = spawnSync(process.execPath, [bin, ...args], {
    cwd,
    encoding: 'utf8',
    timeout: 60_000,
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', NODE_OPTIONS: `--require "${preload}"`, PLUMB_TEST_NET_LOG: netLog },
  });
  const network = existsSync(netLog) ? readFileSync(netLog, 'utf8').split('\n').filter(Boolean) : [];
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, network };
}

const PLAN = settingsPlan({ targets: ['prod.application_settings'] });

describe('plumb show', () => {
  it('renders a saved plan for people without opening any network connection', () => {
    const dir = project({ 'plan.json': JSON.stringify(PLAN) });
    const r = plumb(['show', 'plan.json'], dir);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.network[0]).toMatch(/^loaded /);
    expect(r.network.slice(1)).toEqual([]);
    expect(r.stdout).toContain('# prod.application_settings will be updated in place');
    expect(r.stdout).toContain('signup_enabled');
    expect(r.stdout).toContain('Targeted plan: only resources matching prod.application_settings');
  });

  it('renders the merge-request comment with --markdown and the plan itself with --json', () => {
    const dir = project({ 'plan.json': JSON.stringify(PLAN) });
    const md = plumb(['show', 'plan.json', '--markdown'], dir);
    expect(md.status).toBe(0);
    expect(md.stdout).toContain('| update | `prod.application_settings` |');
    expect(md.network.slice(1)).toEqual([]);
    const json = plumb(['show', 'plan.json', '--json'], dir);
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(PLAN);
  });

  it('refuses a file that is not a plan, naming the file and what is wrong', () => {
    const dir = project({ 'plan.json': JSON.stringify({ ...PLAN, formatVersion: '0.9' }), 'broken.json': '{' });
    const old = plumb(['show', 'plan.json'], dir);
    expect(old.status).toBe(1);
    expect(old.stderr).toContain('PLUMB_PLAN_INVALID');
    expect(old.stderr).toContain('plan.json is not a plan this plumb can show');
    const broken = plumb(['show', 'broken.json'], dir);
    expect(broken.status).toBe(1);
    expect(broken.stderr).toContain('it is not JSON');
  });

  it('answers --help with its usage and refuses a missing plan file as a usage mistake', () => {
    const dir = project({ 'README': '' });
    const help = plumb(['show', '--help'], dir);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: plumb show PLAN.json');
    const none = plumb(['show'], dir);
    expect(none.status).toBe(1);
    expect(none.stderr).toContain('PLUMB_USAGE');
  });
});
