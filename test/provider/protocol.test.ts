/**
 * plumb's provider over the plugin protocol, driven exactly as Terraform drives it (harness.ts):
 * the built executable, go-plugin's handshake, mutual TLS, msgpack values typed from the served
 * schema, against the emulator over HTTP.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator } from '../helpers/emulator.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { settingNames, isSecretSetting } from '../../src/catalogue/index.js';
import { UNKNOWN } from '../../src/provider/cty.js';
import type { CtyType, CtyValue } from '../../src/provider/cty.js';
import { dv, objectOf, startProvider, typeOfSchema, undv } from './harness.js';
import { workdir } from '../helpers/cli.js';
import type { Diag, ProtoSchema, ProviderProcess } from './harness.js';
import { alive } from '../helpers/process.js';

const ADMIN = 'provider-admin-token-0123456789';
const SPAM_KEY = 'spam-filter-key-do-not-leak-4711';
const SELF_TOKEN = 'selfish-group-credential-0123456789';

let emu: RunningEmulator;
let p: ProviderProcess;
let dir: string;
let types: Record<string, CtyType>;
let providerType: CtyType;

const errors = (ds: Diag[]) => ds.filter((d) => d.severity === 'ERROR');

beforeAll(async () => {
  emu = await startTestEmulator({
    seed: {
      users: [{ username: 'root', admin: true, personal_access_tokens: [{ name: 'plumb', token: ADMIN, scopes: ['api'], expires_at: null }] }],
      groups: [
        { full_path: 'platform', id: 10, name: 'Platform', visibility: 'private', members: [{ username: 'root', access_level: 50 }] },
        // A token made outside Terraform: a resource of the same group and name must import it, not adopt it.
        // A group token that is plumb's own credential in one test: destroying its resource would lock plumb out.
        { full_path: 'selfish', id: 12, name: 'Selfish', visibility: 'private', members: [{ username: 'root', access_level: 50 }], access_tokens: [{ name: 'plumb-self', token: SELF_TOKEN, id: 90, scopes: ['api'], expires_at: '2099-01-01', access_level: 50 }] },
        ...['walk-a', 'walk-b', 'walk-c'].map((g, i) => ({ full_path: g, id: 20 + i, name: g, visibility: 'private' as const, members: [{ username: 'root', access_level: 50 }] })),
        { full_path: 'adopt', id: 11, name: 'Adopt', visibility: 'private', members: [{ username: 'root', access_level: 50 }], access_tokens: [{ name: 'out-of-band', token: 'adopt-out-of-band-token-0123', scopes: ['read_api'], expires_at: '2099-01-01', access_level: 30 }] },
      ],
      projects: [
        { path_with_namespace: 'platform/config', id: 30, visibility: 'private', default_branch: 'main', files: { 'README.md': '# config\n' } },
        {
          path_with_namespace: 'platform/site',
          id: 31,
          visibility: 'public',
          default_branch: 'main',
          pages: { unique_domain_enabled: false, https_only: false, primary_domain: null, domains: [], deployments: [{ created_at: '2025-05-20T12:00:00.000Z', root_directory: 'public' }] },
        },
      ],
    },
  });
  dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-provider-'));
  p = await startProvider({ cwd: dir, env: { PLUMB_TOKEN: ADMIN } });
  const schema = await p.call<{ provider: ProtoSchema; resource_schemas: Record<string, ProtoSchema> }>('GetProviderSchema');
  providerType = typeOfSchema(schema.provider);
  types = Object.fromEntries(Object.entries(schema.resource_schemas).map(([n, s]) => [n, typeOfSchema(s)]));
});

afterAll(async () => {
  p?.kill();
  await emu?.close();
});

async function configure(values: Record<string, CtyValue> = {}): Promise<Diag[]> {
  const r = await p.call<{ diagnostics: Diag[] }>('ConfigureProvider', {
    terraform_version: '1.11.4',
    config: dv(objectOf(providerType, { url: emu.url, token_env: 'PLUMB_TOKEN', ...values }), providerType),
    client_capabilities: { write_only_attributes_allowed: true },
  });
  return r.diagnostics;
}

interface Planned {
  planned: CtyValue;
  diagnostics: Diag[];
  requires_replace: unknown[];
}

/**
 * The private bytes Terraform keeps with each state and planned value, as Terraform passes them on:
 * a value the provider returned carries its private bytes into the next call that is given that
 * value. A value made by hand (or a copy) carries none, as a resource new to Terraform's state.
 */
const privates = new WeakMap<object, Buffer>();
const carry = (v: CtyValue, priv: Buffer | undefined): CtyValue => {
  if (v !== null && typeof v === 'object' && priv) privates.set(v, priv);
  return v;
};
const privateOf = (v: CtyValue): Buffer => (v !== null && typeof v === 'object' ? privates.get(v) : undefined) ?? Buffer.alloc(0);

async function plan(type: string, prior: CtyValue, config: CtyValue): Promise<Planned> {
  const t = types[type]!;
  const r = await p.call<{ planned_state: { msgpack: Buffer }; planned_private: Buffer; diagnostics: Diag[]; requires_replace: unknown[] }>('PlanResourceChange', {
    type_name: type,
    prior_state: dv(prior, t),
    proposed_new_state: dv(config, t),
    config: dv(config, t),
    prior_private: privateOf(prior),
  });
  return { planned: carry(undv(r.planned_state, t), r.planned_private), diagnostics: r.diagnostics, requires_replace: r.requires_replace };
}

async function apply(type: string, prior: CtyValue, planned: CtyValue, config: CtyValue): Promise<{ state: CtyValue; raw: Buffer; private: Buffer; diagnostics: Diag[] }> {
  const t = types[type]!;
  const r = await p.call<{ new_state: { msgpack: Buffer }; private: Buffer; diagnostics: Diag[] }>('ApplyResourceChange', {
    type_name: type,
    prior_state: dv(prior, t),
    planned_state: dv(planned, t),
    config: dv(config, t),
    planned_private: planned === null ? privateOf(prior) : privateOf(planned),
  });
  return { state: carry(undv(r.new_state, t), r.private), raw: r.new_state.msgpack, private: r.private, diagnostics: r.diagnostics };
}

async function read(type: string, state: CtyValue): Promise<CtyValue> {
  const t = types[type]!;
  const r = await p.call<{ new_state: { msgpack: Buffer }; private: Buffer; diagnostics: Diag[] }>('ReadResource', { type_name: type, current_state: dv(state, t), private: privateOf(state) });
  expect(errors(r.diagnostics)).toEqual([]);
  return carry(undv(r.new_state, t), r.private);
}

describe('the go-plugin handshake', () => {
  it('prints 1|6|tcp|127.0.0.1:PORT|grpc|CERT with the server certificate as unpadded base64 DER for localhost', () => {
    expect(p.handshake).toMatch(/^1\|6\|tcp\|127\.0\.0\.1:\d+\|grpc\|[A-Za-z0-9+/]{50,}$/);
    expect(p.serverCert.checkHost('localhost')).toBe('localhost');
    expect(p.serverCert.verify(p.serverCert.publicKey)).toBe(true);
  });

  it('answers the health check go-plugin pings with', async () => {
    expect((await p.health()).status).toBe('SERVING');
  });

  it('refuses a client that does not present the certificate Terraform passed', async () => {
    const stranger = grpc.credentials.createSsl(Buffer.from(p.serverCert.toString()));
    await expect(p.connectWith(stranger)('GetMetadata')).rejects.toThrow();
  });
});

describe('schema', () => {
  it('lists the resource types, the settings data source and the group listings in GetMetadata', async () => {
    const r = await p.call<{ resources: { type_name: string }[]; data_sources: { type_name: string }[] }>('GetMetadata');
    expect(r.data_sources.map((x) => x.type_name).sort()).toEqual(['plumb_application_settings', 'plumb_groups', 'plumb_projects']);
    expect(r.resources.map((x) => x.type_name).sort()).toEqual(['plumb_application_settings', 'plumb_group_access_token', 'plumb_group_variable', 'plumb_project_pages', 'plumb_project_variable', 'plumb_protected_branch', 'plumb_repository_file']);
  });

  it('serves every current setting of the catalogue, with secret settings write-only and sensitive', async () => {
    const r = await p.call<{ resource_schemas: Record<string, ProtoSchema> }>('GetProviderSchema');
    const attrs = r.resource_schemas.plumb_application_settings!.block.attributes;
    const names = new Set([...attrs.map((a) => a.name), ...r.resource_schemas.plumb_application_settings!.block.block_types.map((b) => b.type_name)]);
    for (const n of settingNames()) expect(names.has(n), n).toBe(true);
    const spam = attrs.find((a) => a.name === 'spam_filter_api_key')!;
    expect(isSecretSetting('spam_filter_api_key')).toBe(true);
    expect(spam).toMatchObject({ write_only: true, sensitive: true, optional: true, computed: false });
    const token = r.resource_schemas.plumb_group_access_token!.block.attributes;
    expect(r.resource_schemas.plumb_group_access_token!.block.block_types.find((b) => b.type_name === 'sink')).toMatchObject({ nesting: 'LIST', max_items: 1 });
    expect(token.find((a) => a.name === 'token_id')).toMatchObject({ computed: true });
  });
});

describe('validation with plumb\'s offline checks', () => {
  it('reports a missing partner setting as an error at the setting\'s attribute path', async () => {
    const t = types.plumb_application_settings!;
    const r = await p.call<{ diagnostics: Diag[] }>('ValidateResourceConfig', {
      type_name: 'plumb_application_settings',
      config: dv(objectOf(t, { require_two_factor_authentication: true }), t),
    });
    const e = errors(r.diagnostics);
    expect(e).toHaveLength(1);
    expect(e[0]!.summary).toContain('two_factor_grace_period');
    expect(e[0]!.detail).toContain('PLUMB_DEPENDENCY_MISSING');
    expect(e[0]!.attribute?.steps[0]?.attribute_name).toMatch(/two_factor_grace_period|require_two_factor_authentication/);
  });

  it('refuses a write-only setting when Terraform does not announce write-only support, and accepts it when it does', async () => {
    const t = types.plumb_application_settings!;
    const config = dv(objectOf(t, { spam_filter_enabled: true, spam_filter_api_key: SPAM_KEY }), t);
    const old = await p.call<{ diagnostics: Diag[] }>('ValidateResourceConfig', { type_name: 'plumb_application_settings', config });
    expect(errors(old.diagnostics).map((d) => d.attribute?.steps[0]?.attribute_name)).toEqual(['spam_filter_api_key']);
    expect(JSON.stringify(old.diagnostics)).not.toContain(SPAM_KEY);
    const current = await p.call<{ diagnostics: Diag[] }>('ValidateResourceConfig', {
      type_name: 'plumb_application_settings',
      config,
      client_capabilities: { write_only_attributes_allowed: true },
    });
    expect(errors(current.diagnostics)).toEqual([]);
  });

  it('reports a token with both expires_at and rotation at the token, and skips values not known yet', async () => {
    const t = types.plumb_group_access_token!;
    const base = { group: 'platform', name: 'ci', scopes: ['api'], sink: [{ file: 'x.token', command: null, stdout: null }] };
    const both = await p.call<{ diagnostics: Diag[] }>('ValidateResourceConfig', {
      type_name: 'plumb_group_access_token',
      config: dv(objectOf(t, { ...base, expires_at: '2099-01-01', rotation: [{ lifetime_days: 30, rotate_before_days: null }] }), t),
    });
    expect(errors(both.diagnostics).length).toBeGreaterThan(0);
    const unknown = await p.call<{ diagnostics: Diag[] }>('ValidateResourceConfig', {
      type_name: 'plumb_group_access_token',
      config: dv(objectOf(t, { ...base, description: UNKNOWN, rotation: [{ lifetime_days: 30, rotate_before_days: null }] }), t),
    });
    expect(errors(unknown.diagnostics)).toEqual([]);
  });

  it('reports an instance URL plumb refuses at the provider\'s url attribute', async () => {
    const r = await p.call<{ diagnostics: Diag[] }>('ValidateProviderConfig', { config: dv(objectOf(providerType, { url: 'ftp://code.example.com' }), providerType) });
    expect(errors(r.diagnostics)[0]?.attribute?.steps[0]?.attribute_name).toBe('url');
  });

  it('refuses plumb\'s ${env:…} and ${file:…} in a value under Terraform, with a sentence at the attribute, never echoing the value', async () => {
    const st = types.plumb_application_settings!;
    const r = await p.call<{ diagnostics: Diag[] }>('ValidateResourceConfig', {
      type_name: 'plumb_application_settings',
      config: dv(objectOf(st, { captcha_enabled: true, captcha_site_key: 'site', captcha_private_key: '${env:CAPTCHA_KEY}', after_sign_up_text: 'see ${file:terms.txt}' }), st),
      client_capabilities: { write_only_attributes_allowed: true },
    });
    const e = errors(r.diagnostics).filter((d) => d.detail.includes('PLUMB_TF_INTERPOLATION'));
    expect(e.map((d) => d.attribute?.steps[0]?.attribute_name).sort()).toEqual(['after_sign_up_text', 'captcha_private_key']);
    expect(e.find((d) => d.attribute?.steps[0]?.attribute_name === 'captcha_private_key')!.detail).toMatch(/var\.NAME/);
    expect(JSON.stringify(e)).not.toContain('CAPTCHA_KEY');
  });

  it('does not serve stdout in a token\'s sink block, whose secret would end in Terraform\'s log: Terraform refuses it as an unsupported argument', async () => {
    const t = types.plumb_group_access_token!;
    const sink = (t as readonly [string, Record<string, CtyType>])[1].sink as readonly [string, readonly [string, Record<string, CtyType>]];
    expect(Object.keys(sink[1][1]).sort()).toEqual(['ci_variable', 'command', 'file']);
  });

  it('refuses to configure with a URL known only after apply, naming the attribute', async () => {
    const r = await p.call<{ diagnostics: Diag[] }>('ConfigureProvider', { config: dv(objectOf(providerType, { url: UNKNOWN }), providerType) });
    const e = errors(r.diagnostics);
    expect(e).toHaveLength(1);
    expect(e[0]!.summary).toContain('url is known only after apply');
    expect(e[0]!.attribute?.steps[0]?.attribute_name).toBe('url');
  });

  it('refuses to configure when the token environment variable is unset, at token_env', async () => {
    const ds = await configure({ token_env: 'PLUMB_TOKEN_NOT_SET_ANYWHERE' });
    expect(errors(ds)[0]?.attribute?.steps[0]?.attribute_name).toBe('token_env');
  });
});

