/**
 * The human and markdown views of a compliance report (`plumb report`), and its exit code. They
 * read only the report document (engine/report.ts). Names, paths, values and summaries come from
 * the configuration or the instance (a token's name): cleaned for a terminal, escaped for markdown
 * (./escape.ts).
 */
import type { ExpiryEntry, ExpiryHorizon, PlanDiagnostic } from '../engine/plan.js';
import type { ComplianceCounts, ComplianceStatus, Report, ReportResource, SelectorSummary } from '../engine/report.js';
import { clean, mdCode, mdFence, mdText, noQuickActions } from './escape.js';
import { count } from './groups.js';
import { reasonWords, renderDiagnosticLine, riskLine } from './human.js';
import type { ReasonTexts } from './human.js';
import { MARKDOWN_LIMIT } from './markdown.js';

export interface ReportHumanOptions {
  readonly color?: boolean;
  readonly reasons: ReasonTexts;
}

/**
 * `plumb report`'s exit code (docs/report.md#exit-codes): 1 when an error is not about a resource
 * of the report (an instance could not be opened: nothing of it was read); else 2 when a resource
 * is not compliant (drifted, missing, unreadable or not checked) or something expires within the
 * window (a token plumb rotates on schedule does not count); else 0.
 */
export function reportExitCode(report: Report): number {
  if (report.diagnostics.some((d) => d.severity === 'error' && d.address === undefined)) return 1;
  if (report.summary.total !== report.summary.compliant) return 2;
  return expiryWarnings(report.expiring) > 0 ? 2 : 0;
}

/** Entries of a horizon that warn (expired or expiring; not a token plumb rotates on schedule). */
export function expiryWarnings(h: ExpiryHorizon | undefined): number {
  return h ? h.entries.filter((e) => e.state !== 'rotating').length : 0;
}

const STATUS_WORD: Record<ComplianceStatus, string> = { compliant: 'compliant', drifted: 'drifted', missing: 'missing', unreadable: 'unreadable', 'not-checked': 'not checked' };

/** `1,180 compliant, 24 drifted` (zero counts left out; `none` when empty). */
export function countsLine(c: ComplianceCounts): string {
  const parts: string[] = [];
  if (c.compliant) parts.push(`${count(c.compliant)} compliant`);
  if (c.drifted) parts.push(`${count(c.drifted)} drifted`);
  if (c.missing) parts.push(`${count(c.missing)} missing`);
  if (c.unreadable) parts.push(`${count(c.unreadable)} unreadable`);
  if (c.notChecked) parts.push(`${count(c.notChecked)} not checked`);
  return parts.join(', ') || 'none';
}

/** `platform/**: 1,204 projects, 1,180 compliant, 24 drifted` (configuration text: escape it where shown). */
export function selectorLine(s: SelectorSummary): string {
  const noun = s.container === 'projects' ? 'project' : 'group';
  return `${s.selector}: ${count(s.matched)} ${noun}${s.matched === 1 ? '' : 's'}, ${countsLine(s.objects)}`;
}

function value(v: unknown): string {
  return v === undefined ? '(not set)' : JSON.stringify(v);
}

/** One field of a resource for people: the instance's value, the configuration's, or why it cannot be compared. */
function fieldLine(f: ReportResource['fields'][number]): string {
  if (f.comparison === 'not-comparable') return `${f.name}: not comparable (write-only, and no fingerprint recorded by an earlier apply)`;
  const live = f.writeOnly ? '(write-only)' : value(f.live);
  return `${f.name}: ${live} (instance) ≠ ${value(f.declared)} (configuration)`;
}

function resourceWhy(r: ReportResource, reasons: ReasonTexts): string {
  if (r.problem) return `${r.problem.code}: ${r.problem.summary}`;
  const words = reasonWords(r, reasons);
  return r.action && r.action !== 'no-op' ? `apply would ${r.action} it${words.length ? ` (${words.join('; ')})` : ''}` : words.join('; ');
}

function expiryWhat(e: ExpiryEntry): string {
  return e.what === 'access_token' ? `token ${e.name}${e.declared === false ? ' (undeclared)' : ''}` : e.what === 'pages_certificate' ? `certificate of ${e.name}` : `unverified domain ${e.name}`;
}

