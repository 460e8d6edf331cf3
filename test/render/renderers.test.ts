import { describe, expect, it } from 'vitest';
import { checkPlanFile } from '../../src/engine/plan.js';
import type { Plan, ResourceChange } from '../../src/engine/plan.js';
import { renderPlanHuman } from '../../src/render/human.js';
import { MARKDOWN_LIMIT, renderPlanMarkdown, renderPlanReport } from '../../src/render/markdown.js';
import { useColor } from '../../src/commands/output.js';
import { REASON_TEXT } from '../../src/resources/index.js';
import { planOf } from '../helpers/plans.js';

const plan = planOf;

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
    const md = renderPlanMarkdown(plan([settingsChange(5000)]), MARKDOWN_LIMIT, REASON_TEXT);
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
    expect(renderPlanHuman(plan([settingsChange(1)]), { color: true, reasons: REASON_TEXT })).toMatch(/\u001b\[33m/);
    expect(renderPlanHuman(plan([settingsChange(1)]), { color: false, reasons: REASON_TEXT })).not.toMatch(/\u001b\[/);
  });
});

const fileCreate = (project: string, selector?: string): ResourceChange => ({
  address: `local.project[${JSON.stringify(project)}].branch["main"].file["CODEOWNERS"]`,
  instance: 'local',
  kind: 'repository_file',
  action: 'create',
  reasons: ['file-missing'],
  attributes: [{ name: 'content_sha256', after: 'sha256:0123456789ab' }],
  payload: { project },
  liveFingerprint: 'sha256:absent',
  ...(selector !== undefined && { selector }),
});

describe('plans of a fleet', () => {
  it('labels a group with the selector its changes carry, in the terminal and in the comment', () => {
    const p = plan(Array.from({ length: 6 }, (_, i) => fileCreate(`platform/app-${i}`, 'platform/**')));
    expect(renderPlanHuman(p, { reasons: REASON_TEXT })).toContain('will be created (file-missing) in 6 projects matching platform/**:');
    expect(renderPlanMarkdown(p, MARKDOWN_LIMIT, REASON_TEXT)).toContain('| create | `local.project[*].branch["main"].file["CODEOWNERS"]` in 6 projects matching `platform/**` | file-missing |');
  });

  it('does not group identical changes that different selectors declared', () => {
    const p = plan([...Array.from({ length: 5 }, (_, i) => fileCreate(`a/p-${i}`, 'a/*')), ...Array.from({ length: 5 }, (_, i) => fileCreate(`b/p-${i}`, 'b/*'))]);
    const text = renderPlanHuman(p, { reasons: REASON_TEXT });
    expect(text).toContain('in 5 projects matching a/*');
    expect(text).toContain('in 5 projects matching b/*');
  });

  it('keeps a comment of 3,000 grouped projects within the size a comment allows, saying how many more the JSON plan lists', () => {
    const md = renderPlanMarkdown(plan(Array.from({ length: 3000 }, (_, i) => fileCreate(`platform/a-rather-long-project-name-${i}`))), MARKDOWN_LIMIT, REASON_TEXT);
    expect(md.length).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    expect(md).toMatch(/- … and [\d,]+ more \(`plumb plan --json` lists every one\)/);
    expect(md).toContain('<details><summary>3,000 projects</summary>');
    expect(md).toContain('</sub>');
  });

  it('escapes a selector in the comment like any configuration text', () => {
    const md = renderPlanMarkdown(plan(Array.from({ length: 5 }, (_, i) => fileCreate(`p/${i}`, 'x` | @all\n/approve'))), MARKDOWN_LIMIT, REASON_TEXT);
    expect(md).not.toMatch(/^\/approve/m);
    expect(md).not.toContain('@all');
  });

  it('states in the comment how many objects each selector matched, as the terminal plan does', () => {
    const p: Plan = {
      ...plan(Array.from({ length: 6 }, (_, i) => fileCreate(`platform/app-${i}`, 'platform/**'))),
      selectors: [
        { instance: 'local', container: 'projects', selector: 'platform/**', matched: 3000, at: 'plumb.yaml:7:7' },
        { instance: 'local', container: 'groups', selector: 'teams/*', matched: 1 },
      ],
    };
    expect(renderPlanHuman(p, { reasons: REASON_TEXT })).toContain('local.projects["platform/**"] matched 3,000 projects (plumb.yaml:7:7)');
    const md = renderPlanMarkdown(p, MARKDOWN_LIMIT, REASON_TEXT);
    expect(md).toContain('**Selectors**\n\n- `local.projects["platform/**"]` matched 3,000 projects (plumb.yaml:7:7)\n- `local.groups["teams/*"]` matched 1 group\n');
    // Above the collapsed plan, where a reviewer reads it.
    expect(md.indexOf('**Selectors**')).toBeLessThan(md.indexOf('<details><summary>Show plan</summary>'));
  });

  it('escapes a selector in the comment\'s selector counts like any configuration text', () => {
    const p: Plan = { ...plan([fileCreate('p/a')]), selectors: [{ instance: 'local', container: 'projects', selector: 'x` @all\n/approve', matched: 0 }] };
    const md = renderPlanMarkdown(p, MARKDOWN_LIMIT, REASON_TEXT);
    expect(md).toContain('matched 0 projects');
    expect(md).not.toMatch(/^\/approve/m);
    expect(md).not.toContain('@all');
  });

  it('reads a plan of format 1.1 and refuses a selector that is not a string', () => {
    const p = plan([fileCreate('p/a')]);
    expect(checkPlanFile({ ...p, formatVersion: '1.1' })).toBeUndefined();
    expect(checkPlanFile({ ...p, formatVersion: '1.5' })).toMatch(/not supported/);
    expect(checkPlanFile({ ...p, changes: [{ ...fileCreate('p/a'), selector: 7 }] })).toMatch(/selector/);
  });
});
