/**
 * Proof of the kinds seam (issues 20, 30): a fifth kind that lives only in
 * test/fixtures/kinds/maintenance/ (maintenance mode, with its own API module, its own emulator
 * routes handed to the emulator at start, and its own diagnostic codes), registered with one line,
 * works through every door: YAML validate, plan and apply (the commands, against the emulator over
 * HTTP), export, the CDKTF reader, and the Terraform provider at the protocol level.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMergeRequest, mergeRequestNotes } from '../../src/emulator/index.js';
import { startTestEmulator } from '../helpers/emulator.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { BUILT_IN_CONFIG_KINDS, KIND_ENTRIES } from '../../src/resources/index.js';
import { withKinds } from '../../src/resources/with-kinds.js';
import { loadConfig } from '../../src/config/validate.js';
import { fromStacks } from '../../src/cdktf/load.js';
import { runApply, runPlan } from '../../src/commands/reconcile.js';
import { runExport } from '../../src/commands/export.js';
import { main } from '../../src/cli.js';
import type { Io } from '../../src/commands/output.js';
import { maintenanceKind } from '../fixtures/kinds/maintenance/index.js';
import { maintenanceOf } from '../fixtures/kinds/maintenance/config.js';
import { maintenanceRoutes } from '../fixtures/kinds/maintenance/emulator.js';
import { configKinds } from '../../src/resources/index.js';
import { dv, objectOf, root, startProvider, typeOfSchema, undv } from '../provider/harness.js';
import type { Diag, ProtoSchema, ProviderProcess } from '../provider/harness.js';
import { secret } from '../helpers/cli.js';

// The one line that registers the fifth kind.
const kinds = await withKinds([...KIND_ENTRIES, maintenanceKind]);

const ADMIN = secret('admin-token-fifth-kind-0123456789');
const COMMENTER = secret('comment-token-fifth-kind-01234567');
let emu: RunningEmulator;
let dir: string;

beforeAll(async () => {
  emu = await startTestEmulator({
    // The kind's own endpoints: the emulator serves them without importing the kind.
    routes: maintenanceRoutes(),
    seed: {
      users: [
        { username: 'root', admin: true, personal_access_tokens: [{ name: 'plumb', token: ADMIN, scopes: ['api'] }] },
        { username: 'bot', personal_access_tokens: [{ name: 'comment', token: COMMENTER, scopes: ['api'] }] },
      ],
      groups: [{ full_path: 'ops', members: [{ username: 'bot', access_level: 20 }] }],
      projects: [{ path_with_namespace: 'ops/config', default_branch: 'main', files: { 'README.md': 'x\n' } }],
    },
  });
  addMergeRequest(emu.state, 'ops/config', 3);
});
afterAll(async () => {
  await emu?.close();
});

function scratch(files: Record<string, string>): string {
  dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-fifth-kind-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return dir;
}

function io(env: Record<string, string> = {}): Io & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return { stdout: (s) => void (out += s), stderr: (s) => void (err += s), isTTY: false, env: { PLUMB_TOKEN: ADMIN, PLUMB_ALLOW_URLS: emu.url, ...env }, cwd: dir, out: () => out, err: () => err };
}

/** `plumb ARGS` in-process, with the registry `kinds` (or the built-in kinds). */
async function plumb(args: string[], withKinds = true, env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  const o = io(env);
  const code = await main(args, o, withKinds ? { kinds } : {});
  return { code, out: o.out(), err: o.err() };
}

const TEXT = maintenanceKind.reasons['maintenance-differs']!;

/** The kind's live state, read from its own endpoint. */
async function live(): Promise<Record<string, unknown>> {
  const r = await fetch(`${emu.url}/api/v4/maintenance`, { headers: { 'PRIVATE-TOKEN': ADMIN } });
  return (await r.json()) as Record<string, unknown>;
}

