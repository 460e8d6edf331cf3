/**
 * `plumb drift --junit FILE`: the drift check as a JUnit XML report, for the service's
 * `artifacts:reports:junit` (docs/ci.md#native-reports). One test case per resource address:
 * drifted (or with a change pending) = a failure whose message is the drift; in sync = passed. The
 * class name is `instance/kind`. Errors (the check could not run) are one errored case, `plumb`.
 */
import type { FlatDiagnostic } from '../diagnostics/diagnostic.js';
import type { AttributeChange, Plan } from '../engine/plan.js';
import { reasonWords } from '../render/human.js';
import type { ReasonTexts } from '../render/human.js';

interface Case {
  readonly name: string;
  readonly classname: string;
  failure?: { message: string; body: string };
  out: string[];
}

const xml = (s: string): string =>
  // Characters XML 1.0 cannot carry at all are dropped; the five specials are escaped.
  s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '').replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);

const attr = (a: AttributeChange): string => `${a.name}: ${JSON.stringify(a.before ?? null)} (instance) ≠ ${JSON.stringify(a.after ?? null)} (configuration)`;

/** `reasons`: the reasons' texts of the registry drift ran with. */
export function renderDriftJunit(plan: Plan, reasons: ReasonTexts, durationSeconds = 0): string {
  const cases = new Map<string, Case>();
  const at = (address: string, instance: string, kind: string): Case => {
    let c = cases.get(address);
    if (!c) cases.set(address, (c = { name: address, classname: `${instance}/${kind}`, out: [] }));
    return c;
  };
  for (const ch of plan.changes) at(ch.address, ch.instance, ch.kind);
  for (const d of plan.drift) {
    const c = at(d.address, d.instance, d.kind);
    const text = [d.summary, ...d.attributes.map(attr)].join('\n');
    if (d.informational) c.out.push(text);
    else c.failure = { message: `drift: ${d.summary}`, body: c.failure ? `${c.failure.body}\n${text}` : text };
  }
  for (const ch of plan.changes) {
    if (ch.action === 'no-op') continue;
    const c = at(ch.address, ch.instance, ch.kind);
    const text = `pending change: ${ch.action} (${reasonWords(ch, reasons).join('; ') || 'configuration changed'})${ch.attributes.length ? '\n' + ch.attributes.map(attr).join('\n') : ''}`;
    if (!c.failure) c.failure = { message: `out of sync: ${ch.action}`, body: text };
    else c.failure.body += `\n${text}`;
  }
  const errors: FlatDiagnostic[] = plan.diagnostics.filter((d) => d.severity === 'error');
  const lines: string[] = [];
  const all = [...cases.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const failures = all.filter((c) => c.failure).length;
  lines.push('<?xml version="1.0" encoding="UTF-8"?>');
  lines.push(`<testsuites name="plumb drift" tests="${all.length + (errors.length ? 1 : 0)}" failures="${failures}" errors="${errors.length ? 1 : 0}" time="${durationSeconds.toFixed(3)}">`);
  lines.push(`  <testsuite name="plumb drift" tests="${all.length + (errors.length ? 1 : 0)}" failures="${failures}" errors="${errors.length ? 1 : 0}" skipped="0" time="${durationSeconds.toFixed(3)}">`);
  for (const c of all) {
    const open = `    <testcase name="${xml(c.name)}" classname="${xml(c.classname)}" time="0">`;
    if (!c.failure && c.out.length === 0) {
      lines.push(open.replace(/>$/, '/>'));
      continue;
    }
    lines.push(open);
    if (c.failure) lines.push(`      <failure message="${xml(c.failure.message)}" type="drift">${xml(c.failure.body)}</failure>`);
    if (c.out.length) lines.push(`      <system-out>${xml(c.out.join('\n'))}</system-out>`);
    lines.push('    </testcase>');
  }
  if (errors.length) {
    const body = errors.map((d) => `${d.code}: ${d.summary}${d.file ? ` (${d.file}:${d.line ?? 1})` : ''}`).join('\n');
    lines.push(`    <testcase name="plumb" classname="plumb" time="0">`);
    lines.push(`      <error message="${xml(`the drift check failed: ${errors[0]!.summary}`)}" type="error">${xml(body)}</error>`);
    lines.push('    </testcase>');
  }
  lines.push('  </testsuite>', '</testsuites>', '');
  return lines.join('\n');
}
