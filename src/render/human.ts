/**
 * The human view of a plan, in the conventions admins know from Terraform: `+` create, `~` update,
 * `-` delete, `-/+` replace, `↻` rotate, `(sensitive value)`, `(write-only)`, and a summary line.
 * Reads only the public JSON plan.
 */
import { destroyOptIn, lockChanged } from '../engine/plan.js';
import type { Action, AttributeChange, PlannedDelivery, LockLocation, Plan, PlanDiagnostic, PlanRisk, Reason, ResourceChange, ValueOrigin } from '../engine/plan.js';
import { clean } from './escape.js';
import { count, groupBlocked, groupChanges, groupExtent, someNames, templateSummary } from './groups.js';
import type { ChangeGroup, PlanItem } from './groups.js';
import { mergeRequestLines, standingText, waitingCount, waitingText } from './merge-requests.js';

/**
 * Each reason's text for people, owned by the kind that gives it (`KindEntry.reasons`; the registry
 * a command runs with assembles them, `KindSet.reasonText`). Every view is handed the texts: the
 * plan carries only the reasons' names, as Terraform's plan carries `ActionReason`s.
 */
export type ReasonTexts = Readonly<Partial<Record<Reason, string>>>;

/** Why a change is planned, for people: each reason's text (its name only when no kind gave one). */
export function reasonWords(c: Pick<ResourceChange, 'reasons'>, reasons: ReasonTexts): string[] {
  return c.reasons.map((r) => reasons[r] ?? r);
}

export interface HumanOptions {
  readonly color?: boolean;
  /** The reasons' texts of the registry the command runs with. */
  readonly reasons: ReasonTexts;
}

const SYMBOL: Record<Action, string> = {
  'no-op': ' ',
  create: '+',
  update: '~',
  delete: '-',
  replace: '-/+',
  rotate: '↻',
};

const VERB: Record<Action, string> = {
  'no-op': 'is unchanged',
  create: 'will be created',
  update: 'will be updated in place',
  delete: 'will be destroyed',
  // How (which comes first) is each kind's: its reasons say it.
  replace: 'will be replaced',
  rotate: 'will be rotated',
};

const COLOR: Record<Action, string> = { 'no-op': '0', create: '32', update: '33', delete: '31', replace: '35', rotate: '36' };

function formatValue(v: unknown): string {
  if (v === undefined) return '(not set)';
  if (typeof v === 'string') return JSON.stringify(v);
  return JSON.stringify(v);
}

/** Where a value declared in `defaults:` came from, for people. */
export function originNote(o: ValueOrigin): string {
  if (o.selector !== undefined) return o.from === 'inherited' ? `from selector ${o.selector} at ${o.declared ?? '?'}` : `overrides selector ${o.selector} at ${o.declared ?? '?'} (set at ${o.override ?? '?'})`;
  return o.from === 'inherited' ? `from defaults at ${o.defaults ?? '?'}` : `overrides defaults at ${o.defaults ?? '?'} (set at ${o.override ?? '?'})`;
}

function attrLine(a: AttributeChange, action: Action): string {
  const line = attrText(a, action);
  return clean(a.origin ? `${line}   # ${originNote(a.origin)}` : line);
}

function attrText(a: AttributeChange, action: Action): string {
  const before = a.writeOnly && a.before === undefined ? '(write-only)' : formatValue(a.before);
  const after = formatValue(a.after);
  if (action === 'create') return `      + ${a.name} = ${after}`;
  if (action === 'delete') return `      - ${a.name} = ${before}`;
  // Shown for context and not changing (a token's sink during a rotation): no arrow.
  if ('before' in a && a.before !== undefined && !a.sensitive && JSON.stringify(a.before) === JSON.stringify(a.after)) return `        ${a.name} = ${after}`;
  return `      ~ ${a.name} = ${before} -> ${after}`;
}

/** `+ deliver to ci_variable platform/app DEPLOY_TOKEN (protected, masked)`; `- stop delivering to …`. */
function deliveryLine(d: PlannedDelivery): string {
  return d.action === 'deliver' ? `      + deliver to ${d.to}` : `      - stop delivering to ${d.to}`;
}

