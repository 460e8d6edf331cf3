/**
 * plumb's local writes never follow a planted symlink (issue 18, item 8): the state file, plan's
 * --out/--markdown/--report and export's files are written through a temp file created with
 * O_EXCL under a random name and renamed over the target, so a symlink at the old predictable temp
 * name (`FILE.<pid>.tmp`) or at the target itself leaves whatever it points at untouched.
 */
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestEmulator } from '../helpers/emulator.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { ADMIN, Clock, SEED } from '../helpers/emulator.js';
import { secret, workdir } from '../helpers/cli.js';
import { scratchArea } from '../helpers/scratch.js';
import { harness } from '../resources/group-access-tokens/helpers.js';
import type { Harness } from '../resources/group-access-tokens/helpers.js';

let h: Harness | undefined;
let emu: RunningEmulator | undefined;
afterEach(async () => {
  await h?.close();
  await emu?.close();
  h = emu = undefined;
});

const VICTIM_TEXT = 'precious: do not overwrite\n';
/** Where the victims and the symlinks' far ends live: outside every working directory, removed after the file (issue 29.18). */
const away = scratchArea('plumb-away').dir;

/** A file outside the working directory that an attacker wants plumb to overwrite. */
function victim(): string {
  const file = path.join(mkdtempSync(path.join(away, 'victim-')), 'victim');
  writeFileSync(file, VICTIM_TEXT);
  return file;
}

/** Plants symlinks to `target` at `file` and at the temp name plumb used to write it through. */
function plant(file: string, target: string, opts: { atTarget: boolean }): void {
  mkdirSync(path.dirname(file), { recursive: true });
  symlinkSync(target, `${file}.${process.pid}.tmp`);
  if (opts.atTarget) symlinkSync(target, file);
}

describe('local writes never follow a planted symlink', () => {
  for (const option of ['--out', '--markdown', '--report']) {
    it(`plan ${option} replaces a symlink at the target and ignores one at the old temp name, leaving their target untouched`, async () => {
      h = await harness();
      h.config({ platform: { tokens: { deploy: {} } } });
      const v = victim();
      const file = path.join(h.wd.dir, 'plan.out');
      plant(file, v, { atTarget: true });
      const r = await h.run(['plan', option, 'plan.out']);
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(v, 'utf8')).toBe(VICTIM_TEXT);
      expect(lstatSync(file).isFile()).toBe(true);
      expect(readFileSync(file, 'utf8').length).toBeGreaterThan(0);
    });
  }

  it('apply writes the state file past symlinks at the old temp name and at the state file, leaving their target untouched', async () => {
    h = await harness();
    h.config({ platform: { tokens: { deploy: {} } } });
    const v = victim();
    writeFileSync(v, '{"version": 1, "instances": {}}\n');
    const state = path.join(h.wd.dir, '.plumb/state.json');
    plant(state, v, { atTarget: true });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(v, 'utf8')).toBe('{"version": 1, "instances": {}}\n');
    expect(lstatSync(state).isFile()).toBe(true);
    expect(lstatSync(state).mode & 0o777).toBe(0o600);
    expect(readFileSync(state, 'utf8')).toContain('"instances"');
  });

  describe('export', () => {
    secret(ADMIN);
    async function start() {
      emu = await startTestEmulator({ seed: SEED, now: new Clock().now });
      return workdir({ PLUMB_TOKEN: ADMIN, PLUMB_NOW: '2025-06-15' });
    }
    const args = (out: string, extra: string[] = []) => ['export', '--instance-url', emu!.url, '--out', out, '--file', 'platform/infra/config:README.md', ...extra];

    it('refuses an --out that is a symlink', async () => {
      const wd = await start();
      const elsewhere = mkdtempSync(path.join(away, 'elsewhere-'));
      symlinkSync(elsewhere, path.join(wd.dir, 'out'));
      const r = await wd.run(args('out'));
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('is a symlink');
      expect(r.stderr).toContain(elsewhere);
    });

    it('replaces a symlinked plumb.yaml and source file under --out with --force, leaving their targets untouched', async () => {
      const wd = await start();
      expect((await wd.run(args('out'))).code).toBe(0);
      const v = victim();
      const yaml = path.join(wd.dir, 'out/plumb.yaml');
      const source = path.join(wd.dir, 'out/files/platform/infra/config/README.md');
      // The old code wrote plumb.yaml and the source straight through symlinks at their names.
      for (const f of [yaml, source]) {
        unlinkSync(f);
        symlinkSync(v, f);
      }
      const refused = await wd.run(args('out'));
      expect(refused.code, 'a symlinked plumb.yaml is not an earlier export').toBe(1);
      const r = await wd.run(args('out', ['--force']));
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(v, 'utf8')).toBe(VICTIM_TEXT);
      for (const f of [yaml, source]) expect(lstatSync(f).isFile(), f).toBe(true);
    });

    it('refuses a symlinked files/ or sink directory under --out, writing nothing through it', async () => {
      const wd = await start();
      const elsewhere = mkdtempSync(path.join(away, 'elsewhere-'));
      mkdirSync(path.join(wd.dir, 'a'));
      symlinkSync(elsewhere, path.join(wd.dir, 'a/files'));
      const r = await wd.run(args('a', ['--force']));
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('a/files is a symlink');
      mkdirSync(path.join(wd.dir, 'b'));
      symlinkSync(elsewhere, path.join(wd.dir, 'b/secrets'));
      const s = await wd.run(args('b', ['--force', '--sink-dir', 'secrets', '--group', 'platform']));
      expect(s.code).toBe(1);
      expect(s.stderr).toContain('b/secrets is a symlink');
      expect(readdirSync(elsewhere)).toEqual([]);
    });
  });
});
