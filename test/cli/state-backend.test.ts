/**
 * `--state https://…/terraform/state/NAME`: plumb keeps its state on the service's Terraform-state
 * API. Plan reads it without locking (a merge-request plan sees apply's fingerprints, from another
 * machine); apply holds the backend's lock for the whole run and stores a new version; the address
 * must be on a pinned instance. When the backend's answers go wrong (issue 29, items 3 and 5): a lock
 * request answered 500 after the service took the lock, or whose connection dropped, is recognised
 * as this apply's own lock (its ID) and given back; an unlock answered 503 is sent again; a lost
 * unlock answer is checked, never reported as "nothing was changed"; a state write answered 500
 * after it landed is read back. What the backend holds must be plumb's state: a Terraform state at
 * the address is refused, never replaced.
 */
import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addJobToken, terraformState } from '../../src/emulator/index.js';
import { startTestEmulator } from '../helpers/emulator.js';
import type { FaultRule, RunningEmulator } from '../../src/emulator/index.js';
import { secret, workdir } from '../helpers/cli.js';
import type { Workdir } from '../helpers/cli.js';

const ADMIN_TOKEN = secret('admin-token-backend-0123456789');
const READ_TOKEN = secret('admin-read-backend-0123456789');
const JOB_TOKEN = secret('ci-job-token-backend-012345678');
const CAPTCHA_KEY = secret('captcha-private-key-backend-abc');

let emu: RunningEmulator;
let wd: Workdir;
let stateUrl: string;

beforeEach(async () => {
  emu = await startTestEmulator({
    seed: {
      users: [
        {
          username: 'root',
          admin: true,
          personal_access_tokens: [
            { name: 'plumb', token: ADMIN_TOKEN, scopes: ['api'] },
            { name: 'plumb-read', token: READ_TOKEN, scopes: ['read_api'] },
          ],
        },
      ],
      groups: [{ full_path: 'ops' }],
      projects: [{ path_with_namespace: 'ops/config', default_branch: 'main', files: { 'README.md': 'x\n' } }],
    },
  });
  addJobToken(emu.state, JOB_TOKEN, 'root', 'ops/config');
  stateUrl = `${emu.url}/api/v4/projects/${encodeURIComponent('ops/config')}/terraform/state/plumb`;
  wd = workdir({ PLUMB_TOKEN: ADMIN_TOKEN, CAPTCHA_KEY });
  wd.write(
    'plumb.yaml',
    `version: 1\ninstances:\n  local:\n    url: ${emu.url}\n    token_env: PLUMB_TOKEN\n    settings:\n      captcha_enabled: true\n      captcha_site_key: site-key\n      captcha_private_key: \${env:CAPTCHA_KEY}\n`,
  );
});
afterEach(async () => {
  await emu.close();
  rmSync(wd.dir, { recursive: true, force: true });
});

const lockCalls = () => emu.requests.filter((r) => r.path.endsWith('/lock'));

