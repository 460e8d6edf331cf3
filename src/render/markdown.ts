/**
 * A merge-request comment: a concise summary, a table of changed resources, and the full human plan
 * in a collapsible block, kept within the size a comment allows.
 */
import type { Plan, Reason } from '../engine/plan.js';
import { renderChange, renderDiagnosticLine, summaryLine } from './human.js';
import { clean, mdCode, mdFence, mdText, noQuickActions } from './escape.js';

/** Comfortably below the smallest common comment limit (65,536 characters). */
export const MARKDOWN_LIMIT = 60_000;

/** `reasons`: each reason's text for people (see HumanOptions). */
export function renderPlanMarkdown(plan: Plan, limit = MARKDOWN_LIMIT, reasons: Readonly<Partial<Record<Reason, string>>> = {}): string {
  const changes = plan.changes.filter((c) => c.action !== 'no-op');
  const errors = plan.diagnostics.filter((d) => d.severity === 'error');
  const head: string[] = [];
  const status = errors.length > 0 ? '❌ plumb plan has errors' : changes.length === 0 ? '✅ plumb plan: no changes' : `📝 plumb plan: ${summaryLine(plan).replace(/^Plan: /, '')}`;
  head.push(`### ${status}`, '');
  if (plan.targets && plan.targets.length > 0) head.push(`Targeted: only ${plan.targets.map((t) => mdCode(t)).join(', ')}.`, '');
  if (changes.length > 0) {
    head.push('| Action | Resource | Why |', '|---|---|---|');
    for (const c of changes) head.push(`| ${mdText(c.action)} | ${mdCode(c.address, true)} | ${mdText(c.reasons.join(', '))} |`);
    head.push('');
  }
  const destroys = plan.risks.filter((r) => r.gate === 'destroy');
  if (destroys.length > 0) {
    head.push('**🛑 Destroys** (apply needs `--allow-destroy` or the resource\'s opt-in in the configuration for the unaccepted ones):', '');
    for (const r of destroys) head.push(`- 🛑 ${mdCode(r.id)} ${r.acknowledged ? '(accepted by the configuration) ' : ''}${mdCode(r.address)}: ${mdText(r.summary)}`);
    head.push('');
  }
  const lockouts = plan.risks.filter((r) => r.gate !== 'destroy');
  if (lockouts.length > 0) {
    head.push('**Risky changes** (can lock administrators or plumb out; apply needs `--allow-risky` or `allow_risky` for the unaccepted ones):', '');
    for (const r of lockouts) head.push(`- ⚠️ ${mdCode(r.id)} ${r.acknowledged ? '(accepted by allow_risky) ' : ''}${mdCode(r.address)}: ${mdText(r.summary)}`);
    head.push('');
  }
  const notes = plan.drift.filter((d) => d.informational);
  if (notes.length > 0) {
    head.push('**Notes**', '');
    for (const d of notes) head.push(`- ${mdCode(d.address)}: ${mdText(d.summary)}`);
    head.push('');
  }
  if (plan.diagnostics.length > 0) {
    head.push('<details><summary>Diagnostics</summary>', '', mdFence(plan.diagnostics.map(renderDiagnosticLine).join('\n')), '</details>', '');
  }
  let body = changes.map((c) => renderChange(c, false, reasons)).join('\n\n');
  const frame = (b: string) => (b ? ['<details><summary>Show plan</summary>', '', mdFence(b, 'diff'), '</details>', ''].join('\n') : '');
  const fixed = head.join('\n');
  if (fixed.length + frame(body).length > limit) {
    const room = Math.max(0, limit - fixed.length - 200);
    body = body.slice(0, room) + '\n… (truncated; run `plumb plan` for the full plan)';
  }
  // Last line of defence: whatever was missed above, no control character and no line starting with `/`.
  return noQuickActions(clean(fixed + frame(body) + `<sub>plumb ${mdText(plan.plumbVersion)}, plan format ${mdText(plan.formatVersion)}</sub>\n`)).slice(0, limit);
}

/** The `{create, update, delete}` report merge-request widgets read (replace counts as both). */
export function renderPlanReport(plan: Plan): { create: number; update: number; delete: number } {
  const s = plan.summary;
  return { create: s.create + s.replace, update: s.update + s.rotate, delete: s.delete + s.replace };
}
