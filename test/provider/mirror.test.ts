/**
 * The provider's address and `plumb provider mirror` / `plumb provider install`
 * (src/provider/mirror.ts): where Terraform may install plumb's provider from, and what the mirror
 * holds.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PLUMB_PROVIDER_SOURCE } from '../../src/catalogue/index.js';
import { PROVIDER_HOST, cliConfigFor } from '../../src/provider/mirror.js';
import { root } from './harness.js';

/** Text files of the repository that declare or configure the provider (docs, examples, templates, tests, bench). */
function declaringFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir)) {
      const full = path.join(dir, e);
      if (statSync(full).isDirectory()) walk(full);
      else if (/\.(md|tf|ts|js|yml|json)$/.test(e)) out.push(full);
    }
  };
  for (const d of ['docs', 'examples', 'templates', 'test', 'bench', 'src', 'schemas']) walk(path.join(root, d));
  // This file names the wrong spellings on purpose.
  return [...out, path.join(root, 'README.md')].filter((f) => f !== path.join(root, 'test/provider/mirror.test.ts'));
}

describe('the provider address (issue 28 item 3)', () => {
  it('is on a host no one can publish under: a reserved .invalid name (RFC 6761), not a registry namespace', () => {
    const [host, namespace, type] = PLUMB_PROVIDER_SOURCE.split('/');
    expect(host).toMatch(/^[a-z0-9-]+\.invalid$/);
    expect(type).toBe('plumb');
    expect(namespace).toBe('plumb');
    expect(PROVIDER_HOST).toBe(host);
    expect(['registry.terraform.io', 'registry.opentofu.org']).not.toContain(host);
  });

  it('is the served schema\'s key, the CDKTF bindings\' source and the mirror\'s CLI configuration', () => {
    const schema = JSON.parse(readFileSync(path.join(root, 'schemas/terraform-provider.schema.json'), 'utf8')) as { provider_schemas: Record<string, unknown> };
    expect(Object.keys(schema.provider_schemas)).toEqual([PLUMB_PROVIDER_SOURCE]);
    expect(readFileSync(path.join(root, 'src/generated/cdktf/provider/index.ts'), 'utf8')).toContain(`terraformProviderSource: '${PLUMB_PROVIDER_SOURCE}'`);
    const rc = cliConfigFor('/m');
    expect(rc).toContain(`include = [${JSON.stringify(PLUMB_PROVIDER_SOURCE)}]`);
    expect(rc).toContain(`exclude = [${JSON.stringify(PLUMB_PROVIDER_SOURCE)}]`);
  });

  it('is written in full wherever the provider is declared: a short `plumb/plumb` means registry.terraform.io/plumb/plumb', () => {
    const wrong: string[] = [];
    for (const f of declaringFiles()) {
      const text = readFileSync(f, 'utf8');
      // `source = "…"` of a required_providers entry named plumb, dev_overrides keys, and addresses in prose.
      for (const m of text.matchAll(/plumb\s*=\s*\{\s*source\s*=\s*\\?"([^"\\]+)\\?"/g)) if (m[1] !== PLUMB_PROVIDER_SOURCE) wrong.push(`${path.relative(root, f)}: source = "${m[1]}"`);
      for (const m of text.matchAll(/(?<![\w.-])((?:[a-z0-9.-]+\/)?plumb\/plumb)(?![\w-])/g)) if (m[1] !== PLUMB_PROVIDER_SOURCE) wrong.push(`${path.relative(root, f)}: ${m[1]}`);
    }
    expect(wrong).toEqual([]);
  });
});
