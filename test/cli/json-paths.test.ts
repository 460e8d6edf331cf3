/**
 * `--json` in every path (issue 20): each command that accepts it answers with exactly one JSON
 * document on stdout whatever happens (an impossible --now, an invalid configuration, a file it
 * cannot write, a refused connection, a held lock, nothing to do), and the text for people never
 * reaches stdout. Run in-process against the emulator.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runApply } from '../../src/commands/reconcile.js';
import { FileStateLock } from '../../src/engine/lock.js';
import { startTestEmulator } from '../helpers/emulator.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { secret, workdir } from '../helpers/cli.js';
import type { CliResult, Workdir } from '../helpers/cli.js';
import { SETTINGS_CHANGE, settingsPlan } from '../helpers/plans.js';

const ADMIN_TOKEN = secret('admin-token-json-paths-0123456789');
const seed = { users: [{ username: 'root', admin: true, personal_access_tokens: [{ name: 'plumb', token: ADMIN_TOKEN, scopes: ['api'] }] }] };

let emu: RunningEmulator;
let wd: Workdir;

beforeEach(async () => {
  emu = await startTestEmulator({ seed });
  wd = workdir({ PLUMB_TOKEN: ADMIN_TOKEN, PLUMB_NOW: '2026-06-01' });
});
afterEach(async () => {
  await emu.close();
});

/** plumb.yaml for one instance at `url` whose settings say `signup`. */
function config(url = emu.url, signup: boolean | null = false): void {
  wd.write('plumb.yaml', `version: 1\ninstances:\n  local:\n    url: ${url}\n    token_env: PLUMB_TOKEN\n${signup === null ? '' : `    settings:\n      signup_enabled: ${signup}\n`}`);
}

/** An instance URL nothing listens on: the emulator's, after it stopped. */
async function deadUrl(): Promise<string> {
  const dead = await startTestEmulator({ seed });
  await dead.close();
  return dead.url;
}

/** A path plumb cannot write: under a read-only directory, or (for root, who ignores modes) under a file. */
function unwritable(name: string): string {
  if (process.getuid?.() === 0) {
    writeFileSync(path.join(wd.dir, 'not-a-dir'), 'a file\n');
    return `not-a-dir/${name}`;
  }
  mkdirSync(path.join(wd.dir, 'ro'), { recursive: true });
  chmodSync(path.join(wd.dir, 'ro'), 0o555);
  return `ro/${name}`;
}

