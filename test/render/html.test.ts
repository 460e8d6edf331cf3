/**
 * The HTML page's text (src/render/html.ts, src/util/html.ts) without a browser: every string of
 * the document escaped, control characters shown, a secret in a value masked after escaping, the
 * CSP hashes those of the page's own style and script, and the report page's sections. How the page
 * behaves in Chromium: html-browser.test.ts.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MASK, SecretRegistry } from '../../src/config/secrets.js';
import type { Plan } from '../../src/engine/plan.js';
import { buildReport } from '../../src/engine/report.js';
import { renderPlanHtml, renderReportHtml } from '../../src/render/html.js';
import { REASON_TEXT } from '../../src/resources/index.js';
import { htmlText } from '../../src/util/html.js';
import { planOf } from '../helpers/plans.js';

const HOSTILE = '"><script>alert(1)</script>\u001b[2J\u202e&amp;\'';

/** A plan whose every string field an attacker could choose holds HOSTILE. */
function hostilePlan(): Plan {
  const base = planOf([
    {
      address: `local.group[${JSON.stringify(HOSTILE)}].access_token[${JSON.stringify(HOSTILE)}]`,
      instance: 'local',
      kind: 'group_access_token',
      action: 'update',
      reasons: [HOSTILE],
      attributes: [{ name: HOSTILE, before: HOSTILE, after: { nested: HOSTILE } }],
      pointer: `/instances/local/groups/${HOSTILE}`,
      selector: HOSTILE,
      payload: {},
      liveFingerprint: 'sha256:0',
      diff: HOSTILE,
    },
  ]);
  return {
    ...base,
    instances: [{ name: 'local', url: `http://127.0.0.1/${HOSTILE}` }],
    targets: [HOSTILE],
    drift: [{ address: HOSTILE, instance: 'local', kind: 'group_access_token', summary: HOSTILE, attributes: [], informational: true }],
    risks: [{ address: HOSTILE, instance: 'local', id: HOSTILE, summary: HOSTILE, acknowledged: false }],
    diagnostics: [{ severity: 'warning', code: 'PLUMB_API_NOT_FOUND', summary: HOSTILE, address: HOSTILE, file: HOSTILE, line: 1, column: 1 }],
    selectors: [{ instance: 'local', container: 'projects', selector: HOSTILE, matched: 3, at: HOSTILE }],
    expiring: {
      within: HOSTILE,
      days: 30,
      until: '2026-01-31T00:00:00.000Z',
      entries: [{ what: 'access_token', address: HOSTILE, instance: 'local', container: 'groups', path: HOSTILE, name: HOSTILE, expiresAt: '2026-01-05', daysLeft: 4, state: 'expiring', declared: false }],
    },
  };
}

describe('htmlText', () => {
  it('escapes the five characters of markup and shows control characters visibly', () => {
    expect(htmlText(`<a href="x">it's & </a>`)).toBe('&lt;a href=&quot;x&quot;&gt;it&#39;s &amp; &lt;/a&gt;');
    expect(htmlText('a\u001bb\u007fc\u0000d\u202ee\u2028f\u0085g')).toBe('a␛b␡c␀d⟨U+202E⟩e⟨U+2028⟩f⟨U+0085⟩g');
    expect(htmlText('tab\tand\nnewline')).toBe('tab\tand\nnewline');
  });
});

describe('the page of a plan', () => {
  it('never lets a string of the document become markup', () => {
    for (const mode of ['plan', 'drift'] as const) {
      const html = renderPlanHtml(hostilePlan(), REASON_TEXT, mode);
      expect(html).not.toContain('<script>alert');
      expect(html).not.toContain('"><script');
      expect(html).not.toContain('\u001b');
      expect(html).not.toContain('\u202e');
      // The page's own elements only: one script, one style, and no attribute an attacker chose.
      expect(html.match(/<script\b/g)).toHaveLength(1);
      expect(html.match(/<style\b/g)).toHaveLength(1);
      expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;␛[2J⟨U+202E⟩&amp;amp;&#39;');
    }
  });

  it('allows exactly its own style and script by their SHA-256 in a CSP that loads nothing', () => {
    const html = renderPlanHtml(hostilePlan(), REASON_TEXT);
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)![1]!;
    const sha = (s: string) => `'sha256-${createHash('sha256').update(s).digest('base64')}'`;
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
    expect(csp).toBe(`default-src 'none'; style-src ${sha(style)}; script-src ${sha(script)}; img-src 'none'; base-uri 'none'; form-action 'none'; object-src 'none'`);
    // It comes before anything it governs.
    expect(html.indexOf('Content-Security-Policy')).toBeLessThan(html.indexOf('<style>'));
    expect(html).not.toMatch(/\sstyle=|\son\w+=|src=|href="(?!#)/);
  });

  it('puts the summary first, then the risks, the timeline and a table per instance', () => {
    const html = renderPlanHtml(hostilePlan(), REASON_TEXT);
    const order = ['id="summary"', 'id="risks"', 'id="expiry"', 'id="instance-0"', 'id="notes"', 'id="diagnostics"'].map((s) => html.indexOf(s));
    expect(order.every((i) => i > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(html).toMatch(/<svg viewBox="0 0 800 180" width="100%" role="img"/);
    expect(html).toContain('<details><summary>local.group[');
  });

  it('is masked by the secret registry, a secret with markup characters included', () => {
    const secret = `p&ss<w>rd"'-${'x'.repeat(12)}`;
    const registry = new SecretRegistry();
    registry.add(secret);
    const plan = planOf([{ address: 'local.application_settings', instance: 'local', kind: 'application_settings', action: 'update', reasons: [], attributes: [{ name: 'a', before: secret, after: `${secret} again` }], payload: {}, liveFingerprint: 'sha256:0' }]);
    const html = registry.redact(renderPlanHtml(plan, REASON_TEXT));
    expect(html).not.toContain(htmlText(secret));
    expect(html).not.toContain('x'.repeat(12));
    expect(html).toContain(htmlText(MASK));
  });
});

describe('the page of a report', () => {
  it('shows the fleet per selector, the statuses and the expiry horizon', () => {
    const report = buildReport(hostilePlan(), { requestsUsed: 12, budgetExhausted: false, maxRequests: 100 });
    const html = renderReportHtml(report, REASON_TEXT);
    expect(html).toContain('<h1>plumb report</h1>');
    expect(html).toContain('Requests: 12 of 100.');
    expect(html).toContain('<h3>Fleet per selector</h3>');
    expect(html).toContain('<option value="drifted">drifted</option>');
    expect(html).toContain('<title id="timeline-title">Expiry timeline</title>');
    expect(html).not.toContain('<script>alert');
    expect(html.match(/<script\b/g)).toHaveLength(1);
  });
});
