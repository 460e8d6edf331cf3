import { describe, expect, it } from 'vitest';
import { KIND_MODULES, REASON_TEXT, TERRAFORM_PARTS } from '../../src/resources/index.js';
import { KIND_CONFIGS } from '../../src/resources/config.js';
import { DIAGNOSTIC_CODES } from '../../src/diagnostics/codes.js';

describe('the kinds registry', () => {
  it('gives config/ exactly the configuration side of every kind module, in the same order', () => {
    expect(KIND_CONFIGS).toEqual(KIND_MODULES.map((m) => m.config));
  });

  it('names each kind once, and its provider, exporter and configuration by the same name', () => {
    expect(new Set(KIND_MODULES.map((m) => m.kind)).size).toBe(KIND_MODULES.length);
    for (const m of KIND_MODULES) {
      expect(m.provider.kind).toBe(m.kind);
      expect(m.config.kind).toBe(m.kind);
      if (m.exporter) expect(m.exporter.kind).toBe(m.kind);
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
        expect(Object.keys(DIAGNOSTIC_CODES)).toContain(c);
        expect(owner.get(c), `${c} claimed by ${owner.get(c)} and ${m.kind}`).toBeUndefined();
        owner.set(c, m.kind);
      }
    }
  });

  it('serves each Terraform resource type once', () => {
    expect(new Set(TERRAFORM_PARTS.map((t) => t.typeName)).size).toBe(TERRAFORM_PARTS.length);
  });
});
