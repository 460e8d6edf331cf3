/** What apply needs for one protected branch: the plan's payload of this kind (levels as the API's numbers). */
import { PayloadError, oneOf, optionalBoolean, record, string } from '../../engine/payload.js';
import type { CreateRule, UpdateRule } from './api.js';
import { FLAG_FIELDS, LEVEL_FIELDS, parseLevel } from './levels.js';

/**
 * `create`: POST the rule; `update`: PATCH the flags in `set`; `replace`: DELETE the rule, then POST
 * it whole (a level the PATCH cannot change); `delete`: unprotect (pruning); `none`: the payload of
 * a no-op change (never applied).
 */
export type ProtectedBranchPayload =
  | { readonly type: 'create'; readonly project: string; readonly rule: CreateRule }
  | { readonly type: 'update'; readonly project: string; readonly name: string; readonly set: UpdateRule }
  | { readonly type: 'replace'; readonly project: string; readonly rule: CreateRule }
  | { readonly type: 'delete'; readonly project: string; readonly name: string }
  | { readonly type: 'none'; readonly project: string; readonly name: string };

const TYPES = ['create', 'update', 'replace', 'delete', 'none'] as const;

function parseRule(raw: unknown): CreateRule {
  const r = record(raw, 'payload.rule');
  for (const key of Object.keys(r)) {
    if (key !== 'name' && !(LEVEL_FIELDS as readonly string[]).includes(key) && !(FLAG_FIELDS as readonly string[]).includes(key)) throw new PayloadError(`payload.rule.${key} is not a protected-branch field`);
  }
  const rule: Record<string, unknown> = { name: string(r, 'name', 'payload.rule.name') };
  for (const f of LEVEL_FIELDS) {
    if (r[f] === undefined) continue;
    const level = parseLevel(r[f]);
    if (level === undefined || typeof r[f] !== 'number') throw new PayloadError(`payload.rule.${f} is not an access level (0, 30, 40 or 60)`);
    rule[f] = level;
  }
  for (const f of FLAG_FIELDS) {
    const v = optionalBoolean(r, f, `payload.rule.${f}`);
    if (v !== undefined) rule[f] = v;
  }
  return rule as unknown as CreateRule;
}

export function parseProtectedBranchPayload(raw: unknown): ProtectedBranchPayload {
  const p = record(raw, 'the payload');
  const type = oneOf(p, 'type', TYPES, 'payload.type');
  const project = string(p, 'project', 'payload.project');
  if (type === 'create' || type === 'replace') return { type, project, rule: parseRule(p.rule) };
  const name = string(p, 'name', 'payload.name');
  if (type !== 'update') return { type, project, name };
  const s = record(p.set, 'payload.set');
  for (const key of Object.keys(s)) if (!(FLAG_FIELDS as readonly string[]).includes(key)) throw new PayloadError(`payload.set.${key} is not a field the update request takes`);
  const force = optionalBoolean(s, 'allow_force_push', 'payload.set.allow_force_push');
  const owners = optionalBoolean(s, 'code_owner_approval_required', 'payload.set.code_owner_approval_required');
  const set: UpdateRule = { ...(force !== undefined && { allow_force_push: force }), ...(owners !== undefined && { code_owner_approval_required: owners }) };
  if (Object.keys(set).length === 0) throw new PayloadError('payload.set is empty: an update sends at least one field');
  return { type, project, name, set };
}
