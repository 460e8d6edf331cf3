/**
 * The view of `plumb show`, one implementation per format (human, `--markdown`, `--json`), chosen
 * once. A plan file that cannot be shown is a problem in every format: with `--json`, the error
 * document on stdout (./problem.ts); otherwise diagnostics on stderr and nothing on stdout.
 */
import { clean } from '../../util/terminal.js';
import type { Plan } from '../../engine/plan.js';
import { renderPlanHuman } from '../../render/human.js';
import { renderPlanMarkdown, MARKDOWN_LIMIT } from '../../render/markdown.js';
import type { ReasonTexts } from '../../render/human.js';
import type { Io } from '../output.js';
import { useColor } from '../output.js';
import { JsonOut, problemView } from './problem.js';
import type { ProblemView } from './problem.js';

export type ShowFormat = 'human' | 'markdown' | 'json';

export interface ShowView extends ProblemView {
  plan(plan: Plan): void;
}

/** `reasons`: the reasons' texts of the registry `show` runs with. */
export function showView(format: ShowFormat, io: Io, reasons: ReasonTexts): ShowView {
  if (format === 'json') {
    const out = new JsonOut(io, (s) => s);
    return { plan: (plan) => out.document(plan), problem: (d, t) => out.problem(d, t) };
  }
  const problems = problemView(false, io);
  if (format === 'markdown') return { plan: (plan) => io.stdout(renderPlanMarkdown(plan, MARKDOWN_LIMIT, reasons)), problem: (d, t) => problems.problem(d, t) };
  return {
    plan(plan) {
      io.stdout(clean(`Plan of ${plan.createdAt} (plumb ${plan.plumbVersion}) for ${plan.instances.map((i) => `${i.name} (${i.url})`).join(', ') || 'no instance'}`) + '\n\n');
      io.stdout(renderPlanHuman(plan, { color: useColor(io), reasons }));
    },
    problem: (d, t) => problems.problem(d, t),
  };
}