describe('values Terraform does not know yet (variables at validate, attributes of other resources at plan)', () => {
  const validate = async (type: string, values: Record<string, CtyValue>) => {
    const t = types[type]!;
    const r = await p.call<{ diagnostics: Diag[] }>('ValidateResourceConfig', { type_name: type, config: dv(objectOf(t, values), t), client_capabilities: { write_only_attributes_allowed: true } });
    return errors(r.diagnostics);
  };

  it('lets an unknown setting satisfy a dependency, a write-only one included (issue 18 item 11)', async () => {
    expect(await validate('plumb_application_settings', { require_two_factor_authentication: true, two_factor_grace_period: UNKNOWN })).toEqual([]);
    expect(await validate('plumb_application_settings', { captcha_enabled: true, captcha_site_key: 'site', captcha_private_key: UNKNOWN })).toEqual([]);
    expect(await validate('plumb_application_settings', { captcha_enabled: UNKNOWN, captcha_site_key: UNKNOWN, captcha_private_key: UNKNOWN })).toEqual([]);
  });

  it('still reports a missing partner when another, unrelated value is unknown', async () => {
    const e = await validate('plumb_application_settings', { require_two_factor_authentication: true, signup_enabled: UNKNOWN });
    expect(e.map((d) => d.detail).join('\n')).toContain('PLUMB_DEPENDENCY_MISSING');
  });

  it('lets unknown scopes, expiry, sink file and file content satisfy their presence checks', async () => {
    expect(await validate('plumb_group_access_token', { group: 'platform', name: 'ci', scopes: UNKNOWN, expires_at: UNKNOWN, sink: [{ file: UNKNOWN, command: null, stdout: null }] })).toEqual([]);
    expect(await validate('plumb_group_access_token', { group: UNKNOWN, name: UNKNOWN, scopes: ['api'], access_level: UNKNOWN, rotation: [{ lifetime_days: UNKNOWN, rotate_before_days: 7 }], sink: [{ file: 'x.token', command: null, stdout: null }] })).toEqual([]);
    expect(await validate('plumb_repository_file', { project: 'platform/config', file_path: 'CODEOWNERS', content: UNKNOWN, commit_messages: [] })).toEqual([]);
    expect(await validate('plumb_repository_file', { project: UNKNOWN, file_path: UNKNOWN, branches: UNKNOWN, source: UNKNOWN, commit_messages: [] })).toEqual([]);
    expect(await validate('plumb_project_pages', { project: UNKNOWN, pages_https_only: UNKNOWN, published: true })).toEqual([]);
  });

  it('still reports a value that is wrong whatever the unknown turns out to be', async () => {
    const e = await validate('plumb_group_access_token', { group: 'platform', name: 'ci', scopes: ['api'], expires_at: '2099-01-01', rotation: [{ lifetime_days: 30, rotate_before_days: null }], description: UNKNOWN, sink: [{ file: 'x.token', command: null, stdout: null }] });
    expect(e.length).toBeGreaterThan(0);
  });

  it('plans the attributes that depend on an unknown value as unknown', async () => {
    expect(errors(await configure())).toEqual([]);
    const st = types.plumb_application_settings!;
    const prior = objectOf(st, { id: 'application_settings', write_only_revision: 'abc', captcha_enabled: true, captcha_site_key: 'site' });
    const settings = await plan('plumb_application_settings', prior, objectOf(st, { captcha_enabled: true, captcha_site_key: 'site', captcha_private_key: UNKNOWN }));
    expect((settings.planned as Record<string, CtyValue>).write_only_revision).toBe(UNKNOWN);
    const tt = types.plumb_group_access_token!;
    const base = { group: 'platform', name: 'ci', scopes: ['api'], expires_at: '2099-01-01', sink: [{ file: 'x.token', command: null, stdout: null }] };
    const token = await plan('plumb_group_access_token', objectOf(tt, { ...base, token_id: 5, token_expires_at: '2099-01-01' }), objectOf(tt, { ...base, description: UNKNOWN }));
    expect(token.planned).toMatchObject({ token_id: UNKNOWN, token_expires_at: UNKNOWN, description: UNKNOWN });
  });
});

