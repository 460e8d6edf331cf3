/**
 * The HTML page of a plan (`plan --html`, `drift --html`) or of a compliance report
 * (`report --html`): one self-contained file, read from the public JSON document alone
 * (docs/report.md#the-html-page).
 *
 * - Nothing is fetched: no external script, style, font or image; the expiry timeline is inline SVG.
 * - A strict Content-Security-Policy in a `<meta http-equiv>`: `default-src 'none'`, the one inline
 *   style and the one inline script allowed by their SHA-256 hashes, nothing else. A string that
 *   slipped through escaping still could not run.
 * - Every string of the document (names, paths, values, summaries, diffs: configuration and instance
 *   text) goes through `htmlText` (util/html.ts) and nowhere else; nothing else is interpolated
 *   but numbers and this file's own words.
 * - Readable without JavaScript: the summary, the tables and each resource's `<details>` are plain
 *   HTML. The script only shows the filter controls (hidden until it runs) and makes the column
 *   headers sort buttons.
 * - Light and dark (`prefers-color-scheme`), colours chosen for WCAG 2.1 AA contrast; checked by
 *   axe-core in Chromium (test/render/html-browser.test.ts).
 */
import { createHash } from 'node:crypto';
import type { Action, ExpiryEntry, Plan, PlanDiagnostic, PlanRisk, ResourceChange } from '../engine/plan.js';
import type { ComplianceCounts, ComplianceStatus, Report, ReportResource } from '../engine/report.js';
import { daysBetween } from '../util/days.js';
import { htmlText as t } from '../util/html.js';
import { count } from './groups.js';
import { reasonWords, renderDiagnosticLine } from './human.js';
import type { ReasonTexts } from './human.js';
import { standingText, waitingCount, waitingText } from './merge-requests.js';

/** A tone for a status: how the page colours it (a word always says it too). */
type Tone = 'ok' | 'change' | 'bad' | 'muted';

/** One resource row of an instance's table: the cells' text, and the `<details>` body as HTML built here. */
interface Row {
  readonly address: string;
  readonly kind: string;
  readonly status: string;
  /** Sort order of the status column (worst first). */
  readonly rank: number;
  readonly tone: Tone;
  readonly selector?: string;
  /** HTML (built from escaped text only). */
  readonly body: string;
}

/** One point of the expiry timeline. */
interface Expiry {
  readonly date: string;
  readonly daysLeft: number;
  readonly state: 'expired' | 'expiring' | 'rotating' | 'set';
  readonly what: string;
  readonly name: string;
  readonly where: string;
  readonly note: string;
}

interface Card {
  readonly label: string;
  readonly value: number;
  readonly tone: Tone;
}

interface Page {
  readonly title: string;
  readonly headline: string;
  readonly meta: readonly string[];
  readonly cards: readonly Card[];
  /** HTML placed after the cards (the fleet per selector). */
  readonly fleet: string;
  readonly statuses: readonly string[];
  readonly instances: readonly { readonly name: string; readonly url: string; readonly rows: readonly Row[] }[];
  readonly risks: readonly PlanRisk[];
  readonly expiry: { readonly caption: string; readonly entries: readonly Expiry[]; readonly days?: number };
  readonly notes: readonly { readonly address: string; readonly summary: string }[];
  readonly diagnostics: readonly PlanDiagnostic[];
  readonly footer: string;
}

const ACTION_WORD: Readonly<Record<Action, string>> = { 'no-op': 'no change', create: 'create', update: 'update', replace: 'replace', rotate: 'rotate', delete: 'delete' };
const ACTION_TONE: Readonly<Record<Action, Tone>> = { 'no-op': 'muted', create: 'change', update: 'change', replace: 'bad', rotate: 'change', delete: 'bad' };
const ACTION_RANK: Readonly<Record<Action, number>> = { delete: 0, replace: 1, update: 2, create: 3, rotate: 4, 'no-op': 5 };

function value(v: unknown): string {
  return v === undefined ? '(not set)' : typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v) ?? String(v);
}

