/**
 * The plan file is parsed whole before any use (issue 20): `show` and `apply` report a malformed
 * plan (which field, what is wrong) with exit 1, never a stack trace.
 */
import { describe, expect, it } from 'vitest';
import { workdir } from '../helpers/cli.js';
import { SETTINGS_CHANGE as change, settingsPlan } from '../helpers/plans.js';

const PLAN = settingsPlan();

const STACK = /\n\s+at .*:\d+:\d+/;

async function show(content: string, ...flags: string[]) {
  const wd = workdir();
  wd.write('plan.json', content);
  return wd.run(['show', 'plan.json', ...flags]);
}

describe('a malformed plan file', () => {
  it('without diagnostics is reported by show, naming the field, with exit 1 and no stack trace', async () => {
    const { diagnostics: _, ...rest } = PLAN;
    for (const flags of [[], ['--markdown']]) {
      const r = await show(JSON.stringify(rest), ...flags);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('PLUMB_PLAN_INVALID');
      expect(r.stderr).toContain('diagnostics');
      expect(r.stderr + r.stdout).not.toMatch(STACK);
    }
  });

  it('with a payload of the wrong type is reported by show, naming the payload field', async () => {
    const bad = { ...PLAN, changes: [{ ...change, payload: { set: 'signup_enabled=true', secrets: {} } }] };
    const r = await show(JSON.stringify(bad));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('payload.set');
    expect(r.stderr).not.toMatch(STACK);
  });

  it('with attributes, drift or a summary of the wrong shape is reported, not rendered', async () => {
    for (const bad of [
      { ...PLAN, changes: [{ ...change, attributes: [{ before: 1 }] }] },
      { ...PLAN, drift: [null] },
      { ...PLAN, summary: null },
      { ...PLAN, diagnostics: [{ severity: 'error' }] },
      { ...PLAN, instances: [{}] },
    ]) {
      const r = await show(JSON.stringify(bad));
      expect(r.code, JSON.stringify(bad).slice(0, 200)).toBe(1);
      expect(r.stderr).toContain('PLUMB_PLAN_INVALID');
      expect(r.stderr).not.toMatch(STACK);
    }
  });

  it('that is not JSON is reported by show and apply with exit 1', async () => {
    const r = await show('{"formatVersion": ');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_PLAN_UNREADABLE');
    const wd = workdir({ PLUMB_TOKEN: 'x' });
    wd.write('plumb.yaml', 'version: 1\ninstances:\n  prod:\n    url: https://code.example.invalid\n    token_env: PLUMB_TOKEN\n    settings:\n      signup_enabled: false\n');
    wd.write('plan.json', 'not json');
    const a = await wd.run(['apply', 'plan.json']);
    expect(a.code).toBe(1);
    expect(a.stderr).toContain('PLUMB_PLAN_UNREADABLE');
    expect(a.stderr).not.toMatch(STACK);
  });

  it('without diagnostics is refused by apply before any connection', async () => {
    const wd = workdir({ PLUMB_TOKEN: 'x' });
    wd.write('plumb.yaml', 'version: 1\ninstances:\n  prod:\n    url: https://code.example.invalid\n    token_env: PLUMB_TOKEN\n    settings:\n      signup_enabled: false\n');
    const { diagnostics: _, ...rest } = PLAN;
    wd.write('plan.json', JSON.stringify(rest));
    const a = await wd.run(['apply', 'plan.json']);
    expect(a.code).toBe(1);
    expect(a.stderr).toContain('PLUMB_PLAN_INVALID');
    expect(a.stderr).toContain('diagnostics');
  });
});
