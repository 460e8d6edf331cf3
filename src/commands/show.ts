/**
 * `plumb show PLAN.json [--markdown|--json]`: a saved plan for people, read from the file alone.
 * It loads no configuration and opens no connection (the HTTP client is never imported): a
 * reviewer can read a plan made by CI on a machine that cannot reach the instance.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileErrorSentence } from '../util/file-error.js';
import { checkPlanFile } from '../engine/plan.js';
import { checkPlanMeaning, checkPlanPayloads } from '../engine/payload-check.js';
import type { Plan } from '../engine/plan.js';
import { builtInKinds } from '../resources/index.js';
import type { CommandHooks, Io } from './output.js';
import { showView } from './views/show.js';
import type { ShowFormat, ShowView } from './views/show.js';

export interface ShowFlags {
  readonly planFile: string;
  readonly format: ShowFormat;
}

/** `hooks.kinds`: the registry whose payload parsers check the plan and whose reason texts show it. */
export async function runShow(flags: ShowFlags, io: Io, hooks: CommandHooks = {}): Promise<number> {
  const kinds = hooks.kinds ?? (await builtInKinds());
  const view = showView(flags.format, io, kinds.reasonText);
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path.resolve(io.cwd, flags.planFile), 'utf8'));
  } catch (err) {
    const why = err instanceof SyntaxError ? 'it is not JSON' : fileErrorSentence(err);
    return problem(view, 'PLUMB_PLAN_UNREADABLE', `Cannot read the plan file ${flags.planFile}: ${why}`);
  }
  const bad = checkPlanFile(data) ?? checkPlanPayloads(data as Plan, kinds.engine);
  if (bad) return problem(view, 'PLUMB_PLAN_INVALID', `${flags.planFile} is not a plan this plumb can show: ${bad}`);
  const plan = data as Plan;
  // Rendered offline from the attributes: they must say what the payloads (what apply sends) mean.
  const edited = checkPlanMeaning(plan, kinds.engine);
  if (edited) {
    return problem(view, 'PLUMB_PLAN_EDITED', `${flags.planFile} was edited: ${edited.address}: ${edited.problem}; what it shows is not what apply would do`, 'make a new plan with `plumb plan --out FILE` and review that');
  }
  view.plan(plan);
  return 0;
}

function problem(view: ShowView, code: 'PLUMB_PLAN_UNREADABLE' | 'PLUMB_PLAN_INVALID' | 'PLUMB_PLAN_EDITED', summary: string, suggestion = 'show the file `plumb plan --out FILE` wrote'): number {
  return view.problem([{ severity: 'error', code, summary, suggestion }]);
}