function expiryState(e: ExpiryEntry): string {
  if (e.state === 'rotating') return `plumb rotates it${e.rotatesOn ? ` on ${e.rotatesOn}` : ''}`;
  const when = e.daysLeft < 0 ? `${count(-e.daysLeft)} day(s) ago` : e.daysLeft === 0 ? 'today' : `in ${count(e.daysLeft)} day(s)`;
  const verb = e.what === 'pages_domain_verification' ? 'lapses' : 'expires';
  return e.state === 'expired' ? `${verb === 'lapses' ? 'lapsed' : 'expired'} ${when}` : `${verb} ${when}`;
}

/** The expiry horizon as lines for people (plan, drift and report share it). */
export function expiryLines(h: ExpiryHorizon): string[] {
  const out = [`Expiring within ${h.within} (until ${h.until.slice(0, 10)}): ${h.entries.length === 0 ? 'nothing' : `${count(h.entries.length)}, ${count(expiryWarnings(h))} to act on`}`];
  for (const e of h.entries) out.push(`  ${e.state === 'rotating' ? '↻' : '!'} ${e.expiresAt.slice(0, 10)}  ${expiryWhat(e)} in ${e.path}: ${expiryState(e)}  [${e.address}]`);
  return out;
}

export function renderReportHuman(report: Report, opts: ReportHumanOptions): string {
  const paint = (code: string, s: string) => (opts.color ? `\x1b[${code}m${s}\x1b[0m` : s);
  const out: string[] = [];
  const where = report.instances.map((i) => `${i.name} (${i.url})`).join(', ') || 'no instance';
  out.push(`plumb report of ${report.today} for ${where}`);
  out.push(`${count(report.summary.total)} resource(s): ${countsLine(report.summary)}${report.complete ? '' : ' — incomplete'}`);
  if (report.budget.maxRequests !== undefined) {
    out.push(`Requests: ${count(report.budget.used)} of ${count(report.budget.maxRequests)}${report.budget.exhausted ? `; the budget ran out: ${count(report.summary.notChecked)} resource(s) not checked` : ''}`);
  }
  if (report.selectors.length > 0) {
    out.push('', 'Selectors:');
    for (const s of report.selectors) out.push(`  ${s.instance}: ${selectorLine(s)}`);
  }
  const off = report.resources.filter((r) => r.status !== 'compliant');
  if (off.length > 0) {
    out.push('', 'Not compliant:');
    for (const r of off) {
      const colour = r.status === 'drifted' ? '33' : r.status === 'missing' ? '32' : '31';
      out.push(`  ${paint(colour, STATUS_WORD[r.status])}: ${r.address}: ${resourceWhy(r, opts.reasons)}`);
      for (const f of r.fields) out.push(`      ${fieldLine(f)}`);
      for (const n of r.notes) out.push(`      note: ${n}`);
    }
  }
  const partly = report.resources.filter((r) => r.status === 'compliant' && (r.fields.length > 0 || r.notes.length > 0));
  if (partly.length > 0) {
    out.push('', 'Compliant, with notes:');
    for (const r of partly) {
      out.push(`  ${r.address}`);
      for (const f of r.fields) out.push(`      ${fieldLine(f)}`);
      for (const n of r.notes) out.push(`      note: ${n}`);
    }
  }
  if (report.expiring) out.push('', ...expiryLines(report.expiring));
  if (report.notes.length > 0) {
    out.push('', 'Not in the configuration:');
    for (const n of report.notes) out.push(`  note: ${n.address}: ${n.summary}`);
  }
  if (report.risks.length > 0) {
    out.push('', 'Converging would risk (the report changes nothing):');
    for (const r of report.risks) out.push(`  ${riskLine(r)}`);
  }
  const diagnostics = report.diagnostics.filter(shownDiagnostic(report));
  if (diagnostics.length > 0) out.push('', ...diagnostics.map(renderDiagnosticLine));
  // Addresses, values and summaries carry the instance's and the configuration's text: cleaned.
  return clean(out.join('\n')) + '\n';
}

/** Diagnostics that a resource's `problem` does not already show. */
function shownDiagnostic(report: Report): (d: PlanDiagnostic) => boolean {
  const problems = new Set(report.resources.filter((r) => r.problem).map((r) => `${r.address}\0${r.problem!.code}\0${r.problem!.summary}`));
  return (d) => !(d.address !== undefined && problems.has(`${d.address}\0${d.code}\0${d.summary}`));
}

/**
 * The report as markdown (a merge request comment, a wiki page): the summary, the selectors, a
 * table of what is not compliant, the expiry horizon, notes and risks. Kept within
 * MARKDOWN_LIMIT: a longer table is cut with a line saying how many rows the JSON report holds.
 */
