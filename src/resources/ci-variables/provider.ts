/**
 * CI/CD variables as a resource: the project and group variables the configuration declares, by
 * key and environment scope (./plan.ts, ./apply.ts), and with `prune_variables` the undeclared ones
 * deleted. A plan makes one listing per project or group; apply one request per change.
 */
import { listVariables } from '../../api/variables.js';
import type { ResourceProvider } from '../../engine/resource.js';
import { applyVariable } from './apply.js';
import { KIND, apiOwner, variableAddress, variablesOf } from './model.js';
import { parseVariablePayload } from './payload.js';
import type { VariablePayload } from './payload.js';
import { liveKey, planVariables, variableFingerprint } from './plan.js';

export const ciVariablesProvider: ResourceProvider<VariablePayload> = {
  kind: KIND,

  declares: (instance) => variablesOf(instance).length > 0,

  plan: planVariables,

  parsePayload: parseVariablePayload,

  describePayload(instance, p) {
    const address = variableAddress(instance, { container: p.container, ref: p.ref }, p.key, p.scope);
    if (p.type === 'delete') return { addresses: [address], action: 'delete', attributes: [], cosmetic: ['environment_scope', 'variable_type', 'protected', 'masked', 'raw', 'description'] };
    const attributes = Object.entries(p.set).map(([name, after]) => ({ name, after, required: p.type === 'update' }));
    return {
      addresses: [address],
      action: p.type,
      attributes: [...attributes, ...(p.type === 'replace' ? [{ name: 'masked_and_hidden', after: p.hidden, required: true }] : [])],
      cosmetic: ['value', 'environment_scope', 'masked_and_hidden'],
    };
  },

  async liveFingerprint(ctx, _change, p) {
    const live = (await listVariables(ctx.client, apiOwner(p))).find((l) => liveKey(l.key, l.environment_scope) === liveKey(p.key, p.scope));
    if (p.type === 'delete' || !live) return variableFingerprint(live, undefined);
    const v = variablesOf(ctx.instance).find((o) => o.container === p.container && o.ref === p.ref)?.variables.find((x) => x.key === p.key && x.scope === p.scope);
    const hidden = live.hidden === true || live.value === null;
    return variableFingerprint(live, hidden ? undefined : live.value === v?.value);
  },

  apply: applyVariable,
};
