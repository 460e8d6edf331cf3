/**
 * A merge-request comment: a concise summary, a table of changed resources, and the full human plan
 * in a collapsible block, kept within the size a comment allows.
 */
import { lockChanged } from '../engine/plan.js';
import type { Plan } from '../engine/plan.js';
import { groupingLines, lockWhere, reasonWords, renderDiagnosticLine, renderItem, summaryLine } from './human.js';
import type { ReasonTexts } from './human.js';
import { clean, mdCode, mdFence, mdText, noQuickActions } from './escape.js';
import { count, groupBlocked, groupChanges, groupExtent } from './groups.js';
import type { ChangeGroup } from './groups.js';
import { mergeRequestChanges, mergeRequestCount, standingText, waitingCount, waitingText } from './merge-requests.js';

/** Comfortably below the smallest common comment limit (65,536 characters). */
export const MARKDOWN_LIMIT = 60_000;

/** `reasons`: each reason's text for people (`ReasonTexts`, ./human.ts). */
export function renderPlanMarkdown(plan: Plan, limit: number, reasons: ReasonTexts): string {
  const changes = plan.changes.filter((c) => c.action !== 'no-op');
  // Errors confined to a blocked unit (docs/plans.md#blocked-matches) leave the rest applicable.
  const errors = plan.diagnostics.filter((d) => d.severity === 'error' && d.blocks === undefined);
  const blocked = plan.blocked ?? [];
  const head: string[] = [];
  const lockMoved = lockChanged(plan);
  const status =
    errors.length > 0
      ? '❌ plumb plan has errors'
      : changes.length === 0
        ? lockMoved
          ? '🔒 plumb plan: no resource changes, but the lock location changed'
          : waitingCount(plan) > 0
            ? `✅ plumb plan: no changes to apply; ${waitingText(plan)}`
            : '✅ plumb plan: no changes'
        : `📝 plumb plan: ${summaryLine(plan).replace(/^Plan: /, '')}${lockMoved ? ' The lock location changed.' : ''}`;
  const shown = blocked.length > 0 && errors.length === 0 ? `⚠️ ${count(blocked.length)} blocked (left out; apply carries out the rest and exits 1) · ${status.replace(/^\S+ /, '')}` : status;
  head.push(`### ${shown}`, '');
  if (plan.withheld) head.push(`Merge-request plan: the names of ${count(plan.withheld.matches)} selector match${plan.withheld.matches === 1 ? '' : 'es'} are withheld; the protected default-branch plan shows them.`, '');
  if (plan.targets && plan.targets.length > 0) head.push(`Targeted: only ${plan.targets.map((t) => mdCode(t)).join(', ')}.`, '');
  const items = groupChanges(changes);
  if (changes.length > 0) {
    head.push('| Action | Resource | Why |', '|---|---|---|');
    for (const item of items) {
      const c = 'group' in item ? item.group.changes[0]! : item.change;
      const what = 'group' in item ? `${mdCode(item.group.template, true)} in ${extent(item.group)}` : mdCode(c.address, true);
      const why = c.mergeRequest ? standingText('group' in item ? { ...c.mergeRequest, iid: undefined } : c.mergeRequest) : reasonWords(c, reasons).join('; ');
      head.push(`| ${mdText(c.action)} | ${what} | ${mdText(why)} |`);
    }
    head.push('');
  }
  head.push(...mergeRequestSection(plan));
  head.push(...selectorSection(plan));
  head.push(...lockSection(plan));
  if (blocked.length > 0) {
    head.push('**⊘ Blocked** (could not be planned, left out of this plan; apply carries out the rest and exits 1; the diagnostics say why):', '');
    for (const { first: b, addresses } of groupBlocked(blocked)) {
      const what = addresses.length === 1 ? mdCode(b.address) : `${count(addresses.length)} matches (${addresses.slice(0, 3).map((a) => mdCode(a)).join(', ')}${addresses.length > 3 ? `, … and ${count(addresses.length - 3)} more` : ''})`;
      head.push(`- ⊘ ${what}${b.selector !== undefined ? ` (selector ${mdCode(b.selector)})` : ''}: ${b.after ? `waits for ${b.after.map((a) => mdCode(a)).join(', ')}` : b.codes.map((c) => mdCode(c)).join(', ')}`);
    }
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
    head.push('**Risky changes** (they can lock people or plumb out, skip a review or leave something unprotected; apply needs `--allow-risky` or `allow_risky` for the unaccepted ones):', '');
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
  let body = items.map((item) => renderItem(item, false, reasons)).join('\n\n');
  const grouping = groupingLines(items);
  if (body && grouping.length > 0) body += `\n\n${summaryLine(plan)}\n${grouping.join('\n')}`;
  const frame = (b: string) => (b ? ['<details><summary>Show plan</summary>', '', mdFence(b, 'diff'), '</details>', ''].join('\n') : '');
  const groups = items.flatMap((i) => ('group' in i ? [i.group] : []));
  // The lists take what room the summary leaves, keeping some for the plan itself.
  if (groups.length > 0) head.push(...groupLists(groups, limit - head.join('\n').length - Math.min(frame(body).length, 8_000) - 300));
  const fixed = head.join('\n');
  if (fixed.length + frame(body).length > limit) {
    const room = Math.max(0, limit - fixed.length - 200);
    body = body.slice(0, room) + '\n… (truncated; run `plumb plan` for the full plan)';
  }
  // Last line of defence: whatever was missed above, no control character and no line starting with `/`.
  return noQuickActions(clean(fixed + frame(body) + `<sub>plumb ${mdText(plan.plumbVersion)}, plan format ${mdText(plan.formatVersion)}</sub>\n`)).slice(0, limit);
}

/** Where each merge request of delivered files stands (a fleet's: the count per standing and the first few projects). */
function mergeRequestSection(plan: Pick<Plan, 'changes'>): string[] {
  const mrs = mergeRequestChanges(plan);
  if (mrs.length === 0) return [];
  const out = [`**Merge requests** (${mdText(mergeRequestCount(plan))})`, ''];
  for (const c of mrs.slice(0, 20)) {
    const url = c.mergeRequest!.url;
    out.push(`- ${mdCode(c.address)}: ${mdText(standingText(c.mergeRequest!))}${url && /^https?:\/\/[^\s<>()\[\]]+$/.test(url) ? ` (${mdText(url)})` : ''}`);
  }
  if (mrs.length > 20) out.push(`- … and ${count(mrs.length - 20)} more (\`plumb plan --json\` lists every one)`);
  out.push('');
  return out;
}

/** How many objects each selector matched, as the human plan's `Selectors:` lines (the selector is configuration text: inline code). */
function selectorSection(plan: Pick<Plan, 'selectors'>): string[] {
  if (!plan.selectors || plan.selectors.length === 0) return [];
  const out = ['**Selectors**', ''];
  for (const s of plan.selectors) {
    const noun = s.container === 'projects' ? 'project' : 'group';
    const at = s.at ? ` (${mdText(s.at)})` : '';
    out.push(`- ${mdCode(`${s.instance}.${s.container}[${JSON.stringify(s.selector)}]`)} matched ${count(s.matched)} ${noun}${s.matched === 1 ? '' : 's'}${at}`);
  }
  out.push('');
  return out;
}

/** Where apply holds each instance's lock, a moved one marked (names are configuration text: inline code). */
function lockSection(plan: Pick<Plan, 'locks'>): string[] {
  if (!plan.locks || plan.locks.length === 0) return [];
  const out = ['**Lock** (apply commits the lock file there with plumb\'s token)', ''];
  for (const l of plan.locks) {
    const now = l.location ? mdCode(lockWhere(l.location)) : 'none';
    const at = l.at ? ` (${mdText(l.at)})` : '';
    out.push(l.before === undefined ? `- ${mdCode(l.instance)}: ${now}${at}` : `- 🔒 **changed** ${mdCode(l.instance)}: ${now}${at}; the last apply held ${l.before ? mdCode(lockWhere(l.before)) : 'no lock'}`);
  }
  out.push('');
  return out;
}

/** `3,000 projects matching` `platform/**` (the selector is configuration text: inline code). */
function extent(g: ChangeGroup): string {
  return g.selector === undefined ? mdText(groupExtent(g)) : `${mdText(groupExtent({ ...g, selector: undefined }))} matching ${mdCode(g.selector, true)}`;
}

/**
 * Each group's projects or groups in a collapsible list, within `room` characters: past it, a
 * list ends with how many more there are (the JSON plan lists every one).
 */
function groupLists(groups: readonly ChangeGroup[], room: number): string[] {
  const out = ['**Grouped changes** (identical but for their project or group; `plumb plan --json` lists every change):', ''];
  let used = out.join('\n').length;
  for (const g of groups) {
    const c = g.changes[0]!;
    const open = [`${mdText(c.action)} ${mdCode(g.template)} in ${extent(g)}:`, '', `<details><summary>${count(g.names.length)} ${g.scope}${g.names.length === 1 ? '' : 's'}</summary>`, ''];
    const close = ['', '</details>', ''];
    used += open.join('\n').length + close.join('\n').length + 2;
    out.push(...open);
    let shown = 0;
    for (const name of g.names) {
      const line = `- ${mdCode(name)}`;
      if (used + line.length + 1 > room - 100) break;
      out.push(line);
      used += line.length + 1;
      shown++;
    }
    if (shown < g.names.length) {
      const more = `- … and ${count(g.names.length - shown)} more (\`plumb plan --json\` lists every one)`;
      out.push(more);
      used += more.length + 1;
    }
    out.push(...close);
  }
  return out;
}

/** The `{create, update, delete}` report merge-request widgets read (replace counts as both). */
export function renderPlanReport(plan: Plan): { create: number; update: number; delete: number } {
  const s = plan.summary;
  return { create: s.create + s.replace, update: s.update + s.rotate, delete: s.delete + s.replace };
}
