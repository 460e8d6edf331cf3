/**
 * engine/report.ts: the report is a view of a plan. The classification rules the CLI suite cannot
 * reach cheaply (a change whose only differences cannot be compared, drift apply cannot fix, a
 * token renewed by replacement on schedule, an error at no resource's address).
 */
import { describe, expect, it } from 'vitest';
import { buildReport } from '../../src/engine/report.js';
import type { Plan, ResourceChange } from '../../src/engine/plan.js';

function plan(parts: Partial<Plan>): Plan {
  return {
    formatVersion: '1.3',
    plumbVersion: '0.1.0',
    createdAt: '2026-03-01T12:00:00.000Z',
    today: '2026-03-01',
    configFingerprint: 'sha256:x',
    instances: [{ name: 'p', url: 'https://code.example.test' }],
    changes: [],
    drift: [],
    risks: [],
    diagnostics: [],
    summary: { create: 0, update: 0, replace: 0, rotate: 0, delete: 0, noop: 0 },
    applicable: true,
    ...parts,
  };
}

const change = (address: string, c: Partial<ResourceChange>): ResourceChange => ({ address, instance: 'p', kind: 'k', action: 'no-op', reasons: [], attributes: [], payload: {}, liveFingerprint: 'f', ...c });
const inputs = { requestsUsed: 1, budgetExhausted: false };

describe('buildReport', () => {
  it('keeps a resource whose only differences are write-only values it cannot compare compliant, listing them', () => {
    const r = buildReport(plan({ changes: [change('p.application_settings', { action: 'update', attributes: [{ name: 'k', after: '(sensitive value)', sensitive: true, writeOnly: true, notComparable: true }] })] }), inputs);
    expect(r.resources[0]).toMatchObject({ status: 'compliant', fields: [{ name: 'k', comparison: 'not-comparable', declared: '(sensitive value)' }] });
    expect(r.resources[0]!.fields[0]).not.toHaveProperty('live');
  });

  it('calls a no-op with drift apply cannot fix drifted, and a renewal on schedule compliant', () => {
    const r = buildReport(
      plan({
        changes: [change('p.project["a"].pages', {}), change('p.group["g"].access_token["t"]', { action: 'replace', reasons: ['expiring-soon'], attributes: [{ name: 'rotated_by', after: 'replacement' }] })],
        drift: [{ address: 'p.project["a"].pages', instance: 'p', kind: 'pages', summary: 'not published', attributes: [{ name: 'published', before: false, after: true }] }],
      }),
      inputs,
    );
    expect(r.resources.map((x) => [x.address, x.status])).toEqual([
      ['p.project["a"].pages', 'drifted'],
      ['p.group["g"].access_token["t"]', 'compliant'],
    ]);
    expect(r.resources[0]!.scope).toEqual({ container: 'projects', path: 'a' });
  });

  it('is not complete when an error is about no resource (an instance not opened)', () => {
    const r = buildReport(plan({ diagnostics: [{ severity: 'error', code: 'PLUMB_TOKEN_ENV_MISSING', summary: 'not set' }] }), inputs);
    expect(r).toMatchObject({ complete: false, summary: { total: 0 } });
  });

  it('counts a matched object with nothing in the plan as not checked', () => {
    const r = buildReport(plan({ selectors: [{ instance: 'p', container: 'projects', selector: 'a/**', matched: 3 }], changes: [change('p.project["a/x"].pages', { selector: 'a/**' })] }), inputs);
    expect(r.selectors[0]!.objects).toEqual({ total: 3, compliant: 1, drifted: 0, missing: 0, unreadable: 0, notChecked: 2 });
  });
});