describe('plan, apply and read on the engine', () => {
  it('configures, creates settings, reads them back and plans no change the second time', async () => {
    expect(errors(await configure())).toEqual([]);
    const t = types.plumb_application_settings!;
    const config = objectOf(t, { signup_enabled: true, deletion_adjourned_period: 21 });
    const first = await plan('plumb_application_settings', null, config);
    expect(errors(first.diagnostics)).toEqual([]);
    expect(first.planned).toMatchObject({ id: 'application_settings', signup_enabled: true, deletion_adjourned_period: 21, write_only_revision: UNKNOWN });
    const puts = () => emu.requests.filter((r) => r.method === 'PUT').length;
    const before = puts();
    const applied = await apply('plumb_application_settings', null, first.planned, config);
    expect(errors(applied.diagnostics)).toEqual([]);
    expect(puts()).toBe(before + 1);
    const live = await (await fetch(`${emu.url}/api/v4/application/settings`, { headers: { 'PRIVATE-TOKEN': ADMIN } })).json();
    expect(live).toMatchObject({ signup_enabled: true, deletion_adjourned_period: 21 });
    const refreshed = await read('plumb_application_settings', applied.state);
    expect(refreshed).toEqual(applied.state);
    const second = await plan('plumb_application_settings', refreshed, config);
    expect(second.planned).toEqual(refreshed);
  });

  it('refuses at plan a lock-out risk the provider does not accept, at the attribute, with help naming the provider block\'s allow_risky (issue 21 defect 6)', async () => {
    const t = types.plumb_application_settings!;
    const config = objectOf(t, { admin_mode: true });
    const planned = await plan('plumb_application_settings', null, config);
    const refusal = errors(planned.diagnostics);
    expect(refusal).toHaveLength(1);
    expect(refusal[0]!.summary).toMatch(/^Risky change not accepted: turning on admin_mode/);
    expect(refusal[0]!.attribute?.steps).toEqual([expect.objectContaining({ attribute_name: 'admin_mode' })]);
    expect(refusal[0]!.detail).toContain('allow_risky in the provider "plumb" block (allow_risky = ["admin-mode-without-scope"])');
    // Terraform's words only: no CLI flag, no YAML instance.
    expect(refusal[0]!.detail).not.toMatch(/--allow-risky|--allow-destroy|of instance "terraform"/);
    // Had the plan let it through, apply would refuse it, in the same words.
    const refused = await apply('plumb_application_settings', null, planned.planned, config);
    expect(refused.state).toBeNull();
    expect(errors(refused.diagnostics).map((d) => d.detail).join('\n')).toContain('allow_risky = ["admin-mode-without-scope"]');
    expect(errors(refused.diagnostics).map((d) => `${d.summary} ${d.detail}`).join('\n')).not.toMatch(/--allow-risky|of instance "terraform"/);
    // Accepted by the provider block: one warning line, no error.
    try {
      expect(errors(await configure({ allow_risky: ['admin-mode-without-scope'] }))).toEqual([]);
      const accepted = await plan('plumb_application_settings', null, config);
      expect(errors(accepted.diagnostics)).toEqual([]);
      expect(accepted.diagnostics.filter((d) => /accepted/.test(d.summary))).toHaveLength(1);
    } finally {
      await configure();
    }
  });

  it('warns at plan, not after apply, that destroying the settings resource changes nothing on the instance', async () => {
    const t = types.plumb_application_settings!;
    const state = objectOf(t, { id: 'application_settings', write_only_revision: 'none', signup_enabled: true });
    const planned = await plan('plumb_application_settings', state, null);
    expect(planned.planned).toBeNull();
    expect(planned.diagnostics.map((d) => d.summary)).toEqual(['The application settings will be left as they are']);
    const destroyed = await apply('plumb_application_settings', state, null, null);
    expect(destroyed.diagnostics).toEqual([]);
  });

  it('stops managing a setting whose attribute is removed, leaving the instance as it is (as YAML does)', async () => {
    const t = types.plumb_application_settings!;
    const config = objectOf(t, { deletion_adjourned_period: 17, signup_enabled: true });
    const first = await plan('plumb_application_settings', null, config);
    const { state } = await apply('plumb_application_settings', null, first.planned, config);
    const without = objectOf(t, { signup_enabled: true });
    const second = await plan('plumb_application_settings', state, without);
    expect((second.planned as Record<string, CtyValue>).deletion_adjourned_period).toBeNull();
    const puts = emu.requests.filter((r) => r.method === 'PUT').length;
    const applied = await apply('plumb_application_settings', state, second.planned, without);
    expect(errors(applied.diagnostics)).toEqual([]);
    expect(emu.requests.filter((r) => r.method === 'PUT').length).toBe(puts);
    const live = (await (await fetch(`${emu.url}/api/v4/application/settings`, { headers: { 'PRIVATE-TOKEN': ADMIN } })).json()) as Record<string, unknown>;
    expect(live.deletion_adjourned_period).toBe(17);
  });

  it('agrees with plumb plan from YAML: what the provider applied, the same YAML plans as no change', async () => {
    const st = types.plumb_application_settings!;
    const tt = types.plumb_group_access_token!;
    const settings = objectOf(st, { signup_enabled: false, two_factor_grace_period: 24, require_two_factor_authentication: true, restricted_visibility_levels: ['public'] });
    const s1 = await plan('plumb_application_settings', null, settings);
    expect(errors((await apply('plumb_application_settings', null, s1.planned, settings)).diagnostics)).toEqual([]);
    const token = objectOf(tt, { group: 'platform', name: 'parity', scopes: ['read_api'], access_level: 'reporter', rotation: [{ lifetime_days: 60, rotate_before_days: 10 }], sink: [{ file: 'parity.token', command: null, stdout: null }] });
    const t1 = await plan('plumb_group_access_token', null, token);
    expect(errors((await apply('plumb_group_access_token', null, t1.planned, token)).diagnostics)).toEqual([]);
    const wd = workdir({ PLUMB_TOKEN: ADMIN });
    wd.allow('parity.token');
    wd.write(
      'plumb.yaml',
      `version: 1
instances:
  terraform:
    url: ${emu.url}
    token_env: PLUMB_TOKEN
    settings:
      signup_enabled: false
      two_factor_grace_period: 24
      require_two_factor_authentication: true
      restricted_visibility_levels: [public]
    groups:
      platform:
        access_tokens:
          parity:
            scopes: [read_api]
            access_level: reporter
            rotation: {lifetime_days: 60, rotate_before_days: 10}
            sink: {file: ${path.join(dir, 'parity.token')}}
`,
    );
    const r = await wd.run(['plan', '--json', '--state', path.join(dir, '.plumb/state.json')]);
    expect(r.code).toBe(0);
    const yamlPlan = JSON.parse(r.stdout) as { changes: { address: string; action: string }[] };
    expect(yamlPlan.changes.filter((c) => c.action !== 'no-op')).toEqual([]);
  });

  it('shows an out-of-band change on refresh', async () => {
    const t = types.plumb_application_settings!;
    const config = objectOf(t, { signup_enabled: true });
    const first = await plan('plumb_application_settings', null, config);
    const { state } = await apply('plumb_application_settings', null, first.planned, config);
    await fetch(`${emu.url}/api/v4/application/settings?signup_enabled=false`, { method: 'PUT', headers: { 'PRIVATE-TOKEN': ADMIN } });
    expect(await read('plumb_application_settings', state)).toMatchObject({ signup_enabled: false });
  });

  it('sends a write-only setting once, never puts it in state, and plans no change while it is the same', async () => {
    const t = types.plumb_application_settings!;
    const config = objectOf(t, { spam_filter_enabled: true, spam_filter_api_key: SPAM_KEY });
    const first = await plan('plumb_application_settings', null, config);
    expect(errors(first.diagnostics)).toEqual([]);
    expect((first.planned as Record<string, CtyValue>).spam_filter_api_key).toBeNull();
    const applied = await apply('plumb_application_settings', null, first.planned, config);
    expect(errors(applied.diagnostics)).toEqual([]);
    expect(applied.raw.includes(Buffer.from(SPAM_KEY))).toBe(false);
    expect((applied.state as Record<string, CtyValue>).spam_filter_api_key).toBeNull();
    const revision = (applied.state as Record<string, CtyValue>).write_only_revision;
    expect(typeof revision).toBe('string');
    const refreshed = await read('plumb_application_settings', applied.state);
    const again = await plan('plumb_application_settings', refreshed, config);
    expect((again.planned as Record<string, CtyValue>).write_only_revision).toBe(revision);
    const changed = await plan('plumb_application_settings', refreshed, { ...config, spam_filter_api_key: `${SPAM_KEY}-new` });
    expect((changed.planned as Record<string, CtyValue>).write_only_revision).toBe(UNKNOWN);
    expect(p.stderr()).not.toContain(SPAM_KEY);
  });

  it('keeps every fingerprint when Terraform applies a write-only setting and a token at the same time', async () => {
    expect(errors(await configure())).toEqual([]);
    const st = types.plumb_application_settings!;
    const tt = types.plumb_group_access_token!;
    const settings = objectOf(st, { spam_check_endpoint_enabled: false, spam_check_api_key: `${SPAM_KEY}-concurrent` });
    const tokens = ['conc-a', 'conc-b', 'conc-c'].map((name) =>
      objectOf(tt, { group: 'platform', name, scopes: ['read_api'], rotation: [{ lifetime_days: 30, rotate_before_days: null }], sink: [{ file: `${name}.token`, command: null, stdout: null }] }),
    );
    const sp = await plan('plumb_application_settings', null, settings);
    const tps = await Promise.all(tokens.map((c) => plan('plumb_group_access_token', null, c)));
    // Token creation is slow: the settings apply records its fingerprint while they are in flight.
    emu.addFault({ method: 'POST', path: '/groups/*/access_tokens', action: { kind: 'latency', ms: 300 } });
    const [applied] = await Promise.all([
      apply('plumb_application_settings', null, sp.planned, settings),
      ...tokens.map((c, i) => apply('plumb_group_access_token', null, tps[i]!.planned, c)),
    ]);
    emu.clearFaults();
    expect(errors(applied.diagnostics)).toEqual([]);
    const again = await plan('plumb_application_settings', await read('plumb_application_settings', applied.state), settings);
    expect((again.planned as Record<string, CtyValue>).write_only_revision).toBe((applied.state as Record<string, CtyValue>).write_only_revision);
  });

  it('refuses to overwrite a file committed to between terraform plan and apply, and writes nothing', async () => {
    // main is protected (the instance's default): an administrator's commit there is a risk to accept (docs/terraform.md#file-delivery).
    expect(errors(await configure({ allow_risky: ['admin-push-protected-branch'] }))).toEqual([]);
    const t = types.plumb_repository_file!;
    const config = objectOf(t, { project: 'platform/config', file_path: 'CODEOWNERS', content: '* @platform\n', commit_messages: [] });
    const first = await plan('plumb_repository_file', null, config);
    expect(errors(first.diagnostics)).toEqual([]);
    expect(first.planned).toMatchObject({ content_sha256: { main: expect.stringMatching(/^sha256:[0-9a-f]{12}$/) }, last_commit_id: UNKNOWN });
    const created = await apply('plumb_repository_file', null, first.planned, config);
    expect(errors(created.diagnostics)).toEqual([]);
    const state = created.state as Record<string, CtyValue>;
    expect(Object.keys(state.last_commit_id as object)).toEqual(['main']);
    // Terraform plans an update from the refreshed state; then someone pushes before apply.
    const changed = { ...config, content: '* @platform @security\n' };
    const refreshed = await read('plumb_repository_file', state);
    const update = await plan('plumb_repository_file', refreshed, changed);
    const file = `${emu.url}/api/v4/projects/30/repository/files/CODEOWNERS`;
    const push = await fetch(file, { method: 'PUT', headers: { 'PRIVATE-TOKEN': ADMIN, 'Content-Type': 'application/json' }, body: JSON.stringify({ branch: 'main', content: '* @someone\n', commit_message: 'push' }) });
    expect(push.status).toBe(200);
    const refused = await apply('plumb_repository_file', refreshed, update.planned, changed);
    expect(errors(refused.diagnostics)[0]?.summary).toMatch(/CODEOWNERS on main of platform\/config changed since terraform plan/);
    expect(refused.state).toEqual(refreshed);
    expect(await (await fetch(`${file}/raw?ref=main`, { headers: { 'PRIVATE-TOKEN': ADMIN } })).text()).toBe('* @someone\n');
    // Refreshed again, the push shows as a change of the digest, and apply restores the file.
    const again = await read('plumb_repository_file', refreshed);
    expect((again as Record<string, CtyValue>).content_sha256).not.toEqual((refreshed as Record<string, CtyValue>).content_sha256);
    const replan = await plan('plumb_repository_file', again, changed);
    expect(errors((await apply('plumb_repository_file', again, replan.planned, changed)).diagnostics)).toEqual([]);
    expect(await (await fetch(`${file}/raw?ref=main`, { headers: { 'PRIVATE-TOKEN': ADMIN } })).text()).toBe('* @platform @security\n');
  });

  it('honours delivery { commit { skip_ci = true } } (the file in its own commit, no pipeline) and refuses delivery { merge_request } at validate and plan, at the block, never ignoring it', async () => {
    expect(errors(await configure({ allow_risky: ['admin-push-protected-branch'] }))).toEqual([]);
    const t = types.plumb_repository_file!;
    const withDelivery = (delivery: CtyValue) => objectOf(t, { project: 'platform/config', file_path: 'DELIVERY.md', content: 'delivered\n', commit_messages: [], delivery });
    const mr = withDelivery([{ commit: [], merge_request: [{ branch: null, title: null, description: null, labels: ['plumb'], auto_merge: null, remove_source_branch: null, squash: null }] }]);
    const steps = [{ attribute_name: 'delivery' }, { element_key_int: 0 }, { attribute_name: 'merge_request' }];
    const validated = await p.call<{ diagnostics: Diag[] }>('ValidateResourceConfig', { type_name: 'plumb_repository_file', config: dv(mr, t), client_capabilities: { write_only_attributes_allowed: true } });
    expect(errors(validated.diagnostics).map((d) => d.summary)).toEqual(['delivery { merge_request } is not supported under terraform']);
    expect(errors(validated.diagnostics)[0]!.attribute?.steps).toMatchObject(steps);
    expect(errors(validated.diagnostics)[0]!.detail).toMatch(/one resource at a time[\s\S]*plumb plan\/apply[\s\S]*PLUMB_TF_FILE_MERGE_REQUEST/);
    const refused = await plan('plumb_repository_file', null, mr);
    expect(errors(refused.diagnostics).map((d) => d.summary)).toEqual(['delivery { merge_request } is not supported under terraform']);
    expect(errors(refused.diagnostics)[0]!.attribute?.steps).toMatchObject(steps);
    const before = emu.requests.filter((r) => r.method !== 'GET' && r.method !== 'HEAD').length;

    // Another file: the refused plan's resource owns DELIVERY.md in this run (one owner per object).
    const commit = { ...withDelivery([{ commit: [{ skip_ci: true }], merge_request: [] }]), file_path: 'SKIPPED.md' };
    const validCommit = await p.call<{ diagnostics: Diag[] }>('ValidateResourceConfig', { type_name: 'plumb_repository_file', config: dv(commit, t), client_capabilities: { write_only_attributes_allowed: true } });
    expect(errors(validCommit.diagnostics)).toEqual([]);
    const planned = await plan('plumb_repository_file', null, commit);
    expect(errors(planned.diagnostics)).toEqual([]);
    // The refused plan wrote nothing.
    expect(emu.requests.filter((r) => r.method !== 'GET' && r.method !== 'HEAD').length).toBe(before);
    const created = await apply('plumb_repository_file', null, planned.planned, commit);
    expect(errors(created.diagnostics)).toEqual([]);
    const head = emu.state.projects.find((x) => x.pathWithNamespace === 'platform/config')!.repo.branchHead('main')!;
    expect(head.files.get('SKIPPED.md')!.data.toString()).toBe('delivered\n');
    expect(head.message).toContain('[skip ci]');
  });

  it('destroys a file with the configured commit message and author', async () => {
    // main is protected (the instance's default): an administrator's commit there is a risk to accept (docs/terraform.md#file-delivery).
    expect(errors(await configure({ allow_risky: ['admin-push-protected-branch'] }))).toEqual([]);
    const t = types.plumb_repository_file!;
    const config = objectOf(t, { project: 'platform/config', file_path: 'LEAVING.md', content: 'bye\n', commit_message: 'chore: {action} {path} via terraform', author_name: 'Infra Bot', author_email: 'infra@example.com', commit_messages: [] });
    const created = await apply('plumb_repository_file', null, (await plan('plumb_repository_file', null, config)).planned, config);
    expect(errors(created.diagnostics)).toEqual([]);
    const refreshed = await read('plumb_repository_file', created.state);
    const gone = await apply('plumb_repository_file', refreshed, null, null);
    expect(errors(gone.diagnostics)).toEqual([]);
    const head = emu.state.projects.find((x) => x.id === 30)!.repo.branchHead('main')!;
    expect(head.files.has('LEAVING.md')).toBe(false);
    expect(head.author).toMatchObject({ name: 'Infra Bot', email: 'infra@example.com' });
    expect(head.message).toContain('chore: delete LEAVING.md via terraform');
  });

  it('shows an out-of-band chmod -x on refresh as a change of execute_filemode', async () => {
    // main is protected (the instance's default): an administrator's commit there is a risk to accept (docs/terraform.md#file-delivery).
    expect(errors(await configure({ allow_risky: ['admin-push-protected-branch'] }))).toEqual([]);
    const t = types.plumb_repository_file!;
    const config = objectOf(t, { project: 'platform/config', file_path: 'run.sh', content: '#!/bin/sh\necho hi\n', execute_filemode: true, commit_messages: [] });
    const created = await apply('plumb_repository_file', null, (await plan('plumb_repository_file', null, config)).planned, config);
    expect(errors(created.diagnostics)).toEqual([]);
    expect((await read('plumb_repository_file', created.state) as Record<string, CtyValue>).execute_filemode).toBe(true);
    const chmod = await fetch(`${emu.url}/api/v4/projects/30/repository/files/run.sh`, { method: 'PUT', headers: { 'PRIVATE-TOKEN': ADMIN, 'Content-Type': 'application/json' }, body: JSON.stringify({ branch: 'main', content: '#!/bin/sh\necho hi\n', execute_filemode: false, commit_message: 'chmod -x' }) });
    expect(chmod.status).toBe(200);
    const refreshed = (await read('plumb_repository_file', created.state)) as Record<string, CtyValue>;
    expect(refreshed.execute_filemode).toBe(false);
    const again = await plan('plumb_repository_file', refreshed, config);
    expect((again.planned as Record<string, CtyValue>).execute_filemode).toBe(true);
  });

  it('unpublishes Pages only with allow_unpublish, refused at plan at published otherwise, and a destroy of the resource leaves the site published', async () => {
    const t = types.plumb_project_pages!;
    const published = () => fetch(`${emu.url}/api/v4/projects/31/pages`, { headers: { 'PRIVATE-TOKEN': ADMIN } }).then(async (r) => ((await r.json()) as { deployments: unknown[] }).deployments.length > 0);
    const kept = objectOf(t, { project: 'platform/site', pages_https_only: false, published: true });
    const managed = await apply('plumb_project_pages', null, (await plan('plumb_project_pages', null, kept)).planned, kept);
    expect(errors(managed.diagnostics)).toEqual([]);
    // The destroy says at plan what it leaves; apply says nothing more.
    const destroyPlan = await plan('plumb_project_pages', managed.state, null);
    expect(destroyPlan.diagnostics.map((d) => d.summary)).toEqual(['The Pages of platform/site will be left as they are']);
    const destroyed = await apply('plumb_project_pages', managed.state, null, null);
    expect(destroyed.state).toBeNull();
    expect(destroyed.diagnostics).toEqual([]);
    expect(await published()).toBe(true);
    const unpublish = objectOf(t, { project: 'platform/site', published: false });
    const gated = await plan('plumb_project_pages', null, unpublish);
    const refusal = errors(gated.diagnostics);
    expect(refusal).toHaveLength(1);
    expect(refusal[0]!.summary).toMatch(/^Destroy not accepted: unpublishing the Pages of project "platform\/site"/);
    expect(refusal[0]!.attribute?.steps).toEqual([expect.objectContaining({ attribute_name: 'published' })]);
    expect(refusal[0]!.detail).toContain('allow_unpublish = true` in this resource');
    expect(`${refusal[0]!.summary} ${refusal[0]!.detail}`).not.toMatch(/--allow-destroy|--allow-risky|pages block|allow_unpublish: true/);
    const refused = await apply('plumb_project_pages', null, gated.planned, unpublish);
    expect(errors(refused.diagnostics).length).toBeGreaterThan(0);
    expect(errors(refused.diagnostics).map((d) => d.detail).join('\n')).not.toMatch(/--allow-destroy/);
    expect(await published()).toBe(true);
    const optedIn = { ...unpublish, allow_unpublish: true };
    const accepted = await plan('plumb_project_pages', null, optedIn);
    expect(errors(accepted.diagnostics)).toEqual([]);
    const done = await apply('plumb_project_pages', null, accepted.planned, optedIn);
    expect(errors(done.diagnostics)).toEqual([]);
    expect(await published()).toBe(false);
    // A plan diagnostic of the engine is at the attribute its value came from, too.
    const unserved = await plan('plumb_project_pages', null, objectOf(t, { project: 'platform/site', published: true }));
    const notPublished = unserved.diagnostics.find((d) => /nothing is deployed/.test(d.summary));
    expect(notPublished?.attribute?.steps).toEqual([expect.objectContaining({ attribute_name: 'published' })]);
  });

  it('protects a branch (plumb_protected_branch), sees a hand change at refresh, refuses a level change without the replacement risk accepted, imports a rule and unprotects on destroy', async () => {
    expect(errors(await configure())).toEqual([]);
    const t = types.plumb_protected_branch!;
    const rules = async () => (await (await fetch(`${emu.url}/api/v4/projects/30/protected_branches`, { headers: { 'PRIVATE-TOKEN': ADMIN } })).json()) as { name: string; push_access_levels: { access_level: number }[]; allow_force_push: boolean }[];
    const config = objectOf(t, { project: 'platform/config', branch: 'release/*', push_access_level: 'no_access', allow_force_push: false });
    const created = await apply('plumb_protected_branch', null, (await plan('plumb_protected_branch', null, config)).planned, config);
    expect(errors(created.diagnostics)).toEqual([]);
    expect((created.state as Record<string, CtyValue>).id).toBe('platform/config:release/*');
    expect((await rules()).find((r) => r.name === 'release/*')).toMatchObject({ push_access_levels: [{ access_level: 0 }], allow_force_push: false });
    // A hand change shows at refresh, and the next plan puts it back (an update in place).
    const patched = await fetch(`${emu.url}/api/v4/projects/30/protected_branches/release%2F*`, { method: 'PATCH', headers: { 'PRIVATE-TOKEN': ADMIN, 'Content-Type': 'application/json' }, body: JSON.stringify({ allow_force_push: true }) });
    expect(patched.status).toBe(200);
    const refreshed = (await read('plumb_protected_branch', created.state)) as Record<string, CtyValue>;
    expect(refreshed.allow_force_push).toBe(true);
    const back = await plan('plumb_protected_branch', refreshed, config);
    expect(errors(back.diagnostics)).toEqual([]);
    expect(errors((await apply('plumb_protected_branch', refreshed, back.planned, config)).diagnostics)).toEqual([]);
    expect((await rules()).find((r) => r.name === 'release/*')!.allow_force_push).toBe(false);
    // A level cannot change in place: the replacement's risk is an error at plan unless allow_risky lists it.
    const developers = { ...config, push_access_level: 'developer' };
    const risky = errors((await plan('plumb_protected_branch', created.state, developers)).diagnostics);
    expect(risky.map((d) => d.summary)).toEqual([expect.stringMatching(/^Risky change not accepted: push_access_level of protected branch "release\/\*"/)]);
    expect(risky[0]!.detail).toContain('allow_risky = ["protected-branch-replaced"]');
    const imported = await p.call<{ imported_resources: { state: { msgpack: Buffer } }[]; diagnostics: Diag[] }>('ImportResourceState', { type_name: 'plumb_protected_branch', id: 'platform/config:main' });
    expect(errors(imported.diagnostics)).toEqual([]);
    expect(undv(imported.imported_resources[0]!.state, t)).toMatchObject({ project: 'platform/config', branch: 'main', push_access_level: 'maintainer', merge_access_level: 'maintainer', allow_force_push: false });
    const destroyed = await apply('plumb_protected_branch', created.state, null, null);
    expect(errors(destroyed.diagnostics)).toEqual([]);
    expect(destroyed.state).toBeNull();
    expect((await rules()).map((r) => r.name)).toEqual(['main']);
  });

  it('creates a group access token, delivers its secret to the sink, keeps it out of state, and destroys it', async () => {
    const t = types.plumb_group_access_token!;
    const config = objectOf(t, {
      group: 'platform',
      name: 'tf-ci',
      scopes: ['read_api'],
      access_level: 'developer',
      rotation: [{ lifetime_days: 30, rotate_before_days: 7 }],
      sink: [{ file: 'tf-ci.token', command: null, stdout: null }],
    });
    const first = await plan('plumb_group_access_token', null, config);
    expect(errors(first.diagnostics)).toEqual([]);
    expect(first.planned).toMatchObject({ token_id: UNKNOWN, token_expires_at: UNKNOWN });
    const applied = await apply('plumb_group_access_token', null, first.planned, config);
    expect(errors(applied.diagnostics)).toEqual([]);
    const secretFile = path.join(dir, 'tf-ci.token');
    expect(existsSync(secretFile)).toBe(true);
    const issued = readFileSync(secretFile, 'utf8').trim();
    expect(issued.length).toBeGreaterThan(8);
    expect(applied.raw.includes(Buffer.from(issued))).toBe(false);
    const state = applied.state as Record<string, CtyValue>;
    expect(typeof state.token_id).toBe('number');
    const refreshed = await read('plumb_group_access_token', state);
    const again = await plan('plumb_group_access_token', refreshed, config);
    expect(again.planned).toEqual(refreshed);
    // Destroy: planned null, the token is revoked.
    const gone = await apply('plumb_group_access_token', refreshed, null, null);
    expect(errors(gone.diagnostics)).toEqual([]);
    expect(gone.state).toBeNull();
    const tokens = (await (await fetch(`${emu.url}/api/v4/groups/platform/access_tokens`, { headers: { 'PRIVATE-TOKEN': ADMIN } })).json()) as { id: number; revoked: boolean }[];
    expect(tokens.find((x) => x.id === state.token_id)?.revoked).toBe(true);
    expect(p.stderr()).not.toContain(issued);
  });

  it('plans a due rotation as an update of token_id with plumb\'s reason, and rotates with the new secret in the sink', async () => {
    const t = types.plumb_group_access_token!;
    const config = objectOf(t, {
      group: 'platform',
      name: 'rotating',
      scopes: ['read_api'],
      rotation: [{ lifetime_days: 30, rotate_before_days: 7 }],
      sink: [{ file: 'rotating.token', command: null, stdout: null }],
    });
    const first = await plan('plumb_group_access_token', null, config);
    const created = await apply('plumb_group_access_token', null, first.planned, config);
    expect(errors(created.diagnostics)).toEqual([]);
    const firstSecret = readFileSync(path.join(dir, 'rotating.token'), 'utf8');
    // The same provider, 26 days later: the token expires within rotate_before_days.
    const later = await startProvider({ cwd: dir, env: { PLUMB_TOKEN: ADMIN, PLUMB_NOW: new Date(Date.now() + 26 * 86_400_000).toISOString() } });
    try {
      await later.call('ConfigureProvider', { config: dv(objectOf(providerType, { url: emu.url }), providerType) });
      const r = await later.call<{ planned_state: { msgpack: Buffer }; diagnostics: Diag[] }>('PlanResourceChange', {
        type_name: 'plumb_group_access_token',
        prior_state: dv(created.state, t),
        proposed_new_state: dv(config, t),
        config: dv(config, t),
      });
      const planned = undv(r.planned_state, t) as Record<string, CtyValue>;
      expect(planned.token_id).toBe(UNKNOWN);
      const warning = r.diagnostics.find((d) => d.severity === 'WARNING')!;
      expect(warning.summary).toMatch(/rotate the token "rotating".*expiring-soon/);
      const a = await later.call<{ new_state: { msgpack: Buffer }; diagnostics: Diag[] }>('ApplyResourceChange', {
        type_name: 'plumb_group_access_token',
        prior_state: dv(created.state, t),
        planned_state: dv(planned, t),
        config: dv(config, t),
      });
      expect(errors(a.diagnostics)).toEqual([]);
      const rotated = undv(a.new_state, t) as Record<string, CtyValue>;
      expect(rotated.token_id).not.toBe((created.state as Record<string, CtyValue>).token_id);
      const secondSecret = readFileSync(path.join(dir, 'rotating.token'), 'utf8');
      expect(secondSecret).not.toBe(firstSecret);
      expect(a.new_state.msgpack.includes(Buffer.from(secondSecret.trim()))).toBe(false);
    } finally {
      later.kill();
    }
  });

  it('reads the current settings through the data source, secret settings left out', async () => {
    const schema = await p.call<{ data_source_schemas: Record<string, ProtoSchema> }>('GetProviderSchema');
    const t = typeOfSchema(schema.data_source_schemas.plumb_application_settings!);
    expect(schema.data_source_schemas.plumb_application_settings!.block.attributes.some((a) => a.name === 'spam_filter_api_key')).toBe(false);
    await fetch(`${emu.url}/api/v4/application/settings?deletion_adjourned_period=9`, { method: 'PUT', headers: { 'PRIVATE-TOKEN': ADMIN } });
    const r = await p.call<{ state: { msgpack: Buffer }; diagnostics: Diag[] }>('ReadDataSource', { type_name: 'plumb_application_settings', config: dv(objectOf(t, {}), t) });
    expect(errors(r.diagnostics)).toEqual([]);
    const live = undv(r.state, t) as Record<string, CtyValue>;
    expect(live).toMatchObject({ id: 'application_settings', deletion_adjourned_period: 9 });
    expect(live.users_api_limit_keys).toBe(120);
  });

  it('answers the refreshes and plans of several tokens of one group with one list of the group, and lists again after an apply', async () => {
    const t = types.plumb_group_access_token!;
    const states: CtyValue[] = [];
    const configs: CtyValue[] = [];
    for (const name of ['shared-a', 'shared-b', 'shared-c']) {
      const config = objectOf(t, { group: 'platform', name, scopes: ['read_api'], rotation: [{ lifetime_days: 30, rotate_before_days: null }], sink: [{ file: `${name}.token`, command: null, stdout: null }] });
      const first = await plan('plumb_group_access_token', null, config);
      const applied = await apply('plumb_group_access_token', null, first.planned, config);
      expect(errors(applied.diagnostics)).toEqual([]);
      states.push(applied.state);
      configs.push(config);
    }
    // A fresh provider process, as Terraform starts one for its plan.
    const fresh = await startProvider({ cwd: dir, env: { PLUMB_TOKEN: ADMIN } });
    try {
      await fresh.call('ConfigureProvider', { config: dv(objectOf(providerType, { url: emu.url }), providerType) });
      const lists = () => emu.requests.filter((r) => r.method === 'GET' && r.path.includes('/access_tokens')).length;
      const before = lists();
      const refreshed = await Promise.all(
        states.map(async (st) => undv((await fresh.call<{ new_state: { msgpack: Buffer } }>('ReadResource', { type_name: 'plumb_group_access_token', current_state: dv(st, t) })).new_state, t)),
      );
      expect(refreshed.map((r) => (r as Record<string, CtyValue>).token_id)).toEqual(states.map((st) => (st as Record<string, CtyValue>).token_id));
      expect(lists() - before).toBe(1);
      const planOn = (prior: CtyValue, config: CtyValue) =>
        fresh.call<{ planned_state: { msgpack: Buffer }; diagnostics: Diag[] }>('PlanResourceChange', {
          type_name: 'plumb_group_access_token',
          prior_state: dv(prior, t),
          proposed_new_state: dv(config, t),
          config: dv(config, t),
          prior_private: Buffer.alloc(0),
        });
      const plans = await Promise.all(refreshed.map((st, i) => planOn(st, configs[i]!)));
      for (const pl of plans) expect(errors(pl.diagnostics)).toEqual([]);
      expect(lists() - before).toBe(1);
      // An apply empties the shared reads: what a plan sees next was read after the write (a list
      // from before it would plan the new token's creation again).
      const extra = objectOf(t, { group: 'platform', name: 'shared-d', scopes: ['read_api'], rotation: [{ lifetime_days: 30, rotate_before_days: null }], sink: [{ file: 'shared-d.token', command: null, stdout: null }] });
      const planned = undv((await planOn(null, extra)).planned_state, t);
      const applied = await fresh.call<{ new_state: { msgpack: Buffer } }>('ApplyResourceChange', { type_name: 'plumb_group_access_token', prior_state: dv(null, t), planned_state: dv(planned, t), config: dv(extra, t), planned_private: Buffer.alloc(0) });
      const state = undv(applied.new_state, t) as Record<string, CtyValue>;
      expect(typeof state.token_id).toBe('number');
      const next = undv((await planOn(state, extra)).planned_state, t) as Record<string, CtyValue>;
      expect(next.token_id).toBe(state.token_id);
    } finally {
      fresh.kill();
    }
  });

  it('refuses to create a token whose group and name exist already, naming terraform import, and writes nothing', async () => {
    expect(errors(await configure())).toEqual([]);
    const t = types.plumb_group_access_token!;
    const config = objectOf(t, { group: 'adopt', name: 'out-of-band', scopes: ['read_api'], rotation: [{ lifetime_days: 30, rotate_before_days: null }], sink: [{ file: 'oob.token', command: null, stdout: null }] });
    const planned = await plan('plumb_group_access_token', null, config);
    const refusal = errors(planned.diagnostics);
    expect(refusal).toHaveLength(1);
    expect(refusal[0]!.summary).toContain('already exists; import it with `terraform import <address> adopt:out-of-band`');
    // Applied anyway (a plan from before the token appeared): refused too, no request, no sink.
    const writes = emu.requests.filter((r) => r.method !== 'GET').length;
    const applied = await apply('plumb_group_access_token', null, { ...(config as Record<string, CtyValue>), token_id: UNKNOWN, token_expires_at: UNKNOWN }, config);
    expect(errors(applied.diagnostics)[0]?.summary).toContain('already exists');
    expect(applied.state).toBeNull();
    expect(emu.requests.filter((r) => r.method !== 'GET').length).toBe(writes);
    expect(existsSync(path.join(dir, 'oob.token'))).toBe(false);
    // Once imported, the state records the token and the same configuration plans without an error.
    const imported = await p.call<{ imported_resources: { state: { msgpack: Buffer } }[] }>('ImportResourceState', { type_name: 'plumb_group_access_token', id: 'adopt:out-of-band' });
    const state = await read('plumb_group_access_token', undv(imported.imported_resources[0]!.state, t));
    expect(errors((await plan('plumb_group_access_token', state, config)).diagnostics)).toEqual([]);
  });

  it('keeps the configured order of scopes and of a list setting through refresh, so a reordering plans once and then no change', async () => {
    expect(errors(await configure())).toEqual([]);
    const t = types.plumb_group_access_token!;
    const base = { group: 'platform', name: 'ordered', rotation: [{ lifetime_days: 30, rotate_before_days: null }], sink: [{ file: 'ordered.token', command: null, stdout: null }] };
    const config = objectOf(t, { ...base, scopes: ['read_api', 'read_repository'] });
    const created = await apply('plumb_group_access_token', null, (await plan('plumb_group_access_token', null, config)).planned, config);
    expect(errors(created.diagnostics)).toEqual([]);
    const reordered = objectOf(t, { ...base, scopes: ['read_repository', 'read_api'] });
    const writes = emu.requests.filter((r) => r.method !== 'GET').length;
    const refreshed = await read('plumb_group_access_token', created.state);
    const update = await plan('plumb_group_access_token', refreshed, reordered);
    expect(errors(update.diagnostics)).toEqual([]);
    const applied = await apply('plumb_group_access_token', refreshed, update.planned, reordered);
    expect(errors(applied.diagnostics)).toEqual([]);
    expect(emu.requests.filter((r) => r.method !== 'GET').length).toBe(writes); // the same set: nothing to send
    const after = await read('plumb_group_access_token', applied.state);
    expect((after as Record<string, CtyValue>).scopes).toEqual(['read_repository', 'read_api']);
    expect((await plan('plumb_group_access_token', after, reordered)).planned).toEqual(after);

    const s = types.plumb_application_settings!;
    const first = objectOf(s, { domain_allowlist: ['a.example', 'b.example'] });
    const done = await apply('plumb_application_settings', null, (await plan('plumb_application_settings', null, first)).planned, first);
    expect(errors(done.diagnostics)).toEqual([]);
    const swapped = objectOf(s, { domain_allowlist: ['b.example', 'a.example'] });
    const once = await plan('plumb_application_settings', await read('plumb_application_settings', done.state), swapped);
    const kept = await apply('plumb_application_settings', done.state, once.planned, swapped);
    const settled = await read('plumb_application_settings', kept.state);
    expect((settled as Record<string, CtyValue>).domain_allowlist).toEqual(['b.example', 'a.example']);
    expect((await plan('plumb_application_settings', settled, swapped)).planned).toEqual(settled);
  });

  it('imports a file on its default branch with branches unset and a token with its live expiry, so only what the instance cannot tell (a sink) plans as a change', async () => {
    expect(errors(await configure())).toEqual([]);
    const f = types.plumb_repository_file!;
    const file = await p.call<{ imported_resources: { state: { msgpack: Buffer } }[]; diagnostics: Diag[] }>('ImportResourceState', { type_name: 'plumb_repository_file', id: 'platform/config:main:README.md' });
    expect(errors(file.diagnostics)).toEqual([]);
    const fileState = await read('plumb_repository_file', undv(file.imported_resources[0]!.state, f));
    expect((fileState as Record<string, CtyValue>).branches).toBeNull();
    const t = types.plumb_group_access_token!;
    const token = await p.call<{ imported_resources: { state: { msgpack: Buffer } }[] }>('ImportResourceState', { type_name: 'plumb_group_access_token', id: 'adopt:out-of-band' });
    const tokenState = await read('plumb_group_access_token', undv(token.imported_resources[0]!.state, t));
    expect((tokenState as Record<string, CtyValue>).expires_at).toBe('2099-01-01');
    // What terraform plan -generate-config-out writes from that state, plus the sink the instance
    // cannot tell: only the sink is a change (role, scopes and expiry are not).
    const sink: CtyValue = [{ file: 'adopted.token', command: null, ci_variable: null }];
    const generated = Object.fromEntries(Object.entries(tokenState as Record<string, CtyValue>).map(([k, v]) => [k, ['token_id', 'token_expires_at'].includes(k) ? null : k === 'sink' ? sink : v])) as Record<string, CtyValue>;
    const again = await plan('plumb_group_access_token', tokenState, generated);
    expect(errors(again.diagnostics).map((d) => d.summary)).toEqual([]);
    expect(again.planned).toEqual({ ...(tokenState as Record<string, CtyValue>), sink });
  });

  it('imports what the instance can tell, so a configuration that says the same plans no change: settings, a text file\'s content, Pages\' published, a token\'s level spelled as a number (issue 21 defect 9)', async () => {
    expect(errors(await configure())).toEqual([]);
    const importOne = async (type: string, id: string) => {
      const r = await p.call<{ imported_resources: { state: { msgpack: Buffer } }[]; diagnostics: Diag[] }>('ImportResourceState', { type_name: type, id });
      expect(errors(r.diagnostics)).toEqual([]);
      return (await read(type, undv(r.imported_resources[0]!.state, types[type]!))) as Record<string, CtyValue>;
    };
    // As Terraform proposes: the configuration, and for an optional computed attribute it leaves out, the prior value.
    const planOver = async (type: string, prior: Record<string, CtyValue>, written: Record<string, CtyValue>) => {
      const t = types[type]!;
      const config = objectOf(t, written) as Record<string, CtyValue>;
      const served = (await p.call<{ resource_schemas: Record<string, ProtoSchema> }>('GetProviderSchema')).resource_schemas[type]!;
      const computed = new Set(served.block.attributes.filter((a) => a.computed).map((a) => a.name));
      const proposed: Record<string, CtyValue> = Object.fromEntries(Object.entries(config).map(([k, v]) => [k, v === null && computed.has(k) ? prior[k] ?? null : v]));
      const r = await p.call<{ planned_state: { msgpack: Buffer }; diagnostics: Diag[] }>('PlanResourceChange', { type_name: type, prior_state: dv(prior, t), proposed_new_state: dv(proposed, t), config: dv(config, t), prior_private: Buffer.alloc(0) });
      expect(errors(r.diagnostics)).toEqual([]);
      return undv(r.planned_state, t);
    };
    const live = (await (await fetch(`${emu.url}/api/v4/application/settings`, { headers: { 'PRIVATE-TOKEN': ADMIN } })).json()) as Record<string, CtyValue>;
    const settings = await importOne('plumb_application_settings', 'application_settings');
    expect(settings).toMatchObject({ signup_enabled: live.signup_enabled, default_projects_limit: live.default_projects_limit });
    expect(await planOver('plumb_application_settings', settings, { signup_enabled: live.signup_enabled!, default_projects_limit: live.default_projects_limit! })).toEqual(settings);

    const file = await importOne('plumb_repository_file', 'platform/config:main:README.md');
    expect(file.content).toBe('# config\n');
    expect(await planOver('plumb_repository_file', file, { project: 'platform/config', file_path: 'README.md', content: '# config\n', commit_messages: [], delivery: [] })).toEqual(file);

    const site = await importOne('plumb_project_pages', 'platform/site');
    const pages = await fetch(`${emu.url}/api/v4/projects/31/pages`, { headers: { 'PRIVATE-TOKEN': ADMIN } });
    const serves = pages.status === 200 && ((await pages.json()) as { deployments: unknown[] }).deployments.length > 0;
    expect(site.published).toBe(serves);
    expect(await planOver('plumb_project_pages', site, { project: 'platform/site', published: serves })).toEqual(site);
    // A configuration that leaves fields out keeps what import read (optional and computed), and manages none of them.
    expect(await planOver('plumb_project_pages', site, { project: 'platform/site' })).toEqual(site);

    const token = await importOne('plumb_group_access_token', 'adopt:out-of-band');
    expect(token.access_level).toBe('developer');
    const sink: CtyValue = [{ file: 'numeric.token', command: null, ci_variable: null }];
    const planned = (await planOver('plumb_group_access_token', token, { group: 'adopt', name: 'out-of-band', scopes: token.scopes!, access_level: '30', expires_at: token.expires_at!, rotation: [], sink, sinks: [] })) as Record<string, CtyValue>;
    expect(planned).toEqual({ ...token, sink });
  });

  it('refuses at plan a second resource owning a setting key or a token that another resource of the run plans, naming the attribute and the other resource', async () => {
    // A fresh provider process, as Terraform starts one for its plan walk.
    const run = await startProvider({ cwd: dir, env: { PLUMB_TOKEN: ADMIN } });
    try {
      await run.call('ConfigureProvider', { config: dv(objectOf(providerType, { url: emu.url }), providerType) });
      const planOn = async (type: string, config: CtyValue) => {
        const t = types[type]!;
        return (await run.call<{ diagnostics: Diag[] }>('PlanResourceChange', { type_name: type, prior_state: dv(null, t), proposed_new_state: dv(config, t), config: dv(config, t), prior_private: Buffer.alloc(0) })).diagnostics;
      };
      const st = types.plumb_application_settings!;
      const a = objectOf(st, { deletion_adjourned_period: 5, signup_enabled: false });
      expect(errors(await planOn('plumb_application_settings', a))).toEqual([]);
      // The same resource planned again (a replacement is planned twice) is not a second owner.
      expect(errors(await planOn('plumb_application_settings', a))).toEqual([]);
      expect(errors(await planOn('plumb_application_settings', objectOf(st, { default_projects_limit: 10 })))).toEqual([]);
      const second = errors(await planOn('plumb_application_settings', objectOf(st, { deletion_adjourned_period: 7, default_projects_limit: 20 })));
      expect(second).toHaveLength(2);
      const period = second.find((d) => d.summary.startsWith('Two resources own deletion_adjourned_period: this one and another plumb_application_settings setting '))!;
      expect(period.summary).toMatch(/setting (deletion_adjourned_period, signup_enabled|signup_enabled, deletion_adjourned_period)$/);
      expect(period.attribute?.steps.map((x) => x.attribute_name)).toEqual(['deletion_adjourned_period']);
      expect(period.detail).toContain('PLUMB_TF_TWO_OWNERS');
      expect(second.some((d) => d.summary.startsWith('Two resources own default_projects_limit'))).toBe(true);

      const tt = types.plumb_group_access_token!;
      const token = (description: string) => objectOf(tt, { group: 'platform', name: 'owned-twice', description, scopes: ['read_api'], rotation: [{ lifetime_days: 30, rotate_before_days: null }], sink: [{ file: `${description}.token`, command: null, stdout: null }] });
      expect(errors(await planOn('plumb_group_access_token', token('one')))).toEqual([]);
      const twice = errors(await planOn('plumb_group_access_token', token('two')));
      expect(twice.map((d) => d.summary)).toEqual(['Two resources own group = "platform", name = "owned-twice": this one and another plumb_group_access_token with group = "platform", name = "owned-twice"']);
    } finally {
      run.kill();
    }
  });

  it('lists each group once in an apply walk that creates three tokens in each of three groups, and once more in the destroy walk', async () => {
    const t = types.plumb_group_access_token!;
    const groups = ['walk-a', 'walk-b', 'walk-c'];
    const configs = groups.flatMap((group) =>
      ['one', 'two', 'three'].map((name) => objectOf(t, { group, name, scopes: ['read_api'], rotation: [{ lifetime_days: 30, rotate_before_days: null }], sink: [{ file: `${group}-${name}.token`, command: null, stdout: null }] })),
    );
    const lists = (group: string) => emu.requests.filter((r) => r.method === 'GET' && r.path === `/groups/${group}/access_tokens`).length;
    const count = (method: string, re: RegExp) => emu.requests.filter((r) => r.method === method && re.test(r.path)).length;
    const walk = async <T>(fn: (call: ProviderProcess['call']) => Promise<T>): Promise<T> => {
      // A fresh provider process, as Terraform starts one for each walk.
      const run = await startProvider({ cwd: dir, env: { PLUMB_TOKEN: ADMIN } });
      try {
        await run.call('ConfigureProvider', { config: dv(objectOf(providerType, { url: emu.url }), providerType) });
        return await fn(run.call.bind(run));
      } finally {
        run.kill();
      }
    };
    const before = Object.fromEntries(groups.map((g) => [g, lists(g)]));
    const creates = count('POST', /^\/groups\/walk-[abc]\/access_tokens$/);
    // The apply walk: Terraform plans each resource again, then applies it, several at once.
    const states = await walk(async (call) => {
      const one = async (config: CtyValue) => {
        const planned = await call<{ planned_state: { msgpack: Buffer }; diagnostics: Diag[] }>('PlanResourceChange', { type_name: 'plumb_group_access_token', prior_state: dv(null, t), proposed_new_state: dv(config, t), config: dv(config, t), prior_private: Buffer.alloc(0) });
        expect(errors(planned.diagnostics)).toEqual([]);
        const applied = await call<{ new_state: { msgpack: Buffer }; diagnostics: Diag[] }>('ApplyResourceChange', { type_name: 'plumb_group_access_token', prior_state: dv(null, t), planned_state: planned.planned_state, config: dv(config, t), planned_private: Buffer.alloc(0) });
        expect(errors(applied.diagnostics)).toEqual([]);
        return undv(applied.new_state, t) as Record<string, CtyValue>;
      };
      const out: Record<string, CtyValue>[] = [];
      for (let i = 0; i < configs.length; i += 3) out.push(...(await Promise.all(configs.slice(i, i + 3).map(one))));
      return out;
    });
    for (const g of groups) expect(lists(g) - before[g]!).toBe(1);
    expect(count('POST', /^\/groups\/walk-[abc]\/access_tokens$/) - creates).toBe(9);
    // Each state holds the id of the token the instance lists under that name (recorded, not read again).
    for (const st of states) {
      const live = (await (await fetch(`${emu.url}/api/v4/groups/${st.group as string}/access_tokens`, { headers: { 'PRIVATE-TOKEN': ADMIN } })).json()) as { id: number; name: string; active: boolean; expires_at: string }[];
      const token = live.find((x) => x.name === st.name && x.active)!;
      expect([st.token_id, st.token_expires_at]).toEqual([token.id, token.expires_at]);
    }
    // The destroy walk: one list per group as well, and who the credential is asked at most once.
    const listed = Object.fromEntries(groups.map((g) => [g, lists(g)]));
    const whoami = count('GET', /^\/(user|personal_access_tokens\/self)$/);
    const revokes = count('DELETE', /^\/groups\/walk-[abc]\/access_tokens\/\d+$/);
    await walk(async (call) => {
      await Promise.all(
        states.map(async (st) => {
          const r = await call<{ new_state: { msgpack: Buffer }; diagnostics: Diag[] }>('ApplyResourceChange', { type_name: 'plumb_group_access_token', prior_state: dv(st, t), planned_state: dv(null, t), config: dv(null, t), planned_private: Buffer.alloc(0) });
          expect(errors(r.diagnostics)).toEqual([]);
          expect(undv(r.new_state, t)).toBeNull();
        }),
      );
    });
    for (const g of groups) expect(lists(g) - listed[g]!).toBe(1);
    expect(count('DELETE', /^\/groups\/walk-[abc]\/access_tokens\/\d+$/) - revokes).toBe(9);
    expect(count('GET', /^\/(user|personal_access_tokens\/self)$/) - whoami).toBeLessThanOrEqual(2);
  });

  it('lists afresh for a rotation in an apply walk, so a token revoked outside after the walk read its group is not rotated', async () => {
    expect(errors(await configure())).toEqual([]);
    const t = types.plumb_group_access_token!;
    const expiring = (expires_at: string) => objectOf(t, { group: 'walk-a', name: 'guarded', scopes: ['read_api'], expires_at, sink: [{ file: 'guarded.token', command: null, stdout: null }] });
    const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
    const first = expiring(day(100));
    const created = await apply('plumb_group_access_token', null, (await plan('plumb_group_access_token', null, first)).planned, first);
    expect(errors(created.diagnostics)).toEqual([]);
    const id = (created.state as Record<string, CtyValue>).token_id as number;
    const run = await startProvider({ cwd: dir, env: { PLUMB_TOKEN: ADMIN } });
    try {
      await run.call('ConfigureProvider', { config: dv(objectOf(providerType, { url: emu.url }), providerType) });
      // A new expiry is a rotation; the walk's plan reads the group's list (id active then).
      const second = expiring(day(101));
      const planned = await run.call<{ planned_state: { msgpack: Buffer }; diagnostics: Diag[] }>('PlanResourceChange', { type_name: 'plumb_group_access_token', prior_state: dv(created.state, t), proposed_new_state: dv(second, t), config: dv(second, t), prior_private: Buffer.alloc(0) });
      expect(errors(planned.diagnostics)).toEqual([]);
      expect((undv(planned.planned_state, t) as Record<string, CtyValue>).token_id).toBe(UNKNOWN);
      const revoked = await fetch(`${emu.url}/api/v4/groups/walk-a/access_tokens/${id}`, { method: 'DELETE', headers: { 'PRIVATE-TOKEN': ADMIN } });
      expect(revoked.status).toBe(204);
      const rotations = emu.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/rotate')).length;
      const r = await run.call<{ new_state: { msgpack: Buffer }; diagnostics: Diag[] }>('ApplyResourceChange', { type_name: 'plumb_group_access_token', prior_state: dv(created.state, t), planned_state: planned.planned_state, config: dv(second, t), planned_private: Buffer.alloc(0) });
      expect(errors(r.diagnostics).map((d) => d.summary).join('\n')).toContain(`(id ${id}) is revoked now; it was not rotated`);
      expect(emu.requests.filter((q) => q.method === 'POST' && q.path.endsWith('/rotate')).length).toBe(rotations);
    } finally {
      run.kill();
    }
  });

  it('asks who its credential is once per provider process, not once per destroyed token', async () => {
    expect(errors(await configure())).toEqual([]);
    const t = types.plumb_group_access_token!;
    const states: CtyValue[] = [];
    for (const name of ['doomed-a', 'doomed-b', 'doomed-c']) {
      const config = objectOf(t, { group: 'platform', name, scopes: ['read_api'], rotation: [{ lifetime_days: 30, rotate_before_days: null }], sink: [{ file: `${name}.token`, command: null, stdout: null }] });
      const applied = await apply('plumb_group_access_token', null, (await plan('plumb_group_access_token', null, config)).planned, config);
      expect(errors(applied.diagnostics)).toEqual([]);
      states.push(applied.state);
    }
    // A fresh provider process, as Terraform starts one for a destroy's apply walk.
    const run = await startProvider({ cwd: dir, env: { PLUMB_TOKEN: ADMIN } });
    try {
      await run.call('ConfigureProvider', { config: dv(objectOf(providerType, { url: emu.url }), providerType) });
      const whoami = () => emu.requests.filter((r) => r.method === 'GET' && (r.path === '/user' || r.path === '/personal_access_tokens/self')).length;
      const before = whoami();
      for (const st of states) {
        const r = await run.call<{ new_state: { msgpack: Buffer }; diagnostics: Diag[] }>('ApplyResourceChange', { type_name: 'plumb_group_access_token', prior_state: dv(st, t), planned_state: dv(null, t), config: dv(null, t), planned_private: Buffer.alloc(0) });
        expect(errors(r.diagnostics)).toEqual([]);
        expect(undv(r.new_state, t)).toBeNull();
      }
      expect(whoami() - before).toBeLessThanOrEqual(2);
    } finally {
      run.kill();
    }
  });

  it('refuses at plan the destroy of the token plumb runs with, as plumb plan flags it, with help naming allow_risky (issue 21 defect 6)', async () => {
    const t = types.plumb_group_access_token!;
    emu.state.userById(emu.state.tokenById(90)!.userId)!.admin = true;
    const run = await startProvider({ cwd: dir, env: { PLUMB_TOKEN: SELF_TOKEN } });
    try {
      await run.call('ConfigureProvider', { config: dv(objectOf(providerType, { url: emu.url }), providerType) });
      const prior = objectOf(t, { group: 'selfish', name: 'plumb-self', scopes: ['api'], access_level: 'owner', expires_at: '2099-01-01', token_id: 90, token_expires_at: '2099-01-01' });
      const writes = () => emu.requests.filter((r) => r.method !== 'GET' && r.method !== 'HEAD').length;
      const before = writes();
      const r = await run.call<{ diagnostics: Diag[] }>('PlanResourceChange', { type_name: 'plumb_group_access_token', prior_state: dv(prior, t), proposed_new_state: dv(null, t), config: dv(null, t) });
      const refusal = errors(r.diagnostics);
      expect(refusal).toHaveLength(1);
      expect(refusal[0]!.summary).toMatch(/^Risky change not accepted: revoking token id 90 revokes the credential plumb runs with/);
      expect(refusal[0]!.detail).toContain('allow_risky = ["prune-own-credential"]');
      expect(refusal[0]!.detail).not.toMatch(/--allow-risky|of instance "terraform"/);
      expect(writes()).toBe(before);
      expect(emu.state.isActive(emu.state.tokenById(90)!)).toBe(true);
    } finally {
      run.kill();
    }
  });

  it('plans a file create without a warning per write: Terraform\'s diff shows it (issue 21 defect 10)', async () => {
    expect(errors(await configure())).toEqual([]);
    const t = types.plumb_repository_file!;
    const config = objectOf(t, { project: 'platform/config', file_path: 'QUIET.md', content: 'shh\n', commit_messages: [] });
    const planned = await plan('plumb_repository_file', null, config);
    expect(planned.diagnostics).toEqual([]);
  });

  it('imports a token by GROUP:NAME and refuses another id shape with the expected format', async () => {
    const t = types.plumb_group_access_token!;
    const expires = new Date(Date.now() + 100 * 86_400_000).toISOString().slice(0, 10);
    const config = objectOf(t, { group: 'platform', name: 'imported', scopes: ['read_api'], expires_at: expires, sink: [{ file: 'imported.token', command: null, stdout: null }] });
    const first = await plan('plumb_group_access_token', null, config);
    expect(errors((await apply('plumb_group_access_token', null, first.planned, config)).diagnostics)).toEqual([]);
    const ok = await p.call<{ imported_resources: { state: { msgpack: Buffer } }[]; diagnostics: Diag[] }>('ImportResourceState', { type_name: 'plumb_group_access_token', id: 'platform:imported' });
    expect(undv(ok.imported_resources[0]!.state, t)).toMatchObject({ group: 'platform', name: 'imported', scopes: ['read_api'] });
    const bad = await p.call<{ imported_resources: unknown[]; diagnostics: Diag[] }>('ImportResourceState', { type_name: 'plumb_group_access_token', id: 'no-colon' });
    expect(bad.imported_resources).toEqual([]);
    expect(errors(bad.diagnostics)[0]?.detail).toContain('GROUP:NAME');
  });

  it('imports a token with the sink its configuration gives carried in the id (GROUP:NAME;sink_file=PATH), so that configuration plans no change, and checks the sink as configuration', async () => {
    expect(errors(await configure())).toEqual([]);
    const t = types.plumb_group_access_token!;
    const importAs = (id: string) => p.call<{ imported_resources: { state: { msgpack: Buffer } }[]; diagnostics: Diag[] }>('ImportResourceState', { type_name: 'plumb_group_access_token', id });
    mkdirSync(path.join(dir, 'carried'), { recursive: true });
    const carried = await importAs('adopt:out-of-band;sink_file=carried/oob.token');
    expect(errors(carried.diagnostics)).toEqual([]);
    expect(carried.diagnostics.map((d) => d.summary)).not.toContain('Imported without a sink');
    const state = (await read('plumb_group_access_token', undv(carried.imported_resources[0]!.state, t))) as Record<string, CtyValue>;
    expect(state.sink).toEqual([{ file: 'carried/oob.token', command: null, ci_variable: null }]);
    // What the configuration says (as -generate-config-out writes it): no change.
    const config = objectOf(t, { group: 'adopt', name: 'out-of-band', scopes: state.scopes!, access_level: 'developer', expires_at: state.expires_at!, rotation: [], sink: [{ file: 'carried/oob.token', command: null }], sinks: [] });
    const again = await plan('plumb_group_access_token', state, config);
    expect(errors(again.diagnostics)).toEqual([]);
    expect(again.planned).toEqual(state);
    // A command sink, as a JSON list.
    const command = await importAs('adopt:out-of-band;sink_command=["/bin/sh","-c","cat > /dev/null"]');
    expect(errors(command.diagnostics)).toEqual([]);
    expect((undv(command.imported_resources[0]!.state, t) as Record<string, CtyValue>).sink).toEqual([{ file: null, command: ['/bin/sh', '-c', 'cat > /dev/null'], ci_variable: null }]);
    // The sink is checked as in a configuration, before it enters state: a directory that does not exist.
    const nowhere = await importAs('adopt:out-of-band;sink_file=no-such-dir/oob.token');
    expect(nowhere.imported_resources).toEqual([]);
    expect(errors(nowhere.diagnostics)[0]?.summary).toContain('cannot receive its secret');
    expect(errors(nowhere.diagnostics)[0]?.attribute?.steps.map((x) => x.attribute_name ?? x.element_key_int)).toEqual(['sink', 0, 'file']);
    const malformed = await importAs('adopt:out-of-band;sink_command=store-token');
    expect(malformed.imported_resources).toEqual([]);
    expect(errors(malformed.diagnostics)[0]?.detail).toContain('not a JSON list of strings');
  });

  it('confines a sink carried in an import id to the configuration root, as a sink in the configuration (issue 28 item 11)', async () => {
    expect(errors(await configure())).toEqual([]);
    const t = types.plumb_group_access_token!;
    const importAs = (id: string) => p.call<{ imported_resources: unknown[]; diagnostics: Diag[] }>('ImportResourceState', { type_name: 'plumb_group_access_token', id });
    // The working directory is the root here (no Git work tree above it); a link inside it may not lead out.
    const away = mkdtempSync(path.join(os.tmpdir(), 'plumb-sink-away-'));
    try {
      symlinkSync(away, path.join(dir, 'away-link'));
      for (const sink of ['../../escaped.token', `${away}/abs.token`, 'away-link/linked.token']) {
        const r = await importAs(`adopt:out-of-band;sink_file=${sink}`);
        expect(r.imported_resources, sink).toEqual([]);
        expect(errors(r.diagnostics)[0]?.summary, sink).toMatch(/^Token "out-of-band" would write its secret outside the configuration root: /);
        expect(errors(r.diagnostics)[0]?.detail).toContain('PLUMB_TOKEN_SINK_FORBIDDEN');
        expect(errors(r.diagnostics)[0]?.attribute?.steps.map((x) => x.attribute_name ?? x.element_key_int)).toEqual(['sink', 0, 'file']);
        // The same path in a configuration: refused at validate, before any request.
        const config = objectOf(t, { group: 'platform', name: 'escape', scopes: ['read_api'], expires_at: '2099-01-01', sink: [{ file: sink, command: null, stdout: null }] });
        const v = await p.call<{ diagnostics: Diag[] }>('ValidateResourceConfig', { type_name: 'plumb_group_access_token', config: dv(config, t) });
        expect(errors(v.diagnostics).map((d) => d.summary), sink).toEqual([expect.stringMatching(/would write its secret outside the configuration root/)]);
      }
      expect(readdirSync(away)).toEqual([]);
    } finally {
      rmSync(path.join(dir, 'away-link'), { force: true });
      rmSync(away, { recursive: true, force: true });
    }
  });

  it('reports two active tokens of one name on refresh as ambiguous (PLUMB_TOKEN_NAME_AMBIGUOUS), as plumb plan does, and reads the one the id pins', async () => {
    const t = types.plumb_group_access_token!;
    const made = async () => {
      const r = await fetch(`${emu.url}/api/v4/groups/platform/access_tokens`, { method: 'POST', headers: { 'PRIVATE-TOKEN': ADMIN, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'twin', scopes: ['read_api'], access_level: 30, expires_at: new Date(Date.now() + 100 * 86_400_000).toISOString().slice(0, 10) }) });
      expect(r.status).toBe(201);
      return ((await r.json()) as { id: number }).id;
    };
    // Each step in a provider process of its own, as Terraform starts one per walk (a walk lists a group once).
    const walk = async <T>(fn: (w: ProviderProcess) => Promise<T>): Promise<T> => {
      const w = await startProvider({ cwd: dir, env: { PLUMB_TOKEN: ADMIN } });
      try {
        await w.call('ConfigureProvider', { config: dv(objectOf(providerType, { url: emu.url }), providerType) });
        return await fn(w);
      } finally {
        w.kill();
      }
    };
    const importTwin = (w: ProviderProcess) => w.call<{ imported_resources: { state: { msgpack: Buffer } }[]; diagnostics: Diag[] }>('ImportResourceState', { type_name: 'plumb_group_access_token', id: 'platform:twin' });
    const refresh = (w: ProviderProcess, state: CtyValue) => w.call<{ new_state: { msgpack: Buffer }; diagnostics: Diag[] }>('ReadResource', { type_name: 'plumb_group_access_token', current_state: dv(state, t), private: Buffer.alloc(0) });
    const first = await made();
    const state = await walk(async (w) => undv((await importTwin(w)).imported_resources[0]!.state, t) as Record<string, CtyValue>);
    expect(state.token_id).toBe(first);
    const second = await made();
    await walk(async (w) => {
      const ambiguous = errors((await refresh(w, state)).diagnostics);
      expect(ambiguous).toHaveLength(1);
      expect(ambiguous[0]!.summary).toBe(`Token "twin" of group "platform" matches 2 active tokens (ids ${first}, ${second})`);
      expect(ambiguous[0]!.detail).toContain('PLUMB_TOKEN_NAME_AMBIGUOUS');
      expect(ambiguous[0]!.detail).toContain(`id = ${first}`);
      expect(ambiguous[0]!.attribute?.steps.map((x) => x.attribute_name)).toEqual(['name']);
      // Pinned, the refresh reads that one, whichever the list gives first.
      const pinned = await refresh(w, { ...state, id: second });
      expect(errors(pinned.diagnostics)).toEqual([]);
      expect((undv(pinned.new_state, t) as Record<string, CtyValue>).token_id).toBe(second);
      // Import refuses to guess too.
      const again = await importTwin(w);
      expect(again.imported_resources).toEqual([]);
      expect(errors(again.diagnostics)[0]?.detail).toContain('PLUMB_TOKEN_NAME_AMBIGUOUS');
    });
  });

  it('plans with unknown configuration values without calling the instance', async () => {
    const t = types.plumb_application_settings!;
    const before = emu.requests.length;
    const r = await plan('plumb_application_settings', null, objectOf(t, { signup_enabled: UNKNOWN }));
    expect(r.planned).toMatchObject({ signup_enabled: UNKNOWN });
    expect(emu.requests.length).toBe(before);
  });

  it('drops write-only values from a state written before Terraform knew them (UpgradeResourceState)', async () => {
    const t = types.plumb_application_settings!;
    const raw = JSON.stringify({ id: 'application_settings', signup_enabled: true, spam_filter_api_key: SPAM_KEY, dropped_attribute: 1 });
    const r = await p.call<{ upgraded_state: { msgpack: Buffer }; diagnostics: Diag[] }>('UpgradeResourceState', {
      type_name: 'plumb_application_settings',
      version: 0,
      raw_state: { json: Buffer.from(raw) },
    });
    expect(r.upgraded_state.msgpack.includes(Buffer.from(SPAM_KEY))).toBe(false);
    expect(undv(r.upgraded_state, t)).toMatchObject({ signup_enabled: true, spam_filter_api_key: null });
  });
});

