/**
 * The data sources that list what a group holds (`plumb_projects`, `plumb_groups`, issue 23), over
 * the plugin protocol as Terraform drives them (harness.ts), against the emulator seeded with a
 * group tree holding archived projects, subgroups, a shared project and a group of 230 projects.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestEmulator } from '../helpers/emulator.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { UNKNOWN } from '../../src/provider/cty.js';
import type { CtyType, CtyValue } from '../../src/provider/cty.js';
import { dv, objectOf, startProvider, typeOfSchema, undv } from './harness.js';
import type { Diag, ProtoSchema, ProviderProcess } from './harness.js';

const ADMIN = 'datasource-admin-token-0123456789';
const FLEET = 230;

let emu: RunningEmulator;
let p: ProviderProcess;
let schemas: Record<string, ProtoSchema>;
let types: Record<string, CtyType>;

beforeAll(async () => {
  emu = await startTestEmulator({
    seed: {
      users: [{ username: 'root', admin: true, personal_access_tokens: [{ name: 'plumb', token: ADMIN, scopes: ['api'], expires_at: null }] }],
      groups: [
        { full_path: 'platform', id: 10, name: 'Platform' },
        { full_path: 'platform/infra', id: 11, name: 'Infra' },
        { full_path: 'platform/infra/deep', id: 12, name: 'Deep' },
        { full_path: 'platform/legacy', id: 13, name: 'Legacy' },
        { full_path: 'other', id: 20, name: 'Other' },
        { full_path: 'fleet', id: 30, name: 'Fleet' },
      ],
      projects: [
        { path_with_namespace: 'platform/web', id: 41, name: 'Web', default_branch: 'main', files: { 'index.html': 'hi\n' } },
        { path_with_namespace: 'platform/api', id: 40, name: 'API', default_branch: 'trunk', files: { 'README.md': 'api\n' } },
        { path_with_namespace: 'platform/old', id: 42, archived: true, files: { 'README.md': 'old\n' } },
        { path_with_namespace: 'platform/legacy-tools', id: 46, files: { 'README.md': 'tools\n' } },
        { path_with_namespace: 'platform/infra/db', id: 43, files: { 'README.md': 'db\n' } },
        { path_with_namespace: 'platform/infra/deep/cache', id: 44, archived: true, files: { 'README.md': 'cache\n' } },
        { path_with_namespace: 'platform/legacy/billing', id: 45, files: { 'README.md': 'billing\n' } },
        { path_with_namespace: 'other/shared-lib', id: 50, shared_with_groups: [{ full_path: 'platform', group_access: 20 }] },
        ...Array.from({ length: FLEET }, (_, i) => ({ path_with_namespace: `fleet/svc-${String(i).padStart(3, '0')}`, id: 1000 + i })),
      ],
    },
  });
  p = await startProvider({ cwd: mkdtempSync(path.join(os.tmpdir(), 'plumb-ds-')), env: { PLUMB_TOKEN: ADMIN } });
  const schema = await p.call<{ provider: ProtoSchema; data_source_schemas: Record<string, ProtoSchema> }>('GetProviderSchema');
  schemas = schema.data_source_schemas;
  types = Object.fromEntries(Object.entries(schemas).map(([n, s]) => [n, typeOfSchema(s)]));
  const providerType = typeOfSchema(schema.provider);
  const configured = await p.call<{ diagnostics: Diag[] }>('ConfigureProvider', {
    terraform_version: '1.11.4',
    config: dv(objectOf(providerType, { url: emu.url, token_env: 'PLUMB_TOKEN' }), providerType),
    client_capabilities: { write_only_attributes_allowed: true },
  });
  expect(configured.diagnostics).toEqual([]);
});

afterAll(async () => {
  p?.kill();
  await emu?.close();
});

beforeEach(() => emu.resetRequests());

type Obj = Record<string, CtyValue>;

async function readDs(type: string, values: Obj): Promise<{ state: Obj | null; diagnostics: Diag[] }> {
  const t = types[type]!;
  const r = await p.call<{ state: { msgpack: Buffer } | null; diagnostics: Diag[] }>('ReadDataSource', { type_name: type, config: dv(objectOf(t, values), t) });
  return { state: undv(r.state, t) as Obj | null, diagnostics: r.diagnostics };
}

async function validateDs(type: string, values: Obj): Promise<Diag[]> {
  const t = types[type]!;
  const r = await p.call<{ diagnostics: Diag[] }>('ValidateDataResourceConfig', { type_name: type, config: dv(objectOf(t, values), t) });
  return r.diagnostics;
}

const paths = (s: Obj | null) => s?.paths as string[];
const at = (d: Diag) => d.attribute?.steps.map((s) => s.attribute_name).join('.');
const listed = () => emu.requests.map((r) => `${r.method} ${r.path}`);

describe('the served schema', () => {
  it('lists plumb_projects and plumb_groups beside the settings data source, with group required, the filters optional and the results computed', async () => {
    const meta = await p.call<{ data_sources: { type_name: string }[] }>('GetMetadata');
    expect(meta.data_sources.map((d) => d.type_name).sort()).toEqual(['plumb_application_settings', 'plumb_groups', 'plumb_projects']);
    const attrs = (type: string) => Object.fromEntries(schemas[type]!.block.attributes.map((a) => [a.name, a]));
    const projects = attrs('plumb_projects');
    expect(projects.group).toMatchObject({ required: true, computed: false });
    for (const name of ['include_subgroups', 'include_archived']) expect(projects[name], name).toMatchObject({ optional: true, computed: true });
    expect(projects.exclude).toMatchObject({ optional: true, computed: false });
    for (const name of ['projects', 'paths', 'ids']) expect(projects[name], name).toMatchObject({ computed: true, optional: false, required: false });
    expect(types.plumb_projects).toEqual([
      'object',
      {
        group: 'string',
        include_subgroups: 'bool',
        include_archived: 'bool',
        exclude: ['set', 'string'],
        projects: ['list', ['object', { id: 'number', path_with_namespace: 'string', name: 'string', default_branch: 'string', archived: 'bool', web_url: 'string' }]],
        paths: ['set', 'string'],
        ids: ['map', 'number'],
      },
    ]);
    const groups = attrs('plumb_groups');
    expect(groups.include_descendants).toMatchObject({ optional: true, computed: true });
    expect(Object.keys(groups).sort()).toEqual(['exclude', 'group', 'groups', 'ids', 'include_descendants', 'paths']);
  });
});

describe('plumb_projects', () => {
  it('lists the projects at every depth below the group, sorted by path, archived and shared ones left out, with one list request', async () => {
    const { state, diagnostics } = await readDs('plumb_projects', { group: 'platform' });
    expect(diagnostics).toEqual([]);
    expect(paths(state)).toEqual(['platform/api', 'platform/infra/db', 'platform/legacy-tools', 'platform/legacy/billing', 'platform/web']);
    expect(state).toMatchObject({ group: 'platform', include_subgroups: true, include_archived: false, exclude: null });
    expect((state!.projects as Obj[])[0]).toEqual({ id: 40, path_with_namespace: 'platform/api', name: 'API', default_branch: 'trunk', archived: false, web_url: `${emu.url}/platform/api` });
    expect(state!.ids).toEqual({ 'platform/api': 40, 'platform/infra/db': 43, 'platform/legacy-tools': 46, 'platform/legacy/billing': 45, 'platform/web': 41 });
    expect(listed()).toEqual(['GET /groups/platform/projects']);
    expect(Object.fromEntries(new URLSearchParams(emu.requests[0]!.query))).toMatchObject({ include_subgroups: 'true', archived: 'false', with_shared: 'false' });
  });

  it('lists only the group\'s own projects without include_subgroups (platform/*), and archived ones with include_archived', async () => {
    const direct = await readDs('plumb_projects', { group: 'platform', include_subgroups: false });
    expect(paths(direct.state)).toEqual(['platform/api', 'platform/legacy-tools', 'platform/web']);
    const all = await readDs('plumb_projects', { group: 'platform', include_archived: true });
    expect(paths(all.state)).toEqual(['platform/api', 'platform/infra/db', 'platform/infra/deep/cache', 'platform/legacy-tools', 'platform/legacy/billing', 'platform/old', 'platform/web']);
    expect((all.state!.projects as Obj[]).filter((x) => x.archived).map((x) => x.path_with_namespace)).toEqual(['platform/infra/deep/cache', 'platform/old']);
    expect(all.state).toMatchObject({ include_subgroups: true, include_archived: true });
  });

  it('leaves out what exclude names: full paths and patterns (* within a segment, ** at any depth), ignoring case', async () => {
    const { state, diagnostics } = await readDs('plumb_projects', { group: 'platform', exclude: ['Platform/Web', 'platform/legacy-*', 'platform/legacy/**'] });
    expect(diagnostics).toEqual([]);
    expect(paths(state)).toEqual(['platform/api', 'platform/infra/db']);
    expect(state!.exclude).toEqual(['Platform/Web', 'platform/legacy-*', 'platform/legacy/**'].sort());
  });

  it('takes the group by numeric id as well as by path', async () => {
    const { state } = await readDs('plumb_projects', { group: '11' });
    expect(paths(state)).toEqual(['platform/infra/db']);
    expect(listed()).toEqual(['GET /groups/11/projects']);
  });

  it('reads a group of 230 projects in three pages: the first, then the other two at once', async () => {
    const { state } = await readDs('plumb_projects', { group: 'fleet' });
    expect(paths(state)).toHaveLength(FLEET);
    expect(paths(state)[0]).toBe('fleet/svc-000');
    const pages = emu.requests.map((r) => new URLSearchParams(r.query).get('page'));
    expect(pages.sort()).toEqual(['2', '3', null].sort());
    expect(listed().every((l) => l === 'GET /groups/fleet/projects')).toBe(true);
  });

  it('reports a group that does not exist at the group attribute, and reads nothing else', async () => {
    const { state, diagnostics } = await readDs('plumb_projects', { group: 'platform/nope' });
    expect(state).toBeNull();
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ severity: 'ERROR', summary: 'Group "platform/nope" not found' });
    expect(diagnostics[0]!.detail).toContain('PLUMB_API_NOT_FOUND');
    expect(at(diagnostics[0]!)).toBe('group');
    expect(listed()).toEqual(['GET /groups/platform%2Fnope/projects']);
  });

  it('answers a group not known yet with unknown results and no request', async () => {
    const { state, diagnostics } = await readDs('plumb_projects', { group: UNKNOWN, exclude: ['platform/old'] });
    expect(diagnostics).toEqual([]);
    expect(state).toMatchObject({ group: UNKNOWN, projects: UNKNOWN, paths: UNKNOWN, ids: UNKNOWN, include_subgroups: true });
    expect(listed()).toEqual([]);
    expect(await validateDs('plumb_projects', { group: UNKNOWN, include_archived: UNKNOWN })).toEqual([]);
  });

  it('refuses offline an exclude entry that is not a path or pattern, and a pattern given as group, at their attributes', async () => {
    const ds = await validateDs('plumb_projects', { group: 'platform/*', exclude: ['platform/ok', 'platform//x', 'platform/a**'] });
    expect(ds.map((d) => [d.severity, at(d), d.summary])).toEqual([
      ['ERROR', 'group', 'group "platform/*" is not a group\'s full path or id: it names one group, not a pattern'],
      ['ERROR', 'exclude', 'exclude entry "platform//x" is not a full path or a pattern: the pattern has an empty segment ("//")'],
      ['ERROR', 'exclude', 'exclude entry "platform/a**" is not a full path or a pattern: "**" must be a whole segment (found "a**"); use * to match within a segment'],
    ]);
    expect(ds.every((d) => d.detail.includes('PLUMB_TF_DATA_SOURCE_ARGUMENT'))).toBe(true);
    // ReadDataSource checks again (Terraform may read without validating) and sends nothing.
    const r = await readDs('plumb_projects', { group: 'platform', exclude: ['platform//x'] });
    expect(r.diagnostics.map(at)).toEqual(['exclude']);
    expect(listed()).toEqual([]);
  });
});

describe('plumb_groups', () => {
  it('lists every group below the group (not the group itself), sorted by path, with one list request', async () => {
    const { state, diagnostics } = await readDs('plumb_groups', { group: 'platform' });
    expect(diagnostics).toEqual([]);
    expect(paths(state)).toEqual(['platform/infra', 'platform/infra/deep', 'platform/legacy']);
    expect((state!.groups as Obj[])[0]).toEqual({ id: 11, full_path: 'platform/infra', name: 'Infra', web_url: `${emu.url}/groups/platform/infra` });
    expect(state).toMatchObject({ include_descendants: true, ids: { 'platform/infra': 11, 'platform/infra/deep': 12, 'platform/legacy': 13 } });
    expect(listed()).toEqual(['GET /groups/platform/descendant_groups']);
  });

  it('lists only the direct subgroups without include_descendants, minus what exclude matches', async () => {
    const { state } = await readDs('plumb_groups', { group: 'platform', include_descendants: false, exclude: ['platform/leg*'] });
    expect(paths(state)).toEqual(['platform/infra']);
    expect(listed()).toEqual(['GET /groups/platform/subgroups']);
  });

  it('reports a group that does not exist at the group attribute', async () => {
    const { diagnostics } = await readDs('plumb_groups', { group: 'nowhere' });
    expect(diagnostics.map((d) => [d.summary, at(d)])).toEqual([['Group "nowhere" not found', 'group']]);
  });
});

describe('the connection rules', () => {
  it('names the token variable and the URL when the instance refuses the token', async () => {
    const other = await startProvider({ cwd: mkdtempSync(path.join(os.tmpdir(), 'plumb-ds-')), env: { PROD_ADMIN: 'not-a-token-of-this-instance' } });
    try {
      const schema = await other.call<{ provider: ProtoSchema }>('GetProviderSchema');
      const providerType = typeOfSchema(schema.provider);
      const configured = await other.call<{ diagnostics: Diag[] }>('ConfigureProvider', {
        terraform_version: '1.11.4',
        config: dv(objectOf(providerType, { url: emu.url, token_env: 'PROD_ADMIN' }), providerType),
        client_capabilities: { write_only_attributes_allowed: true },
      });
      expect(configured.diagnostics).toEqual([]);
      const t = types.plumb_projects!;
      const r = await other.call<{ diagnostics: Diag[] }>('ReadDataSource', { type_name: 'plumb_projects', config: dv(objectOf(t, { group: 'platform' }), t) });
      expect(r.diagnostics).toHaveLength(1);
      expect(r.diagnostics[0]!.detail).toContain(`help: ${emu.url} refused the token in PROD_ADMIN`);
    } finally {
      other.kill();
    }
  });

  it('reads nothing through a provider whose url the environment does not allow: configure fails at url, and the read says the provider is not configured', async () => {
    const other = await startProvider({ cwd: mkdtempSync(path.join(os.tmpdir(), 'plumb-ds-')), env: { PLUMB_TOKEN: ADMIN } });
    try {
      const schema = await other.call<{ provider: ProtoSchema }>('GetProviderSchema');
      const providerType = typeOfSchema(schema.provider);
      const configured = await other.call<{ diagnostics: Diag[] }>('ConfigureProvider', {
        terraform_version: '1.11.4',
        config: dv(objectOf(providerType, { url: 'https://code.elsewhere.example', token_env: 'PLUMB_TOKEN' }), providerType),
        client_capabilities: { write_only_attributes_allowed: true },
      });
      expect(configured.diagnostics.map((d) => [d.severity, at(d)])).toContainEqual(['ERROR', 'url']);
      const t = types.plumb_projects!;
      const r = await other.call<{ diagnostics: Diag[] }>('ReadDataSource', { type_name: 'plumb_projects', config: dv(objectOf(t, { group: 'platform' }), t) });
      expect(r.diagnostics.map((d) => d.summary)).toEqual(['The plumb provider is not configured']);
    } finally {
      other.kill();
    }
  });
});
