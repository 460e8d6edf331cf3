import { describe, expect, it } from 'vitest';
import { KIND_ENTRIES, REASON_TEXT, configKinds } from '../../src/resources/index.js';
import { main } from '../../src/cli.js';
import type { Io } from '../../src/commands/output.js';
import { BUILT_IN_CONFIG_KINDS, BUILT_IN_KINDS } from '../helpers/kinds.js';
import { configSchema } from '../../src/schema/build.js';
import { compileConfigSchema } from '../../src/schema/compile.js';
import { DIAGNOSTIC_CODES } from '../../src/diagnostics/codes.js';

const KIND_MODULES = BUILT_IN_KINDS.modules;
const EXPORTERS = BUILT_IN_KINDS.exporters;
const TERRAFORM_PARTS = BUILT_IN_KINDS.terraformParts;

describe('the kinds registry', () => {
  it('gives config/ exactly the configuration side of every kind, in the registry\'s order, from the one list of entries', () => {
    expect(BUILT_IN_CONFIG_KINDS.configs).toEqual(KIND_ENTRIES.map((m) => m.config));
    expect(KIND_MODULES.map((m) => m.config)).toEqual(KIND_ENTRIES.map((m) => m.config));
  });

  it('names each kind once, and its provider, exporter, configuration and Terraform shape by the same name', () => {
    expect(new Set(KIND_MODULES.map((m) => m.kind)).size).toBe(KIND_MODULES.length);
    for (const m of KIND_MODULES) {
      expect(m.provider.kind).toBe(m.kind);
      expect(m.config.kind).toBe(m.kind);
      if (m.exporter) expect(m.exporter.kind).toBe(m.kind);
      const shapes = m.terraformShape === undefined ? [] : [m.terraformShape].flat();
      for (const shape of shapes) expect(shape.kind).toBe(m.kind);
      // Each Terraform part reads its shape from its own folder: the same object the entry carries, one part per shape.
      const parts = m.terraform === undefined ? [] : [m.terraform].flat();
      expect(parts.map((t) => t.shape)).toEqual(shapes);
      parts.forEach((t, i) => expect(t.shape).toBe(shapes[i]));
    }
  });

  it('lets two kinds share a reason only with the same text', () => {
    for (const m of KIND_MODULES) for (const [reason, text] of Object.entries(m.reasons)) expect(REASON_TEXT[reason], `${m.kind}: ${reason}`).toBe(text);
  });

  it('gives every kind its own registered diagnostic codes, none claimed twice', () => {
    const owner = new Map<string, string>();
    for (const m of KIND_MODULES) {
      expect(m.codes.length, m.kind).toBeGreaterThan(0);
      for (const c of m.codes) {
        // Registered in src/diagnostics/codes.ts, or owned by the kind with its meaning (KindEntry.ownCodes).
        expect([...Object.keys(DIAGNOSTIC_CODES), ...Object.keys(m.ownCodes ?? {})]).toContain(c);
        expect(owner.get(c), `${c} claimed by ${owner.get(c)} and ${m.kind}`).toBeUndefined();
        owner.set(c, m.kind);
      }
    }
  });

  it('builds the built-in registry from the same entries config/ loads with, so the seam changes nothing for the built-in kinds', () => {
    expect(BUILT_IN_KINDS.configs).toEqual(BUILT_IN_CONFIG_KINDS.configs);
    expect(BUILT_IN_KINDS.pointers).toEqual(BUILT_IN_CONFIG_KINDS.pointers);
    expect(BUILT_IN_KINDS.terraformShapes).toEqual(BUILT_IN_CONFIG_KINDS.terraformShapes);
    expect(BUILT_IN_KINDS.terraformShapes.map((s) => s.type)).toEqual(['plumb_application_settings', 'plumb_group_access_token', 'plumb_protected_branch', 'plumb_repository_file', 'plumb_project_pages', 'plumb_project_variable', 'plumb_group_variable']);
    expect(configKinds(KIND_ENTRIES)).toEqual(BUILT_IN_CONFIG_KINDS);
    expect(BUILT_IN_KINDS.schema).toBeUndefined();
    // What withKinds compiles for a registry is the schema the build generates, for the same kinds.
    expect(compileConfigSchema(BUILT_IN_CONFIG_KINDS.configs).json()).toEqual(configSchema(BUILT_IN_CONFIG_KINDS.configs));
  });

  it('serves each Terraform resource type once', () => {
    expect(new Set(TERRAFORM_PARTS.map((t) => t.typeName)).size).toBe(TERRAFORM_PARTS.length);
  });
});

describe('plumb export and the exporters', () => {
  const run = async (argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const io: Io = { stdout: (s) => void out.push(s), stderr: (s) => void err.push(s), env: {}, cwd: process.cwd(), isTTY: false };
    const code = await main(argv, io);
    return { code, stdout: out.join(''), stderr: err.join('') };
  };

  it('lists every exporter flag in the usage, once, in the order of the registry', async () => {
    const flags = EXPORTERS.flatMap((e) => e.flags.map((f) => `--${f.name}`));
    expect(new Set(flags).size).toBe(flags.length);
    const { code, stdout } = await run(['export', '--help']);
    expect(code).toBe(0);
    const at = flags.map((f) => stdout.indexOf(`\n  ${f} `));
    expect(at.every((i) => i > 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });

  it('reports a value an exporter refuses as a usage mistake, before anything is read', async () => {
    const { code, stderr } = await run(['export', '--out', 'x', '--instance-url', 'http://127.0.0.1:1', '--sink-dir', '../up']);
    expect(code).not.toBe(0);
    expect(stderr).toContain('PLUMB_USAGE');
    expect(stderr).toContain('--sink-dir must be a directory inside the output directory');
  });
});
