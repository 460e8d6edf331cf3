/**
 * Every output is checked before the first write to the instance, and mistakes on the command line
 * are refused, not guessed at (issue 22, corpus of bad inputs): an unusable state file, a state
 * file cut off mid-write, export into a directory of hand-written configuration, an impossible
 * --now date, plumb.yaml next to plumb.yml.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestEmulator } from '../helpers/emulator.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { ADMIN, Clock, OWNER, SEED } from '../helpers/emulator.js';
import { secret, workdir } from '../helpers/cli.js';
import { harness } from '../resources/group-access-tokens/helpers.js';
import type { Harness } from '../resources/group-access-tokens/helpers.js';

let h: Harness | undefined;
let emu: RunningEmulator | undefined;
afterEach(async () => {
  await h?.close();
  await emu?.close();
  h = emu = undefined;
});

const writes = (e: RunningEmulator) => e.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);

/** A directory apply cannot create its state in: read-only for a user; for root (who ignores modes), a path under a file. */
function unwritableStateDir(dir: string): string {
  if (process.getuid?.() === 0) {
    writeFileSync(path.join(dir, 'ro'), 'a file, not a directory\n');
    return 'ro/state.json';
  }
  mkdirSync(path.join(dir, 'ro'));
  chmodSync(path.join(dir, 'ro'), 0o555);
  return 'ro/state.json';
}

