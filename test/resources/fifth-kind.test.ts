/**
 * Proof of the kinds seam (issue 20): a fifth kind that lives only in test/fixtures/kinds/maintenance/
 * (maintenance mode, two application settings the emulator serves), registered with one line,
 * works through every door: YAML validate, plan and apply (the commands, against the emulator over
 * HTTP), export, the CDKTF reader, and the Terraform provider at the protocol level.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator } from '../helpers/emulator.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { KIND_MODULES } from '../../src/resources/index.js';
import { withKinds } from '../../src/resources/with-kinds.js';
import { loadConfig } from '../../src/config/validate.js';
import { fromStacks } from '../../src/cdktf/load.js';
import { runApply, runPlan } from '../../src/commands/reconcile.js';
import { runExport } from '../../src/commands/export.js';
import type { Io } from '../../src/commands/output.js';
import { maintenanceKind } from '../fixtures/kinds/maintenance/index.js';
import { maintenanceOf } from '../fixtures/kinds/maintenance/config.js';
import { dv, objectOf, root, startProvider, typeOfSchema, undv } from '../provider/harness.js';
import type { Diag, ProtoSchema, ProviderProcess } from '../provider/harness.js';
import { secret } from '../helpers/cli.js';

// The one line that registers the fifth kind.
const kinds = withKinds([...KIND_MODULES, maintenanceKind]);

const ADMIN = secret('admin-token-fifth-kind-0123456789');
let emu: RunningEmulator;
let dir: string;

beforeAll(async () => {
  emu = await startTestEmulator({ seed: { users: [{ username: 'root', admin: true, personal_access_tokens: [{ name: 'plumb', token: ADMIN, scopes: ['api'] }] }] } });
});
afterAll(async () => {
  await emu?.close();
});

function scratch(files: Record<string, string>): string {
  dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-fifth-kind-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return dir;
}

function io(): Io & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return { stdout: (s) => void (out += s), stderr: (s) => void (err += s), isTTY: false, env: { PLUMB_TOKEN: ADMIN, PLUMB_ALLOW_URLS: emu.url }, cwd: dir, out: () => out, err: () => err };
}

async function live(): Promise<Record<string, unknown>> {
  const r = await fetch(`${emu.url}/api/v4/application/settings`, { headers: { 'PRIVATE-TOKEN': ADMIN } });
  return (await r.json()) as Record<string, unknown>;
}

const yaml = (url: string, maintenance: string) => `version: 1\ninstances:\n  main:\n    url: ${url}\n    token_env: PLUMB_TOKEN\n${maintenance}`;

describe('a fifth kind registered with one line', () => {
  it('validates: its block resolves, its defaults are inherited, and its mistakes are located', () => {
    const d = scratch({ 'plumb.yaml': `${yaml('https://code.example.com', '    maintenance:\n      enabled: true\n')}defaults:\n  maintenance:\n    message: Back soon\n` });
    const ok = loadConfig([path.join(d, 'plumb.yaml')], { kinds, cwd: d });
    expect(ok.diagnostics.filter((x) => x.severity === 'error')).toEqual([]);
    expect(maintenanceOf(ok.config!.instances[0]!)).toEqual({ pointer: '/instances/main/maintenance', enabled: true, message: 'Back soon' });

    const bad = scratch({ 'plumb.yaml': yaml('https://code.example.com', '    maintenance:\n      enabld: true\n') });
    const r = loadConfig([path.join(bad, 'plumb.yaml')], { kinds, cwd: bad });
    expect(r.diagnostics.map((x) => [x.code, x.summary, x.suggestion, x.location?.line])).toEqual([['PLUMB_UNKNOWN_KEY', 'Unknown key "enabld"', 'did you mean "enabled"?', 7]]);

    // Without it the same block is a key no kind knows: the registry, not a fixed list, decides.
    const without = loadConfig([path.join(d, 'plumb.yaml')], { cwd: d });
    expect(without.diagnostics.map((x) => x.code)).toContain('PLUMB_UNKNOWN_KEY');
  });

  it('plans and applies through plumb plan and plumb apply against the instance, then plans no change', async () => {
    scratch({ 'plumb.yaml': yaml(emu.url, '    maintenance:\n      enabled: true\n      message: Upgrading the database\n') });
    const plan = io();
    expect(await runPlan({ config: ['plumb.yaml'], json: false, detailedExitcode: true }, plan, { kinds })).toBe(2);
    expect(plan.out()).toContain('main.maintenance');
    expect(plan.out()).toContain('~ message = "" -> "Upgrading the database"');
    const apply = io();
    expect(await runApply({ config: ['plumb.yaml'], json: false, autoApprove: true }, apply, { kinds }), apply.err()).toBe(0);
    expect(await live()).toMatchObject({ maintenance_mode: true, maintenance_mode_message: 'Upgrading the database' });
    expect(await runPlan({ config: ['plumb.yaml'], json: false, detailedExitcode: true }, io(), { kinds })).toBe(0);
  });

  it('exports its block with its own flag, and the export validates with the kind registered', async () => {
    scratch({});
    await fetch(`${emu.url}/api/v4/application/settings`, { method: 'PUT', headers: { 'PRIVATE-TOKEN': ADMIN, 'content-type': 'application/json' }, body: JSON.stringify({ maintenance_mode: true, maintenance_mode_message: 'Upgrading the database' }) });
    const options = new Map(kinds.exporters.map((e) => [e.kind, e.parseOptions({ maintenance: true })]));
    const out = io();
    const code = await runExport({ options, exporters: kinds.exporters, config: [], instanceUrl: emu.url, tokenEnv: 'PLUMB_TOKEN', out: 'exported', json: false }, out);
    expect(code, out.err()).toBe(0);
    const text = readFileSync(path.join(dir, 'exported', 'plumb.yaml'), 'utf8');
    expect(text).toMatch(/maintenance:\n\s+enabled: true\n\s+message: Upgrading the database/);
    const back = loadConfig([path.join(dir, 'exported', 'plumb.yaml')], { kinds, cwd: dir, env: { PLUMB_TOKEN: ADMIN } });
    expect(maintenanceOf(back.config!.instances[0]!)).toMatchObject({ enabled: true, message: 'Upgrading the database' });
  });

  it('is read from a synthesized CDKTF stack as its Terraform type', () => {
    const d = scratch({});
    const stack = { name: 'prod', json: { provider: { plumb: [{ url: 'https://code.example.com', token_env: 'PLUMB_TOKEN' }] }, resource: { plumb_maintenance: { window: { enabled: false, message: 'Read-only tonight' } } } } };
    const r = fromStacks([stack], d, { kinds, cwd: d });
    expect(r.diagnostics.filter((x) => x.severity === 'error')).toEqual([]);
    expect(maintenanceOf(r.config!.instances[0]!)).toMatchObject({ enabled: false, message: 'Read-only tonight' });
  });
});

describe('the fifth kind in the Terraform provider', () => {
  let p: ProviderProcess;
  let schema: { provider: ProtoSchema; resource_schemas: Record<string, ProtoSchema> };

  beforeAll(async () => {
    scratch({});
    // The provider as go-plugin starts it, serving the registry with the fifth kind (its folder's serve-provider.ts).
    const tsx = pathToFileURL(path.join(root, 'node_modules/tsx/dist/loader.mjs')).href;
    p = await startProvider({ command: [process.execPath, '--import', tsx, path.join(root, 'test/fixtures/kinds/maintenance/serve-provider.ts')], cwd: dir, env: { PLUMB_TOKEN: ADMIN } });
    schema = await p.call('GetProviderSchema');
  }, 60_000);
  afterAll(() => p?.kill());

  it('serves its resource type in GetProviderSchema, with its attributes and its computed id', () => {
    const s = schema.resource_schemas.plumb_maintenance!;
    expect(s.block.attributes.map((a) => [a.name, a.optional, a.computed]).sort()).toEqual([['enabled', true, false], ['id', false, true], ['message', true, false]]);
    expect(Object.keys(schema.resource_schemas)).toEqual(expect.arrayContaining(['plumb_application_settings', 'plumb_project_pages', 'plumb_maintenance']));
  });

  it('plans it with PlanResourceChange and applies it with ApplyResourceChange against the instance', async () => {
    const providerType = typeOfSchema(schema.provider);
    const t = typeOfSchema(schema.resource_schemas.plumb_maintenance!);
    const configured = await p.call<{ diagnostics: Diag[] }>('ConfigureProvider', { terraform_version: '1.11.4', config: dv(objectOf(providerType, { url: emu.url, token_env: 'PLUMB_TOKEN' }), providerType) });
    expect(configured.diagnostics).toEqual([]);
    const config = objectOf(t, { enabled: false, message: 'Done' });
    const planned = await p.call<{ planned_state: { msgpack: Buffer }; diagnostics: Diag[] }>('PlanResourceChange', { type_name: 'plumb_maintenance', prior_state: dv(null, t), proposed_new_state: dv(config, t), config: dv(config, t) });
    expect(planned.diagnostics.filter((x) => x.severity === 'ERROR')).toEqual([]);
    const state = undv(planned.planned_state, t);
    expect(state).toMatchObject({ enabled: false, message: 'Done', id: 'maintenance' });
    const applied = await p.call<{ new_state: { msgpack: Buffer }; diagnostics: Diag[] }>('ApplyResourceChange', { type_name: 'plumb_maintenance', prior_state: dv(null, t), planned_state: dv(state, t), config: dv(config, t) });
    expect(applied.diagnostics.filter((x) => x.severity === 'ERROR'), p.stderr()).toEqual([]);
    expect(await live()).toMatchObject({ maintenance_mode: false, maintenance_mode_message: 'Done' });
  });
});
