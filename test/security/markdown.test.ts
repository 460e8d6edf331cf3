/**
 * The merge-request comment is built from configuration text a merge request controls (issue 18,
 * item 5; issue 22: a path with `|` or a backtick). Whatever the names, paths and summaries hold,
 * the comment has no line starting with `/` (a quick action), no unescaped `|` in a table cell, no
 * raw HTML, no mention; and no control character reaches a terminal.
 */
import { describe, expect, it } from 'vitest';
import { PLAN_FORMAT_VERSION, summarize } from '../../src/engine/plan.js';
import type { Plan, ResourceChange } from '../../src/engine/plan.js';
import { renderPlanHuman } from '../../src/render/human.js';
import { MARKDOWN_LIMIT, renderPlanMarkdown } from '../../src/render/markdown.js';
import { REASON_TEXT } from '../../src/resources/index.js';
import { renderDiagnosticsHuman } from '../../src/diagnostics/render.js';
import { workdir } from '../helpers/cli.js';

const HOSTILE = 'x\n```\n/approve\n/merge\n| a | b |\n`tick` ``` <img src=x onerror=alert(1)> @all \u001b[2J\u001b]0;pwned\u0007';

function hostilePlan(): Plan {
  const file: ResourceChange = {
    address: `local.project["platform/app"].branch["main"].file[${JSON.stringify('a|b`c.md')}]`,
    instance: 'local',
    kind: 'repository_file',
    action: 'create',
    reasons: ['missing-in-live'],
    attributes: [{ name: 'content_sha256', after: 'sha256:0' }],
    payload: {},
    liveFingerprint: 'sha256:0',
    diff: `+${HOSTILE}\n/approve`,
  };
  const token: ResourceChange = {
    address: `local.group["platform"].access_token["${HOSTILE}"]`,
    instance: 'local',
    kind: 'group_access_token',
    action: 'create',
    reasons: ['missing-in-live'],
    attributes: [{ name: 'description', after: HOSTILE }],
    payload: {},
    liveFingerprint: 'sha256:0',
  };
  const changes = [file, token];
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    plumbVersion: '0.1.0',
    createdAt: '2026-03-01T00:00:00.000Z',
    today: '2026-03-01',
    configFingerprint: 'sha256:x',
    instances: [{ name: 'local', url: 'https://code.example.test' }],
    changes,
    drift: [{ address: token.address, instance: 'local', kind: 'group_access_token', summary: HOSTILE, attributes: [], informational: true }],
    risks: [{ address: token.address, instance: 'local', id: 'prune-own-credential', summary: HOSTILE, acknowledged: false }],
    diagnostics: [{ severity: 'warning', code: 'PLUMB_KIND_NOT_MANAGED', summary: HOSTILE, detail: HOSTILE, suggestion: HOSTILE }],
    summary: summarize(changes),
    applicable: true,
    targets: [`local.group["${HOSTILE}"]`],
  };
}

/** Table rows: a cell boundary is a `|` not preceded by a backslash. */
function cells(row: string): number {
  return row.split(/(?<!\\)\|/).length - 2;
}

/** The comment split into fenced blocks (as CommonMark closes them) and the text outside them. */
function blocks(md: string): { fences: { fence: string; body: string }[]; outside: string } {
  const fences: { fence: string; body: string }[] = [];
  const outside: string[] = [];
  let open: { fence: string; body: string[] } | undefined;
  for (const line of md.split('\n')) {
    if (open) {
      if (line.trim() === open.fence || (line.trim().startsWith(open.fence) && /^`+$/.test(line.trim()))) {
        fences.push({ fence: open.fence, body: open.body.join('\n') });
        open = undefined;
      } else open.body.push(line);
      continue;
    }
    const m = /^(`{3,})\w*$/.exec(line);
    if (m) open = { fence: m[1]!, body: [] };
    else outside.push(line);
  }
  expect(open, 'every fenced block is closed').toBeUndefined();
  return { fences, outside: outside.join('\n') };
}

/** Text with inline code spans removed (CommonMark: a run of n backticks up to the next run of exactly n). */
function withoutCode(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const m = /(?<!\\)`+/g;
    m.lastIndex = i;
    const open = m.exec(text);
    if (!open) break;
    out += text.slice(i, open.index);
    const close = new RegExp(`(?<!\`)${open[0]}(?!\`)`, 'g');
    close.lastIndex = open.index + open[0].length;
    const end = close.exec(text);
    if (!end) {
      out += text.slice(open.index);
      i = text.length;
      break;
    }
    i = end.index + end[0].length;
  }
  return out + text.slice(i);
}

describe('the merge-request comment of hostile configuration text', () => {
  const md = renderPlanMarkdown(hostilePlan(), MARKDOWN_LIMIT, REASON_TEXT);

  it('has no line starting with / (no quick action)', () => {
    for (const line of md.split(/\r\n|\r|\n|\u2028|\u2029|\u0085/)) expect(line.startsWith('/'), line).toBe(false);
  });

  it('keeps every table row at three cells, a file path with | or a backtick included', () => {
    const rows = blocks(md).outside.split('\n').filter((l) => l.startsWith('|'));
    expect(rows.length).toBeGreaterThanOrEqual(3);
    for (const row of rows) expect(cells(row), row).toBe(3);
    expect(md).toContain('a\\|b');
  });

  it('has no raw HTML of the configuration and no mention', () => {
    // Inside a fenced block `<img` is code, shown as text; outside, never raw.
    expect(withoutCode(blocks(md).outside)).not.toContain('<img');
    expect(md).not.toMatch(/@all/);
    expect(md).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });

  it('uses fences the content cannot close', () => {
    const { fences, outside } = blocks(md);
    expect(fences.length).toBe(2); // the diagnostics and the plan
    for (const f of fences) {
      const longest = Math.max(0, ...(f.body.match(/`+/g) ?? []).map((r) => r.length));
      expect(f.fence.length).toBeGreaterThan(longest);
    }
    expect(outside).not.toContain('/approve\n');
  });
});

describe('terminal output of hostile configuration text', () => {
  it('never carries ESC or another control character in the human plan or a diagnostic', () => {
    const human = renderPlanHuman(hostilePlan(), { color: false, reasons: REASON_TEXT });
    expect(human).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    const diag = renderDiagnosticsHuman([{ severity: 'error', code: 'PLUMB_USAGE', summary: HOSTILE, detail: HOSTILE, suggestion: HOSTILE }], new Map());
    expect(diag).not.toContain('\u001b');
  });

  it('keeps ESC in a token name out of plumb plan\'s standard output and standard error', async () => {
    const wd = workdir({ PLUMB_TOKEN: 'x' });
    wd.write('plumb.yaml', `version: 1\ninstances:\n  prod:\n    url: https://code.example.invalid\n    token_env: PLUMB_TOKEN\n    groups:\n      platform:\n        access_tokens:\n          "ci\\e[2J\\e]0;pwned\\a":\n            scopes: [read_api]\n            access_level: reporter\n            expires_at: 2099-01-01\n            sink: {file: secrets/ci.token}\n`);
    const r = await wd.run(['validate']);
    expect(r.stdout + r.stderr).not.toContain('\u001b');
    const p = await wd.run(['plan']);
    expect(p.stdout + p.stderr).not.toContain('\u001b');
  });
});