/** Stdout is one JSON document (and nothing else); returns it. */
function one(r: CliResult): Record<string, unknown> {
  let doc: unknown;
  expect(() => (doc = JSON.parse(r.stdout)), `stdout is not one JSON document:\n${r.stdout}\n--- stderr:\n${r.stderr}`).not.toThrow();
  expect(doc).toBeTypeOf('object');
  expect(r.stdout).not.toMatch(/error\[PLUMB_|^plumb: |Apply cancelled/m);
  return doc as Record<string, unknown>;
}

/** The error document: `{error: CODE, diagnostics: [...]}`, its first error `code`; people still read it on stderr. */
function errorDoc(r: CliResult, code: string | RegExp): Record<string, unknown> {
  expect(r.code, r.stderr).toBe(1);
  const doc = one(r);
  expect(doc.error).toMatch(code);
  expect(Array.isArray(doc.diagnostics)).toBe(true);
  expect((doc.diagnostics as { code: string }[]).map((d) => d.code)).toContain(doc.error);
  return doc;
}

describe('plumb validate --json and --format json|codequality', () => {
  it('answers an impossible --now with a verdict on stdout, in each machine format', async () => {
    config();
    const json = await wd.run(['validate', '--json', '--now', '2026-02-30']);
    expect(json.code).toBe(1);
    const doc = one(json);
    expect(doc.valid).toBe(false);
    expect((doc.diagnostics as { code: string }[])[0]!.code).toBe('PLUMB_USAGE');
    const cq = await wd.run(['validate', '--format', 'codequality', '--now', '2026-02-30']);
    expect(cq.code).toBe(1);
    const issues = JSON.parse(cq.stdout) as { check_name: string }[];
    expect(issues.map((i) => i.check_name)).toEqual(['PLUMB_USAGE']);
  });

  it('answers a mistake on the command line with the error document when asked with --format json', async () => {
    errorDoc(await wd.run(['validate', '--format', 'json', '--bogus']), 'PLUMB_USAGE');
    errorDoc(await wd.run(['validate', '--format=json', '--bogus']), 'PLUMB_USAGE');
    errorDoc(await wd.run(['validate', '--json', '--bogus']), 'PLUMB_USAGE');
  });
});

describe('plumb plan --json', () => {
  it('answers an impossible --now with the error document', async () => {
    config();
    errorDoc(await wd.run(['plan', '--json', '--now', '2026-02-30']), 'PLUMB_USAGE');
  });

  it('answers an invalid configuration with the error document listing its diagnostics where they are', async () => {
    wd.write('plumb.yaml', `version: 1\ninstances:\n  local:\n    url: ${emu.url}\n    token_env: PLUMB_TOKEN\n    settings:\n      signup_enabeld: false\n`);
    for (const command of ['plan', 'drift']) {
      const doc = errorDoc(await wd.run([command, '--json']), 'PLUMB_UNKNOWN_SETTING');
      expect(doc.diagnostics).toEqual([expect.objectContaining({ code: 'PLUMB_UNKNOWN_SETTING', file: 'plumb.yaml', line: 7 })]);
    }
    const apply = await wd.run(['apply', '--json', '--auto-approve']);
    errorDoc(apply, 'PLUMB_UNKNOWN_SETTING');
    expect(apply.stderr).toContain('error[PLUMB_UNKNOWN_SETTING]');
  });

  it('answers an --out it cannot write with the error document, before reading the instance', async () => {
    config();
    emu.resetRequests();
    const r = await wd.run(['plan', '--json', '--out', unwritable('plan.json')]);
    errorDoc(r, 'PLUMB_OUTPUT_UNWRITABLE');
    expect(r.stderr).toContain('error[PLUMB_OUTPUT_UNWRITABLE]');
    expect(emu.requests).toEqual([]);
  });

  it('answers a state backend it has no token for with the error document', async () => {
    config();
    const r = await wd.run(['plan', '--json', '--state', `${emu.url}/api/v4/projects/1/terraform/state/plumb`], { PLUMB_TOKEN: '' });
    errorDoc(r, 'PLUMB_STATE_BACKEND');
  });

  it('answers a refused connection and an empty plan with the plan itself', async () => {
    config(await deadUrl());
    const refused = await wd.run(['plan', '--json']);
    expect(refused.code).toBe(1);
    const plan = one(refused);
    expect(plan.applicable).toBe(false);
    expect((plan.diagnostics as { severity: string }[]).some((d) => d.severity === 'error')).toBe(true);
    config(emu.url, null);
    const empty = await wd.run(['plan', '--json']);
    expect(empty.code).toBe(0);
    expect(one(empty).changes).toEqual([]);
  });
});

describe('plumb apply --json', () => {
  it('answers an unsaved plan without a terminal and without --auto-approve with the error document', async () => {
    config();
    const r = await wd.run(['apply', '--json']);
    errorDoc(r, 'PLUMB_USAGE');
    expect(r.stderr).toContain('plumb: refusing to apply an unsaved plan without a terminal to confirm it.');
  });

  it('answers a plan file it cannot read, or that is not a plan, with the error document', async () => {
    config();
    errorDoc(await wd.run(['apply', 'missing.json', '--json']), 'PLUMB_PLAN_UNREADABLE');
    wd.write('other.json', '{"not": "a plan"}');
    errorDoc(await wd.run(['apply', 'other.json', '--json']), 'PLUMB_PLAN_INVALID');
  });

  it('answers a plan made for another instance with the error document, sending nothing', async () => {
    config();
    wd.write('plan.json', JSON.stringify(settingsPlan({ instances: [{ name: 'local', url: 'https://code.example.invalid' }], changes: [{ ...SETTINGS_CHANGE, address: 'local.application_settings', instance: 'local' }] })));
    emu.resetRequests();
    errorDoc(await wd.run(['apply', 'plan.json', '--json']), 'PLUMB_PLAN_INSTANCE_MISMATCH');
    expect(emu.requests.filter((q) => q.method !== 'GET')).toEqual([]);
  });

  it('answers a refused connection with a report that refuses, as it refuses a plan with errors', async () => {
    config(await deadUrl());
    const r = await wd.run(['apply', '--json', '--auto-approve']);
    expect(r.code).toBe(1);
    const report = one(r);
    expect(report.ok).toBe(false);
    expect(report.refused).toBe('the plan has errors; fix them and plan again');
    expect((report.diagnostics as { severity: string }[]).some((d) => d.severity === 'error')).toBe(true);
    // The plan for people went to stderr.
    expect(r.stderr).toContain('local.application_settings');
  });

  it('answers a plan it refuses for its risks, saved or not, with a report that refuses', async () => {
    wd.write('plumb.yaml', `version: 1\ninstances:\n  local:\n    url: ${emu.url}\n    token_env: PLUMB_TOKEN\n    settings:\n      password_authentication_enabled_for_web: false\n      password_authentication_enabled_for_git: false\n`);
    expect((await wd.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    emu.resetRequests();
    for (const args of [['apply', 'plan.json', '--json'], ['apply', '--json', '--auto-approve']]) {
      const r = await wd.run(args);
      expect(r.code, args.join(' ')).toBe(1);
      const report = one(r);
      expect(report.ok).toBe(false);
      expect(report.refused).toMatch(/risky/);
      expect(JSON.stringify(report.diagnostics)).toContain('password-sign-in-off');
    }
    expect(emu.requests.filter((q) => q.method !== 'GET')).toEqual([]);
  });

  it('answers a state file it cannot write, and a state file another apply holds, with the error document', async () => {
    config();
    errorDoc(await wd.run(['apply', '--json', '--auto-approve', '--state', unwritable('state.json')]), 'PLUMB_STATE_UNUSABLE');
    const state = path.join(wd.dir, '.plumb/state.json');
    const held = new FileStateLock(state);
    await held.acquire({ timeoutMs: 0, log: () => {} });
    try {
      errorDoc(await wd.run(['apply', '--json', '--auto-approve']), 'PLUMB_STATE_LOCKED');
    } finally {
      await held.release();
    }
  });

  it('answers nothing to do, in a plan it made and in a saved plan, with an empty report', async () => {
    config(emu.url, null);
    const unsaved = await wd.run(['apply', '--json', '--auto-approve']);
    expect(unsaved.code).toBe(0);
    expect(one(unsaved)).toEqual({ ok: true, outcomes: [] });
    expect((await wd.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    const saved = await wd.run(['apply', 'plan.json', '--json']);
    expect(saved.code).toBe(0);
    expect(one(saved)).toEqual({ ok: true, outcomes: [] });
  });

  it('answers a cancelled apply with a report that refuses, the question and the plan on stderr', async () => {
    config();
    let stdout = '';
    let stderr = '';
    const io = { stdout: (s: string) => (stdout += s), stderr: (s: string) => (stderr += s), isTTY: true, env: { PATH: process.env.PATH ?? '', PLUMB_TOKEN: ADMIN_TOKEN, PLUMB_NOW: '2026-06-01' }, cwd: wd.dir };
    const code = await runApply({ config: [], json: true, autoApprove: false, confirm: async () => false }, io);
    expect(code).toBe(1);
    const report = one({ code, stdout, stderr });
    expect(report.ok).toBe(false);
    expect(report.refused).toMatch(/cancelled/);
    expect(stderr).toContain('Apply cancelled; nothing was changed.');
    expect(emu.requests.filter((q) => q.method !== 'GET')).toEqual([]);
  });
});

describe('plumb drift --json', () => {
  it('answers an impossible --now and a --junit it cannot write with the error document', async () => {
    config();
    errorDoc(await wd.run(['drift', '--json', '--now', '2026-02-30']), 'PLUMB_USAGE');
    errorDoc(await wd.run(['drift', '--json', '--junit', unwritable('drift.xml')]), 'PLUMB_OUTPUT_UNWRITABLE');
  });

  it('answers a refused connection with the drift report, in sync unknown', async () => {
    config(await deadUrl());
    const r = await wd.run(['drift', '--json']);
    expect(r.code).toBe(1);
    expect(one(r).inSync).toBeNull();
  });
});

describe('plumb report --json', () => {
  it('answers a usage error, an impossible --now, an invalid configuration and an --out it cannot write with the error document, before reading the instance', async () => {
    config();
    emu.resetRequests();
    errorDoc(await wd.run(['report', '--json', '--max-requests', '0']), 'PLUMB_USAGE');
    errorDoc(await wd.run(['report', '--json', '--expiring-within', 'soon']), 'PLUMB_USAGE');
    errorDoc(await wd.run(['report', '--json', '--now', '2026-02-30']), 'PLUMB_USAGE');
    errorDoc(await wd.run(['report', '--json', '--out', unwritable('report.json')]), 'PLUMB_OUTPUT_UNWRITABLE');
    errorDoc(await wd.run(['report', '--json', '--markdown', 'plumb.yaml']), 'PLUMB_OUTPUT_UNWRITABLE');
    expect(emu.requests).toEqual([]);
    wd.write('plumb.yaml', `version: 1\ninstances:\n  local:\n    url: ${emu.url}\n    token_env: PLUMB_TOKEN\n    settings:\n      signup_enabeld: false\n`);
    errorDoc(await wd.run(['report', '--json']), 'PLUMB_UNKNOWN_SETTING');
  });

  it('answers a refused connection with the report, its resource unreadable', async () => {
    config(await deadUrl());
    const r = await wd.run(['report', '--json']);
    expect(r.code).toBe(2);
    expect(one(r)).toMatchObject({ complete: false, resources: [{ address: 'local.application_settings', status: 'unreadable', problem: { code: 'PLUMB_API_NETWORK' } }] });
  });

  it('answers an instance it cannot open (no token) with the report, and exit 1', async () => {
    config();
    const r = await wd.run(['report', '--json'], { PLUMB_TOKEN: '' });
    expect(r.code).toBe(1);
    expect(one(r)).toMatchObject({ complete: false, summary: { total: 0 }, diagnostics: [expect.objectContaining({ code: 'PLUMB_TOKEN_ENV_MISSING' })] });
  });
});

describe('plumb show --json', () => {
  it('answers a file it cannot read, one that is not a plan and an edited plan with the error document', async () => {
    errorDoc(await wd.run(['show', 'missing.json', '--json']), 'PLUMB_PLAN_UNREADABLE');
    wd.write('other.json', '[1, 2]');
    errorDoc(await wd.run(['show', 'other.json', '--json']), 'PLUMB_PLAN_INVALID');
    wd.write('edited.json', JSON.stringify(settingsPlan({ changes: [{ ...SETTINGS_CHANGE, attributes: [{ name: 'signup_enabled', before: false, after: true }] }] })));
    errorDoc(await wd.run(['show', 'edited.json', '--json']), 'PLUMB_PLAN_EDITED');
  });
});

describe('plumb export --json', () => {
  it('answers an invalid configuration given with -c with the error document', async () => {
    wd.write('plumb.yaml', `version: 1\ninstances:\n  local:\n    url: ${emu.url}\n    token_env: PLUMB_TOKEN\n    settings:\n      signup_enabeld: false\n`);
    const r = await wd.run(['export', '--json', '-c', 'plumb.yaml', '--out', 'exported']);
    errorDoc(r, 'PLUMB_UNKNOWN_SETTING');
    expect(r.stderr).toContain('error[PLUMB_UNKNOWN_SETTING]');
  });

  it('answers a refused connection and an impossible --now with the error document', async () => {
    errorDoc(await wd.run(['export', '--json', '--instance-url', await deadUrl(), '--out', 'exported']), /^PLUMB_/);
    errorDoc(await wd.run(['export', '--json', '--instance-url', emu.url, '--out', 'exported', '--now', '2026-02-30']), 'PLUMB_USAGE');
  });

  it('answers a mistake on the command line with the error document', async () => {
    errorDoc(await wd.run(['export', '--json']), 'PLUMB_USAGE');
  });
});
