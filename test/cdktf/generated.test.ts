import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderBindings, BINDINGS_DIR } from '../../scripts/cdktf-bindings.js';
import { SETTINGS } from '../../src/catalogue/index.js';
import { root } from './helpers.js';

interface Attr {
  type: unknown;
  description: string;
  required?: boolean;
  optional?: boolean;
  sensitive?: boolean;
  deprecated?: boolean;
}
interface Block {
  attributes: Record<string, Attr>;
  block_types?: Record<string, { nesting_mode: string; max_items: number; block: Block }>;
}

const schema = JSON.parse(readFileSync(path.join(root, 'schemas/terraform-provider.schema.json'), 'utf8')) as {
  provider_schemas: Record<string, { provider: { block: Block }; resource_schemas: Record<string, { block: Block }> }>;
};
const plumb = Object.entries(schema.provider_schemas).find(([fqpn]) => fqpn.endsWith('/plumb'))![1];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => (statSync(path.join(dir, n)).isDirectory() ? files(path.join(dir, n)) : [path.join(dir, n)]));
}

describe('the Terraform provider schema', () => {
  it('has the provider block and the resource types', () => {
    expect(Object.keys(plumb.resource_schemas).sort()).toEqual(['plumb_application_settings', 'plumb_group_access_token', 'plumb_group_variable', 'plumb_project_pages', 'plumb_project_variable', 'plumb_protected_branch', 'plumb_repository_file']);
    const provider = plumb.provider.block.attributes;
    expect(provider.url?.required).toBe(true);
    expect(provider.token_env?.required).toBe(true);
    expect(provider.ca_bundle?.optional).toBe(true);
  });

  it('names every current setting as the interface spells it, sensitive exactly when the catalogue says secret', () => {
    const block = plumb.resource_schemas.plumb_application_settings!.block;
    const names = [...Object.keys(block.attributes), ...Object.keys(block.block_types ?? {})].sort();
    const current = SETTINGS.filter((s) => !s.removed);
    expect(names).toEqual(current.map((s) => s.name).sort());
    for (const s of current) {
      if (block.attributes[s.name]) expect(block.attributes[s.name]!.sensitive === true, s.name).toBe(s.secret === true);
    }
    expect(block.attributes.captcha_private_key?.sensitive).toBe(true);
  });

  it('carries enums, bounds and deprecations from the catalogue', () => {
    const attrs = plumb.resource_schemas.plumb_application_settings!.block.attributes;
    expect(attrs.default_project_visibility?.description).toContain('One of: private, internal, public.');
    const bounded = SETTINGS.find((s) => !s.removed && s.minimum !== undefined && s.maximum !== undefined && !s.enum)!;
    expect(attrs[bounded.name]?.description).toContain(`From ${bounded.minimum} to ${bounded.maximum}.`);
    expect(attrs.signin_enabled?.deprecated).toBe(true);
  });

  it('makes optional nested blocks single lists (nesting_mode list, max_items 1)', () => {
    const token = plumb.resource_schemas.plumb_group_access_token!.block;
    expect(token.block_types?.rotation).toMatchObject({ nesting_mode: 'list', max_items: 1 });
    expect(token.block_types?.sink).toMatchObject({ nesting_mode: 'list', max_items: 1 });
    expect(Object.keys(token.block_types!.sink!.block.attributes).sort()).toEqual(['command', 'file', 'stdout']);
  });
});

describe('the CDKTF bindings', () => {
  it(`in ${BINDINGS_DIR} are up to date with the provider schema (run \`npm run generate\`)`, async () => {
    const expected = await renderBindings(schema as unknown as Record<string, unknown>);
    const committed = files(path.join(root, BINDINGS_DIR)).map((f) => path.relative(root, f).split(path.sep).join('/'));
    expect(committed.sort()).toEqual(Object.keys(expected).sort());
    for (const [rel, text] of Object.entries(expected)) expect(readFileSync(path.join(root, rel), 'utf8'), rel).toBe(text);
  });

  it('are ES modules that never type-check in plumb\'s strict build and link nowhere', () => {
    for (const f of files(path.join(root, BINDINGS_DIR))) {
      const text = readFileSync(f, 'utf8');
      expect(text.startsWith('// @ts-nocheck\n'), f).toBe(true);
      expect(text).not.toContain('registry.terraform.io/providers');
      for (const m of text.matchAll(/from '(\.[^']*)'/g)) expect(m[1]!.endsWith('.js'), `${f}: ${m[1]}`).toBe(true);
    }
  });
});
