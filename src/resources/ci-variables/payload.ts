/** What apply needs for one CI/CD variable: the plan's payload of this kind. Never a value: a fingerprint and where the value is declared. */
import { VARIABLE_TYPES } from '../../catalogue/ci-variables.js';
import { PayloadError, oneOf, optionalBoolean, record, string } from '../../engine/payload.js';
import type { SecretFingerprint } from '../../engine/fingerprint.js';

/** The fields a write sends besides the value (create: all of them; update: those that differ). */
export interface VariableSet {
  readonly variable_type?: (typeof VARIABLE_TYPES)[number];
  readonly protected?: boolean;
  readonly masked?: boolean;
  readonly raw?: boolean;
  readonly description?: string;
}

/** The value to send: read again from the configuration at apply, and checked against the fingerprint the plan holds. */
export type ValueRef = { readonly pointer: string } & SecretFingerprint;

/**
 * `create`: POST; `update`: PUT the fields in `set` and the value when `value` is given; `replace`:
 * DELETE then POST (masked_and_hidden is set at creation only); `delete`: DELETE (prune).
 */
export type VariablePayload =
  | { readonly type: 'create' | 'replace'; readonly container: 'projects' | 'groups'; readonly ref: string; readonly key: string; readonly scope: string; readonly set: VariableSet; readonly hidden: boolean; readonly value: ValueRef }
  | { readonly type: 'update'; readonly container: 'projects' | 'groups'; readonly ref: string; readonly key: string; readonly scope: string; readonly set: VariableSet; readonly value?: ValueRef }
  | { readonly type: 'delete'; readonly container: 'projects' | 'groups'; readonly ref: string; readonly key: string; readonly scope: string };

const TYPES = ['create', 'replace', 'update', 'delete'] as const;
const SET_FIELDS = ['variable_type', 'protected', 'masked', 'raw', 'description'];

function valueRef(raw: unknown, at: string): ValueRef {
  const r = record(raw, at);
  return { pointer: string(r, 'pointer', `${at}.pointer`), salt: string(r, 'salt', `${at}.salt`), hash: string(r, 'hash', `${at}.hash`) };
}

function parseSet(raw: unknown): VariableSet {
  const s = record(raw, 'payload.set');
  for (const k of Object.keys(s)) if (!SET_FIELDS.includes(k)) throw new PayloadError(`payload.set.${k} is not a variable field`);
  const type = s.variable_type === undefined ? undefined : oneOf(s, 'variable_type', VARIABLE_TYPES, 'payload.set.variable_type');
  const description = s.description === undefined ? undefined : string(s, 'description', 'payload.set.description');
  const flags = Object.fromEntries(
    (['protected', 'masked', 'raw'] as const).flatMap((k) => {
      const v = optionalBoolean(s, k, `payload.set.${k}`);
      return v === undefined ? [] : [[k, v]];
    }),
  ) as Pick<VariableSet, 'protected' | 'masked' | 'raw'>;
  return { ...(type !== undefined && { variable_type: type }), ...flags, ...(description !== undefined && { description }) };
}

export function parseVariablePayload(raw: unknown): VariablePayload {
  const p = record(raw, 'the payload');
  const type = oneOf(p, 'type', TYPES, 'payload.type');
  const container = oneOf(p, 'container', ['projects', 'groups'] as const, 'payload.container');
  const base = { container, ref: string(p, 'ref', 'payload.ref'), key: string(p, 'key', 'payload.key'), scope: string(p, 'scope', 'payload.scope') };
  if (type === 'delete') return { type, ...base };
  const set = parseSet(p.set);
  if (type === 'update') {
    if (p.value === undefined && Object.keys(set).length === 0) throw new PayloadError('payload sends nothing: an update sends the value or at least one field');
    return { type, ...base, set, ...(p.value !== undefined && { value: valueRef(p.value, 'payload.value') }) };
  }
  const hidden = optionalBoolean(p, 'hidden', 'payload.hidden') ?? false;
  return { type, ...base, set, hidden, value: valueRef(p.value, 'payload.value') };
}
