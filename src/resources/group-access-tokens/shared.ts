/**
 * What the plan and the apply of group access tokens share: where a token is (its address), the
 * tokens' sections of the state file, and what one session shares among a group's changes, kept
 * in the session's memo (`ctx.memo.session`, engine/memo.ts): the group's token lists, the lists
 * that confirm rotations, and the sink directories checked.
 */
import { createHash } from 'node:crypto';
import { listGroupAccessTokens } from '../../api/group-access-tokens.js';
import type { GroupAccessToken } from '../../api/group-access-tokens.js';
import type { PathParam } from '../../api/path.js';
import type { DesiredInstance } from '../../config/model.js';
import type { DesiredAccessToken, DesiredGroup } from './model.js';
import { groupsOf } from './model.js';
import type { InstanceContext } from '../../engine/resource.js';
import type { SinkCheckCache } from './sinks.js';
import { TokenState } from './state.js';
import { liveState } from './identity.js';

/** The tokens' sections of the state file. */
export const tokenState = (ctx: Pick<InstanceContext, 'state'>): TokenState => new TokenState(ctx.state);

export function groupParam(ref: string): PathParam {
  return /^\d+$/.test(ref) ? Number(ref) : ref;
}

export function tokenAddress(instance: Pick<DesiredInstance, 'name'>, group: string, name: string): string {
  return `${instance.name}.group[${JSON.stringify(group)}].access_token[${JSON.stringify(name)}]`;
}

/** The key of a group's token list among the reads a front-end shares (`memo.reads`): the Terraform part forgets it after a write. */
export const tokenListKey = (group: string): string => `group-access-tokens:${group}`;

export function undeclaredAddress(instance: DesiredInstance, group: string, t: GroupAccessToken): string {
  return `${tokenAddress(instance, group, t.name)}#${t.id}`;
}

/** plumb's credential on the instance is a group access token (one declared token is `self: true`). */
export function runsAsGroupToken(instance: DesiredInstance): boolean {
  return groupsOf(instance).some((g) => g.accessTokens.some((t) => t.self));
}

export function managesTokens(g: DesiredGroup): boolean {
  return g.accessTokens.length > 0 || g.pruneAccessTokens;
}

/** The parts of a live token a change depends on (last_used_at moves on every use: left out). */
export function liveView(t: GroupAccessToken): unknown[] {
  return [t.id, t.name, liveState(t), t.expires_at, [...t.scopes].sort(), t.access_level, t.description ?? ''];
}

/**
 * Fingerprint of the live tokens a change depends on: those with its name, and the one it acts on.
 * Built by hand in a fixed key order (it runs once per declared token, a thousand times in a big plan).
 */
export function changeFingerprint(live: readonly GroupAccessToken[], name: string, id: number | undefined): string {
  const relevant = live.filter((t) => t.name === name || t.id === id).sort((a, b) => a.id - b.id);
  return 'sha256:' + createHash('sha256').update(JSON.stringify(relevant.map(liveView))).digest('hex');
}

export function env(ctx: InstanceContext): NodeJS.ProcessEnv {
  return ctx.env ?? process.env;
}

export function findDeclared(instance: DesiredInstance, group: string, name: string): DesiredAccessToken | undefined {
  return groupsOf(instance).find((g) => g.ref === group)?.accessTokens.find((t) => t.name === name);
}

/**
 * One list per group per apply. The lists a session made (by its plan, or by the check of a saved
 * plan) are shared by every change of the group applied within LIST_REUSE_MS of them; a list
 * older than that (a plan reviewed at a prompt) is made again. Each change touches only its own
 * tokens, so a list made moments before the first change of a group is as good for the last.
 *
 * A rotation is the exception, because rotating a token revoked meanwhile is a reuse attempt that
 * revokes its whole family: it needs a list made by the apply itself (`fromApply`), shared by the
 * group's other rotations. After a failure that may have happened on the instance, a change lists
 * afresh (and shares that list).
 */
export interface SharedList {
  readonly at: number;
  readonly fromApply: boolean;
  readonly list: Promise<GroupAccessToken[]>;
}
export const LIST_REUSE_MS = 30_000;

export function sharedList(ctx: InstanceContext, group: string, opts: { maxAgeMs?: number; fromApply?: boolean } = {}): Promise<GroupAccessToken[]> {
  const lists = ctx.memo.session.own('group_access_token:lists', () => new Map<string, SharedList>());
  const known = lists.get(group);
  if (known && performance.now() - known.at <= (opts.maxAgeMs ?? LIST_REUSE_MS) && (known.fromApply || !opts.fromApply)) return known.list;
  const list = listGroupAccessTokens(ctx.client, groupParam(group));
  const entry: SharedList = { at: performance.now(), fromApply: opts.fromApply ?? false, list };
  lists.set(group, entry);
  list.catch(() => {
    if (lists.get(group) === entry) lists.delete(group); // a failed list is never shared
  });
  return list;
}

/**
 * The list that confirms rotations: made after them, and shared by the rotations of a group that
 * finish before it is sent (a group rotated as one batch confirms with one list at the end). A
 * rotation finishing after it was sent waits for the next one.
 */
export interface PendingConfirm {
  readonly list: Promise<GroupAccessToken[]>;
  readonly send: () => void;
  timer: ReturnType<typeof setTimeout>;
  readonly firstAt: number;
}
/** A confirming list waits this long for the group's next rotation to finish (at most CONFIRM_MAX_WAIT_MS in all). */
export const CONFIRM_QUIET_MS = 40;
export const CONFIRM_MAX_WAIT_MS = 400;

export function confirmList(ctx: InstanceContext, group: string): Promise<GroupAccessToken[]> {
  const lists = ctx.memo.session.own('group_access_token:confirm', () => new Map<string, PendingConfirm>());
  const mine = lists;
  const pending = lists.get(group);
  if (pending) {
    clearTimeout(pending.timer);
    pending.timer = setTimeout(pending.send, Math.max(0, Math.min(CONFIRM_QUIET_MS, pending.firstAt + CONFIRM_MAX_WAIT_MS - performance.now())));
    return pending.list;
  }
  let send!: () => void;
  const list = new Promise<void>((r) => (send = r)).then(() => {
    mine.delete(group);
    return listGroupAccessTokens(ctx.client, groupParam(group));
  });
  lists.set(group, { list, send, timer: setTimeout(send, CONFIRM_QUIET_MS), firstAt: performance.now() });
  return list;
}

/** Sink directories checked in this session (plan, then apply): one look per directory. */
export const SINK_CHECKS = 'group_access_token:sink-checks';

export function sinkCheckCache(ctx: InstanceContext): SinkCheckCache {
  return ctx.memo.session.own<SinkCheckCache>(SINK_CHECKS, () => new Map());
}

/** A plan checks every sink afresh; the apply that follows reuses what it found (`sinkCheckCache`). */
export function freshSinkChecks(ctx: InstanceContext): SinkCheckCache {
  return ctx.memo.session.replace<SinkCheckCache>(SINK_CHECKS, new Map());
}