/** A small table of fields: name, the two values (their headings given). */
function fieldTable(heads: readonly [string, string], fields: readonly { name: string; a: string; b: string }[]): string {
  if (fields.length === 0) return '';
  const rows = fields.map((f) => `<tr><th scope="row"><code>${t(f.name)}</code></th><td><code>${t(f.a)}</code></td><td><code>${t(f.b)}</code></td></tr>`).join('');
  return `<table class="fields"><thead><tr><th scope="col">Field</th><th scope="col">${heads[0]}</th><th scope="col">${heads[1]}</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function list(items: readonly string[], label: string): string {
  return items.length === 0 ? '' : `<p class="label">${label}</p><ul>${items.map((i) => `<li>${t(i)}</li>`).join('')}</ul>`;
}

// ---------------------------------------------------------------------------------------------
// Plan and drift

/** `plan --html` (`mode: 'plan'`) and `drift --html` (`'drift'`): the page of a plan document. */
export function renderPlanHtml(plan: Plan, reasons: ReasonTexts, mode: 'plan' | 'drift' = 'plan'): string {
  const driftAt = new Map<string, Plan['drift'][number][]>();
  for (const d of plan.drift) if (!d.informational) driftAt.set(d.address, [...(driftAt.get(d.address) ?? []), d]);
  const diagAt = new Map<string, PlanDiagnostic[]>();
  for (const d of plan.diagnostics) if (d.address !== undefined) diagAt.set(d.address, [...(diagAt.get(d.address) ?? []), d]);
  const rowsOf = new Map<string, Row[]>();
  const push = (instance: string, row: Row) => rowsOf.set(instance, [...(rowsOf.get(instance) ?? []), row]);
  const seen = new Set<string>();
  for (const c of plan.changes) {
    seen.add(c.address);
    push(c.instance, planRow(c, driftAt.get(c.address) ?? [], diagAt.get(c.address) ?? [], reasons, mode));
  }
  for (const [address, entries] of driftAt) {
    if (seen.has(address)) continue;
    seen.add(address);
    const d = entries[0]!;
    const body = entries.map((e) => `<p>${t(e.summary)}</p>${fieldTable(['Instance', 'Configuration'], e.attributes.map((a) => ({ name: a.name, a: a.writeOnly ? '(write-only)' : value(a.before), b: value(a.after) })))}`).join('');
    // A file pending in plumb's open merge request: its own category (still a difference).
    push(d.instance, d.mergeRequest ? { address, kind: d.kind, status: PENDING, rank: 1, tone: 'change', body } : { address, kind: d.kind, status: 'drifted', rank: 0, tone: 'bad', body });
  }
  const changes = plan.changes.filter((c) => c.action !== 'no-op');
  const s = plan.summary;
  const errors = plan.diagnostics.filter((d) => d.severity === 'error');
  let headline: string;
  let cards: Card[];
  if (mode === 'plan') {
    headline = errors.length > 0 ? `The plan has ${count(errors.length)} error(s) and cannot be applied.` : changes.length === 0 && waitingCount(plan) > 0 ? `No changes to apply; ${waitingText(plan)}.` : changes.length === 0 ? 'No changes: the instance matches the configuration.' : `${count(s.create)} to create, ${count(s.update)} to update, ${count(s.replace)} to replace, ${count(s.rotate)} to rotate, ${count(s.delete)} to delete.`;
    cards = [
      { label: 'create', value: s.create, tone: 'change' },
      { label: 'update', value: s.update, tone: 'change' },
      { label: 'replace', value: s.replace, tone: 'bad' },
      { label: 'rotate', value: s.rotate, tone: 'change' },
      { label: 'delete', value: s.delete, tone: 'bad' },
      { label: 'no change', value: s.noop, tone: 'muted' },
    ];
  } else {
    const rows = [...rowsOf.values()].flat();
    const n = (status: string) => rows.filter((r) => r.status === status).length;
    const differ = rows.length - n('in sync');
    headline = errors.length > 0 ? `The drift check failed: ${count(errors.length)} error(s).` : differ === 0 ? 'In sync: the instance matches the configuration.' : `Drift detected: ${count(differ)} resource(s) differ from the configuration.`;
    cards = [
      { label: 'in sync', value: n('in sync'), tone: 'ok' },
      { label: 'drifted', value: n('drifted'), tone: 'bad' },
      { label: 'missing', value: n('missing'), tone: 'bad' },
      { label: 'rotation due', value: n('rotation due'), tone: 'change' },
      ...(n(PENDING) > 0 ? [{ label: PENDING, value: n(PENDING), tone: 'change' as const }] : []),
    ];
  }
  const fleet = (plan.selectors ?? []).length === 0 ? '' : `<h3>Selectors</h3><ul>${plan.selectors!.map((x) => `<li><code>${t(`${x.instance}.${x.container}[${JSON.stringify(x.selector)}]`)}</code> matched ${count(x.matched)} ${x.container === 'projects' ? 'project' : 'group'}${x.matched === 1 ? '' : 's'}${x.at ? ` (${t(x.at)})` : ''}</li>`).join('')}</ul>`;
  const statuses = [...new Set([...rowsOf.values()].flat().sort((a, b) => a.rank - b.rank).map((r) => r.status))];
  const expiry = plan.expiring
    ? { caption: `What expires or lapses within ${t(plan.expiring.within)} (until ${t(plan.expiring.until.slice(0, 10))})`, entries: plan.expiring.entries.map(fromHorizon), days: plan.expiring.days }
    : { caption: 'Token expiry dates this plan sets or rotates (run with --expiring-within 30d for what expires on the instance)', entries: plannedExpiries(plan.changes, plan.today) };
  return page({
    title: mode === 'plan' ? 'plumb plan' : 'plumb drift',
    headline,
    meta: metaLines(plan.plumbVersion, `plan format ${plan.formatVersion}`, plan.createdAt, plan.today, plan.instances, plan.targets),
    cards,
    fleet,
    statuses,
    // What needs a reviewer's eye first (a stable sort: in plan order within a status).
    instances: plan.instances.map((i) => ({ ...i, rows: [...(rowsOf.get(i.name) ?? [])].sort((a, b) => a.rank - b.rank) })),
    risks: plan.risks,
    expiry,
    notes: plan.drift.filter((d) => d.informational).map((d) => ({ address: d.address, summary: d.summary })),
    diagnostics: plan.diagnostics,
    footer: `plumb ${plan.plumbVersion}, plan format ${plan.formatVersion}`,
  });
}

/** The drift page's status of files (and merge requests) waiting in plumb's open merge requests. */
const PENDING = 'pending in merge request';

function planRow(c: ResourceChange, drift: readonly Plan['drift'][number][], diags: readonly PlanDiagnostic[], reasons: ReasonTexts, mode: 'plan' | 'drift'): Row {
  const why = reasonWords(c, reasons);
  const parts: string[] = [];
  if (c.mergeRequest) parts.push(`<p>${t(standingText(c.mergeRequest))}${c.mergeRequest.url ? ` (<code>${t(c.mergeRequest.url)}</code>)` : ''}</p>`);
  if (mode === 'drift' && c.action === 'no-op' && c.mergeRequest) {
    return { address: c.address, kind: c.kind, status: PENDING, rank: 1, tone: 'change', ...(c.selector !== undefined && { selector: c.selector }), body: parts.join('') };
  }
  parts.push(`<p>${mode === 'plan' || c.action === 'no-op' ? '' : 'Apply would '}${t(mode === 'plan' ? ACTION_WORD[c.action] : c.action === 'no-op' ? 'No change.' : c.action + ' it.')}${why.length ? ` ${t(`(${why.join('; ')})`)}` : ''}</p>`);
  parts.push(fieldTable(['Before', 'After'], c.attributes.map((a) => ({ name: a.name, a: a.writeOnly ? '(write-only)' : value(a.before), b: value(a.after) }))));
  for (const d of drift) parts.push(`<p>Drift: ${t(d.summary)}</p>`);
  if (c.pointer) parts.push(`<p class="label">Declared at <code>${t(c.pointer)}</code></p>`);
  parts.push(list(diags.map(renderDiagnosticLine), 'Diagnostics'));
  if (c.diff) parts.push(`<pre>${t(c.diff)}</pre>`);
  if (mode === 'plan') return { address: c.address, kind: c.kind, status: ACTION_WORD[c.action], rank: ACTION_RANK[c.action], tone: ACTION_TONE[c.action], ...(c.selector !== undefined && { selector: c.selector }), body: parts.join('') };
  const [status, rank, tone]: [string, number, Tone] =
    c.action === 'create' ? ['missing', 1, 'bad'] : drift.length > 0 || c.action === 'update' || c.action === 'replace' || c.action === 'delete' ? ['drifted', 0, 'bad'] : c.action === 'rotate' ? ['rotation due', 2, 'change'] : ['in sync', 3, 'ok'];
  return { address: c.address, kind: c.kind, status, rank, tone, ...(c.selector !== undefined && { selector: c.selector }), body: parts.join('') };
}

/**
 * The expiry dates a plan sets (an `expires_at` it creates, re-issues or rotates: a token's, whatever
 * the kind), for its timeline.
 */
function plannedExpiries(changes: readonly ResourceChange[], today: string): Expiry[] {
  const out: Expiry[] = [];
  for (const c of changes) {
    if (c.action === 'no-op' || c.action === 'delete') continue;
    const a = c.attributes.find((x) => x.name === 'expires_at');
    if (!a || typeof a.after !== 'string' || !/^\d{4}-\d{2}-\d{2}/.test(a.after)) continue;
    out.push({ date: a.after.slice(0, 10), daysLeft: daysBetween(today, a.after), state: 'set', what: c.kind, name: c.address, where: c.instance, note: `${ACTION_WORD[c.action]}${typeof a.before === 'string' ? ` (was ${a.before.slice(0, 10)})` : ''}` });
  }
  return out.sort((x, y) => x.daysLeft - y.daysLeft || (x.name < y.name ? -1 : 1));
}

function fromHorizon(e: ExpiryEntry): Expiry {
  const what = e.what === 'pages_certificate' ? 'certificate' : e.what === 'pages_domain_verification' ? 'unverified domain' : e.declared === false ? 'token (undeclared)' : 'token';
  const note = e.state === 'rotating' ? `plumb rotates it${e.rotatesOn ? ` on ${e.rotatesOn}` : ''}` : e.state === 'expired' ? (e.what === 'pages_domain_verification' ? 'lapsed' : 'expired') : e.daysLeft === 0 ? 'today' : `in ${count(e.daysLeft)} day(s)`;
  return { date: e.expiresAt.slice(0, 10), daysLeft: e.daysLeft, state: e.state, what, name: e.subject ? `${e.name} (${e.subject})` : e.name, where: `${e.instance} ${e.container === 'groups' ? 'group' : 'project'} ${e.path}`, note };
}

function metaLines(version: string, format: string, createdAt: string, today: string, instances: readonly { name: string; url: string }[], targets?: readonly string[]): string[] {
  return [
    `Made ${createdAt} by plumb ${version} (${format}); dates as of ${today}.`,
    `Instances: ${instances.map((i) => `${i.name} (${i.url})`).join(', ') || 'none'}.`,
    ...(targets && targets.length > 0 ? [`Targeted: only ${targets.join(', ')}.`] : []),
  ];
}

// ---------------------------------------------------------------------------------------------
// Report

const STATUS_WORD: Readonly<Record<ComplianceStatus, string>> = { compliant: 'compliant', drifted: 'drifted', missing: 'missing', unreadable: 'unreadable', 'not-checked': 'not checked' };
const STATUS_TONE: Readonly<Record<ComplianceStatus, Tone>> = { compliant: 'ok', drifted: 'bad', missing: 'bad', unreadable: 'bad', 'not-checked': 'muted' };
const STATUS_RANK: Readonly<Record<ComplianceStatus, number>> = { drifted: 0, missing: 1, unreadable: 2, 'not-checked': 3, compliant: 4 };

function countsCards(c: ComplianceCounts): Card[] {
  return [
    { label: 'compliant', value: c.compliant, tone: 'ok' },
    { label: 'drifted', value: c.drifted, tone: 'bad' },
    { label: 'missing', value: c.missing, tone: 'bad' },
    { label: 'unreadable', value: c.unreadable, tone: 'bad' },
    { label: 'not checked', value: c.notChecked, tone: 'muted' },
  ];
}

/** `report --html`: the page of a compliance report document. */
export function renderReportHtml(report: Report, reasons: ReasonTexts): string {
  const rowsOf = new Map<string, Row[]>();
  for (const r of report.resources) rowsOf.set(r.instance, [...(rowsOf.get(r.instance) ?? []), reportRow(r, reasons)]);
  const s = report.summary;
  const headline = s.total === s.compliant ? `All ${count(s.total)} declared resource(s) comply.` : `${count(s.total - s.compliant)} of ${count(s.total)} declared resource(s) do not comply.`;
  const budget = report.budget.maxRequests !== undefined ? ` Requests: ${count(report.budget.used)} of ${count(report.budget.maxRequests)}${report.budget.exhausted ? ' (the budget ran out: the rest is not checked)' : ''}.` : ` Requests: ${count(report.budget.used)}.`;
  const fleetRows = report.selectors
    .map((x) => {
      const o = x.objects;
      return `<tr><th scope="row"><code>${t(x.selector)}</code></th><td>${t(x.instance)}</td><td class="num">${count(x.matched)} ${x.container === 'projects' ? 'project' : 'group'}${x.matched === 1 ? '' : 's'}</td><td class="num">${count(o.compliant)}</td><td class="num">${count(o.drifted)}</td><td class="num">${count(o.missing)}</td><td class="num">${count(o.unreadable)}</td><td class="num">${count(o.notChecked)}</td></tr>`;
    })
    .join('');
  const fleet = report.selectors.length === 0 ? '' : `<h3>Fleet per selector</h3><div class="scroll"><table class="fleet"><thead><tr><th scope="col">Selector</th><th scope="col">Instance</th><th scope="col" class="num">Matched</th><th scope="col" class="num">Compliant</th><th scope="col" class="num">Drifted</th><th scope="col" class="num">Missing</th><th scope="col" class="num">Unreadable</th><th scope="col" class="num">Not checked</th></tr></thead><tbody>${fleetRows}</tbody></table></div>`;
  const present = new Set(report.resources.map((r) => r.status));
  return page({
    title: 'plumb report',
    headline: `${headline}${report.complete ? '' : ' The report is incomplete: some resources could not be read.'}${budget}`,
    meta: metaLines(report.plumbVersion, `report format ${report.formatVersion}`, report.createdAt, report.today, report.instances),
    cards: countsCards(s),
    fleet,
    statuses: (Object.keys(STATUS_RANK) as ComplianceStatus[]).filter((x) => present.has(x)).sort((a, b) => STATUS_RANK[a] - STATUS_RANK[b]).map((x) => STATUS_WORD[x]),
    instances: report.instances.map((i) => ({ ...i, rows: rowsOf.get(i.name) ?? [] })),
    risks: report.risks,
    expiry: report.expiring
      ? { caption: `What expires or lapses within ${t(report.expiring.within)} (until ${t(report.expiring.until.slice(0, 10))})`, entries: report.expiring.entries.map(fromHorizon), days: report.expiring.days }
      : { caption: 'Run plumb report with --expiring-within 30d to see what expires on the instance.', entries: [] },
    notes: report.notes,
    diagnostics: report.diagnostics,
    footer: `plumb ${report.plumbVersion}, report format ${report.formatVersion}`,
  });
}

function reportRow(r: ReportResource, reasons: ReasonTexts): Row {
  const parts: string[] = [];
  const why = reasonWords(r, reasons);
  if (r.problem) parts.push(`<p><code>${t(r.problem.code)}</code> ${t(r.problem.summary)}</p>${r.problem.detail ? `<p>${t(r.problem.detail)}</p>` : ''}${r.problem.suggestion ? `<p>Fix: ${t(r.problem.suggestion)}</p>` : ''}`);
  else if (r.action && r.action !== 'no-op') parts.push(`<p>Apply would ${t(r.action)} it${why.length ? ` ${t(`(${why.join('; ')})`)}` : ''}.</p>`);
  else parts.push(`<p>${r.status === 'compliant' ? 'Complies' : t(STATUS_WORD[r.status])}${why.length ? ` ${t(`(${why.join('; ')})`)}` : ''}.</p>`);
  parts.push(fieldTable(['Instance', 'Configuration'], r.fields.map((f) => ({ name: f.name, a: f.comparison === 'not-comparable' ? 'not comparable' : f.writeOnly ? '(write-only)' : value(f.live), b: value(f.declared) }))));
  if (r.scope) parts.push(`<p class="label">In ${r.scope.container === 'projects' ? 'project' : 'group'} <code>${t(r.scope.path)}</code></p>`);
  if (r.pointer) parts.push(`<p class="label">Declared at <code>${t(r.pointer)}</code></p>`);
  parts.push(list(r.notes, 'Notes'));
  return { address: r.address, kind: r.kind, status: STATUS_WORD[r.status], rank: STATUS_RANK[r.status], tone: STATUS_TONE[r.status], ...(r.selector !== undefined && { selector: r.selector }), body: parts.join('') };
}

// ---------------------------------------------------------------------------------------------
// The page

const STYLE = `
:root{color-scheme:light dark;--bg:#ffffff;--fg:#1f2328;--muted:#545d68;--line:#d1d9e0;--panel:#f6f8fa;--ok:#116329;--change:#0550ae;--bad:#a40e26;--warn:#7d4e00;--focus:#0969da}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9ea7b3;--line:#3d444d;--panel:#151b23;--ok:#56d364;--change:#79c0ff;--bad:#ff9492;--warn:#e3b341;--focus:#79c0ff}}
*{box-sizing:border-box}
[hidden]{display:none!important}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}
header,main,footer{max-width:80rem;margin:0 auto;padding:0 1rem}
h1{font-size:1.6rem;margin:1rem 0 .25rem}h2{font-size:1.25rem;margin:2rem 0 .5rem;border-bottom:1px solid var(--line)}h3{font-size:1.05rem}
.meta,.label,footer{color:var(--muted)}
.headline{font-size:1.1rem;font-weight:600}
code,pre{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;overflow-wrap:anywhere}
pre{background:var(--panel);padding:.5rem;overflow:auto;white-space:pre-wrap}
.cards{display:flex;flex-wrap:wrap;gap:.5rem;padding:0;margin:.5rem 0}
.cards div{border:1px solid var(--line);border-radius:6px;padding:.4rem .8rem;min-width:7rem;background:var(--panel)}
.cards dt{font-size:.85rem;color:var(--muted)}.cards dd{margin:0;font-size:1.4rem;font-weight:600}
.ok{color:var(--ok)}.change{color:var(--change)}.bad{color:var(--bad)}.muted{color:var(--muted)}.warn{color:var(--warn)}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;vertical-align:top;padding:.3rem .5rem;border-bottom:1px solid var(--line)}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}td.date{white-space:nowrap}
thead th{background:var(--panel)}
table.fields{margin:.3rem 0;width:auto}
details summary{cursor:pointer;overflow-wrap:anywhere}
table.resources{table-layout:fixed}table.resources td>details>summary{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
table.resources th:nth-child(1){width:55%}table.resources th:nth-child(2){width:16%}table.resources th:nth-child(3){width:11%}table.resources th:nth-child(4){width:18%}
.controls{display:flex;flex-wrap:wrap;gap:1rem;align-items:end;margin:.5rem 0}
.controls label{display:flex;flex-direction:column;font-size:.9rem}
input,select,button{font:inherit;color:var(--fg);background:var(--bg);border:1px solid var(--muted);border-radius:4px;padding:.2rem .4rem}
th button{border:0;background:none;padding:0;font-weight:700;cursor:pointer}
th[aria-sort=ascending] button::after{content:" \\25B2"}th[aria-sort=descending] button::after{content:" \\25BC"}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
svg text{fill:var(--fg);font-size:12px}
svg .axis{stroke:var(--muted)}svg .grid{stroke:var(--line)}
svg .expired{fill:var(--bad)}svg .expiring{fill:var(--warn)}svg .rotating{fill:var(--ok)}svg .set{fill:var(--change)}
.legend span::before{content:"\\25A0 "}
`;

const SCRIPT = `
(function () {
  'use strict';
  var boxes = document.querySelectorAll('[data-table]');
  Array.prototype.forEach.call(boxes, function (box) {
    var table = document.getElementById(box.getAttribute('data-table'));
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var text = null;
    var input = box.querySelector('input');
    var select = box.querySelector('select');
    var out = box.querySelector('output');
    box.hidden = false;
    function filter() {
      var q = input.value.trim().toLowerCase();
      if (text === null) text = rows.map(function (r) { return r.textContent.toLowerCase(); });
      var s = select.value;
      var shown = 0;
      rows.forEach(function (r, i) {
        var ok = (q === '' || text[i].indexOf(q) >= 0) && (s === '' || r.getAttribute('data-status') === s);
        r.hidden = !ok;
        if (ok) shown++;
      });
      out.textContent = 'Showing ' + shown + ' of ' + rows.length;
    }
    input.addEventListener('input', filter);
    select.addEventListener('change', filter);
    var heads = Array.prototype.slice.call(table.tHead.rows[0].cells);
    heads.forEach(function (th, col) {
      var button = th.querySelector('button');
      var plain = th.querySelector('.plain');
      if (!button) return;
      button.hidden = false;
      plain.hidden = true;
      button.addEventListener('click', function () {
        var dir = th.getAttribute('aria-sort') === 'ascending' ? 'descending' : 'ascending';
        heads.forEach(function (h) { h.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', dir);
        var key = function (r) { var c = r.cells[col]; return c.getAttribute('data-sort') || (c.querySelector('summary') || c).textContent; };
        var sorted = rows.slice().sort(function (a, b) {
          var x = key(a), y = key(b);
          var c = x < y ? -1 : x > y ? 1 : 0;
          return dir === 'ascending' ? c : -c;
        });
        var frag = document.createDocumentFragment();
        sorted.forEach(function (r) { frag.appendChild(r); });
        body.appendChild(frag);
      });
    });
  });
})();
`;

const hash = (s: string): string => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;

/**
 * The page's Content-Security-Policy: nothing may load (`default-src 'none'`); the inline style and
 * script only by hash; no base URL, form target or plug-in.
 */
export const CONTENT_SECURITY_POLICY = `default-src 'none'; style-src ${hash(STYLE)}; script-src ${hash(SCRIPT)}; img-src 'none'; base-uri 'none'; form-action 'none'; object-src 'none'`;

function page(p: Page): string {
  const out: string[] = [];
  out.push('<!DOCTYPE html>', '<html lang="en">', '<head>', '<meta charset="utf-8">');
  out.push(`<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">`);
  out.push('<meta name="viewport" content="width=device-width, initial-scale=1">', '<meta name="referrer" content="no-referrer">');
  out.push(`<title>${t(p.title)}</title>`, `<style>${STYLE}</style>`, '</head>', '<body>');
  out.push(`<header><h1>${t(p.title)}</h1>${p.meta.map((m) => `<p class="meta">${t(m)}</p>`).join('')}</header>`, '<main>');
  // 1. Summary.
  out.push('<section aria-labelledby="summary"><h2 id="summary">Summary</h2>', `<p class="headline">${t(p.headline)}</p>`);
  out.push(`<dl class="cards">${p.cards.map((c) => `<div><dt>${t(c.label)}</dt><dd class="${c.value > 0 ? c.tone : 'muted'}">${count(c.value)}</dd></div>`).join('')}</dl>`);
  out.push(p.fleet);
  const anchors = [...p.instances.map((i, n) => `<li><a href="#instance-${n}">Resources of ${t(i.name)}</a> (${count(i.rows.length)})</li>`), '<li><a href="#risks">Risks</a></li>', '<li><a href="#expiry">Expiry timeline</a></li>'];
  if (p.notes.length > 0) anchors.push('<li><a href="#notes">Notes</a></li>');
  if (p.diagnostics.length > 0) anchors.push('<li><a href="#diagnostics">Diagnostics</a></li>');
  out.push(`<nav aria-label="Sections"><ul>${anchors.join('')}</ul></nav>`, '</section>');
  // 2. Risks.
  out.push(riskSection(p.risks));
  // 3. Expiry timeline.
  out.push(expirySection(p.expiry));
  // 4. A table per instance.
  p.instances.forEach((inst, n) => out.push(instanceSection(inst, n, p.statuses)));
  // 5. Notes and diagnostics.
  if (p.notes.length > 0) out.push(`<section aria-labelledby="notes"><h2 id="notes">Notes</h2><p>What the instance holds beyond the configuration (information only).</p><ul>${p.notes.map((x) => `<li><code>${t(x.address)}</code>: ${t(x.summary)}</li>`).join('')}</ul></section>`);
  if (p.diagnostics.length > 0) out.push(`<section aria-labelledby="diagnostics"><h2 id="diagnostics">Diagnostics</h2><ul>${p.diagnostics.map((d) => `<li class="${d.severity === 'error' ? 'bad' : ''}">${t(renderDiagnosticLine(d))}</li>`).join('')}</ul></section>`);
  out.push('</main>', `<footer><p>${t(p.footer)}. This page was written by plumb and loads nothing: no script, style or image from anywhere else.</p></footer>`);
  out.push(`<script>${SCRIPT}</script>`, '</body>', '</html>', '');
  return out.join('\n');
}

function riskSection(risks: readonly PlanRisk[]): string {
  const head = '<section aria-labelledby="risks"><h2 id="risks">Risks</h2>';
  if (risks.length === 0) return `${head}<p>None: no change can lock people or plumb out, skip a review or leave something unprotected, and nothing is destroyed.</p></section>`;
  const rows = risks
    .map((r) => {
      const accepted = r.acknowledged ? (r.gate === 'destroy' ? 'yes, by the resource\'s opt-in' : 'yes, by allow_risky') : r.gate === 'destroy' ? 'no: apply needs --allow-destroy' : 'no: apply needs --allow-risky';
      return `<tr><td><code>${t(r.id)}</code>${r.gate === 'destroy' ? ' (destroy)' : ''}</td><td><code>${t(r.address)}</code></td><td>${t(r.summary)}</td><td class="${r.acknowledged ? '' : 'bad'}">${t(accepted)}</td></tr>`;
    })
    .join('');
  return `${head}<div class="scroll"><table><thead><tr><th scope="col">Risk</th><th scope="col">Resource</th><th scope="col">What would happen</th><th scope="col">Accepted</th></tr></thead><tbody>${rows}</tbody></table></div></section>`;
}

const STATE_WORD: Readonly<Record<Expiry['state'], string>> = { expired: 'expired', expiring: 'expiring', rotating: 'plumb rotates it', set: 'set by this plan' };

function expirySection(x: Page['expiry']): string {
  const head = `<section aria-labelledby="expiry"><h2 id="expiry">Expiry timeline</h2><p>${x.caption}</p>`;
  if (x.entries.length === 0) return `${head}<p>Nothing on the timeline.</p></section>`;
  const rows = x.entries
    .map((e) => `<tr><td class="date">${t(e.date)}</td><td class="num">${e.daysLeft}</td><td class="${e.state === 'expired' ? 'bad' : e.state === 'expiring' ? 'warn' : e.state === 'rotating' ? 'ok' : ''}">${t(STATE_WORD[e.state])}</td><td>${t(e.what)}</td><td><code>${t(e.name)}</code></td><td>${t(e.where)}</td><td>${t(e.note)}</td></tr>`)
    .join('');
  const table = `<table><thead><tr><th scope="col">Date</th><th scope="col" class="num">Days left</th><th scope="col">State</th><th scope="col">What</th><th scope="col">Name</th><th scope="col">Where</th><th scope="col">Note</th></tr></thead><tbody>${rows}</tbody></table>`;
  const listed = x.entries.length > 50 ? `<details><summary>All ${count(x.entries.length)} entries, soonest first</summary><div class="scroll">${table}</div></details>` : `<div class="scroll">${table}</div>`;
  return `${head}${timeline(x.entries, x.days)}${listed}</section>`;
}

/**
 * The timeline as inline SVG: one bar per day from the earliest entry (or today) to the end of the
 * window (or the latest entry), its height the number of entries that day, stacked by state. The
 * table below it lists the same entries as text.
 */
function timeline(entries: readonly Expiry[], days?: number): string {
  const start = Math.min(0, ...entries.map((e) => e.daysLeft));
  const end = Math.max(days ?? 0, 1, ...entries.map((e) => e.daysLeft));
  const states: Expiry['state'][] = ['expired', 'expiring', 'rotating', 'set'];
  const perDay = new Map<number, Record<Expiry['state'], number>>();
  for (const e of entries) {
    const d = perDay.get(e.daysLeft) ?? { expired: 0, expiring: 0, rotating: 0, set: 0 };
    d[e.state]++;
    perDay.set(e.daysLeft, d);
  }
  const most = Math.max(1, ...[...perDay.values()].map((d) => d.expired + d.expiring + d.rotating + d.set));
  const W = 800, H = 180, left = 40, right = 30, top = 10, bottom = 40;
  const span = end - start + 1;
  const bw = (W - left - right) / span;
  const x = (day: number) => left + (day - start) * bw;
  const y = (n: number) => ((H - top - bottom) * n) / most;
  const parts: string[] = [];
  parts.push(`<line class="axis" x1="${left}" y1="${H - bottom}" x2="${W - right}" y2="${H - bottom}"/>`);
  const step = Math.max(1, Math.ceil(span / 10));
  for (let d = start; d <= end; d += step) {
    const label = d === 0 ? 'today' : d > 0 ? `+${d} d` : `${d} d`;
    parts.push(`<line class="grid" x1="${(x(d) + bw / 2).toFixed(1)}" y1="${top}" x2="${(x(d) + bw / 2).toFixed(1)}" y2="${H - bottom}"/><text x="${(x(d) + bw / 2).toFixed(1)}" y="${H - bottom + 16}" text-anchor="middle">${label}</text>`);
  }
  parts.push(`<text x="${left - 6}" y="${top + 10}" text-anchor="end">${most}</text><text x="${left - 6}" y="${H - bottom}" text-anchor="end">0</text>`);
  for (const [day, d] of [...perDay.entries()].sort((a, b) => a[0] - b[0])) {
    let base = H - bottom;
    const total = d.expired + d.expiring + d.rotating + d.set;
    const words = states.filter((s) => d[s] > 0).map((s) => `${d[s]} ${STATE_WORD[s]}`).join(', ');
    parts.push(`<g><title>${day === 0 ? 'today' : day > 0 ? `in ${day} day(s)` : `${-day} day(s) ago`}: ${total} (${words})</title>`);
    for (const s of states) {
      if (d[s] === 0) continue;
      const h = Math.max(2, y(d[s]));
      base -= h;
      parts.push(`<rect class="${s}" x="${(x(day) + 1).toFixed(1)}" y="${base.toFixed(1)}" width="${Math.max(1, bw - 2).toFixed(1)}" height="${h.toFixed(1)}"/>`);
    }
    parts.push('</g>');
  }
  const legend = states.filter((s) => entries.some((e) => e.state === s)).map((s) => `<span class="${s === 'expired' ? 'bad' : s === 'expiring' ? 'warn' : s === 'rotating' ? 'ok' : 'change'}">${STATE_WORD[s]}</span>`).join(' ');
  const summary = `${count(entries.length)} entr${entries.length === 1 ? 'y' : 'ies'} from ${start === 0 ? 'today' : `${-start} day(s) ago`} to ${end} day(s) ahead; the table below lists each.`;
  return `<figure><svg viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-labelledby="timeline-title timeline-desc"><title id="timeline-title">Expiry timeline</title><desc id="timeline-desc">${summary}</desc>${parts.join('')}</svg><figcaption class="legend">${legend}</figcaption></figure>`;
}

function instanceSection(inst: Page['instances'][number], n: number, statuses: readonly string[]): string {
  const id = `instance-${n}`;
  const head = `<section aria-labelledby="${id}"><h2 id="${id}">Resources of ${t(inst.name)} <span class="meta">(${t(inst.url)})</span></h2>`;
  if (inst.rows.length === 0) return `${head}<p>No resource of this instance is in the document.</p></section>`;
  const options = ['<option value="">any</option>', ...statuses.map((s) => `<option value="${t(s)}">${t(s)}</option>`)].join('');
  const controls = `<div class="controls" data-table="${id}-table" hidden><label>Filter ${t(inst.name)}'s resources<input type="search" autocomplete="off"></label><label>Status<select>${options}</select></label><output aria-live="polite">Showing ${count(inst.rows.length)} of ${count(inst.rows.length)}</output></div>`;
  const th = (label: string) => `<th scope="col"><button type="button" hidden>${label}</button><span class="plain">${label}</span></th>`;
  const rows = inst.rows
    .map((r) => {
      const rank = String(r.rank).padStart(2, '0');
      return `<tr data-status="${t(r.status)}"><td><details><summary>${t(r.address)}</summary>${r.body}</details></td><td>${t(r.kind)}</td><td data-sort="${rank}" class="${r.tone}">${t(r.status)}</td><td>${r.selector !== undefined ? `<code>${t(r.selector)}</code>` : ''}</td></tr>`;
    })
    .join('\n');
  return `${head}${controls}<div class="scroll"><table id="${id}-table" class="resources"><caption class="meta">${count(inst.rows.length)} resource(s); open a row for its details.</caption><thead><tr>${th('Resource')}${th('Kind')}${th('Status')}${th('Selector')}</tr></thead><tbody>\n${rows}\n</tbody></table></div></section>`;
}