export function renderChange(c: ResourceChange, color: boolean, reasons: ReasonTexts): string {
  const paint = (s: string) => (color ? `\u001b[${COLOR[c.action]}m${s}\u001b[0m` : s);
  const why = reasonWords(c, reasons).join('; ');
  // Configuration text (names, paths, values, a diff) never carries control characters to the terminal.
  const lines = [clean(c.mergeRequest ? `  # ${c.address}: ${standingText(c.mergeRequest)}` : `  # ${c.address} ${VERB[c.action] ?? c.action}${why ? ` (${why})` : ''}`)];
  if (c.origin) lines.push(clean(`  # ${originNote(c.origin)}`));
  lines.push(paint(clean(`  ${SYMBOL[c.action] ?? '?'} ${c.kind} ${JSON.stringify(c.address)} {`)));
  for (const a of c.attributes) lines.push(paint(attrLine(a, c.action)));
  for (const d of c.deliveries ?? []) lines.push(paint(clean(deliveryLine(d))));
  if (c.diff) for (const l of c.diff.split('\n')) lines.push(clean(`      ${l}`));
  lines.push('    }');
  return lines.join('\n');
}

/**
 * A group of changes identical but for their project or group (groups.ts): shown once, under its
 * address template, with how many projects or groups it applies to and the first few of them.
 */
export function renderGroup(g: ChangeGroup, color: boolean, reasons: ReasonTexts): string {
  const c = g.changes[0]!;
  const paint = (s: string) => (color ? `\u001b[${COLOR[c.action]}m${s}\u001b[0m` : s);
  const why = reasonWords(c, reasons).join('; ');
  const lines = [
    clean(c.mergeRequest ? `  # ${g.template}: ${standingText({ ...c.mergeRequest, iid: undefined })} in ${groupExtent(g)}:` : `  # ${g.template} ${VERB[c.action] ?? c.action}${why ? ` (${why})` : ''} in ${groupExtent(g)}:`),
    clean(`  #   ${someNames(g.names)} (plumb plan --json lists every one)`),
  ];
  if (c.origin) lines.push(clean(`  # ${originNote(c.origin)}`));
  lines.push(paint(clean(`  ${SYMBOL[c.action] ?? '?'} ${c.kind} ${JSON.stringify(g.template)} {`)));
  for (const a of c.attributes) lines.push(paint(attrLine(a, c.action)));
  for (const d of c.deliveries ?? []) lines.push(paint(clean(deliveryLine(d))));
  if (c.diff) for (const l of c.diff.split('\n')) lines.push(clean(`      ${l}`));
  lines.push('    }');
  return lines.join('\n');
}

/** One change or one group, as the plan shows it. */
export function renderItem(item: PlanItem, color: boolean, reasons: ReasonTexts): string {
  return 'group' in item ? renderGroup(item.group, color, reasons) : renderChange(item.change, color, reasons);
}

/**
 * After the summary, when changes were grouped: how many, and per address template its changes
 * by action across the fleet. Empty when nothing was grouped (a small plan reads as before).
 */
export function groupingLines(items: readonly PlanItem[]): string[] {
  const groups = items.flatMap((i) => ('group' in i ? [i.group] : []));
  if (groups.length === 0) return [];
  const grouped = groups.reduce((n, g) => n + g.changes.length, 0);
  const out = [`Grouped: ${count(grouped)} changes identical but for their project or group are shown as ${count(groups.length)} block${groups.length === 1 ? '' : 's'}; plumb plan --json lists every change.`];
  for (const t of templateSummary(items)) out.push(clean(`  ${t.kind} ${t.template}: ${t.actions}`));
  return out;
}

/** How many objects each selector of the configuration matched (docs/plans.md#selectors). */
export function selectorLines(plan: Pick<Plan, 'selectors'>): string[] {
  if (!plan.selectors || plan.selectors.length === 0) return [];
  const out = ['', 'Selectors:'];
  for (const s of plan.selectors) {
    const noun = s.container === 'projects' ? 'project' : 'group';
    out.push(clean(`  ${s.instance}.${s.container}[${JSON.stringify(s.selector)}] matched ${count(s.matched)} ${noun}${s.matched === 1 ? '' : 's'}${s.at ? ` (${s.at})` : ''}`));
  }
  return out;
}

