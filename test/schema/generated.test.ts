import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it, expect } from 'vitest';
import Ajv from 'ajv';
import { renderArtifacts } from '../../scripts/artifacts.js';
import { SETTINGS, SETTING_RULES } from '../../src/catalogue/index.js';

const root = path.resolve(import.meta.dirname, '../..');

describe('generated artifacts', () => {
  const artifacts = renderArtifacts();

  it.each(Object.keys(artifacts))('%s is up to date with the catalogue (run `npm run generate`)', (rel) => {
    expect(readFileSync(path.join(root, rel), 'utf8')).toBe(artifacts[rel]);
  });

  it('keys the settings schema properties by every current setting name', () => {
    const schema = JSON.parse(artifacts['schemas/application-settings.schema.json']!) as { properties: Record<string, unknown> };
    const current = SETTINGS.filter((s) => !s.removed).map((s) => s.name);
    expect(Object.keys(schema.properties).sort()).toEqual([...current].sort());
    expect(current.length).toBeGreaterThan(370);
  });

  it('encodes every dependency rule of the catalogue in the settings schema', () => {
    const schema = JSON.parse(artifacts['schemas/application-settings.schema.json']!) as object;
    const validate = new Ajv.default({ allErrors: true, strict: false }).compile(schema);
    for (const rule of SETTING_RULES) {
      if (rule.kind === 'required-when-enabled') {
        expect(validate({ [rule.flag]: true }), rule.flag).toBe(false);
        const missing = (validate.errors ?? []).filter((e) => e.keyword === 'required').map((e) => (e.params as { missingProperty: string }).missingProperty);
        expect(missing.sort()).toEqual([...rule.requires].sort());
        expect(validate({ [rule.flag]: false })).toBe(true);
      }
    }
  });

  it('rejects a default visibility that is a restricted level and accepts one that is not', () => {
    const schema = JSON.parse(artifacts['schemas/application-settings.schema.json']!) as object;
    const validate = new Ajv.default({ allErrors: true, strict: false }).compile(schema);
    expect(validate({ default_project_visibility: 'public', restricted_visibility_levels: ['public'] })).toBe(false);
    expect(validate({ default_group_visibility: 'internal', restricted_visibility_levels: ['internal', 'public'] })).toBe(false);
    expect(validate({ default_project_visibility: 'private', restricted_visibility_levels: ['public'] })).toBe(true);
  });

  it('marks secret settings writeOnly for editors', () => {
    const schema = JSON.parse(artifacts['schemas/application-settings.schema.json']!) as { properties: Record<string, { writeOnly?: boolean }> };
    expect(schema.properties.captcha_private_key?.writeOnly).toBe(true);
    expect(schema.properties.captcha_site_key?.writeOnly).toBeUndefined();
  });
});
