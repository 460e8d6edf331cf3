/**
 * What `--state` may name (issue 29, items 8 and 9, third corpus of bad inputs): a local regular
 * file holding plumb's state, or an http(s) Terraform-state address. A FIFO used to block plan for
 * ever, `ftp://…` was taken as the relative path `ftp:/…`, and another tool's Terraform state was
 * read as an empty state (and replaced at the next apply).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startTestEmulator } from '../helpers/emulator.js';
import { secret, workdir } from '../helpers/cli.js';
import type { Workdir } from '../helpers/cli.js';

const ADMIN_TOKEN = secret('admin-token-state-inputs-012345');

let emu: RunningEmulator;
let wd: Workdir;

beforeEach(async () => {
  emu = await startTestEmulator({
    seed: { users: [{ username: 'root', admin: true, personal_access_tokens: [{ name: 'plumb', token: ADMIN_TOKEN, scopes: ['api'] }] }] },
  });
  wd = workdir({ PLUMB_TOKEN: ADMIN_TOKEN });
  wd.write('plumb.yaml', `version: 1\ninstances:\n  local:\n    url: ${emu.url}\n    token_env: PLUMB_TOKEN\n    settings:\n      signup_enabled: false\n`);
});
afterEach(async () => {
  await emu.close();
  rmSync(wd.dir, { recursive: true, force: true });
});

const writes = () => emu.requests.filter((r) => r.method !== 'GET');

describe('--state naming something that is not a state file', () => {
  it('refuses a FIFO at once in plan and apply, naming it, instead of waiting for a writer for ever', async () => {
    // Outside the working directory: the harness reads every file there after a run.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-fifo-'));
    try {
      const fifo = path.join(dir, 'state.fifo');
      execFileSync('mkfifo', [fifo]);
      // A writer that opens and closes the FIFO every 2 s, so that a plumb that reads it (and would
      // wait for ever) gets an empty read instead and the test fails rather than hangs.
      const writer = spawn('sh', ['-c', 'while :; do sleep 2; : > "$0"; done', fifo], { stdio: 'ignore' });
      onTestFinished(() => {
        writer.kill();
      });
      for (const command of [['plan'], ['apply', '--auto-approve'], ['drift']]) {
        const r = await wd.run([...command, '--state', fifo]);
        expect(r.code, command.join(' ')).toBe(1);
        expect(r.stdout + r.stderr).toContain('PLUMB_STATE_UNUSABLE');
        expect(r.stdout + r.stderr).toContain(`${fifo} is a FIFO (named pipe), not a regular file`);
      }
      expect(writes()).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses --state ftp://… (and PLUMB_STATE file://…), naming the option, and creates no file', async () => {
    const r = await wd.run(['plan', '--state', 'ftp://user:pw@files.example.test/plumb/state.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_STATE_BACKEND');
    expect(r.stderr).toContain('--state ftp://files.example.test/plumb/state.json is neither a file path nor an http(s) address');
    expect(r.stderr).not.toContain('pw@');
    const env = await wd.run(['apply', '--auto-approve'], { PLUMB_STATE: 'file:///tmp/state.json' });
    expect(env.code).toBe(1);
    expect(env.stderr).toContain('PLUMB_STATE file:///tmp/state.json is neither a file path nor an http(s) address');
    expect(existsSync(path.join(wd.dir, 'ftp:'))).toBe(false);
    expect(existsSync(path.join(wd.dir, 'file:'))).toBe(false);
    expect(emu.requests).toEqual([]);
  });

  it("refuses another tool's Terraform state in a local file and leaves it as it was", async () => {
    const tf = JSON.stringify({ version: 4, terraform_version: '1.9.8', serial: 7, lineage: 'x-y-z', outputs: {}, resources: [] }, null, 2);
    const file = wd.write('terraform.tfstate', tf);
    for (const command of [['plan'], ['apply', '--auto-approve']]) {
      const r = await wd.run([...command, '--state', 'terraform.tfstate']);
      expect(r.code, command.join(' ')).toBe(1);
      expect(r.stdout + r.stderr).toContain('PLUMB_STATE_UNUSABLE');
      expect(r.stdout + r.stderr).toContain(`${file} holds a Terraform (or OpenTofu) state written by Terraform 1.9.8, not plumb's state`);
    }
    expect(readFileSync(file, 'utf8')).toBe(tf);
    expect(writes()).toEqual([]);
    // Any other JSON that is not plumb's is refused the same way.
    writeFileSync(file, '{"hello": "world"}\n');
    const other = await wd.run(['plan', '--state', 'terraform.tfstate']);
    expect(other.code).toBe(1);
    expect(other.stdout + other.stderr).toContain('is JSON but not a plumb state');
  });
});
