/**
 * Applying one CI/CD variable change: POST, PUT or DELETE (a replace is DELETE then POST), with the
 * value read again from the configuration and checked against the plan's fingerprint first. The
 * write's answer is the variable as the instance now holds it: it is compared with what was sent
 * (the value too, unless the variable is hidden), and the value's fingerprint is recorded (./state.ts).
 */
import { createVariable, deleteVariable, updateVariable } from '../../api/variables.js';
import type { CiVariable, VariableOwner } from '../../api/variables.js';
import { ApiBadRequestError, ApiError, ApiNotFoundError } from '../../api/errors.js';
import { fingerprintSecret, matchesFingerprint } from '../../engine/fingerprint.js';
import type { PlanDiagnostic, ResourceChange } from '../../engine/plan.js';
import type { ApplyResponse, InstanceContext } from '../../engine/resource.js';
import { planDiagnostic } from '../../engine/resource.js';
import { apiOwner, describeVariable, variablesOf } from './model.js';
import type { DesiredVariable, VariablesOwner } from './model.js';
import type { VariablePayload } from './payload.js';
import { VARIABLE_FIELDS_COMPARED, isHidden, liveField, ownerRefusal } from './plan.js';
import { recordWritten } from './state.js';

function ownerOf(ctx: InstanceContext, p: VariablePayload): VariablesOwner | undefined {
  return variablesOf(ctx.instance).find((o) => o.container === p.container && o.ref === p.ref);
}

const failed = (...diagnostics: PlanDiagnostic[]): ApplyResponse => ({ applied: false, diagnostics, notes: [] });

export async function applyVariable(ctx: InstanceContext, change: ResourceChange, payload: VariablePayload): Promise<ApplyResponse> {
  const owner = ownerOf(ctx, payload);
  const where: VariableOwner = apiOwner(payload);
  const what = owner ? describeVariable(owner, payload.key, payload.scope) : `variable ${payload.key}`;
  if (payload.type === 'delete') {
    try {
      await deleteVariable(ctx.client, where, payload.key, payload.scope);
    } catch (err) {
      // Already gone (a lost answer repeated, or deleted meanwhile): what prune wanted.
      if (!(err instanceof ApiNotFoundError) || !/variable/i.test(err.serverMessage ?? '')) return refused(ctx, change, owner, err, `DELETE /${payload.container}/${payload.ref}/variables/${payload.key}`);
    }
    recordWritten(ctx.state, ctx.instance.url, change.address, undefined);
    return { applied: true, diagnostics: [], notes: [`deleted ${what}`] };
  }

  const v = owner?.variables.find((x) => x.key === payload.key && x.scope === payload.scope);
  if (!owner || !v) {
    return failed(planDiagnostic(ctx, { severity: 'error', code: 'PLUMB_PLAN_STALE_CONFIG', summary: `The configuration no longer declares ${what}`, suggestion: 'make a new plan with the current configuration', address: change.address }));
  }
  if (payload.value && !(await matchesFingerprint(v.value, payload.value))) {
    return failed(
      planDiagnostic(ctx, {
        severity: 'error',
        code: 'PLUMB_PLAN_STALE_SECRET',
        summary: `The value of ${what} is not the one the plan was made with`,
        detail: 'The value (or the secret behind it: an environment variable or file) changed after the plan, or the plan was made from another configuration.',
        suggestion: 'make a new plan with the current values',
        address: change.address,
        pointer: v.valuePointer,
      }),
    );
  }

  let answer: CiVariable;
  const call = `${payload.type === 'update' ? 'PUT' : 'POST'} /${payload.container}/${payload.ref}/variables`;
  try {
    if (payload.type === 'update') {
      answer = await updateVariable(ctx.client, where, v.key, v.scope, { ...payload.set, ...(payload.value && { value: v.value }) });
    } else {
      if (payload.type === 'replace') await deleteVariable(ctx.client, where, v.key, v.scope);
      answer = await createVariable(ctx.client, where, v.key, { value: v.value, environment_scope: v.scope, ...payload.set, ...(payload.hidden && { masked_and_hidden: true }) });
    }
  } catch (err) {
    return refused(ctx, change, owner, err, call, v);
  }

  // Read back: the answer is the variable as stored. A hidden one's value is not returned.
  const differs = VARIABLE_FIELDS_COMPARED.filter((f) => f in payload.set && liveField(answer, f) !== v.fields[f]);
  const valueDiffers = !isHidden(answer) && answer.value !== v.value;
  if (differs.length > 0 || valueDiffers) {
    return failed(
      planDiagnostic(ctx, {
        severity: 'error',
        code: 'PLUMB_CI_VARIABLE_NOT_AS_SENT',
        summary: `The instance accepted the write of ${what} but does not hold ${[...(valueDiffers ? ['the value'] : []), ...differs].join(', ')} as sent`,
        detail: `${call} answered with other values.`,
        suggestion: 'run `plumb plan` to see what the instance holds',
        address: change.address,
        pointer: v.pointer,
      }),
    );
  }
  recordWritten(ctx.state, ctx.instance.url, change.address, await fingerprintSecret(v.value));
  const verified = isHidden(answer) ? 'hidden: its value cannot be read back, its fingerprint is recorded' : 'read back';
  return { applied: true, diagnostics: [], notes: [`${payload.type === 'update' ? 'updated' : payload.type === 'replace' ? 'deleted and created again' : 'created'} ${what} (${verified})`] };
}

function refused(ctx: InstanceContext, change: ResourceChange, owner: VariablesOwner | undefined, err: unknown, call: string, v?: DesiredVariable): ApplyResponse {
  if (!(err instanceof ApiError)) throw err;
  if (err instanceof ApiBadRequestError) {
    const field = /\b(key|value|environment_scope|variable_type|protected|masked|raw|description)\b/.exec(err.serverMessage ?? '')?.[1];
    const pointer = v ? (field === 'value' ? v.valuePointer : v.pointer) : owner?.pointer;
    return failed(
      planDiagnostic(ctx, {
        severity: 'error',
        code: 'PLUMB_CI_VARIABLE_REJECTED',
        summary: ctx.secrets.redact(`The instance refused ${change.address}: ${err.serverMessage ?? 'no message'}`),
        detail: `${call} answered 400. Nothing was changed by this request.`,
        suggestion: 'fix the declaration and plan again',
        address: change.address,
        ...(pointer !== undefined && { pointer }),
      }),
    );
  }
  const d = owner ? ownerRefusal(ctx, owner, err, call, change.address) : undefined;
  if (!d) throw err;
  return failed(d);
}
