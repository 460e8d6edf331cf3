import { describe, expect, it } from 'vitest';
import { PLAN_FORMAT_VERSION, summarize } from '../../src/engine/plan.js';
import type { Plan, ResourceChange } from '../../src/engine/plan.js';
import { renderPlanHuman } from '../../src/render/human.js';
import { MARKDOWN_LIMIT, renderPlanMarkdown, renderPlanReport } from '../../src/render/markdown.js';
import { useColor } from '../../src/commands/output.js';

function plan(changes: ResourceChange[]): Plan {
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    plumbVersion: '0.0.0',
    createdAt: '2026-01-01T00:00:00.000Z',
    today: '2026-01-01',
    configFingerprint: 'sha256:x',
    instances: [{ name: 'local', url: 'http://127.0.0.1' }],
    changes,
    drift: [],
    risks: [],
    diagnostics: [],
    summary: summarize(changes),
    applicable: true,
  };
}

const settingsChange = (n: number): ResourceChange => ({
  address: 'local.application_settings',
  instance: 'local',
  kind: 'application_settings',
  action: 'update',
  reasons: ['field-changed'],
  attributes: Array.from({ length: n }, (_, i) => ({ name: `setting_${i}`, before: 'x'.repeat(40), after: 'y'.repeat(40) })),
  payload: {},
  liveFingerprint: 'sha256:y',
});

describe('plan renderers', () => {
  it('keeps a merge-request comment within the size a comment allows, saying it was truncated', () => {
    const md = renderPlanMarkdown(plan([settingsChange(5000)]));
    expect(md.length).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    expect(md).toContain('truncated');
    expect(md).toContain('<details>');
  });

  it('counts a replace as a create and a delete, and a rotation as an update, in the widget report', () => {
    const replace = { ...settingsChange(1), action: 'replace' as const, address: 'a' };
    const rotate = { ...settingsChange(1), action: 'rotate' as const, address: 'b' };
    expect(renderPlanReport(plan([replace, rotate, settingsChange(1)]))).toEqual({ create: 1, update: 2, delete: 1 });
  });

  it('paints only on a terminal and never when NO_COLOR is set', () => {
    const base = { stdout: () => {}, stderr: () => {}, cwd: '.' };
    expect(useColor({ ...base, isTTY: true, env: {} })).toBe(true);
    expect(useColor({ ...base, isTTY: true, env: { NO_COLOR: '1' } })).toBe(false);
    expect(useColor({ ...base, isTTY: false, env: {} })).toBe(false);
    expect(renderPlanHuman(plan([settingsChange(1)]), { color: true })).toMatch(/\u001b\[33m/);
    expect(renderPlanHuman(plan([settingsChange(1)]), { color: false })).not.toMatch(/\u001b\[/);
  });
});