describe('what plumb remembers lives in Terraform\'s state, not in a file beside it (issue 21 defect 8)', () => {
  beforeAll(async () => {
    expect(errors(await configure())).toEqual([]);
  });

  /** A second provider process in a fresh working directory: a new CI runner with the same backend. */
  async function freshProvider(cwd = mkdtempSync(path.join(os.tmpdir(), 'plumb-provider-fresh-')), env: Record<string, string> = {}): Promise<{ fresh: ProviderProcess; cwd: string }> {
    const fresh = await startProvider({ cwd, env: { PLUMB_TOKEN: ADMIN, ...env } });
    const r = await fresh.call<{ diagnostics: Diag[] }>('ConfigureProvider', {
      terraform_version: '1.11.4',
      config: dv(objectOf(providerType, { url: emu.url }), providerType),
      client_capabilities: { write_only_attributes_allowed: true },
    });
    expect(errors(r.diagnostics)).toEqual([]);
    return { fresh, cwd };
  }

  async function planIn(prov: ProviderProcess, type: string, prior: CtyValue, priorPrivate: Buffer, config: CtyValue): Promise<{ planned: Record<string, CtyValue>; private: Buffer }> {
    const t = types[type]!;
    const read = await prov.call<{ new_state: { msgpack: Buffer }; private: Buffer; diagnostics: Diag[] }>('ReadResource', { type_name: type, current_state: dv(prior, t), private: priorPrivate });
    expect(errors(read.diagnostics)).toEqual([]);
    const r = await prov.call<{ planned_state: { msgpack: Buffer }; planned_private: Buffer; diagnostics: Diag[] }>('PlanResourceChange', {
      type_name: type,
      prior_state: read.new_state,
      proposed_new_state: dv(config, t),
      config: dv(config, t),
      prior_private: read.private,
    });
    expect(errors(r.diagnostics)).toEqual([]);
    return { planned: undv(r.planned_state, t) as Record<string, CtyValue>, private: read.private };
  }

  it('keeps a write-only setting\'s fingerprint in the resource\'s private state, so a fresh working directory plans no change, and writes no state file', async () => {
    const t = types.plumb_application_settings!;
    const key = `${SPAM_KEY}-private`;
    const config = objectOf(t, { spam_check_endpoint_enabled: false, spam_check_api_key: key });
    const first = await plan('plumb_application_settings', null, config);
    const applied = await apply('plumb_application_settings', null, first.planned, config);
    expect(errors(applied.diagnostics)).toEqual([]);
    // Salted fingerprints only: never the secret, in any encoding.
    expect(applied.private.length).toBeGreaterThan(0);
    const text = applied.private.toString('utf8');
    for (const form of [key, Buffer.from(key).toString('base64'), Buffer.from(key).toString('hex')]) expect(text).not.toContain(form);
    expect(JSON.parse(text)).toMatchObject({ plumb: 1, state: { settings: { spam_check_api_key: { salt: expect.any(String), hash: expect.any(String) } } } });
    const { fresh, cwd } = await freshProvider();
    try {
      const again = await planIn(fresh, 'plumb_application_settings', applied.state, applied.private, config);
      expect(again.planned.write_only_revision).toBe((applied.state as Record<string, CtyValue>).write_only_revision);
      // A changed secret is still seen.
      const changed = await planIn(fresh, 'plumb_application_settings', applied.state, applied.private, { ...config, spam_check_api_key: `${key}-rotated` });
      expect(changed.planned.write_only_revision).toBe(UNKNOWN);
      expect(existsSync(path.join(cwd, '.plumb'))).toBe(false);
    } finally {
      fresh.kill();
    }
    expect(existsSync(path.join(dir, '.plumb'))).toBe(false);
  });

  it('keeps a token\'s slot in its private state, so a fresh working directory sees that the sink holds a token rotated outside plumb', async () => {
    const t = types.plumb_group_access_token!;
    const config = objectOf(t, { group: 'platform', name: 'slot-kept', scopes: ['read_api'], rotation: [{ lifetime_days: 60, rotate_before_days: 7 }], sink: [{ file: 'slot-kept.token', command: null, stdout: null }] });
    const first = await plan('plumb_group_access_token', null, config);
    const applied = await apply('plumb_group_access_token', null, first.planned, config);
    expect(errors(applied.diagnostics)).toEqual([]);
    const id = (applied.state as Record<string, CtyValue>).token_id as number;
    // In sync: no change planned from the private state alone.
    const insync = await freshProvider();
    try {
      expect((await planIn(insync.fresh, 'plumb_group_access_token', applied.state, applied.private, config)).planned.token_id).toBe(id);
    } finally {
      insync.fresh.kill();
    }
    // Rotated outside plumb: the sink holds a revoked secret, which only the slot can tell.
    // (With an expiry inside the rotation policy, so that is no reason to rotate.)
    const expiresAt = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    const rotated = await fetch(`${emu.url}/api/v4/groups/platform/access_tokens/${id}/rotate?expires_at=${expiresAt}`, { method: 'POST', headers: { 'PRIVATE-TOKEN': ADMIN } });
    expect(rotated.status).toBe(200);
    const second = await freshProvider();
    try {
      expect((await planIn(second.fresh, 'plumb_group_access_token', applied.state, applied.private, config)).planned.token_id).toBe(UNKNOWN);
    } finally {
      second.fresh.kill();
    }
  });

  it('moves the entries of a former state file into the resource\'s private state on its first read, without writing the file', async () => {
    const t = types.plumb_application_settings!;
    const key = `${SPAM_KEY}-migrated`;
    const config = objectOf(t, { spam_check_endpoint_enabled: false, spam_check_api_key: key });
    const first = await plan('plumb_application_settings', null, config);
    const applied = await apply('plumb_application_settings', null, first.planned, config);
    expect(errors(applied.diagnostics)).toEqual([]);
    // What an older provider wrote to .plumb/state.json: the same entries, in the file's format.
    const doc = JSON.parse(applied.private.toString('utf8')) as { url: string; state: Record<string, unknown> };
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'plumb-provider-legacy-'));
    mkdirSync(path.join(cwd, '.plumb'));
    const legacy = JSON.stringify({ version: 1, instances: { [doc.url]: doc.state } }, null, 2);
    writeFileSync(path.join(cwd, '.plumb/state.json'), legacy);
    const { fresh } = await freshProvider(cwd);
    try {
      // The state as an older provider left it: no private bytes.
      const migrated = await planIn(fresh, 'plumb_application_settings', { ...(applied.state as Record<string, CtyValue>) }, Buffer.alloc(0), config);
      expect(migrated.planned.write_only_revision).toBe((applied.state as Record<string, CtyValue>).write_only_revision);
      expect(JSON.parse(migrated.private.toString('utf8'))).toMatchObject({ state: { settings: { spam_check_api_key: { salt: expect.any(String) } } } });
      expect(readFileSync(path.join(cwd, '.plumb/state.json'), 'utf8')).toBe(legacy);
    } finally {
      fresh.kill();
    }
  });
});