describe('apply checks its state file before the first write', () => {
  it('refuses a state file it cannot write, naming it, before issuing any token', async () => {
    h = await harness();
    h.config({ platform: { tokens: { deploy: {} } } });
    const state = unwritableStateDir(h.wd.dir);
    h.emu.resetRequests();
    const r = await h.run(['apply', '--auto-approve', '--state', state]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_STATE_UNUSABLE');
    expect(r.stderr).toContain(path.join(h.wd.dir, state));
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(writes(h.emu)).toEqual([]);
    expect(h.active('platform', 'deploy')).toEqual([]);
  });

  it('refuses a state path that is a directory before issuing any token', async () => {
    h = await harness();
    h.config({ platform: { tokens: { deploy: {} } } });
    mkdirSync(path.join(h.wd.dir, '.plumb'));
    h.emu.resetRequests();
    const r = await h.run(['apply', '--auto-approve', '--state', '.plumb']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_STATE_UNUSABLE');
    expect(r.stderr).toContain('is a directory');
    expect(writes(h.emu)).toEqual([]);
    expect(h.active('platform', 'deploy')).toEqual([]);
  });

  it('refuses a state file cut off mid-write in plan and apply, saying what to do, instead of starting empty', async () => {
    h = await harness();
    h.config({ platform: { tokens: { deploy: {} } } });
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    const file = path.join(h.wd.dir, '.plumb/state.json');
    const full = readFileSync(file, 'utf8');
    writeFileSync(file, full.slice(0, Math.floor(full.length / 2)));
    h.emu.resetRequests();
    for (const command of [['plan'], ['apply', '--auto-approve'], ['drift']]) {
      const r = await h.run(command);
      const said = r.stdout + r.stderr;
      expect(r.code, command.join(' ')).toBe(1);
      expect(said).toContain('PLUMB_STATE_UNUSABLE');
      expect(said).toContain(`${file} is not JSON`);
      expect(said).toContain('restore it from Git');
    }
    expect(h.emu.requests, 'the instance is not even read').toEqual([]);
  });
});

describe('plan checks --out, --markdown, --report and --html before reading the instance', () => {
  it('refuses an output under a file, naming the option, and reads nothing', async () => {
    h = await harness();
    h.config({ platform: { tokens: { deploy: {} } } });
    h.wd.write('blocker', 'a file\n');
    for (const [command, option] of [['plan', '--out'], ['plan', '--markdown'], ['plan', '--report'], ['plan', '--html'], ['drift', '--html']] as const) {
      h.emu.resetRequests();
      const r = await h.run([command, option, 'blocker/plan.out']);
      expect(r.code, option).toBe(1);
      expect(r.stderr).toContain('PLUMB_OUTPUT_UNWRITABLE');
      expect(r.stderr).toContain(`${option} blocker/plan.out cannot be written`);
      expect(h.emu.requests).toEqual([]);
    }
  });
});

describe('export never destroys configuration', () => {
  secret(ADMIN);
  secret(OWNER);
  async function start() {
    emu = await startTestEmulator({ seed: SEED, now: new Clock().now });
    return workdir({ PLUMB_TOKEN: ADMIN, PLUMB_NOW: '2025-06-15' });
  }
  const args = (out: string, extra: string[] = []) => ['export', '--instance-url', emu!.url, '--out', out, ...extra];

  it('refuses a directory of hand-written configuration without --force, saying what would be replaced, and reads nothing', async () => {
    const wd = await start();
    wd.write('config/plumb.yaml', 'version: 1\ninstances: {}\n');
    wd.write('config/extra.yaml', '# mine\n');
    emu!.resetRequests();
    const r = await wd.run(args('config'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_EXPORT_OUT_NOT_EMPTY');
    expect(r.stderr).toContain('plumb.yaml was not written by export and would be replaced');
    expect(r.stderr).toContain('extra.yaml');
    expect(r.stderr).toContain('--force');
    expect(wd.read('config/plumb.yaml')).toBe('version: 1\ninstances: {}\n');
    expect(emu!.requests).toEqual([]);
    const forced = await wd.run(args('config', ['--force']));
    expect(forced.code, forced.stderr).toBe(0);
    expect(wd.read('config/plumb.yaml')).toContain('Exported by `plumb export`');
  });

  it('exports again into a directory that holds only an earlier export', async () => {
    const wd = await start();
    expect((await wd.run(args('out'))).code).toBe(0);
    const again = await wd.run(args('out'));
    expect(again.code, again.stderr).toBe(0);
  });

  it('refuses --sink-dir . (its .gitignore would make Git ignore plumb.yaml) and --sink-dir files', async () => {
    const wd = await start();
    for (const sink of ['.', './', 'files', 'files/secrets']) {
      const r = await wd.run(args('out', ['--sink-dir', sink]));
      expect(r.code, sink).toBe(1);
      expect(r.stderr).toContain('.gitignore');
    }
    expect(existsSync(path.join(wd.dir, 'out'))).toBe(false);
  });

  it('refuses --out naming a file, before reading the instance and without a stack trace', async () => {
    const wd = await start();
    wd.write('plumb.yaml', 'version: 1\ninstances: {}\n');
    emu!.resetRequests();
    const r = await wd.run(args('plumb.yaml'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--out plumb.yaml is a file; --out takes a directory');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(emu!.requests).toEqual([]);
    expect(wd.read('plumb.yaml')).toBe('version: 1\ninstances: {}\n');
  });
});

describe('the command line refuses what it would have to guess', () => {
  it('refuses --now 2026-02-30 instead of rolling it over to March 2', async () => {
    const wd = workdir();
    wd.write('plumb.yaml', 'version: 1\ninstances: {}\n');
    for (const args of [['validate', '--now', '2026-02-30'], ['plan', '--now', '2026-02-30'], ['validate', '--now', '2026-04-31T09:00:00Z']]) {
      const r = await wd.run(args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toContain('is not a date');
    }
    expect((await wd.run(['validate', '--now', '2028-02-29'])).code).toBe(0);
  });

  it('refuses plumb.yaml next to plumb.yml, naming both', async () => {
    const wd = workdir();
    wd.write('plumb.yaml', 'version: 1\ninstances: {}\n');
    wd.write('plumb.yml', 'version: 1\ninstances: {}\n');
    const r = await wd.run(['validate']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_CONFIG_AMBIGUOUS');
    expect(r.stderr).toContain('plumb.yaml and plumb.yml');
    expect(readdirSync(wd.dir).sort()).toEqual(['plumb.yaml', 'plumb.yml']);
  });
});
