/**
 * The served schema (from the catalogue) and the conversion of Terraform's JSON schema form to the
 * protocol's messages.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTINGS, isSecretSetting } from '../../src/catalogue/index.js';
import { makeServerCertificate } from '../../src/provider/cert.js';
import { providerOnly, providerSchema as servedSchema } from '../../src/provider/schema.js';
import { BUILT_IN_KINDS } from '../helpers/kinds.js';

/** The built-in kinds' served schema, what PROVIDER_ONLY adds to it, and their resource types. */
const providerSchema = () => servedSchema(BUILT_IN_KINDS);
const PROVIDER_ONLY = providerOnly(BUILT_IN_KINDS);
const RESOURCE_TYPE_NAMES = BUILT_IN_KINDS.terraformParts.map((p) => p.typeName);

const SETTINGS_TYPE = 'plumb_application_settings';
import { blockType, onlyProvider, toProtoSchema } from '../../src/provider/tfjson.js';
import type { TfJsonSchema, TfJsonSchemas } from '../../src/provider/tfjson.js';
import { root } from './harness.js';

describe('JSON schema form → protocol Schema', () => {
  const sample: TfJsonSchema = {
    version: 2,
    block: {
      description: 'd',
      description_kind: 'markdown',
      attributes: {
        a: { type: ['list', 'string'], optional: true },
        n: { nested_type: { nesting_mode: 'single', attributes: { x: { type: 'number', required: true } } }, optional: true },
        w: { type: 'string', optional: true, sensitive: true, write_only: true },
      },
      block_types: { b: { nesting_mode: 'list', block: { attributes: { y: { type: 'bool', computed: true } } }, max_items: 3 } },
    },
  };

  it('writes types as JSON bytes, nested attributes without a type, and nesting modes in capitals', () => {
    const p = toProtoSchema(sample);
    expect(p.version).toBe(2);
    expect(p.block.description_kind).toBe('MARKDOWN');
    const [a, n, w] = p.block.attributes;
    expect(JSON.parse(a!.type.toString())).toEqual(['list', 'string']);
    expect(n!.type.length).toBe(0);
    expect(n!.nested_type).toMatchObject({ nesting: 'SINGLE', attributes: [{ name: 'x', required: true }] });
    expect(w).toMatchObject({ write_only: true, sensitive: true });
    expect(p.block.block_types[0]).toMatchObject({ type_name: 'b', nesting: 'LIST', max_items: 3 });
  });

  it('derives the value type Terraform encodes a block with', () => {
    expect(blockType(sample.block)).toEqual(['object', { a: ['list', 'string'], n: ['object', { x: 'number' }], w: 'string', b: ['list', ['object', { y: 'bool' }]] }]);
  });

  it('reads the one provider of a `terraform providers schema -json` document', () => {
    const doc = { format_version: '1.0', provider_schemas: { 'plumb.invalid/plumb/plumb': providerSchema() } };
    expect(Object.keys(onlyProvider(doc).resource_schemas)).toEqual(RESOURCE_TYPE_NAMES);
    expect(() => onlyProvider({ format_version: '1.0', provider_schemas: {} })).toThrow(/exactly one provider/);
  });
});

