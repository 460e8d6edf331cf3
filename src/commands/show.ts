/**
 * `plumb show PLAN.json [--markdown|--json]`: a saved plan for people, read from the file alone.
 * It loads no configuration and opens no connection (the HTTP client is never imported): a
 * reviewer can read a plan made by CI on a machine that cannot reach the instance.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileErrorSentence } from '../util/file-error.js';
import { renderDiagnosticsHuman } from '../diagnostics/render.js';
import { checkPlanFile } from '../engine/plan.js';
import { checkPlanMeaning, checkPlanPayloads } from '../engine/payload-check.js';
import type { Plan } from '../engine/plan.js';
import { renderPlanHuman } from '../render/human.js';
import { renderPlanMarkdown, MARKDOWN_LIMIT } from '../render/markdown.js';
import { KINDS, REASON_TEXT } from '../resources/index.js';
import type { Io } from './output.js';
import { useColor } from './output.js';

export interface ShowFlags {
  readonly planFile: string;
  readonly format: 'human' | 'markdown' | 'json';
}

export function runShow(flags: ShowFlags, io: Io): number {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path.resolve(io.cwd, flags.planFile), 'utf8'));
  } catch (err) {
    const why = err instanceof SyntaxError ? 'it is not JSON' : fileErrorSentence(err);
    return problem(io, 'PLUMB_PLAN_UNREADABLE', `Cannot read the plan file ${flags.planFile}: ${why}`);
  }
  const bad = checkPlanFile(data) ?? checkPlanPayloads(data as Plan, KINDS);
  if (bad) return problem(io, 'PLUMB_PLAN_INVALID', `${flags.planFile} is not a plan this plumb can show: ${bad}`);
  const plan = data as Plan;
  // Rendered offline from the attributes: they must say what the payloads (what apply sends) mean.
  const edited = checkPlanMeaning(plan, KINDS);
  if (edited) {
    return problem(io, 'PLUMB_PLAN_EDITED', `${flags.planFile} was edited: ${edited.address}: ${edited.problem}; what it shows is not what apply would do`, 'make a new plan with `plumb plan --out FILE` and review that');
  }
  if (flags.format === 'json') io.stdout(JSON.stringify(plan, null, 2) + '\n');
  else if (flags.format === 'markdown') io.stdout(renderPlanMarkdown(plan, MARKDOWN_LIMIT, REASON_TEXT));
  else {
    io.stdout(`Plan of ${plan.createdAt} (plumb ${plan.plumbVersion}) for ${plan.instances.map((i) => `${i.name} (${i.url})`).join(', ') || 'no instance'}\n\n`);
    io.stdout(renderPlanHuman(plan, { color: useColor(io), reasons: REASON_TEXT }));
  }
  return 0;
}

function problem(io: Io, code: 'PLUMB_PLAN_UNREADABLE' | 'PLUMB_PLAN_INVALID' | 'PLUMB_PLAN_EDITED', summary: string, suggestion = 'show the file `plumb plan --out FILE` wrote'): number {
  io.stderr(renderDiagnosticsHuman([{ severity: 'error', code, summary, suggestion }], new Map(), { color: useColor(io) }));
  return 1;
}