describe('the Terraform-state backend', () => {
  it('keeps apply state on the service, so a plan elsewhere (read-only token, no local file) sees no change', async () => {
    const apply = await wd.run(['apply', '--auto-approve', '--state', stateUrl]);
    expect(apply.code, apply.stderr).toBe(0);
    const record = terraformState(emu.state, 'ops/config', 'plumb')!;
    expect(record.versions).toHaveLength(1);
    expect(record.versions[0]!.data.toString()).toContain('captcha_private_key');
    expect(record.versions[0]!.data.toString()).not.toContain(CAPTCHA_KEY);
    expect(record.lock).toBeNull();
    expect(lockCalls().map((r) => `${r.method} ${r.status}`)).toEqual(['POST 200', 'DELETE 200']);

    // Another machine: a read-only token for the instance, the job token for the state.
    const other = workdir({ PLUMB_TOKEN: READ_TOKEN, CAPTCHA_KEY, CI_JOB_TOKEN: JOB_TOKEN });
    other.write('plumb.yaml', wd.read('plumb.yaml'));
    emu.resetRequests();
    const plan = await other.run(['plan', '--detailed-exitcode'], { PLUMB_STATE: stateUrl });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(lockCalls()).toHaveLength(0);
    // Without the backend the same plan cannot know the secret is applied.
    expect((await other.run(['plan', '--detailed-exitcode'])).code).toBe(2);
  });

  it('refuses to apply while another run holds the lock, naming the holder, and changes nothing', async () => {
    const held = await fetch(`${stateUrl}/lock`, { method: 'POST', headers: { 'PRIVATE-TOKEN': ADMIN_TOKEN, 'content-type': 'application/json' }, body: JSON.stringify({ ID: 'other-run', Operation: 'OperationTypeApply' }) });
    expect(held.status).toBe(200);
    emu.resetRequests();
    const r = await wd.run(['apply', '--auto-approve', '--state', stateUrl]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_STATE_LOCKED');
    expect(r.stderr).toContain('locked by root');
    expect(emu.requests.filter((q) => q.method === 'PUT')).toHaveLength(0);
    expect(terraformState(emu.state, 'ops/config', 'plumb')!.lock!.id).toBe('other-run');
  });

  it('sends no token to a state address that is not a pinned instance', async () => {
    const r = await wd.run(['plan', '--state', 'https://elsewhere.example.test/api/v4/projects/1/terraform/state/plumb']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_STATE_BACKEND');
    expect(r.stderr).toContain('not a pinned instance');
    const bad = await wd.run(['plan', '--state', `${emu.url}/api/v4/projects/1/terraform/state/plumb?x=1`]);
    expect(bad.stderr).toContain('is not a Terraform-state address');
  });

  it('keeps a local file the default', async () => {
    expect((await wd.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(wd.read('.plumb/state.json')).toContain('captcha_private_key');
    expect(lockCalls()).toHaveLength(0);
  });
});

describe('the Terraform-state backend, refused', () => {
  it('stops when the token cannot see the state project, rather than planning without the state', async () => {
    const r = await wd.run(['plan', '--state', `${emu.url}/api/v4/projects/999/terraform/state/plumb`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_STATE_BACKEND');
    expect(r.stderr).toContain('no such project');
  });
});

const LOCK = /\/terraform\/state\/plumb\/lock$/;
const STATE = /\/terraform\/state\/plumb$/;
const record = () => terraformState(emu.state, 'ops/config', 'plumb');
const lockStatuses = () => emu.requests.filter((r) => LOCK.test(r.path)).map((r) => `${r.method} ${r.status}`);
const apply = () => wd.run(['apply', '--auto-approve', '--state', stateUrl]);
const fault = (rule: FaultRule) => emu.addFault(rule);

describe('the state backend recovers its own lock', () => {
  it('holds the lock when the lock request is answered 500 after the service took it, applies, and gives it back', async () => {
    fault({ method: 'POST', path: LOCK, times: 1, action: { kind: 'status', status: 500, after: true } });
    const r = await apply();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/Maintainer|permission/i);
    expect(lockStatuses()).toEqual(['POST 500', 'POST 409', 'DELETE 200']);
    expect(record()!.lock).toBeNull();
    expect(record()!.versions).toHaveLength(1);
    // Nothing is left behind: the next apply takes the lock at once.
    expect((await apply()).code).toBe(0);
  });

  it('holds the lock when the connection dropped after the service took it, and gives it back', async () => {
    fault({ method: 'POST', path: LOCK, times: 1, action: { kind: 'drop', when: 'after' } });
    const r = await apply();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('nothing was changed');
    expect(lockStatuses()).toEqual(['POST 0', 'POST 409', 'DELETE 200']);
    expect(record()!.lock).toBeNull();
    expect((await apply()).code).toBe(0);
  });

  it('gives the lock back and changes nothing when every lock request fails', async () => {
    fault({ method: 'POST', path: LOCK, action: { kind: 'status', status: 500, after: true } });
    const r = await apply();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`--state ${stateUrl}: Locking the state`);
    expect(r.stderr).toContain('nothing was applied');
    expect(emu.requests.filter((q) => q.method === 'PUT')).toHaveLength(0);
    expect(record()!.lock, 'its own lock is not left behind').toBeNull();
  });

  it('sends an unlock answered 503 again, and exits 0 with the lock given back', async () => {
    fault({ method: 'DELETE', path: LOCK, times: 1, action: { kind: 'status', status: 503 } });
    const r = await apply();
    expect(r.code, r.stderr).toBe(0);
    expect(lockStatuses()).toEqual(['POST 200', 'DELETE 503', 'DELETE 200']);
    expect(record()!.lock).toBeNull();
  });
});

describe('the state backend after a lost answer', () => {
  it('checks an unlock whose answer was lost: the lock is gone, no "nothing was changed", exit 0', async () => {
    fault({ method: 'DELETE', path: LOCK, times: 1, action: { kind: 'drop', when: 'after' } });
    const r = await apply();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('nothing was changed');
    expect(lockStatuses()).toEqual(['POST 200', 'DELETE 0', 'DELETE 409']);
    expect(record()!.lock).toBeNull();
  });

  it('fails the apply, saying the lock may still be held, when no unlock is answered', async () => {
    fault({ method: 'DELETE', path: LOCK, action: { kind: 'drop', when: 'before' } });
    const r = await apply();
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain('nothing was changed');
    expect(r.stderr).toContain(`--state ${stateUrl}: Unlocking the state`);
    expect(r.stderr).toContain('may still be held');
    expect(r.stderr).toContain(record()!.lock!.id);
    // It did apply: the settings went out and the state was stored.
    expect(emu.state.settings.captcha_enabled).toBe(true);
    expect(record()!.versions).toHaveLength(1);
  });

  it('reads back a state write answered 500 after it landed, and reports it stored', async () => {
    fault({ method: 'POST', path: STATE, times: 1, action: { kind: 'status', status: 500, after: true } });
    const r = await apply();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/Writing the state|kept in/);
    expect(record()!.versions).toHaveLength(1);
    expect(record()!.lock).toBeNull();
  });

  it('writes the state again when a write failed before it landed', async () => {
    fault({ method: 'POST', path: STATE, times: 1, action: { kind: 'drop', when: 'before' } });
    const r = await apply();
    expect(r.code, r.stderr).toBe(0);
    expect(record()!.versions).toHaveLength(1);
    expect(record()!.versions[0]!.data.toString()).toContain('captcha_private_key');
  });
});

describe("the state backend holds plumb's state only", () => {
  const TERRAFORM_STATE = JSON.stringify({ version: 4, terraform_version: '1.9.8', serial: 3, lineage: 'a1b2c3', outputs: {}, resources: [] });

  it('refuses a Terraform state at the --state address in plan and apply, naming the flag, and never replaces it', async () => {
    const put = await fetch(stateUrl, { method: 'POST', headers: { 'PRIVATE-TOKEN': ADMIN_TOKEN, 'content-type': 'application/json' }, body: TERRAFORM_STATE });
    expect(put.status).toBe(200);
    emu.resetRequests();
    for (const command of [['plan'], ['apply', '--auto-approve'], ['drift']]) {
      const r = await wd.run([...command, '--state', stateUrl]);
      expect(r.code, command.join(' ')).toBe(1);
      expect(r.stderr).toContain('PLUMB_STATE_UNUSABLE');
      expect(r.stderr).toContain(`--state ${stateUrl}: The state at ${stateUrl} holds a Terraform (or OpenTofu) state written by Terraform 1.9.8`);
    }
    expect(record()!.versions.map((v) => v.data.toString())).toEqual([TERRAFORM_STATE]);
    expect(record()!.lock).toBeNull();
    expect(emu.requests.filter((q) => q.method === 'PUT')).toHaveLength(0);
  });
});
