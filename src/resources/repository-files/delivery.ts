/**
 * How a project's changed files reach it (`delivery:` on a project, a selector or `defaults:`;
 * docs/config.md#delivering-files): one commit per project and branch through the commits API
 * (`commit`, the default), or one merge request per project (`merge_request`). One unit for
 * `defaults:` and selectors: inherited or overridden whole (`KindMount.whole`).
 */
import type { JsonSchema } from '../../config/kinds.js';
import { joinPointer } from '../../config/pointer.js';
import { obj, push } from '../../config/resolve-context.js';
import type { Ctx } from '../../config/resolve-context.js';
import { checkBranchName } from './branch-name.js';

/** Every changed file of one project and branch in one commit. */
export interface CommitDelivery {
  readonly kind: 'commit';
  /** Add the service's marker (`[skip ci]`) to the commit message: the commit starts no pipeline. */
  readonly skipCi: boolean;
  /** Where it is declared (absent: the default, declared nowhere). */
  readonly pointer?: string;
}

/** Every changed file of one project in one merge request, kept up to date across runs. */
export interface MergeRequestDelivery {
  readonly kind: 'merge_request';
  /** The merge request's source branch; default `plumb/<instance>`. */
  readonly branch: string;
  readonly title?: string;
  readonly description?: string;
  readonly labels: readonly string[];
  /** Ask the service to merge when the pipeline succeeds. */
  readonly autoMerge: boolean;
  readonly removeSourceBranch?: boolean;
  readonly squash?: boolean;
  readonly pointer: string;
}

export type Delivery = CommitDelivery | MergeRequestDelivery;

/** What a project that says nothing gets. */
export const DEFAULT_DELIVERY: CommitDelivery = { kind: 'commit', skipCi: false };

export function deliverySchema(): JsonSchema {
  const mergeRequest: JsonSchema = {
    type: 'object',
    additionalProperties: false,
    description: "One merge request per project, from a branch plumb rebuilds from the target branch in one commit.",
    properties: {
      branch: { type: 'string', minLength: 1, description: 'The source branch; default: plumb/<instance>.' },
      title: { type: 'string', minLength: 1, description: "The merge request's title." },
      description: { type: 'string', description: "Text put before plumb's list of the files." },
      labels: { type: 'array', uniqueItems: true, items: { type: 'string', minLength: 1 }, description: 'Labels of the merge request.' },
      auto_merge: { type: 'boolean', default: false, description: 'Ask the service to merge when the pipeline succeeds.' },
      remove_source_branch: { type: 'boolean', description: 'Remove the source branch when merged.' },
      squash: { type: 'boolean', description: 'Squash the commits when merged.' },
    },
  };
  return {
    description: 'How changed files reach the project: `commit` (default: one commit per project and branch) or `merge_request` (one merge request per project).',
    type: ['string', 'object'],
    if: { type: 'string' },
    then: { enum: ['commit', 'merge_request'] },
    // Keys of a mapping (ignored for a string). Exactly one of them: checked by resolveDelivery,
    // which says so in the delivery's own words.
    additionalProperties: false,
    properties: {
      commit: {
        type: ['object', 'null'],
        additionalProperties: false,
        description: 'One commit per project and branch through the commits API.',
        properties: { skip_ci: { type: 'boolean', default: false, description: 'Add [skip ci] to the commit message: the commit starts no pipeline.' } },
      },
      merge_request: { ...mergeRequest, type: ['object', 'null'] },
    },
  };
}

/** The delivery declared at `p` (`raw` as written, schema-checked), or the default when none is. */
export function resolveDelivery(raw: unknown, p: string, instance: string, ctx: Ctx): Delivery {
  if (raw === undefined || raw === null) return DEFAULT_DELIVERY;
  if (raw === 'commit') return { kind: 'commit', skipCi: false, pointer: p };
  const o = raw === 'merge_request' ? { merge_request: {} } : obj(raw);
  const keys = Object.keys(o).filter((k) => k === 'commit' || k === 'merge_request');
  if (typeof raw === 'object' && keys.length !== 1) {
    push(ctx, {
      severity: 'error',
      code: 'PLUMB_FILE_DELIVERY_INVALID',
      summary: keys.length === 0 ? 'delivery names no way of delivering the files' : 'delivery names both `commit` and `merge_request`',
      detail: 'A project\'s changed files reach it one way: in one commit per branch, or in one merge request.',
      suggestion: 'keep one: `delivery: commit`, `delivery: {commit: {skip_ci: true}}` or `delivery: {merge_request: {…}}`',
      pointer: p,
    });
    return DEFAULT_DELIVERY;
  }
  if ('commit' in o) return { kind: 'commit', skipCi: obj(o.commit).skip_ci === true, pointer: p };
  if (!('merge_request' in o)) return DEFAULT_DELIVERY; // the schema reported it
  const mr = obj(o.merge_request);
  const mp = joinPointer(p, 'merge_request');
  const branch = typeof mr.branch === 'string' ? mr.branch : `plumb/${instance}`;
  if (typeof mr.branch === 'string') checkBranchName(ctx, branch, joinPointer(mp, 'branch'));
  else checkBranchName(ctx, branch, mp, undefined, 'name the branch with `branch:` (the default plumb/<instance> takes the instance name)');
  return {
    kind: 'merge_request',
    branch,
    ...(typeof mr.title === 'string' && { title: mr.title }),
    ...(typeof mr.description === 'string' && { description: mr.description }),
    labels: Array.isArray(mr.labels) ? mr.labels.filter((l): l is string => typeof l === 'string') : [],
    autoMerge: mr.auto_merge === true,
    ...(typeof mr.remove_source_branch === 'boolean' && { removeSourceBranch: mr.remove_source_branch }),
    ...(typeof mr.squash === 'boolean' && { squash: mr.squash }),
    pointer: p,
  };
}
