/**
 * What the engine's plan says before apply, as Terraform's plan must say it (issue 21 defect 6):
 * a risky change (a lock-out, a destroy gate such as unpublishing Pages) the configuration does not
 * accept is an ERROR at plan, at the attribute that asks for it, whose help names the Terraform
 * attribute that accepts it (the provider block's `allow_risky`, a resource's opt-in such as
 * `allow_unpublish`), never plumb's CLI flags or YAML. And every plan diagnostic is located at the
 * attribute its configuration value came from, as the offline diagnostics are.
 */
import { howToAccept } from '../config/risk-ids.js';
import type { Plan, PlanDiagnostic, PlanRisk } from '../engine/plan.js';
import { joinPointer } from '../config/pointer.js';
import type { Built } from './config.js';
import type { PathStep, TfDiagnostic } from '../resources/terraform.js';
import type { DiagnosticCode } from '../diagnostics/codes.js';

/**
 * The risks of one change as Terraform diagnostics: an unaccepted one is an error at plan (apply
 * would refuse it), at the attribute that asks for it; an accepted one is one warning line, so the
 * reviewer of the plan still sees it.
 */
export function riskDiagnostics(plan: Plan | undefined, address: string, built: Built | undefined): TfDiagnostic[] {
  return (plan?.risks ?? [])
    .filter((r) => r.address === address)
    .map((r): TfDiagnostic => {
      const path = r.pointer !== undefined ? built?.pathOf(r.pointer) : undefined;
      if (r.acknowledged) {
        return { severity: 'warning', summary: `${r.gate === 'destroy' ? 'Destroy' : 'Risky change'} accepted by the configuration: ${r.summary}`, detail: `Risk "${r.id}"${r.gate === 'destroy' ? '' : ', listed in the provider\'s allow_risky'}.`, ...(path && { path }) };
      }
      return refusal(r, path);
    });
}

function refusal(r: PlanRisk, path: PathStep[] | undefined): TfDiagnostic {
  const code: DiagnosticCode = r.gate === 'destroy' ? 'PLUMB_DESTROY_NOT_ACCEPTED' : 'PLUMB_RISK_NOT_ACCEPTED';
  const why = r.gate === 'destroy'
    ? `"${r.id}": this change removes something people use, so plumb carries it out only when the resource opts in (the provider's allow_risky does not accept it).`
    : `Risk "${r.id}": a change that can lock people or plumb out, or leave something unprotected, is carried out only when the configuration accepts it.`;
  return {
    severity: 'error',
    summary: `${r.gate === 'destroy' ? 'Destroy' : 'Risky change'} not accepted: ${r.summary}`,
    detail: `${why} terraform apply would refuse it, so the plan does.\nhelp: if you mean it, ${howToAccept(r, 'terraform')} (${code})`,
    ...(path && { path }),
  };
}

/**
 * Where in the Terraform configuration a plan diagnostic is: the engine locates it in plumb's
 * document (file, line, column of the value it is about); the document was written from the
 * resource's attributes, so that value's pointer maps back to an attribute path.
 */
export function planDiagnosticPath(built: Built, d: Pick<PlanDiagnostic, 'file' | 'line' | 'column'>): PathStep[] | undefined {
  if (d.line === undefined || d.column === undefined) return undefined;
  const { data, locations } = built.loaded.sources;
  let found: string | undefined;
  const walk = (v: unknown, pointer: string): void => {
    if (found !== undefined) return;
    const l = locations.get(pointer);
    const at = l ? (l.key ?? l.value) : undefined;
    if (at && at.line === d.line && at.column === d.column && (d.file === undefined || at.file === d.file)) {
      found = pointer;
      return;
    }
    if (v !== null && typeof v === 'object') for (const [k, e] of Object.entries(v)) walk(e, joinPointer(pointer, k));
  };
  walk(data, '');
  return found !== undefined ? built.pathOf(found) : undefined;
}