/** The instance's application settings, which the kind does not touch. */
async function settings(): Promise<Record<string, unknown>> {
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

    // A key of its block written next to it: the help says where it belongs, from the kind's mount and schema.
    const misplaced = scratch({ 'plumb.yaml': yaml('https://code.example.com', '    message: Back soon\n') });
    const m = loadConfig([path.join(misplaced, 'plumb.yaml')], { kinds, cwd: misplaced });
    expect(m.diagnostics.map((x) => [x.code, x.summary, x.suggestion])).toEqual([['PLUMB_UNKNOWN_KEY', '"message" does not belong here', 'move it under `maintenance:` of an instance']]);

    // One of the kind's own diagnostic codes (its codes.ts), which the closed registry does not hold.
    const blank = scratch({ 'plumb.yaml': yaml('https://code.example.com', '    maintenance:\n      enabled: true\n      message: "   "\n') });
    const b = loadConfig([path.join(blank, 'plumb.yaml')], { kinds, cwd: blank });
    expect(b.diagnostics.map((x) => [x.code, x.summary, x.location?.line])).toEqual([['PLUMB_MAINTENANCE_BLANK_MESSAGE', 'The maintenance message is blank', 8]]);
    expect(b.config).toBeUndefined();

    // Without it the same block is a key no kind knows: the registry, not a fixed list, decides.
    const without = loadConfig([path.join(d, 'plumb.yaml')], { kinds: BUILT_IN_CONFIG_KINDS, cwd: d });
    expect(without.diagnostics.map((x) => x.code)).toContain('PLUMB_UNKNOWN_KEY');
  });

  it('plans and applies through plumb plan and plumb apply against the instance, then plans no change', async () => {
    scratch({ 'plumb.yaml': yaml(emu.url, '    maintenance:\n      enabled: true\n      message: Upgrading the database\n') });
    const plan = io();
    expect(await runPlan({ config: ['plumb.yaml'], json: false, detailedExitcode: true }, plan, { kinds })).toBe(2);
    expect(plan.out()).toContain('main.maintenance');
    expect(plan.out()).toContain('~ message = "" -> "Upgrading the database"');
    // The reason's text is the kind's, not the reason's name.
    expect(plan.out()).toContain(`main.maintenance will be updated in place (${TEXT})`);
    const apply = io();
    emu.resetRequests();
    expect(await runApply({ config: ['plumb.yaml'], json: false, autoApprove: true }, apply, { kinds }), apply.err()).toBe(0);
    expect(await live()).toEqual({ enabled: true, message: 'Upgrading the database' });
    // Through its own API module and emulator routes, never the settings routes.
    expect(emu.requests.filter((r) => r.method === 'PUT').map((r) => r.path)).toEqual(['/maintenance']);
    expect(emu.requests.filter((r) => r.path.startsWith('/application/settings'))).toEqual([]);
    expect(await settings()).toMatchObject({ maintenance_mode: false });
    expect(await runPlan({ config: ['plumb.yaml'], json: false, detailedExitcode: true }, io(), { kinds })).toBe(0);
  });

  it('is validated by plumb validate run with the registry, and unknown to it without', async () => {
    scratch({ 'plumb.yaml': yaml('https://code.example.com', '    maintenance:\n      enabled: true\n') });
    const ok = await plumb(['validate', 'plumb.yaml']);
    expect(ok.code, ok.err).toBe(0);
    const bad = scratch({ 'plumb.yaml': yaml('https://code.example.com', '    maintenance:\n      enabled: "yes"\n') });
    expect(bad).toBe(dir);
    const typed = await plumb(['validate', 'plumb.yaml', '--json']);
    expect(typed.code).toBe(1);
    expect(JSON.parse(typed.out).diagnostics.map((d: { code: string; line: number }) => [d.code, d.line])).toEqual([['PLUMB_TYPE_MISMATCH', 7]]);
    // Its own code, through the CLI's JSON view.
    scratch({ 'plumb.yaml': yaml('https://code.example.com', '    maintenance:\n      message: " "\n') });
    const own = await plumb(['validate', 'plumb.yaml', '--json']);
    expect(own.code).toBe(1);
    expect(JSON.parse(own.out)).toMatchObject({ valid: false, diagnostics: [{ code: 'PLUMB_MAINTENANCE_BLANK_MESSAGE', line: 7 }] });
    const without = await plumb(['validate', 'plumb.yaml'], false);
    expect(without.code).toBe(1);
    expect(without.err).toContain('PLUMB_UNKNOWN_KEY');
  });

  it('shows a saved plan with its change (human, markdown, JSON) and posts it as the merge request\'s comment, with its reason\'s text', async () => {
    scratch({ 'plumb.yaml': yaml(emu.url, '    maintenance:\n      enabled: true\n      message: Reviewed in the merge request\n') });
    const made = await plumb(['plan', '--out', 'plan.json']);
    expect(made.code, made.err).toBe(0);

    const human = await plumb(['show', 'plan.json']);
    expect(human.code, human.err).toBe(0);
    expect(human.out).toContain(`main.maintenance will be updated in place (${TEXT})`);
    expect(human.out).toContain('"Reviewed in the merge request"');
    const markdown = await plumb(['show', 'plan.json', '--markdown']);
    expect(markdown.out).toContain(`| update | \`main.maintenance\` | ${TEXT} |`);
    const json = await plumb(['show', 'plan.json', '--json']);
    expect(JSON.parse(json.out).changes).toEqual([expect.objectContaining({ kind: 'maintenance', reasons: ['maintenance-differs'], payload: expect.objectContaining({ type: 'maintenance' }) })]);
    // The built-in registry cannot read its payload: show refuses the plan rather than guess.
    const without = await plumb(['show', 'plan.json'], false);
    expect(without.code).toBe(1);
    expect(without.err).toContain('of kind "maintenance", which this plumb does not apply');

    const project = emu.state.projectByRef('ops/config')!;
    const ci = { CI_API_V4_URL: `${emu.url}/api/v4`, CI_PROJECT_ID: String(project.id), CI_MERGE_REQUEST_IID: '3', PLUMB_COMMENT_TOKEN: COMMENTER };
    const posted = await plumb(['comment', 'plan.json'], true, ci);
    expect(posted.code, posted.err).toBe(0);
    const [note] = mergeRequestNotes(emu.state, 'ops/config', 3);
    expect(note!.body).toContain(`| update | \`main.maintenance\` | ${TEXT} |`);
    expect(note!.body).toContain(`main.maintenance will be updated in place (${TEXT})`);
    expect((await plumb(['comment', 'plan.json'], false, ci)).code).toBe(1);
  });

  it('exports its block with its own flag, and the export validates with the kind registered', async () => {
    scratch({});
    await fetch(`${emu.url}/api/v4/maintenance`, { method: 'PUT', headers: { 'PRIVATE-TOKEN': ADMIN, 'content-type': 'application/json' }, body: JSON.stringify({ enabled: true, message: 'Upgrading the database' }) });
    const options = new Map(kinds.exporters.map((e) => [e.kind, e.parseOptions({ maintenance: true })]));
    const out = io();
    const code = await runExport({ options, exporters: kinds.exporters, config: [], instanceUrl: emu.url, tokenEnv: 'PLUMB_TOKEN', out: 'exported', json: false }, out);
    expect(code, out.err()).toBe(0);
    const text = readFileSync(path.join(dir, 'exported', 'plumb.yaml'), 'utf8');
    expect(text).toMatch(/maintenance:\n\s+enabled: true\n\s+message: Upgrading the database/);
    const back = loadConfig([path.join(dir, 'exported', 'plumb.yaml')], { kinds, cwd: dir, env: { PLUMB_TOKEN: ADMIN } });
    expect(maintenanceOf(back.config!.instances[0]!)).toMatchObject({ enabled: true, message: 'Upgrading the database' });
  });

  it('takes its export flag on plumb export\'s command line when the CLI runs with the registry', async () => {
    scratch({});
    const help = await plumb(['export', '--help']);
    expect(help.out).toMatch(/--maintenance\s+export maintenance mode and its message/);
    expect((await plumb(['export', '--help'], false)).out).not.toContain('--maintenance');
    const r = await plumb(['export', '--maintenance', '--instance-url', emu.url, '--out', 'cli-export']);
    expect(r.code, r.err).toBe(0);
    expect(readFileSync(path.join(dir, 'cli-export', 'plumb.yaml'), 'utf8')).toMatch(/maintenance:\n\s+enabled: true/);
    const unknown = await plumb(['export', '--maintenance', '--instance-url', emu.url, '--out', 'other'], false);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('--maintenance');
  });

  it('is read from a synthesized CDKTF stack as its Terraform type', () => {
    const d = scratch({});
    const stack = { name: 'prod', json: { provider: { plumb: [{ url: 'https://code.example.com', token_env: 'PLUMB_TOKEN' }] }, resource: { plumb_maintenance: { window: { enabled: false, message: 'Read-only tonight' } } } } };
    const r = fromStacks([stack], d, { kinds, cwd: d });
    expect(r.diagnostics.filter((x) => x.severity === 'error')).toEqual([]);
    expect(maintenanceOf(r.config!.instances[0]!)).toMatchObject({ enabled: false, message: 'Read-only tonight' });
  });
});