describe('the served schema', () => {
  const generated = JSON.parse(readFileSync(path.join(root, 'schemas/terraform-provider.schema.json'), 'utf8')) as TfJsonSchemas;
  const g = onlyProvider(generated);
  const served = providerSchema();
  const pairs: [string, TfJsonSchema, TfJsonSchema][] = [
    ['provider', g.provider, served.provider],
    ...Object.entries(g.resource_schemas).map(([n, s]): [string, TfJsonSchema, TfJsonSchema] => [n, s, served.resource_schemas[n]!]),
  ];

  it('is the generated schema: every generated attribute and block served unchanged but for the listed edits, and the provider\'s own attributes only beside them', () => {
    expect(Object.keys(served.resource_schemas)).toEqual(Object.keys(g.resource_schemas));
    for (const [name, gen, srv] of pairs) {
      // The edits of blocks: a token's sink (and each of its sinks) has no stdout under Terraform, and its rotation no overlap.
      const without = (b: NonNullable<TfJsonSchema['block']['block_types']>[string], key: string) => ({ ...b, block: { ...b.block, attributes: Object.fromEntries(Object.entries(b.block.attributes ?? {}).filter(([k]) => k !== key)) } });
      const hidden = (bt: TfJsonSchema['block']['block_types']) =>
        name === 'plumb_group_access_token' && bt?.sink && bt.sinks && bt.rotation ? { ...bt, sink: without(bt.sink, 'stdout'), sinks: without(bt.sinks, 'stdout'), rotation: without(bt.rotation, 'overlap') } : bt;
      expect(srv.block.block_types, name).toEqual(hidden(gen.block.block_types));
      for (const [a, ga] of Object.entries(gen.block.attributes ?? {})) {
        const sa = srv.block.attributes?.[a];
        // The three edits: write-only secret settings (described for Terraform), every other setting
        // and what a Pages import reads optional and computed (an imported value kept where the
        // configuration is silent), and
        // token_env's default under Terraform; a CI/CD variable's value, write-only.
        const expected =
          name === SETTINGS_TYPE && isSecretSetting(a)
            ? { ...ga, sensitive: true, write_only: true, description: expect.stringContaining('write-only (Terraform 1.11+)') }
            : (name === 'plumb_project_variable' || name === 'plumb_group_variable') && a === 'value'
              ? { ...ga, sensitive: true, write_only: true }
            : (name === SETTINGS_TYPE || (name === 'plumb_project_pages' && a !== 'allow_unpublish')) && ga.optional
              ? { ...ga, computed: true }
              : name === 'provider' && a === 'token_env'
                ? { ...ga, required: false, optional: true }
                : ga;
        expect(sa, `${name}.${a}`).toEqual(expected);
      }
      for (const a of Object.keys(srv.block.attributes ?? {})) {
        if (a in (gen.block.attributes ?? {})) continue;
        expect(PROVIDER_ONLY[name]?.[a], `${name}.${a} is neither generated nor listed in PROVIDER_ONLY`).toBeDefined();
      }
    }
  });

  it('declares every attribute the generated CDKTF bindings synthesize into cdk.tf.json, and the bindings synthesize every attribute a configuration may set', () => {
    const dirs: Record<string, string> = {
      provider: 'provider',
      plumb_application_settings: 'application-settings',
      plumb_group_access_token: 'group-access-token',
      plumb_repository_file: 'repository-file',
      plumb_project_pages: 'project-pages',
      plumb_protected_branch: 'protected-branch',
      plumb_project_variable: 'project-variable',
      plumb_group_variable: 'group-variable',
    };
    for (const [name, , srv] of pairs) {
      const src = readFileSync(path.join(root, 'src/generated/cdktf', dirs[name]!, 'index.ts'), 'utf8');
      const body = /protected synthesizeAttributes\(\)[^\n]*\n\s*return \{([\s\S]*?)\n\s*\};/.exec(src)?.[1];
      expect(body, name).toBeDefined();
      const emitted = [...body!.matchAll(/^\s+([a-z_0-9]+): /gm)].map((m) => m[1]!).filter((k) => k !== 'alias');
      const declared = [...Object.keys(srv.block.attributes ?? {}), ...Object.keys(srv.block.block_types ?? {})];
      for (const k of emitted) expect(declared, `${name}: cdk.tf.json carries ${k}`).toContain(k);
      const settable = declared.filter((k) => !(srv.block.attributes?.[k]?.computed && !srv.block.attributes[k]!.optional) && !(PROVIDER_ONLY[name] && k in PROVIDER_ONLY[name]!));
      expect(emitted.sort(), name).toEqual(settable.sort());
    }
  });

  it('serves one attribute per current setting and none for removed ones, secrets write-only and never computed', () => {
    const block = served.resource_schemas[SETTINGS_TYPE]!.block;
    for (const s of SETTINGS) {
      const a = block.attributes?.[s.name] ?? block.block_types?.[s.name];
      if (s.removed) expect(a, s.name).toBeUndefined();
      else expect(a, s.name).toBeDefined();
      if (s.secret && !s.removed) expect(block.attributes?.[s.name], s.name).toMatchObject({ optional: true, write_only: true, sensitive: true });
    }
    for (const a of Object.values(block.attributes ?? {})) if (a.write_only) expect(a.computed ?? false).toBe(false);
  });
});

describe('the TLS certificate for go-plugin', () => {
  it('is a self-signed CA certificate for localhost and 127.0.0.1, for server and client authentication', () => {
    const c = makeServerCertificate();
    const x = new X509Certificate(c.certPem);
    expect(x.ca).toBe(true);
    expect(x.verify(x.publicKey)).toBe(true);
    expect(x.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1');
    expect(x.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(x.keyUsage).toEqual(expect.arrayContaining(['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2']));
    expect(c.handshakeCert).not.toContain('=');
    expect(Buffer.from(c.handshakeCert, 'base64').equals(x.raw)).toBe(true);
    expect(new Date(x.validTo).getTime()).toBeGreaterThan(Date.now());
  });
});

describe('descriptions written for Terraform users', () => {
  it('never tells a Terraform user to write ${env:…} or ${file:…}, and says how a secret setting is given', () => {
    const all: string[] = [];
    const walk = (b: { attributes?: Record<string, { description?: string }>; block_types?: Record<string, { block: unknown }> }) => {
      for (const a of Object.values(b.attributes ?? {})) all.push(a.description ?? '');
      for (const t of Object.values(b.block_types ?? {})) walk(t.block as never);
    };
    const s = providerSchema();
    walk(s.provider.block as never);
    for (const r of Object.values(s.resource_schemas)) walk(r.block as never);
    expect(all.filter((d) => /\$\{(env|file):/.test(d))).toEqual([]);
    // Nor of YAML files, apply's flags, or bounds in a schema's words (issue 21 defect 10).
    expect(all.filter((d) => /this YAML|YAML file\)|--allow-|unbounded/.test(d))).toEqual([]);
    expect(s.resource_schemas.plumb_repository_file!.block.attributes!.source!.description).toMatch(/relative to the working directory/);
    expect(s.provider.block.attributes!.allow_risky!.description).toMatch(/error at plan/);
    expect(Object.keys(s.resource_schemas.plumb_group_access_token!.block.block_types!.sink!.block.attributes ?? {})).not.toContain('stdout');
    // The predecessor's revocation after an overlap is a change Terraform would never apply.
    expect(Object.keys(s.resource_schemas.plumb_group_access_token!.block.block_types!.rotation!.block.attributes ?? {})).not.toContain('overlap');
    const key = s.resource_schemas[SETTINGS_TYPE]!.block.attributes!.captcha_private_key!;
    expect(key.description).toMatch(/write-only/i);
    expect(key.description).toMatch(/ephemeral/);
  });
});
