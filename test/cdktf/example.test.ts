import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator } from '../helpers/emulator.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { loadCdktfConfig, loadConfig } from '../helpers/kinds.js';
import { main } from '../../src/cli.js';
import { cdktfApp, copyFromRepo, root } from './helpers.js';
import { withoutSalts } from '../../src/engine/saved-plan.js';

const TODAY = '2026-06-01';
const ADMIN = 'local-admin-token-change-me'; // the made-up token of examples/emulator-seed.yaml

/** The bundled examples, copied to a scratch directory with the emulator's URL. */
function examplesAt(url: string): { yaml: string; app: string } {
  const app = cdktfApp({});
  copyFromRepo(app, ['cdktf.json', 'examples/cdktf/main.ts', 'examples/files', 'examples/plumb']);
  mkdirSync(path.join(app, 'examples/secrets'), { recursive: true });
  for (const rel of ['examples/cdktf/main.ts', 'examples/plumb/instance.yaml']) {
    const file = path.join(app, rel);
    writeFileSync(file, readFileSync(file, 'utf8').replace('http://127.0.0.1:8929', url));
  }
  return { yaml: app, app };
}

async function plumb(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), isTTY: false, env: { PATH: process.env.PATH ?? '', PLUMB_TOKEN: ADMIN }, cwd });
  return { code, stdout, stderr };
}

describe('the bundled CDKTF example', () => {
  let emu: RunningEmulator;
  let dirs: { yaml: string; app: string };

  beforeAll(async () => {
    emu = await startTestEmulator({ seed: path.join(root, 'examples/emulator-seed.yaml') });
    dirs = examplesAt(emu.url);
  });
  afterAll(async () => {
    await emu.close();
  });

  it('gives the same desired state as the YAML example', async () => {
    const yaml = loadConfig(['examples/plumb'], { cwd: dirs.yaml, env: {}, today: TODAY });
    const cdktf = await loadCdktfConfig('.', { cwd: dirs.app, env: {}, today: TODAY });
    expect(yaml.diagnostics).toEqual([]);
    expect(cdktf.diagnostics).toEqual([]);
    // cdk.tf.json groups resources by type, YAML by file: the same projects, in another order.
    type Entry = { ref: string; files?: { path: string }[] };
    const sorted = (v: unknown) =>
      Array.isArray(v)
        ? (v as Entry[]).toSorted((x, y) => x.ref.localeCompare(y.ref)).map((p) => (p.files ? { ...p, files: p.files.toSorted((x, y) => x.path.localeCompare(y.path)) } : p))
        : v;
    const byRef = (c: typeof yaml.config) => ({
      ...c,
      instances: c!.instances.map((i) => ({
        ...i,
        resources: new Map([...i.resources].map(([k, v]) => [k, sorted(v)])),
        containers: new Map([...i.containers].map(([k, v]) => [k, sorted(v)])),
      })),
    });
    expect(byRef(cdktf.config)).toEqual(byRef(yaml.config));
    expect(cdktf.synthMs).toBeGreaterThan(0);
  });

  it('gives the same plan as the YAML example: same addresses, same changes', async () => {
    const a = await plumb(['plan', 'examples/plumb', '--now', TODAY, '--out', 'yaml-plan.json'], dirs.yaml);
    const b = await plumb(['plan', '--cdktf', '.', '--now', TODAY, '--out', 'cdktf-plan.json'], dirs.app);
    expect(a.code, a.stderr + a.stdout).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    const read = (f: string) => JSON.parse(readFileSync(path.join(dirs.app, f), 'utf8')) as Record<string, unknown>;
    const [pa, pb] = [read('yaml-plan.json'), read('cdktf-plan.json')];
    expect((pa.changes as unknown[]).length).toBeGreaterThan(1);
    expect(JSON.stringify(pb.changes)).toContain('ci-deployer');
    // cdk.tf.json lists attributes in name order; the YAML plan lists them as written.
    // A value's salted fingerprint (a CI/CD variable's) has a fresh salt in each plan: compared as "a fingerprint is here", as apply compares a saved plan.
    const byName = (entries: unknown) =>
      (withoutSalts(entries) as { attributes?: { name: string }[] }[]).map((c) => ({ ...c, attributes: [...(c.attributes ?? [])].sort((x, y) => x.name.localeCompare(y.name)) }));
    const byAddress = (entries: unknown) => byName(entries).sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
    expect(byAddress(pb.changes)).toEqual(byAddress(pa.changes));
    expect(byAddress(pb.drift)).toEqual(byAddress(pa.drift));
    for (const key of ['instances', 'risks', 'diagnostics', 'summary', 'applicable']) expect(pb[key], key).toEqual(pa[key]);
  });

  it('is read through --cdktf, and a path holding cdktf.json without it is an error that runs nothing', async () => {
    const r = await plumb(['validate', '--cdktf', '.', '--now', TODAY], dirs.app);
    expect(r.code, r.stderr).toBe(0);
    // The constructs stand in for files; the summary does not call them files.
    expect(r.stdout).toContain('Configuration is valid: the CDKTF app in ., 14 construct(s), 1 instance(s).');
    const b = await plumb(['validate', '.', '--now', TODAY], dirs.app);
    expect(b.code).toBe(1);
    expect(b.stderr).toContain('error[PLUMB_CDKTF_NOT_ENABLED]: . is a CDKTF app (it holds cdktf.json)');
    expect(b.stderr).toContain('--cdktf .');
  });

  it('is not mixed with YAML paths: that is a usage error naming both', async () => {
    const a = await plumb(['validate', '--cdktf', '.', 'examples/plumb'], dirs.app);
    expect(a.code).toBe(1);
    expect(a.stderr).toContain('error[PLUMB_USAGE]: --cdktf . cannot be combined with configuration paths (examples/plumb)');
    const b = await plumb(['validate', '.', 'examples/plumb'], dirs.app);
    expect(b.code).toBe(1);
    expect(b.stderr).toContain('error[PLUMB_CDKTF_NOT_ENABLED]: . is a CDKTF app (it holds cdktf.json)');
  });
});