/** `README.md in project ops/locks (branch main)`: where a lock file lives, for people. */
export function lockWhere(l: LockLocation): string {
  return `${l.path} in project ${l.project}${l.branch !== undefined ? ` (branch ${l.branch})` : ' (its default branch)'}`;
}

/**
 * Where apply holds the lock on each instance (docs/plans.md#the-lock-location): it commits there
 * with plumb's token. A location that moved since the last apply is marked as a change.
 */
export function lockLines(plan: Pick<Plan, 'locks'>): string[] {
  if (!plan.locks || plan.locks.length === 0) return [];
  const out = ['', 'Lock (apply commits the lock file there with plumb\'s token):'];
  for (const l of plan.locks) {
    const now = l.location ? lockWhere(l.location) : 'none (no lock: applies on other machines are not kept out)';
    const at = l.at ? ` (${l.at})` : '';
    if (l.before === undefined) out.push(clean(`    ${l.instance}: ${now}${at}`));
    else out.push(clean(`  ~ ${l.instance}: ${now}${at}, changed: the last apply held ${l.before ? lockWhere(l.before) : 'no lock'}`));
  }
  return out;
}

/**
 * Units left out of the plan (docs/plans.md#blocked-matches): a selector match that could not be
 * planned, or a change waiting for one. Their errors follow with the diagnostics.
 */
export function blockedLines(plan: Pick<Plan, 'blocked'>): string[] {
  if (!plan.blocked || plan.blocked.length === 0) return [];
  const out = ['', 'Blocked (left out of this plan; apply carries out the rest and exits 1):'];
  for (const { first: b, addresses } of groupBlocked(plan.blocked)) {
    const why = b.after ? `waits for ${b.after.join(', ')}` : b.codes.join(', ');
    const what = addresses.length === 1 ? b.address : `${count(addresses.length)} matches: ${someNames(addresses)}`;
    out.push(clean(`  ⊘ ${what}${b.selector !== undefined ? ` (selector ${b.selector})` : ''}: ${why}`));
  }
  return out;
}

export function summaryLine(plan: Plan): string {
  const s = plan.summary;
  const rotate = s.rotate ? `, ${s.rotate} to rotate` : '';
  const replace = s.replace ? `, ${s.replace} to replace` : '';
  return `Plan: ${s.create} to add, ${s.update} to change, ${s.delete} to destroy${rotate}${replace}.`;
}

export function renderDiagnosticLine(d: PlanDiagnostic): string {
  const where = d.file ? ` (${d.file}:${d.line}:${d.column})` : d.address ? ` (${d.address})` : '';
  const lines = [`${d.severity}[${d.code}]: ${d.summary}${where}`];
  if (d.detail) lines.push(`  ${d.detail}`);
  for (const r of d.related ?? []) lines.push(`  note: ${r.message}${r.file ? ` (${r.file}:${r.line}:${r.column})` : ''}`);
  if (d.suggestion) lines.push(`  help: ${d.suggestion}`);
  return clean(lines.join('\n'));
}

/** One line per risk: what would happen and whether the configuration accepted it. */
export function riskLine(r: PlanRisk): string {
  const accepted = r.gate === 'destroy' ? ' (accepted by the configuration)' : ' (accepted by allow_risky)';
  return clean(`${r.gate === 'destroy' ? '!!' : '!'} ${r.address} [${r.id}]: ${r.summary}${r.acknowledged ? accepted : ''}`);
}

/**
 * The destroys section (loud: it comes first and says what is lost), then the lock-out risks; one
 * line each, and how to accept the unaccepted ones.
 */
