/**
 * The served schema (from the catalogue) and the conversion of Terraform's JSON schema form to the
 * protocol's messages.
 */
import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/catalogue/index.js';
import { makeServerCertificate } from '../../src/provider/cert.js';
import { RESOURCE_TYPES, providerSchema } from '../../src/provider/schema.js';
import { blockType, onlyProvider, toProtoSchema } from '../../src/provider/tfjson.js';
import type { TfJsonSchema } from '../../src/provider/tfjson.js';

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
    const doc = { format_version: '1.0', provider_schemas: { 'registry.terraform.io/plumb/plumb': providerSchema() } };
    expect(Object.keys(onlyProvider(doc).resource_schemas)).toEqual(Object.values(RESOURCE_TYPES));
    expect(() => onlyProvider({ format_version: '1.0', provider_schemas: {} })).toThrow(/exactly one provider/);
  });
});

describe('the served schema', () => {
  it('has one optional attribute per current setting, none for removed ones, and no computed secret', () => {
    const attrs = providerSchema().resource_schemas[RESOURCE_TYPES.settings]!.block.attributes!;
    for (const s of SETTINGS) {
      if (s.removed) expect(attrs[s.name], s.name).toBeUndefined();
      else expect(attrs[s.name], s.name).toMatchObject({ optional: true, ...(s.secret && { write_only: true, sensitive: true }) });
    }
    for (const a of Object.values(attrs)) if (a.write_only) expect(a.computed ?? false).toBe(false);
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
