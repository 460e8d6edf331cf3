/**
 * A plan carries only its reasons' names (the engine's `Reason` is generic, as Terraform's
 * `ActionReason`); the kinds own the texts people read. Every view of a plan writes a change's
 * reasons through the texts of the registry the command runs with.
 */
import { describe, expect, it } from 'vitest';
import type { ResourceChange } from '../../src/engine/plan.js';
import { renderPlanHuman } from '../../src/render/human.js';
import { MARKDOWN_LIMIT, renderPlanMarkdown } from '../../src/render/markdown.js';
import { reconcileView } from '../../src/commands/views/reconcile.js';
import { showView } from '../../src/commands/views/show.js';
import { renderDriftJunit } from '../../src/commands/junit.js';
import { noteBody } from '../../src/commands/comment.js';
import type { Io } from '../../src/commands/output.js';
import { KIND_ENTRIES, REASON_TEXT } from '../../src/resources/index.js';
import { FILE_REASONS } from '../../src/resources/repository-files/index.js';
import { planOf } from '../helpers/plans.js';

const TEXTS = REASON_TEXT;

const plan = planOf;

const fileUpdate = (project: string): ResourceChange => ({
  address: `local.project[${JSON.stringify(project)}].branch["main"].file["CODEOWNERS"]`,
  instance: 'local',
  kind: 'repository_file',
  action: 'update',
  reasons: ['content-changed', 'execute-bit-changed'],
  attributes: [{ name: 'content_sha256', before: 'sha256:0', after: 'sha256:1' }],
  payload: {},
  liveFingerprint: 'sha256:y',
});

const one = plan([fileUpdate('a/b')]);
/** Identical but for their project: one group in every view. */
const fleet = plan(Array.from({ length: 6 }, (_, i) => fileUpdate(`platform/app-${i}`)));
const WORDS = `${FILE_REASONS['content-changed']}; ${FILE_REASONS['execute-bit-changed']}`;

function io(): Io & { out: () => string } {
  let out = '';
  return { stdout: (s) => void (out += s), stderr: (s) => void (out += s), isTTY: false, env: {}, cwd: '.', out: () => out };
}

describe("a change's reasons in every view", () => {
  it('are the kind\'s texts in the human plan, for a change and for a group of changes', () => {
    expect(renderPlanHuman(one, { reasons: TEXTS })).toContain(`will be updated in place (${WORDS})`);
    expect(renderPlanHuman(fleet, { reasons: TEXTS })).toContain(`will be updated in place (${WORDS}) in 6 projects:`);
  });

  it("are the kind's texts in the comment's table and in its plan, never the reasons' names", () => {
    for (const md of [renderPlanMarkdown(one, MARKDOWN_LIMIT, TEXTS), renderPlanMarkdown(fleet, MARKDOWN_LIMIT, TEXTS), noteBody(one, '<!-- m -->', undefined, 100_000, TEXTS)]) {
      expect(md).toContain(`| update |`);
      expect(md).toContain(`| ${WORDS} |`);
      expect(md).not.toContain('content-changed');
    }
  });

  it("are the kind's texts in plan's, show's and drift's human views, and in drift's JUnit report", () => {
    const plain = io();
    reconcileView(false, plain, (s) => s, TEXTS).plan(one);
    showView('human', plain, TEXTS).plan(one);
    showView('markdown', plain, TEXTS).plan(one);
    reconcileView(false, plain, (s) => s, TEXTS).drift(one);
    expect(plain.out()).toContain(`apply would update it (${WORDS})`);
    expect(plain.out()).not.toContain('content-changed');
    expect(renderDriftJunit(one, TEXTS)).toContain(`pending change: update (${WORDS})`);
  });

  it('are the names in the JSON plan, which is data (as Terraform\'s action_reason)', () => {
    const json = io();
    showView('json', json, TEXTS).plan(one);
    expect(JSON.parse(json.out()).changes[0].reasons).toEqual(['content-changed', 'execute-bit-changed']);
  });

  it('come from the registry the command runs with: a reason no kind of it gives is shown by its name', () => {
    const added = { ...TEXTS, 'maintenance-differs': 'maintenance mode differs from the instance' };
    const change = { ...fileUpdate('a/b'), kind: 'maintenance', address: 'local.maintenance', reasons: ['maintenance-differs'] };
    expect(renderPlanHuman(plan([change]), { reasons: added })).toContain('(maintenance mode differs from the instance)');
    expect(renderPlanHuman(plan([change]), { reasons: TEXTS })).toContain('(maintenance-differs)');
  });

  it('are declared by each built-in kind for the reasons its plan gives', () => {
    // The repository files' plan gives these two as well as its own (provider.ts); it owns their texts.
    const files = KIND_ENTRIES.find((m) => m.kind === 'repository_file')!;
    expect(Object.keys(files.reasons)).toEqual(expect.arrayContaining(['missing-in-live', 'absent-requested', 'content-changed', 'execute-bit-changed']));
  });
});