export function renderRisks(risks: readonly PlanRisk[]): string[] {
  const out: string[] = [];
  const destroys = risks.filter((r) => r.gate === 'destroy');
  if (destroys.length > 0) {
    out.push('', `DESTROYS (${destroys.length}): what these remove is gone for the people who use it:`, ...destroys.map((r) => `  ${riskLine(r)}`));
    const open = destroys.filter((r) => !r.acknowledged);
    const optIns = [...new Set(open.map((r) => destroyOptIn(r.id)).filter((x) => x !== undefined))];
    if (open.length > 0) out.push(`  apply carries ${open.length === 1 ? 'it' : 'them'} out only with --allow-destroy, or when the resource opts in in the configuration${optIns.length > 0 ? ` (${optIns.join('; ')})` : ''}.`);
  }
  const lockouts = risks.filter((r) => r.gate !== 'destroy');
  if (lockouts.length === 0) return out;
  out.push('', 'Risky changes (they can lock people or plumb out, skip a review or leave something unprotected):', ...lockouts.map((r) => `  ${riskLine(r)}`));
  const open = lockouts.filter((r) => !r.acknowledged);
  if (open.length > 0) {
    const ids = [...new Set(open.map((r) => r.id))];
    out.push(`  apply carries ${open.length === 1 ? 'it' : 'them'} out only with --allow-risky, or when the instance lists ${ids.map((i) => `"${i}"`).join(', ')} under allow_risky.`);
  }
  return out;
}

export function renderPlanHuman(plan: Plan, opts: HumanOptions): string {
  const color = opts.color ?? false;
  const out: string[] = [];
  const changes = plan.changes.filter((c) => c.action !== 'no-op');
  // Errors confined to a blocked unit leave the rest of the plan whole.
  const failed = plan.diagnostics.some((d) => d.severity === 'error' && d.blocks === undefined);
  if (plan.withheld) {
    out.push(clean(`Merge-request plan (${plan.withheld.why}): the names of ${count(plan.withheld.matches)} selector match${plan.withheld.matches === 1 ? '' : 'es'} are withheld, as "(match N of SELECTOR)"; the protected default-branch plan shows them.`), '');
  }
  if (plan.targets && plan.targets.length > 0) {
    out.push(clean(`Targeted plan: only resources matching ${plan.targets.join(', ')}; the rest of the configuration was not read.`), '');
  }
  if (changes.length === 0 && failed) {
    out.push('The plan could not be completed; nothing is known to be in sync.');
  } else if (changes.length === 0 && (plan.blocked ?? []).length > 0) {
    out.push('No changes in what could be planned; the blocked units below were not compared.');
  } else if (changes.length === 0 && lockChanged(plan)) {
    out.push('No resource changes, but the lock location changed (below).');
  } else if (changes.length === 0 && waitingCount(plan) > 0) {
    out.push(`No changes to apply; ${waitingText(plan)} (below).`);
  } else if (changes.length === 0) {
    out.push('No changes. The instance matches the configuration.');
  } else {
    out.push('plumb will perform the following actions:', '');
    const items = groupChanges(changes);
    for (const item of items) out.push(renderItem(item, color, opts.reasons), '');
    out.push(summaryLine(plan), ...groupingLines(items));
  }
  out.push(...mergeRequestLines(plan).map(clean));
  out.push(...selectorLines(plan));
  out.push(...lockLines(plan));
  out.push(...blockedLines(plan));
  out.push(...renderRisks(plan.risks));
  const info = plan.drift.filter((d) => d.informational);
  if (info.length > 0) {
    out.push('', 'Notes:');
    for (const d of info) out.push(clean(`  - ${d.address}: ${d.summary}`));
  }
  if (plan.diagnostics.length > 0) {
    out.push('');
    for (const d of plan.diagnostics) out.push(renderDiagnosticLine(d));
  }
  if (!plan.applicable) out.push('', 'This plan has errors and cannot be applied.');
  else if (plan.blocked && plan.blocked.length > 0) out.push('', `${count(plan.blocked.length)} unit${plan.blocked.length === 1 ? '' : 's'} could not be planned and ${plan.blocked.length === 1 ? 'is' : 'are'} left out; the rest can be applied (apply carries it out and exits 1).`);
  return out.join('\n') + '\n';
}