export function renderReportMarkdown(report: Report, reasons: ReasonTexts, limit = MARKDOWN_LIMIT): string {
  const out: string[] = [];
  const ok = report.summary.total === report.summary.compliant && expiryWarnings(report.expiring) === 0 && report.complete;
  out.push(`### ${ok ? '✅' : '⚠️'} plumb report: ${count(report.summary.total)} resource(s), ${mdText(countsLine(report.summary))}`, '');
  out.push(`${report.instances.map((i) => `${mdCode(i.name)} (${mdText(i.url)})`).join(', ') || 'No instance'}, ${mdText(report.today)}.${report.complete ? '' : ' **Incomplete:** some resources were not read.'}`, '');
  if (report.budget.maxRequests !== undefined) {
    out.push(`Requests: ${count(report.budget.used)} of ${count(report.budget.maxRequests)}${report.budget.exhausted ? ` — the budget ran out; ${count(report.summary.notChecked)} resource(s) not checked.` : '.'}`, '');
  }
  if (report.selectors.length > 0) {
    out.push('**Selectors**', '', '| Instance | Selector | Matched | Compliant | Drifted | Missing | Unreadable | Not checked |', '|---|---|---|---|---|---|---|---|');
    for (const s of report.selectors) {
      const o = s.objects;
      out.push(`| ${mdCode(s.instance, true)} | ${mdCode(s.selector, true)} | ${count(s.matched)} ${s.container} | ${count(o.compliant)} | ${count(o.drifted)} | ${count(o.missing)} | ${count(o.unreadable)} | ${count(o.notChecked)} |`);
    }
    out.push('');
  }
  const tail: string[] = [];
  if (report.expiring) {
    const h = report.expiring;
    tail.push(`**Expiring within ${mdText(h.within)}** (until ${mdText(h.until.slice(0, 10))})`, '');
    if (h.entries.length === 0) tail.push('Nothing expires within the window.', '');
    else {
      tail.push('| When | What | Where | State |', '|---|---|---|---|');
      for (const e of h.entries) tail.push(`| ${mdText(e.expiresAt.slice(0, 10))} | ${mdText(expiryWhat(e))} | ${mdCode(e.path, true)} | ${e.state === 'rotating' ? '↻ ' : '⚠️ '}${mdText(expiryState(e))} |`);
      tail.push('');
    }
  }
  if (report.notes.length > 0) {
    tail.push('**Not in the configuration**', '');
    for (const n of report.notes) tail.push(`- ${mdCode(n.address)}: ${mdText(n.summary)}`);
    tail.push('');
  }
  if (report.risks.length > 0) {
    tail.push('**Converging would risk** (the report changes nothing)', '');
    for (const r of report.risks) tail.push(`- ${mdCode(r.id)} ${mdCode(r.address)}: ${mdText(r.summary)}`);
    tail.push('');
  }
  const diagnostics = report.diagnostics.filter(shownDiagnostic(report));
  if (diagnostics.length > 0) tail.push('<details><summary>Diagnostics</summary>', '', mdFence(diagnostics.map(renderDiagnosticLine).join('\n')), '</details>', '');
  const footer = `<sub>plumb ${mdText(report.plumbVersion)}, report format ${mdText(report.formatVersion)}</sub>\n`;
  const off = report.resources.filter((r) => r.status !== 'compliant');
  if (off.length > 0) {
    const head = ['**Not compliant**', '', '| Status | Resource | Why | Fields |', '|---|---|---|---|'];
    const room = limit - out.join('\n').length - tail.join('\n').length - footer.length - 400;
    const rows: string[] = [];
    let used = head.join('\n').length;
    for (const r of off) {
      const fields = r.fields.map((f) => mdText(fieldLine(f))).join('<br>');
      const row = `| ${STATUS_WORD[r.status]} | ${mdCode(r.address, true)} | ${mdText(resourceWhy(r, reasons))} | ${fields} |`;
      if (used + row.length + 1 > room) break;
      rows.push(row);
      used += row.length + 1;
    }
    out.push(...head, ...rows);
    if (rows.length < off.length) out.push('', `… and ${count(off.length - rows.length)} more: the JSON report (\`--out FILE\`) lists every resource.`);
    out.push('');
  }
  // Last line of defence: no control character, no line starting with `/` (a quick action).
  return noQuickActions(clean([...out, ...tail].join('\n') + '\n' + footer)).slice(0, limit);
}