describe('the provider\'s token attribute (issue 21: a token from an ephemeral value)', () => {
  it('plans with the token given in the provider block and no token_env variable, never showing it, and refuses token together with token_env', async () => {
    const bare = await startProvider({ cwd: mkdtempSync(path.join(os.tmpdir(), 'plumb-provider-token-')), env: {} });
    try {
      const configure = (values: Record<string, CtyValue>) =>
        bare.call<{ diagnostics: Diag[] }>('ConfigureProvider', { terraform_version: '1.11.4', config: dv(objectOf(providerType, { url: emu.url, ...values }), providerType), client_capabilities: { write_only_attributes_allowed: true } });
      const both = await configure({ token: ADMIN, token_env: 'PLUMB_TOKEN' });
      expect(errors(both.diagnostics)).toMatchObject([{ summary: 'The provider has both token and token_env', attribute: { steps: [{ attribute_name: 'token_env' }] } }]);
      expect(errors((await configure({ token: '' })).diagnostics)).toMatchObject([{ summary: "The provider's token is empty", attribute: { steps: [{ attribute_name: 'token' }] } }]);
      expect(errors((await configure({ token: ADMIN })).diagnostics)).toEqual([]);
      const t = types.plumb_application_settings!;
      const config = objectOf(t, { deletion_adjourned_period: 11 });
      const before = emu.requests.length;
      const r = await bare.call<{ planned_state: { msgpack: Buffer }; diagnostics: Diag[] }>('PlanResourceChange', { type_name: 'plumb_application_settings', prior_state: dv(null, t), proposed_new_state: dv(config, t), config: dv(config, t) });
      expect(errors(r.diagnostics)).toEqual([]);
      expect(emu.requests.slice(before).some((q) => q.path === '/application/settings' && q.method === 'GET' && q.status === 200)).toBe(true);
      expect(bare.stderr()).not.toContain(ADMIN);
      const schema = await bare.call<{ provider: ProtoSchema }>('GetProviderSchema');
      expect(schema.provider.block.attributes.find((a) => a.name === 'token')).toMatchObject({ sensitive: true, optional: true });
    } finally {
      bare.kill();
    }
  });

  it('sends the token of the provider block only to an allowed URL', async () => {
    const bare = await startProvider({ cwd: mkdtempSync(path.join(os.tmpdir(), 'plumb-provider-token-')), env: { PLUMB_LOOPBACK_IS_TRUSTED: '0' } });
    try {
      const r = await bare.call<{ diagnostics: Diag[] }>('ConfigureProvider', { terraform_version: '1.11.4', config: dv(objectOf(providerType, { url: emu.url, token: ADMIN }), providerType) });
      expect(errors(r.diagnostics).map((d) => d.detail).join('\n')).toContain('PLUMB_URL_NOT_ALLOWED');
    } finally {
      bare.kill();
    }
  });
});

