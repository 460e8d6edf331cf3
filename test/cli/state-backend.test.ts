/**
 * `--state https://…/terraform/state/NAME`: plumb keeps its state on the service's Terraform-state
 * API. Plan reads it without locking (a merge-request plan sees apply's fingerprints, from another
 * machine); apply holds the backend's lock for the whole run and stores a new version; the address
 * must be on a pinned instance.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addJobToken, terraformState } from '../../src/emulator/index.js';
import { startTestEmulator } from '../helpers/emulator.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
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
