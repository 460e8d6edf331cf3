/** What apply needs for one project's Pages: the plan's payload of this kind. */
import { PayloadError, oneOf, optionalBoolean, record, string } from '../../engine/payload.js';

/** The PATCH body: only the fields that differ. `pages_primary_domain: ""` clears it. */
export type PagesUpdate = {
  readonly pages_https_only?: boolean;
  readonly pages_unique_domain_enabled?: boolean;
  readonly pages_primary_domain?: string;
};

/**
 * `update`: PATCH the fields in `set`; `unpublish`: DELETE (a destroy); `none`: the payload of a
 * no-op change (never applied).
 */
export type PagesPayload =
  | { readonly type: 'update'; readonly project: string; readonly set: PagesUpdate }
  | { readonly type: 'unpublish'; readonly project: string }
  | { readonly type: 'none'; readonly project: string };

const TYPES = ['update', 'unpublish', 'none'] as const;

export function parsePagesPayload(raw: unknown): PagesPayload {
  const p = record(raw, 'the payload');
  const type = oneOf(p, 'type', TYPES, 'payload.type');
  const project = string(p, 'project', 'payload.project');
  if (type !== 'update') return { type, project };
  const s = record(p.set, 'payload.set');
  for (const key of Object.keys(s)) {
    if (!['pages_https_only', 'pages_unique_domain_enabled', 'pages_primary_domain'].includes(key)) throw new PayloadError(`payload.set.${key} is not a Pages field`);
  }
  const httpsOnly = optionalBoolean(s, 'pages_https_only', 'payload.set.pages_https_only');
  const unique = optionalBoolean(s, 'pages_unique_domain_enabled', 'payload.set.pages_unique_domain_enabled');
  const domain = s.pages_primary_domain === undefined ? undefined : string(s, 'pages_primary_domain', 'payload.set.pages_primary_domain');
  const set: PagesUpdate = {
    ...(httpsOnly !== undefined && { pages_https_only: httpsOnly }),
    ...(unique !== undefined && { pages_unique_domain_enabled: unique }),
    ...(domain !== undefined && { pages_primary_domain: domain }),
  };
  if (Object.keys(set).length === 0) throw new PayloadError('payload.set is empty: an update sends at least one field');
  return { type, project, set };
}