describe('shutdown', () => {
  it('refuses to apply after StopProvider, writing nothing', async () => {
    const other = await startProvider({ cwd: dir, env: { PLUMB_TOKEN: ADMIN } });
    try {
      await other.call('ConfigureProvider', { config: dv(objectOf(providerType, { url: emu.url }), providerType) });
      expect(await other.call('StopProvider')).toEqual({ Error: '' });
      const t = types.plumb_application_settings!;
      const config = objectOf(t, { deletion_adjourned_period: 5 });
      const before = emu.requests.length;
      const r = await other.call<{ diagnostics: Diag[] }>('ApplyResourceChange', { type_name: 'plumb_application_settings', prior_state: dv(null, t), planned_state: dv(config, t), config: dv(config, t) });
      expect(errors(r.diagnostics)[0]?.summary).toBe('The provider was stopped');
      expect(emu.requests.length).toBe(before);
    } finally {
      other.kill();
    }
  });

  it('exits 0 when Terraform calls the controller\'s Shutdown', async () => {
    const other = await startProvider({ cwd: dir });
    await other.controller('Shutdown');
    expect(await other.exited).toBe(0);
    other.kill();
  });
});

describe('run by hand', () => {
  it('explains that Terraform starts it and exits 1 without printing a handshake', async () => {
    const { spawnSync } = await import('node:child_process');
    const { PROVIDER_BIN } = await import('./harness.js');
    const r = spawnSync(process.execPath, [PROVIDER_BIN], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('started by Terraform, not by hand');
    expect(r.stderr).toContain('plumb provider install');
  });
});

describe('when Terraform goes away', () => {
  it('exits by itself once its parent process is gone', async () => {
    const { spawn } = await import('node:child_process');
    const { PROVIDER_BIN, MAGIC } = await import('./harness.js');
    // A stand-in for Terraform: starts the provider, reads its handshake, and dies without a word.
    const script = `const c = require('node:child_process').spawn(process.execPath, [${JSON.stringify(PROVIDER_BIN)}], { stdio: ['ignore', 'pipe', 'ignore'] });
c.stdout.once('data', () => { process.stdout.write(String(c.pid)); process.exit(0); });`;
    // Without Terraform's client certificate: started for debugging (the TLS set-up is not the point here).
    const parent = spawn(process.execPath, ['-e', script], { env: { PATH: process.env.PATH ?? '', ...MAGIC, PLUMB_PROVIDER_INSECURE_DEBUG: '1' }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    parent.stdout.on('data', (d: Buffer) => (out += d.toString()));
    await new Promise((r) => parent.on('close', r));
    const pid = Number(out);
    expect(pid).toBeGreaterThan(0);
    // Exited means gone, or a zombie nobody has reaped yet (its new parent may be slow to).
    const deadline = Date.now() + 8000;
    while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const stillAlive = alive(pid);
    if (stillAlive) process.kill(pid, 'SIGKILL');
    expect(stillAlive).toBe(false);
  });
});