describe('the fifth kind\'s own diagnostic codes', () => {
  it('are refused when the closed registry already holds one, or another kind claims it', () => {
    const stolen = { ...maintenanceKind, codes: [...maintenanceKind.codes, 'PLUMB_USAGE'], ownCodes: { ...maintenanceKind.ownCodes, PLUMB_USAGE: 'mine now' } } as typeof maintenanceKind;
    expect(() => configKinds([...KIND_ENTRIES, stolen])).toThrow('kind maintenance declares PLUMB_USAGE as its own code, but src/diagnostics/codes.ts registers it');
    const twin = { ...maintenanceKind, kind: 'maintenance_twin' };
    expect(() => configKinds([...KIND_ENTRIES, maintenanceKind, twin])).toThrow('PLUMB_MAINTENANCE_BLANK_MESSAGE is claimed by kinds maintenance and maintenance_twin');
    const unlisted = { ...maintenanceKind, ownCodes: {} };
    expect(() => configKinds([...KIND_ENTRIES, unlisted])).toThrow('kind maintenance claims PLUMB_MAINTENANCE_BLANK_MESSAGE, which is neither registered (src/diagnostics/codes.ts) nor among its ownCodes');
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
    expect(await live()).toEqual({ enabled: false, message: 'Done' });
  });
});
