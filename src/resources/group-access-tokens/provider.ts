/**
 * Group access tokens as a resource (docs/tokens.md).
 *
 * Identity: a declared token is the group's ACTIVE token with that name (`id:` pins one when
 * several share it). A plan lists each declared group's tokens once (every page, no state filter)
 * and classifies them locally; groups are planned concurrently, the client bounds the requests in
 * flight.
 *
 * Invariants, because the instance shows a secret exactly once and punishes a repeated rotation by
 * revoking the whole token family:
 * - No token is issued (create, rotate, replace) without a sink checked first; the secret is
 *   registered for redaction the moment it arrives and delivered before the next change starts.
 * - A create or rotate is never repeated. After a failure that may have happened on the instance,
 *   the group is listed again to learn what happened; a token issued without its secret reaching
 *   plumb is noted in the state file and rotated by the next plan.
 * - A rotation is sent only when a list made just before shows the token active: a revoked token
 *   is never rotated.
 * - A replacement creates and delivers the new token before revoking the old one.
 */
import { createHash } from 'node:crypto';
import {
  createGroupAccessToken,
  listGroupAccessTokens,
  revokeGroupAccessToken,
  rotateGroupAccessToken,
} from '../../api/group-access-tokens.js';
import type { AccessLevel, GroupAccessToken, NewGroupAccessToken } from '../../api/group-access-tokens.js';
import { ApiAmbiguousError, ApiError, describeReason } from '../../api/errors.js';
import { getGroupRef } from '../../api/namespaces.js';
import type { PathParam } from '../../api/path.js';
import type { DesiredInstance } from '../../config/model.js';
import type { DesiredAccessToken, DesiredGroup } from './model.js';
import { groupsOf } from './model.js';
import { MASK } from '../../config/secrets.js';
import { joinPointer } from '../../config/pointer.js';
import type { AttributeChange, ExpiryEntry, PlanDiagnostic, Reason, ResourceChange } from '../../engine/plan.js';
import type { ApplyResponse, InstanceContext, PayloadMeaning, PlanResponse, ResourceProvider } from '../../engine/resource.js';
import { planDiagnostic } from '../../engine/resource.js';
import { PayloadError } from '../../engine/payload.js';
import type { DiagnosticCode } from '../../diagnostics/codes.js';
import { checkSink, deliverSecret, describeSink, DEFAULT_SINK_TIMEOUT_MS, SinkError } from './sinks.js';
import type { SinkCheckCache } from './sinks.js';
import { TokenState } from './state.js';
import { revocationRisks } from './risks.js';
import { credentialOf } from '../../engine/risks.js';
import type { TokenNote, TokenSlot } from './state.js';
import { parseTokenPayload } from './payload.js';
import type { NewTokenProps, TokenPayload } from './payload.js';
import { addDays, attributeDiffs, daysBetween, identify, isActive, liveState, newExpiry, rotationReason } from './identity.js';
import type { Identity } from './identity.js';

/** The tokens' sections of the state file. */
const tokenState = (ctx: Pick<InstanceContext, 'state'>): TokenState => new TokenState(ctx.state);

const KNOWN_AFTER = '(known after apply)';

function groupParam(ref: string): PathParam {
  return /^\d+$/.test(ref) ? Number(ref) : ref;
}

export function tokenAddress(instance: Pick<DesiredInstance, 'name'>, group: string, name: string): string {
  return `${instance.name}.group[${JSON.stringify(group)}].access_token[${JSON.stringify(name)}]`;
}

/** The key of a group's token list among the reads a front-end shares (`ReadCache`): the Terraform part forgets it after a write. */
export const tokenListKey = (group: string): string => `group-access-tokens:${group}`;

function undeclaredAddress(instance: DesiredInstance, group: string, t: GroupAccessToken): string {
  return `${tokenAddress(instance, group, t.name)}#${t.id}`;
}

/** plumb's credential on the instance is a group access token (one declared token is `self: true`). */
function runsAsGroupToken(instance: DesiredInstance): boolean {
  return groupsOf(instance).some((g) => g.accessTokens.some((t) => t.self));
}

function managesTokens(g: DesiredGroup): boolean {
  return g.accessTokens.length > 0 || g.pruneAccessTokens;
}

/** The parts of a live token a change depends on (last_used_at moves on every use: left out). */
function liveView(t: GroupAccessToken): unknown[] {
  return [t.id, t.name, liveState(t), t.expires_at, [...t.scopes].sort(), t.access_level, t.description ?? ''];
}

/**
 * Fingerprint of the live tokens a change depends on: those with its name, and the one it acts on.
 * Built by hand in a fixed key order (it runs once per declared token, a thousand times in a big plan).
 */
function changeFingerprint(live: readonly GroupAccessToken[], name: string, id: number | undefined): string {
  const relevant = live.filter((t) => t.name === name || t.id === id).sort((a, b) => a.id - b.id);
  return 'sha256:' + createHash('sha256').update(JSON.stringify(relevant.map(liveView))).digest('hex');
}

function env(ctx: InstanceContext): NodeJS.ProcessEnv {
  return ctx.env ?? process.env;
}

function findDeclared(instance: DesiredInstance, group: string, name: string): DesiredAccessToken | undefined {
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
interface SharedList {
  readonly at: number;
  readonly fromApply: boolean;
  readonly list: Promise<GroupAccessToken[]>;
}
const sessionLists = new WeakMap<InstanceContext['client'], Map<string, SharedList>>();
const LIST_REUSE_MS = 30_000;

function sharedList(ctx: InstanceContext, group: string, opts: { maxAgeMs?: number; fromApply?: boolean } = {}): Promise<GroupAccessToken[]> {
  let lists = sessionLists.get(ctx.client);
  if (!lists) sessionLists.set(ctx.client, (lists = new Map()));
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
interface PendingConfirm {
  readonly list: Promise<GroupAccessToken[]>;
  readonly send: () => void;
  timer: ReturnType<typeof setTimeout>;
  readonly firstAt: number;
}
const confirmLists = new WeakMap<InstanceContext, Map<string, PendingConfirm>>();
/** A confirming list waits this long for the group's next rotation to finish (at most CONFIRM_MAX_WAIT_MS in all). */
const CONFIRM_QUIET_MS = 40;
const CONFIRM_MAX_WAIT_MS = 400;

function confirmList(ctx: InstanceContext, group: string): Promise<GroupAccessToken[]> {
  let lists = confirmLists.get(ctx);
  if (!lists) confirmLists.set(ctx, (lists = new Map()));
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
const sinkChecks = new WeakMap<InstanceContext['client'], SinkCheckCache>();

function sinkCheckCache(ctx: InstanceContext): SinkCheckCache {
  let cache = sinkChecks.get(ctx.client);
  if (!cache) sinkChecks.set(ctx.client, (cache = new Map()));
  return cache;
}

export const groupAccessTokensProvider: ResourceProvider<TokenPayload> = {
  kind: 'group_access_token',

  declares(instance) {
    return groupsOf(instance).some(managesTokens);
  },

  async plan(ctx): Promise<PlanResponse> {
    // A group no target can select is not read (one list request per group saved).
    const groups = groupsOf(ctx.instance).filter((g) => managesTokens(g) && ctx.targets.within(`${ctx.instance.name}.group[${JSON.stringify(g.ref)}]`));
    // Sinks first, before any request: a secret the instance issues must have somewhere to go. A
    // group with a sink that cannot receive one is not planned at all; the others are (a selector's
    // new subgroup whose sink directory is missing blocks that group only, docs/plans.md#blocked-matches).
    const sinkErrors: PlanDiagnostic[] = [];
    const unusable = new Set<DesiredGroup>();
    // A plan checks afresh; apply reuses what the plan found moments before.
    const checked: SinkCheckCache = new Map();
    sinkChecks.set(ctx.client, checked);
    // A report's plan is never applied: nothing is issued, so no sink needs to exist where it runs.
    for (const g of ctx.readOnly ? [] : groups) {
      for (const t of g.accessTokens) {
        // A token no target selects is neither issued nor checked.
        if (!ctx.targets.targeted(tokenAddress(ctx.instance, g.ref, t.name))) continue;
        const problem = checkSink(t.sink, env(ctx), checked);
        if (!problem) continue;
        unusable.add(g);
        sinkErrors.push(
          planDiagnostic(ctx, {
            severity: 'error',
            code: 'PLUMB_TOKEN_SINK_UNUSABLE',
            summary: `Token "${t.name}" cannot receive its secret: ${problem.summary}`,
            detail: `${problem.detail ? problem.detail + ' ' : ''}The instance shows a new token's secret once; plumb checks every sink before it asks for anything, so nothing was requested.`,
            suggestion: problem.suggestion,
            address: tokenAddress(ctx.instance, g.ref, t.name),
            pointer: t.sink ? joinPointer(t.pointer, 'sink', problem.key) : t.pointer,
          }),
        );
      }
    }
    const { distinct, diagnostics: duplicates } = await distinctGroups(ctx, groups);
    const perGroup = await Promise.all(distinct.filter((g) => !unusable.has(g)).map((g) => planGroup(ctx, g)));
    const changes = perGroup.flatMap((r) => r.changes);
    // plumb's own credential is rotated last: everything before it runs with a credential known to work.
    const self = changes.filter((c) => c.payload.self === true);
    const others = changes.filter((c) => !self.includes(c));
    const after = others.filter((c) => c.action !== 'no-op').map((c) => c.address);
    const risks = await revocationRisks(ctx, changes.filter((c) => ctx.targets.targeted(c.address)), (c) => (typeof c.payload.tokenId === 'number' ? c.payload.tokenId : undefined));
    return {
      risks,
      changes: [...others, ...self.map((c) => (c.action === 'no-op' || after.length === 0 ? c : { ...c, order: { after } }))],
      drift: perGroup.flatMap((r) => r.drift),
      diagnostics: [...sinkErrors, ...duplicates, ...perGroup.flatMap((r) => r.diagnostics)],
      ...(ctx.expiring && { expiring: perGroup.flatMap((r) => r.expiring ?? []) }),
    };
  },

  parsePayload: parseTokenPayload,
  describePayload: describeTokenPayload,

  /** With a `sink: {stdout: true}` token, standard output carries only the issued secrets (one JSON line each). */
  writesStdout(instance) {
    return groupsOf(instance).some((g) => g.accessTokens.some((t) => t.sink?.kind === 'stdout'));
  },

  async liveFingerprint(ctx, _change, p) {
    return changeFingerprint(await sharedList(ctx, p.group), p.name, p.tokenId);
  },

  async apply(ctx, change, payload): Promise<ApplyResponse> {
    return new TokenApply(ctx, change, payload).run();
  },
};

// ---------------------------------------------------------------------------------------------
// Plan

/**
 * Groups declared under two names (a path and a numeric id, or paths that differ only in case: the
 * service matches paths case-insensitively) are one group; planning both would have each prune or
 * replace the tokens the other declares. Paths are compared offline; ids are resolved with
 * `GET /groups/:id` only when the instance mixes ids and paths, so the common all-paths plan makes
 * no extra request. Both declarations are left out of the plan and reported.
 */
async function distinctGroups(ctx: InstanceContext, groups: readonly DesiredGroup[]): Promise<{ distinct: DesiredGroup[]; diagnostics: PlanDiagnostic[] }> {
  const numeric = groups.filter((g) => /^\d+$/.test(g.ref));
  const keys = new Map<DesiredGroup, string>(groups.map((g) => [g, /^\d+$/.test(g.ref) ? `#${g.ref}` : g.ref.toLowerCase()]));
  if (numeric.length > 0 && numeric.length < groups.length) {
    await Promise.all(
      groups.map(async (g) => {
        try {
          keys.set(g, `#${(await getGroupRef(ctx.client, groupParam(g.ref))).id}`);
        } catch {
          // Unresolvable: its own list fails and says why.
        }
      }),
    );
  }
  const first = new Map<string, DesiredGroup>();
  const dropped = new Set<DesiredGroup>();
  const diagnostics: PlanDiagnostic[] = [];
  for (const g of groups) {
    const key = keys.get(g)!;
    const earlier = first.get(key);
    if (!earlier) {
      first.set(key, g);
      continue;
    }
    dropped.add(g).add(earlier);
    const where = ctx.locate(earlier.pointer);
    diagnostics.push(
      planDiagnostic(ctx, {
        severity: 'error',
        code: 'PLUMB_DUPLICATE_RESOURCE',
        summary: `Group "${g.ref}" is the same group as "${earlier.ref}"${where ? ` (declared at ${where.file}:${where.line}:${where.column})` : ''}${key.startsWith('#') ? ` (id ${key.slice(1)})` : ''}`,
        detail: 'Two declarations of one group would each revoke or replace the tokens the other declares; neither is planned.',
        suggestion: `declare the group once, by one name (e.g. "${/^\d+$/.test(earlier.ref) ? g.ref : earlier.ref}"), and merge the two token maps`,
        address: `${ctx.instance.name}.group[${JSON.stringify(g.ref)}]`,
        pointer: g.pointer,
      }),
    );
  }
  return { distinct: groups.filter((g) => !dropped.has(g)), diagnostics };
}

async function planGroup(ctx: InstanceContext, g: DesiredGroup): Promise<PlanResponse> {
  const { instance } = ctx;
  const out: PlanResponse = { changes: [], drift: [], diagnostics: [] };
  let live: GroupAccessToken[];
  try {
    live = ctx.readCache ? await ctx.readCache.get(tokenListKey(g.ref), () => sharedList(ctx, g.ref, { maxAgeMs: 0 })) : await sharedList(ctx, g.ref, { maxAgeMs: 0 });
  } catch (err) {
    out.diagnostics.push(
      planDiagnostic(ctx, {
        severity: 'error',
        code: err instanceof ApiError ? err.code : 'PLUMB_INTERNAL',
        summary: ctx.secrets.redact(`Cannot list the access tokens of group "${g.ref}": ${err instanceof Error ? err.message : String(err)}`),
        suggestion: await listFailureHelp(ctx, err, g.ref),
        address: `${instance.name}.group[${JSON.stringify(g.ref)}]`,
        pointer: g.pointer,
      }),
    );
    return out;
  }

  const { notes, revokePending } = trustedNotes(ctx, g, live, out);
  const claimed = new Set<number>();
  const ordered = [...g.accessTokens.filter((t) => !t.self), ...g.accessTokens.filter((t) => t.self)];
  for (const t of ordered) planDeclared(ctx, g, t, live, notes, revokePending, claimed, out);

  for (const t of live) {
    if (!isActive(t) || claimed.has(t.id)) continue;
    const address = undeclaredAddress(instance, g.ref, t);
    const shown: AttributeChange[] = [
      { name: 'name', before: t.name },
      { name: 'id', before: t.id },
      { name: 'scopes', before: [...t.scopes].sort() },
      { name: 'expires_at', before: t.expires_at },
    ];
    const superseded = revokePending.has(t.id);
    if (superseded || g.pruneAccessTokens) {
      const reason: Reason = superseded ? 'superseded' : 'not-in-config';
      out.changes.push({
        address,
        instance: instance.name,
        kind: 'group_access_token',
        action: 'delete',
        reasons: [reason],
        attributes: shown,
        pointer: g.pointer,
        payload: { group: g.ref, name: t.name, op: 'delete', tokenId: t.id } satisfies TokenPayload,
        liveFingerprint: changeFingerprint(live, t.name, t.id),
      });
    }
    out.drift.push({
      address,
      instance: instance.name,
      kind: 'group_access_token',
      summary: superseded
        ? `token "${t.name}" (id ${t.id}) was replaced but is still active; apply revokes it`
        : g.pruneAccessTokens
          ? `active token "${t.name}" (id ${t.id}) is not declared; pruning is on, so apply revokes it`
          : `active token "${t.name}" (id ${t.id}) is not declared; left alone (prune_access_tokens is off)`,
      attributes: [],
      ...(!superseded && !g.pruneAccessTokens && { informational: true }),
    });
  }
  return ctx.expiring ? { ...out, expiring: tokenExpiry(ctx, g, live, out.changes) } : out;
}

/**
 * The expiry horizon of one group (`--expiring-within`), from the list the plan read anyway: every
 * active token, declared or not, that expires by the window's end. A declared token plumb renews
 * before it expires is `rotating`, not a warning: this plan renews it (a change of reason
 * `expiring-soon`), or its rotation policy does on the day `rotate_before_days` before its expiry.
 */
function tokenExpiry(ctx: InstanceContext, g: DesiredGroup, live: readonly GroupAccessToken[], changes: readonly ResourceChange[]): ExpiryEntry[] {
  const window = ctx.expiring!;
  const until = window.until.toISOString().slice(0, 10);
  const byId = new Map<number, ResourceChange>();
  for (const c of changes) if (typeof c.payload.tokenId === 'number' && c.action !== 'delete') byId.set(c.payload.tokenId, c);
  const out: ExpiryEntry[] = [];
  for (const t of live) {
    if (!isActive(t) || t.expires_at === null || t.expires_at > until) continue;
    const change = byId.get(t.id);
    const declared = change ? g.accessTokens.find((d) => d.name === change.payload.name) : undefined;
    const daysLeft = daysBetween(ctx.today, t.expires_at);
    let rotatesOn: string | undefined;
    if (change && change.reasons.includes('expiring-soon')) rotatesOn = ctx.today;
    else if (declared?.rotation) {
      const on = addDays(t.expires_at, -declared.rotation.rotateBeforeDays);
      rotatesOn = on < ctx.today ? ctx.today : on;
    }
    const rotating = rotatesOn !== undefined && rotatesOn < t.expires_at;
    out.push({
      what: 'access_token',
      address: change ? change.address : undeclaredAddress(ctx.instance, g.ref, t),
      instance: ctx.instance.name,
      container: 'groups',
      path: g.ref,
      name: t.name,
      expiresAt: t.expires_at,
      daysLeft,
      state: rotating ? 'rotating' : daysLeft <= 0 ? 'expired' : 'expiring',
      declared: declared !== undefined,
      ...(rotating && { rotatesOn }),
    });
  }
  return out;
}

/**
 * The state file's notes plumb acts on for this group. The file is untrusted input (cached between
 * CI runs, or committed): a note or slot of the wrong shape is ignored, and a `revoke-pending`
 * note (which makes a plan revoke a live token whatever pruning says) is honoured only for a token
 * plumb itself manages: the note names this group and a token the configuration declares in it,
 * the live token of that id carries that name, and it is not the token whose secret the
 * declaration's sink holds (`held` in its slot). Anything else is ignored with a warning naming the
 * state file and the entry (docs/tokens.md#the-state-file).
 */
function trustedNotes(ctx: InstanceContext, g: DesiredGroup, live: readonly GroupAccessToken[], out: PlanResponse): { notes: Map<number, TokenNote>; revokePending: Set<number> } {
  const { instance } = ctx;
  const rejected: string[] = [];
  const state = tokenState(ctx);
  const all = state.tokenNotes(instance.url, rejected);
  const notes = new Map<number, TokenNote>();
  const revokePending = new Set<number>();
  const declared = new Set(g.accessTokens.map((t) => t.name));
  for (const n of all) {
    const token = live.find((x) => x.id === n.id);
    if (n.group !== g.ref) {
      // Another group's note: that group's plan judges it. A note for no declared group is reported once, by the first group.
      if (!groupsOf(instance).some((x) => x.ref === n.group) && g === groupsOf(instance).find(managesTokens)) {
        rejected.push(`tokens["${n.id}"] names group ${JSON.stringify(n.group)}, which the configuration does not declare`);
      }
      continue;
    }
    if (n.kind === 'revoke-pending') {
      const held = declared.has(n.name) ? state.tokenSlot(instance.url, g.ref, n.name)?.held : undefined;
      if (!declared.has(n.name)) {
        rejected.push(`tokens["${n.id}"] asks to revoke token "${n.name}", which the configuration does not declare in group "${g.ref}"`);
        continue;
      }
      if (token && token.name !== n.name) {
        rejected.push(`tokens["${n.id}"] asks to revoke token id ${n.id} as "${n.name}", but that token is named "${token.name}"`);
        continue;
      }
      if (held === n.id) {
        rejected.push(`tokens["${n.id}"] asks to revoke the token whose secret the sink of "${n.name}" holds`);
        continue;
      }
      revokePending.add(n.id);
    }
    notes.set(n.id, n);
  }
  for (const r of rejected) {
    out.diagnostics.push(
      planDiagnostic(ctx, {
        severity: 'warning',
        code: 'PLUMB_STATE_ENTRY_IGNORED',
        summary: ctx.secrets.redact(`The state file ${ctx.state.file} holds an entry plumb ignores: ${r}`),
        detail: `plumb acts on a note in the state file only for a token it manages (section of instance ${instance.url}); the file may have been edited.`,
        suggestion: 'remove the entry from the state file, or leave it: it is never acted on',
        address: `${instance.name}.group[${JSON.stringify(g.ref)}]`,
        pointer: g.pointer,
      }),
    );
  }
  return { notes, revokePending };
}

/**
 * Why listing a group's tokens failed, in terms of what to change. A 403 that names a scope is about
 * the credential's scopes, not the caller's role: a token holding only `self_rotate` may rotate
 * itself but not list the group, and plumb lists before it plans anything.
 */
async function listFailureHelp(ctx: InstanceContext, err: unknown, group: string): Promise<string> {
  const tokenEnv = ctx.instance.tokenEnv;
  if (!(err instanceof ApiError)) return 'check that the instance is reachable and plan again';
  if (err.status === 401) {
    // A 401 is also the answer to a credential that works but may not see the group's tokens
    // (a group access token, whatever its role): `GET /user` tells the two apart.
    const cred = await credentialOf(ctx);
    if (cred.user) {
      return cred.kind === 'resource'
        ? `the credential in ${tokenEnv} is a group or project access token (user ${cred.user.username}), which may not list or manage the access tokens of group "${group}" whatever its role; plumb needs an administrator's or a group Owner's personal access token (a group access token may only rotate itself, with \`self: true\`)`
        : `the credential in ${tokenEnv} (user ${cred.user.username}) works but may not manage the access tokens of this group: it needs to belong to an administrator or an Owner of the group`;
    }
  }
  if (err.status === 403 && /scope/i.test(err.serverMessage ?? '')) {
    return `the credential in ${tokenEnv} lacks a scope to read the group's tokens: it needs read_api or api (self_rotate alone lets a token rotate itself, but plumb must list the group first to plan)`;
  }
  if (err.status === 401) return `the credential in ${tokenEnv} was refused: check that it is valid, not expired and not revoked`;
  if (err.status === 403) return `the credential in ${tokenEnv} needs to belong to an administrator or an Owner of the group`;
  if (err.status === 404) return `check the group path, and that the credential in ${tokenEnv} can see the group`;
  return 'check that the instance is reachable and plan again';
}

/**
 * What one declared token's plan is made of, shared by its steps: where it is, what the state file
 * remembers of it, and how its attributes are shown.
 */
interface DeclaredToken {
  readonly ctx: InstanceContext;
  readonly g: DesiredGroup;
  readonly t: DesiredAccessToken;
  readonly live: readonly GroupAccessToken[];
  readonly out: PlanResponse;
  readonly address: string;
  readonly base: Pick<ResourceChange, 'address' | 'instance' | 'kind' | 'pointer'>;
  /** `Token "<name>" of group "<ref>"`, for diagnostics. */
  readonly who: string;
  readonly slot: TokenSlot | undefined;
  /**
   * The token whose secret the sink holds: the last one delivered, or, after a rotation or
   * replacement whose outcome is unknown, the one it acted on.
   */
  readonly heldId: number | undefined;
  /** The expiry a new or rotated token gets. */
  readonly expiry: string;
}

function planDeclared(
  ctx: InstanceContext,
  g: DesiredGroup,
  t: DesiredAccessToken,
  live: readonly GroupAccessToken[],
  notes: ReadonlyMap<number, TokenNote>,
  revokePending: ReadonlySet<number>,
  claimed: Set<number>,
  out: PlanResponse,
): void {
  const { instance } = ctx;
  const address = tokenAddress(instance, g.ref, t.name);
  const slot = tokenState(ctx).tokenSlot(instance.url, g.ref, t.name);
  const s: DeclaredToken = {
    ctx,
    g,
    t,
    live,
    out,
    address,
    base: { address, instance: instance.name, kind: 'group_access_token', pointer: t.pointer },
    who: `Token "${t.name}" of group "${g.ref}"`,
    slot,
    heldId: slot?.held ?? slot?.unknown?.tokenId,
    expiry: newExpiry(t, ctx.today),
  };
  const orphans = orphansOf(s, revokePending);
  planOrphans(s, orphans, claimed);
  const id = identify(t, live, orphans.length > 0 ? new Set([...revokePending, ...orphans.map((o) => o.id)]) : revokePending);
  if (!identityUsable(s, id, claimed)) return;
  if (id.kind === 'absent') {
    planAbsent(s, id);
    return;
  }
  planFound(s, id.live, notes, claimed);
}

/**
 * A replacement created without its answer leaves a second active token nobody holds: that one
 * is revoked, and the held one stays the declaration.
 */
function orphansOf(s: DeclaredToken, revokePending: ReadonlySet<number>): GroupAccessToken[] {
  if (s.slot?.unknown?.op !== 'replace' || !s.live.some((x) => x.id === s.heldId && isActive(x))) return [];
  return s.live.filter((x) => x.name === s.t.name && isActive(x) && x.id !== s.heldId && !revokePending.has(x.id));
}

function planOrphans(s: DeclaredToken, orphans: readonly GroupAccessToken[], claimed: Set<number>): void {
  const { ctx, g, t, live, out } = s;
  for (const o of orphans) {
    claimed.add(o.id);
    out.changes.push({
      ...s.base,
      address: undeclaredAddress(ctx.instance, g.ref, o),
      action: 'delete',
      reasons: ['secret-not-received'],
      attributes: [
        { name: 'name', before: o.name },
        { name: 'id', before: o.id },
      ],
      payload: { group: g.ref, name: o.name, op: 'delete', tokenId: o.id } satisfies TokenPayload,
      liveFingerprint: changeFingerprint(live, o.name, o.id),
    });
    out.drift.push({
      address: undeclaredAddress(ctx.instance, g.ref, o),
      instance: ctx.instance.name,
      kind: 'group_access_token',
      summary: `token "${t.name}" (id ${o.id}) was issued by a replacement whose answer was lost; nobody holds its secret, so apply revokes it`,
      attributes: [],
    });
  }
}

/** The declaration's drift entry: a difference the plan explains. */
function declaredDrift(s: DeclaredToken, summary: string, attributes: AttributeChange[] = []): void {
  s.out.drift.push({ address: s.address, instance: s.ctx.instance.name, kind: 'group_access_token', summary, attributes });
}

const sinkShown = (t: DesiredAccessToken): AttributeChange => ({ name: 'sink', after: describeSink(t.sink!) });
const sinkKept = (t: DesiredAccessToken): AttributeChange => ({ ...sinkShown(t), before: describeSink(t.sink!) });
const tokenShown = (before: boolean): AttributeChange => ({ name: 'token', ...(before && { before: MASK }), after: MASK, sensitive: true });

/** What creating (or replacing) the token sends. */
function createProps(s: DeclaredToken): NewTokenProps {
  const { t } = s;
  return {
    name: t.name,
    ...(t.description !== undefined && { description: t.description }),
    scopes: [...t.scopes],
    access_level: t.accessLevel,
    expires_at: s.expiry,
  };
}

/**
 * Whether the token is identified well enough to plan: an `id:` naming another token, or several
 * active tokens of its name, are errors (the tokens they name are claimed, so nothing prunes them);
 * a stale `id:` is a warning.
 */
function identityUsable(s: DeclaredToken, id: Identity, claimed: Set<number>): id is Extract<Identity, { kind: 'found' | 'absent' }> {
  const { ctx, t, who, address } = s;
  if (id.kind === 'id-mismatch') {
    claimed.add(id.live.id);
    s.out.diagnostics.push(
      planDiagnostic(ctx, {
        severity: 'error',
        code: 'PLUMB_TOKEN_ID_MISMATCH',
        summary: `${who} pins id ${t.id}, but that token is named "${id.live.name}"`,
        suggestion: `pin the id of an active token named "${t.name}", or remove \`id:\``,
        address,
        pointer: joinPointer(t.pointer, 'id'),
      }),
    );
    return false;
  }
  if (id.kind === 'ambiguous') {
    for (const c of id.candidates) claimed.add(c.id);
    s.out.diagnostics.push(
      planDiagnostic(ctx, {
        severity: 'error',
        code: 'PLUMB_TOKEN_NAME_AMBIGUOUS',
        summary: `${who} matches ${id.candidates.length} active tokens (ids ${id.candidates.map((c) => c.id).join(', ')})`,
        detail: 'A declared token is the group\'s active token with that name; plumb will not guess which one you mean.',
        suggestion: `pin one with \`id: ${id.candidates[0]!.id}\` under the token (and set prune_access_tokens: true to revoke the others), or revoke the extra ones`,
        address,
        pointer: t.pointer,
      }),
    );
    return false;
  }
  if (id.staleId !== undefined) {
    s.out.diagnostics.push(
      planDiagnostic(ctx, {
        severity: 'warning',
        code: 'PLUMB_TOKEN_ID_STALE',
        summary: `${who} pins id ${id.staleId}, which is not an active token any more; identified by its name instead`,
        suggestion: id.kind === 'found' ? `update it to \`id: ${id.live.id}\` or remove it` : 'remove `id:` (the token will be created)',
        address,
        pointer: joinPointer(t.pointer, 'id'),
      }),
    );
  }
  return true;
}

/** No active token has the name: apply creates it, saying why the earlier one (if any) is gone. */
function planAbsent(s: DeclaredToken, id: Extract<Identity, { kind: 'absent' }>): void {
  const { ctx, g, t, slot } = s;
  const reason: Reason = !id.previous
    ? 'missing-in-live'
    : slot?.revokedByPlumb?.includes(id.previous.id)
      ? 'revoked-by-plumb'
      : liveState(id.previous) === 'revoked'
        ? 'revoked-out-of-band'
        : 'expired-out-of-band';
  if (t.self) {
    s.out.diagnostics.push(
      planDiagnostic(ctx, {
        severity: 'warning',
        code: 'PLUMB_TOKEN_SELF_ABSENT',
        summary: `${s.who} is marked as plumb's own credential, but the group has no active token with that name`,
        detail: 'plumb will create it and deliver its secret to the sink; plumb keeps authenticating with the credential in token_env until you point token_env at the new secret.',
        suggestion: `after apply, set ${ctx.instance.tokenEnv} to the delivered secret`,
        address: s.address,
        pointer: joinPointer(t.pointer, 'self'),
      }),
    );
  }
  s.out.changes.push({
    ...s.base,
    action: 'create',
    reasons: [reason],
    attributes: [
      ...(t.description !== undefined ? [{ name: 'description', after: t.description }] : []),
      { name: 'scopes', after: [...t.scopes].sort() },
      { name: 'access_level', after: t.accessLevel },
      { name: 'expires_at', after: s.expiry },
      tokenShown(false),
      sinkShown(t),
    ],
    payload: { group: g.ref, name: t.name, op: 'create', create: createProps(s) } satisfies TokenPayload,
    liveFingerprint: changeFingerprint(s.live, t.name, undefined),
  });
  if (id.previous) {
    declaredDrift(
      s,
      reason === 'revoked-by-plumb'
        ? `token "${t.name}" (id ${id.previous.id}) was revoked by plumb after its secret could not be delivered; apply creates a new one`
        : reason === 'revoked-out-of-band'
          ? `token "${t.name}" (id ${id.previous.id}) was revoked outside plumb; apply creates a new one`
          : `token "${t.name}" (id ${id.previous.id}) expired on ${id.previous.expires_at}; apply creates a new one`,
    );
  } else if (slot?.unknown) {
    declaredDrift(s, `an earlier ${slot.unknown.op} of token "${t.name}" ended without an answer and issued nothing; apply creates it`);
  } else {
    declaredDrift(s, `token "${t.name}" does not exist; apply creates it`);
  }
}

/** The active token `L` is the declaration: replaced when it differs, renewed when due, else unchanged. */
function planFound(s: DeclaredToken, L: GroupAccessToken, notes: ReadonlyMap<number, TokenNote>, claimed: Set<number>): void {
  const { t, slot } = s;
  claimed.add(L.id);
  const lost = notes.get(L.id)?.kind === 'secret-not-received';
  // The sink holds another token's secret: the active one was issued without plumb receiving it
  // (an answer lost while the re-check failed too) or was rotated outside plumb.
  const mismatch = !lost && slot !== undefined && ((slot.held !== undefined && slot.held !== L.id) || (slot.unknown !== undefined && s.heldId !== L.id));
  const diffs = attributeDiffs(t, L);
  const fp = changeFingerprint(s.live, t.name, L.id);
  if (t.self && diffs.length === 0 && !L.scopes.includes('api') && !L.scopes.includes('self_rotate')) {
    s.out.diagnostics.push(
      planDiagnostic(s.ctx, {
        severity: 'error',
        code: 'PLUMB_TOKEN_SELF_SCOPE',
        summary: `${s.who} is plumb's own credential but its live scopes (${L.scopes.join(', ')}) cannot rotate it`,
        suggestion: 'a token rotates itself only with scope api or self_rotate',
        address: s.address,
        pointer: joinPointer(t.pointer, 'scopes'),
      }),
    );
    return;
  }
  if (diffs.length > 0) {
    planReplace(s, L, diffs, lost ? 'secret-not-received' : mismatch ? 'sink-holds-other-token' : undefined, fp);
    return;
  }
  const reason: Reason | undefined = lost ? 'secret-not-received' : mismatch ? 'sink-holds-other-token' : rotationReason(t, L, s.ctx.today);
  if (!reason) {
    s.out.changes.push({ ...s.base, action: 'no-op', reasons: [], attributes: [], payload: { group: s.g.ref, name: t.name, op: 'none', tokenId: L.id } satisfies TokenPayload, liveFingerprint: fp });
    return;
  }
  planRenewal(s, L, reason, fp);
}

/** An attribute that cannot change in place differs: apply replaces the token (`also`: a second reason). */
function planReplace(s: DeclaredToken, L: GroupAccessToken, diffs: ReturnType<typeof attributeDiffs>, also: Reason | undefined, fp: string): void {
  const { g, t } = s;
  s.out.changes.push({
    ...s.base,
    action: 'replace',
    reasons: also ? ['immutable-field-changed', also] : ['immutable-field-changed'],
    attributes: [
      ...replacedAttributes(t, L),
      { name: 'id', before: L.id, after: KNOWN_AFTER },
      { name: 'expires_at', before: L.expires_at, after: s.expiry },
      tokenShown(true),
      sinkKept(t),
    ],
    payload: { group: g.ref, name: t.name, op: 'replace', tokenId: L.id, create: createProps(s), ...(t.self && { self: true }) } satisfies TokenPayload,
    liveFingerprint: fp,
  });
  declaredDrift(s, `token "${t.name}" (id ${L.id}) differs from the configuration; apply replaces it`, diffs.map((d) => ({ name: d.name, before: d.before, after: d.after })));
}

/**
 * The token is due (`reason`): rotated, or, when plumb runs as a group access token (the instance
 * lets one rotate only itself, 401 otherwise), renewed by replacement (create, deliver, then
 * revoke the old one).
 */
function planRenewal(s: DeclaredToken, L: GroupAccessToken, reason: Reason, fp: string): void {
  const { ctx, g, t, expiry } = s;
  const byReplacement = !t.self && runsAsGroupToken(ctx.instance);
  s.out.changes.push({
    ...s.base,
    action: byReplacement ? 'replace' : 'rotate',
    reasons: [reason],
    attributes: [
      ...(byReplacement ? replacedAttributes(t, L) : []),
      { name: 'id', before: L.id, after: KNOWN_AFTER },
      { name: 'expires_at', before: L.expires_at, after: expiry },
      tokenShown(true),
      sinkKept(t),
      ...(t.self ? [{ name: 'rotated_by', after: "self (plumb's own credential)" }] : []),
      ...(byReplacement ? [{ name: 'rotated_by', after: 'replacement (plumb runs as a group access token, which may rotate only itself)' }] : []),
    ],
    payload: byReplacement
      ? ({ group: g.ref, name: t.name, op: 'replace', tokenId: L.id, create: createProps(s) } satisfies TokenPayload)
      : ({ group: g.ref, name: t.name, op: 'rotate', tokenId: L.id, expiresAt: expiry, ...(t.self && { self: true }) } satisfies TokenPayload),
    liveFingerprint: fp,
  });
  // Only a changed expiry is a difference from the configuration; the other reasons are explained by the summary.
  declaredDrift(s, renewalSummary(s, L, reason), reason === 'expiry-changed' && L.expires_at !== expiry ? [{ name: 'expires_at', before: L.expires_at, after: expiry }] : []);
}

/** Why the token is renewed, for the drift report. */
function renewalSummary(s: DeclaredToken, L: GroupAccessToken, reason: Reason): string {
  const { t, slot, heldId } = s;
  if (reason === 'secret-not-received') return `the secret of token "${t.name}" (id ${L.id}) never reached its sink; apply rotates it`;
  if (reason === 'sink-holds-other-token') {
    const why = slot?.unknown ? `an earlier ${slot.unknown.op} ended without an answer on ${slot.unknown.at.slice(0, 10)}` : 'it was rotated or replaced outside plumb';
    return `the sink of token "${t.name}" holds the secret of ${heldId !== undefined ? `id ${heldId}` : 'no token'}, but the active token is id ${L.id} (${why}); apply rotates id ${L.id} (safe: it is active) and delivers the new secret`;
  }
  if (reason === 'expiring-soon') {
    return `token "${t.name}" (id ${L.id}) expires on ${L.expires_at} (in ${daysBetween(s.ctx.today, L.expires_at!)} day(s)), within rotate_before_days (${t.rotation!.rotateBeforeDays}); apply rotates it`;
  }
  return `token "${t.name}" (id ${L.id}) expires on ${L.expires_at ?? 'never'}, not ${s.expiry} as declared; apply rotates it`;
}

/**
 * What a replacement creates, whole: the new token's scopes, role and description are shown even
 * where they equal the old token's (unchanged, `before` = `after`), as the payload sends them all.
 */
function replacedAttributes(t: DesiredAccessToken, L: GroupAccessToken): AttributeChange[] {
  const diffs = new Map<string, AttributeChange>(attributeDiffs(t, L).map((d) => [d.name, d]));
  const keep = (name: string, value: unknown): AttributeChange => diffs.get(name) ?? { name, before: value, after: value };
  return [
    ...(t.description !== undefined ? [keep('description', t.description)] : []),
    keep('scopes', [...t.scopes].sort()),
    keep('access_level', t.accessLevel),
  ];
}

/** A token payload as a plan shows it (`describePayload`): the address, the action, what the new token gets. */
export function describeTokenPayload(instance: string, p: TokenPayload): PayloadMeaning {
  const at = tokenAddress({ name: instance }, p.group, p.name);
  const created = (c: NewTokenProps) => {
    if (c.name !== p.name) throw new PayloadError(`payload.create.name "${c.name}" is not the token's name "${p.name}"`);
    return [
      ...(c.description !== undefined ? [{ name: 'description', after: c.description, required: true }] : []),
      { name: 'scopes', after: [...c.scopes].sort(), required: true },
      { name: 'access_level', after: c.access_level, required: true },
      { name: 'expires_at', after: c.expires_at, required: true },
    ];
  };
  const cosmetic = ['token', 'sink', 'rotated_by'];
  switch (p.op) {
    case 'none':
      return { addresses: [at], action: 'no-op', attributes: [] };
    case 'create':
      return { addresses: [at], action: 'create', attributes: created(p.create!), cosmetic };
    case 'replace':
      return { addresses: [at], action: 'replace', attributes: [...created(p.create!), { name: 'id', before: p.tokenId, required: true }], cosmetic };
    case 'rotate':
      return {
        addresses: [at],
        action: 'rotate',
        attributes: [
          { name: 'id', before: p.tokenId, required: true },
          ...(p.expiresAt !== undefined ? [{ name: 'expires_at', after: p.expiresAt, required: true }] : []),
        ],
        cosmetic,
      };
    case 'delete':
      return { addresses: [`${at}#${p.tokenId}`, at], action: 'delete', attributes: [{ name: 'name', before: p.name, required: false }, { name: 'id', before: p.tokenId, required: true }], cosmetic: ['scopes', 'expires_at'] };
  }
}

// ---------------------------------------------------------------------------------------------
// Apply

/** Whether a failed create/rotate may still have happened on the instance (so: look, never repeat). */
function mayHaveActed(err: unknown): boolean {
  if (!(err instanceof ApiError)) return true;
  if (err.code === 'PLUMB_API_INVALID_RESPONSE') return true; // a success status without the secret
  return err.status === undefined || err.status >= 500;
}

/** A token as a list shows it: the secret an issue returned is never kept (lists are shared and cached). */
function listed(issued: NewGroupAccessToken): GroupAccessToken {
  const { token: _secret, ...token } = issued;
  return token;
}

/** The list with a token this run issued (created, or the new token of a rotation). */
const withIssued = (issued: NewGroupAccessToken) => (list: readonly GroupAccessToken[]): GroupAccessToken[] => [...list.filter((x) => x.id !== issued.id), listed(issued)];

/** The list with a token this run revoked (or rotated: the old token is revoked by it), as the instance lists it now. */
const withRevoked = (id: number) => (list: readonly GroupAccessToken[]): GroupAccessToken[] => list.map((x) => (x.id === id ? { ...x, active: false, revoked: true } : x));

class TokenApply {
  readonly #ctx: InstanceContext;
  readonly #change: ResourceChange;
  readonly #p: TokenPayload;
  readonly #g: PathParam;
  readonly #notes: string[] = [];
  readonly #diagnostics: PlanDiagnostic[] = [];

  constructor(ctx: InstanceContext, change: ResourceChange, payload: TokenPayload) {
    this.#ctx = ctx;
    this.#change = change;
    this.#p = payload;
    this.#g = groupParam(this.#p.group);
  }

  async run(): Promise<ApplyResponse> {
    const p = this.#p;
    let declared: DesiredAccessToken | undefined;
    if (p.op === 'none') return this.#done();
    if (p.op !== 'delete') {
      declared = findDeclared(this.#ctx.instance, p.group, p.name);
      const problem = declared ? checkSink(declared.sink, env(this.#ctx), sinkCheckCache(this.#ctx)) : { summary: 'it is no longer declared', suggestion: 'make a new plan', key: 'file' as const };
      if (problem || !declared) {
        return this.#fail('PLUMB_TOKEN_SINK_UNUSABLE', `Token "${p.name}" cannot receive its secret: ${problem?.summary}; nothing was requested`, problem?.suggestion, declared?.pointer);
      }
    }
    const before = await this.#before();
    this.#forgetStaleNotes(before);
    switch (p.op) {
      case 'create':
        return this.#create(declared!, before);
      case 'rotate':
        return this.#rotate(declared!, before);
      case 'replace':
        return this.#replace(declared!, before);
      case 'delete':
        return this.#delete(before);
    }
  }

  // --- the four operations ---------------------------------------------------------------------

  async #create(t: DesiredAccessToken, before: GroupAccessToken[]): Promise<ApplyResponse> {
    const p = this.#p;
    const pending = this.#revokePendingIds();
    const existing = before.filter((x) => x.name === p.name && isActive(x) && !pending.has(x.id));
    if (existing.length > 0) {
      return this.#fail(
        'PLUMB_PLAN_STALE',
        `An active token named "${p.name}" exists now (id ${existing.map((x) => x.id).join(', ')}); it appeared after the plan was made`,
        'run `plumb plan` again; nothing was created',
      );
    }
    let issued: NewGroupAccessToken;
    await this.#intend('create');
    try {
      issued = await createGroupAccessToken(this.#ctx.client, this.#g, this.#createProps());
    } catch (err) {
      return this.#afterFailedIssue(err, before, 'create');
    }
    this.#ctx.secrets.add(issued.token);
    this.#record(withIssued(issued));
    this.#notes.push(`created token id ${issued.id} (expires ${issued.expires_at ?? 'never'})`);
    const delivered = await this.#deliver(t, issued);
    if (delivered) return this.#done();
    // The new token is unusable and nothing depends on it yet: revoke it.
    const revoked = await this.#revoke(issued.id);
    if (revoked) {
      const slot = this.#slot();
      this.#updateSlot({ revokedByPlumb: [...(slot?.revokedByPlumb ?? []), issued.id] });
      return this.#stop(
        'PLUMB_TOKEN_SECRET_NOT_DELIVERED',
        `The secret of the new token "${p.name}" (id ${issued.id}) could not be delivered; the token was revoked again`,
        `State now: no active token named "${p.name}" was left by this run (id ${issued.id} is revoked). The next plan creates it again.`,
        'fix the sink and run `plumb apply` again',
      );
    }
    this.#remember({ id: issued.id, name: p.name, kind: 'secret-not-received' });
    return this.#stop(
      'PLUMB_TOKEN_SECRET_NOT_DELIVERED',
      `The secret of the new token "${p.name}" (id ${issued.id}) could not be delivered, and revoking it failed`,
      `State now: token id ${issued.id} is active but nobody has its secret. plumb noted it in ${this.#ctx.state.file}; the next plan rotates it.`,
      'fix the sink and run `plumb apply` again',
    );
  }

  async #rotate(t: DesiredAccessToken, before: GroupAccessToken[]): Promise<ApplyResponse> {
    const p = this.#p;
    const target = before.find((x) => x.id === p.tokenId);
    if (!target || !isActive(target)) {
      return this.#fail(
        'PLUMB_PLAN_STALE',
        `Token "${p.name}" (id ${p.tokenId}) is ${target ? liveState(target) : 'gone'} now; it was not rotated`,
        'plumb never rotates a token that is not active (rotating a revoked token revokes its whole family); run `plumb plan` again',
      );
    }
    let issued: NewGroupAccessToken;
    await this.#intend('rotate', target.id);
    try {
      issued = await rotateGroupAccessToken(this.#ctx.client, this.#g, p.self ? 'self' : target.id, { expires_at: p.expiresAt! });
    } catch (err) {
      if (p.self) return this.#afterFailedSelfRotate(err, target);
      return this.#afterFailedIssue(err, before, 'rotate');
    }
    this.#ctx.secrets.add(issued.token);
    this.#record((list) => withIssued(issued)(withRevoked(target.id)(list)));
    // The old credential is revoked from this moment: switch before anything else is sent.
    if (p.self) this.#ctx.client.replaceToken(issued.token);
    // A self-rotation rotates whatever token authenticates: the declared one only when the names agree.
    const selfMismatch = p.self === true && issued.name !== t.name;
    this.#notes.push(
      selfMismatch
        ? `rotated plumb's credential "${issued.name}" → id ${issued.id} (expires ${issued.expires_at ?? 'never'}); the old credential is revoked; "${t.name}" (id ${target.id}) was not rotated`
        : `rotated id ${target.id} → id ${issued.id} (expires ${issued.expires_at ?? 'never'}); id ${target.id} is revoked`,
    );
    if (p.self) this.#notes.push('plumb uses the new secret for the rest of this run');
    this.#forget(target.id);
    const delivered = await this.#deliver(t, issued);
    if (p.self && issued.name !== t.name) {
      return this.#stop(
        'PLUMB_TOKEN_SELF_MISMATCH',
        `plumb's own credential is token "${issued.name}", not "${t.name}": the instance rotated "${issued.name}" (now id ${issued.id})`,
        `Its new secret went to the sink of "${t.name}"${delivered ? '' : ' (delivery failed, see above)'} and plumb used it for the rest of this run. "${t.name}" itself was not rotated.`,
        `move \`self: true\` to the token plumb authenticates with ("${issued.name}")`,
      );
    }
    if (delivered) return this.#confirmRotation(target.id, issued.id);
    // Rotating revoked the old token: revoking the new one would leave consumers with nothing.
    this.#remember({ id: issued.id, name: p.name, kind: 'secret-not-received' });
    return this.#stop(
      'PLUMB_TOKEN_SECRET_NOT_DELIVERED',
      `Token "${p.name}" was rotated (id ${target.id} → id ${issued.id}) but the new secret could not be delivered`,
      `State now: id ${target.id} is revoked; id ${issued.id} is active and its secret is lost. plumb noted it in ${this.#ctx.state.file}; the next plan rotates id ${issued.id} (safe: it is active).${p.self ? ' plumb used the new secret for the rest of this run, but it is not stored anywhere: set token_env by hand before the next run or a group Owner must rotate it.' : ''}`,
      'fix the sink and run `plumb apply` again',
    );
  }

  async #replace(t: DesiredAccessToken, before: GroupAccessToken[]): Promise<ApplyResponse> {
    const p = this.#p;
    const old = before.find((x) => x.id === p.tokenId);
    if (!old || !isActive(old)) {
      return this.#fail('PLUMB_PLAN_STALE', `Token "${p.name}" (id ${p.tokenId}) is ${old ? liveState(old) : 'gone'} now; nothing was replaced`, 'run `plumb plan` again');
    }
    let issued: NewGroupAccessToken;
    await this.#intend('replace', old.id);
    try {
      issued = await createGroupAccessToken(this.#ctx.client, this.#g, this.#createProps());
    } catch (err) {
      return this.#afterFailedIssue(err, before, 'replace');
    }
    this.#ctx.secrets.add(issued.token);
    this.#record(withIssued(issued));
    this.#notes.push(`created replacement id ${issued.id} (expires ${issued.expires_at ?? 'never'})`);
    const delivered = await this.#deliver(t, issued);
    if (!delivered) {
      // The old token is still valid and still in use: drop the undeliverable new one.
      const revoked = await this.#revoke(issued.id);
      if (!revoked) this.#remember({ id: issued.id, name: p.name, kind: 'revoke-pending' });
      return this.#stop(
        'PLUMB_TOKEN_SECRET_NOT_DELIVERED',
        `The secret of the replacement for "${p.name}" (new id ${issued.id}) could not be delivered; the old token was kept`,
        `State now: id ${old.id} (the old token) is active and unchanged; id ${issued.id} ${revoked ? 'was revoked again' : `could not be revoked and is noted in ${this.#ctx.state.file}: the next plan revokes it`}. The next plan replaces "${p.name}" again.`,
        'fix the sink and run `plumb apply` again',
      );
    }
    if (p.self) {
      this.#ctx.client.replaceToken(issued.token);
      this.#notes.push('plumb uses the new secret for the rest of this run');
    }
    this.#forget(old.id);
    const revoked = await this.#revoke(old.id);
    if (revoked) {
      this.#notes.push(revoked === 'revoked' ? `revoked the old token id ${old.id}` : `the old token id ${old.id} was already revoked (outside plumb, or by a concurrent run)`);
      return this.#done();
    }
    this.#remember({ id: old.id, name: p.name, kind: 'revoke-pending' });
    return this.#stop(
      'PLUMB_TOKEN_REVOKE_FAILED',
      `The replacement for "${p.name}" (id ${issued.id}) is delivered, but the old token (id ${old.id}) could not be revoked`,
      `State now: both id ${old.id} and id ${issued.id} are active; consumers have the new secret. plumb noted id ${old.id} in ${this.#ctx.state.file}; the next plan revokes it.`,
      'run `plumb apply` again (or revoke it by hand)',
    );
  }

  async #delete(before: GroupAccessToken[]): Promise<ApplyResponse> {
    const p = this.#p;
    const target = before.find((x) => x.id === p.tokenId);
    if (!target || !isActive(target)) {
      this.#forget(p.tokenId!);
      this.#notes.push(`token id ${p.tokenId} is already ${target ? liveState(target) : 'gone'}; nothing to revoke`);
      return this.#done();
    }
    const revoked = await this.#revoke(target.id);
    if (revoked) {
      this.#forget(target.id);
      this.#notes.push(revoked === 'revoked' ? `revoked id ${target.id}` : `id ${target.id} was already revoked (outside plumb, or by a concurrent run)`);
      return this.#done();
    }
    return this.#fail('PLUMB_TOKEN_REVOKE_FAILED', `Token "${p.name}" (id ${target.id}) could not be revoked; it is still active`, 'run `plumb apply` again');
  }

  /**
   * A rotation is reported as done only once a list made after it shows the new token active: a
   * second rotation of the old token meanwhile (another apply running at the same time) is a reuse,
   * and the instance answers it by revoking the whole token family, the new token included.
   */
  async #confirmRotation(oldId: number, newId: number): Promise<ApplyResponse> {
    let list: GroupAccessToken[];
    try {
      list = await confirmList(this.#ctx, this.#p.group);
      this.#record(() => list);
    } catch (err) {
      this.#notes.push(`could not confirm that id ${newId} is active (${err instanceof Error ? this.#ctx.secrets.redact(err.message) : String(err)}); run \`plumb plan\` to check`);
      return this.#done();
    }
    const now = list.find((x) => x.id === newId);
    if (!now || isActive(now)) {
      this.#notes.push(`confirmed id ${newId} is active`);
      return this.#done();
    }
    return this.#familyRevoked(oldId, newId, `the rotation to id ${newId} succeeded and its secret was delivered, but a list made right after shows id ${newId} ${liveState(now)}`);
  }

  /** The instance revoked the token family: said loudly, with what happened and what to do. */
  #familyRevoked(oldId: number, newId: number | undefined, what: string): ApplyResponse {
    const p = this.#p;
    this.#updateSlot({ unknown: undefined });
    return this.#stop(
      'PLUMB_TOKEN_FAMILY_REVOKED',
      `TOKEN FAMILY REVOKED: the instance revoked every token of the family of "${p.name}" (group "${p.group}"): ${what}`,
      `Rotating a token that is already revoked is a reuse attempt, and the instance answers it by revoking the whole family (id ${oldId}${newId !== undefined ? `, id ${newId}` : ''} and every token rotated from them). This happens when two applies rotate the same token at once (overlapping pipelines, or a laptop during CI), or when the token was rotated outside plumb meanwhile. The secret in the sink of "${p.name}" no longer works, and whatever uses it is locked out now.`,
      'make sure only one `plumb apply` runs at a time for this instance, then run `plumb plan` and `plumb apply`: they create the token anew and deliver a fresh secret to its sink',
    );
  }

  // --- failure analysis -------------------------------------------------------------------------

  /**
   * A create or rotate failed. If the instance may have acted, list the group again and report what
   * it did; never send the request again.
   */
  async #afterFailedIssue(err: unknown, before: GroupAccessToken[], op: 'create' | 'rotate' | 'replace'): Promise<ApplyResponse> {
    const p = this.#p;
    const what = err instanceof Error ? this.#ctx.secrets.redact(err.message) : String(err);
    if (op === 'rotate' && err instanceof ApiError && err.status === 401) {
      // 401 to a rotation of a token plumb just listed as active: it was rotated meanwhile, and this
      // rotation was a reuse that revokes the whole family. A list (a read) says which.
      const now = await this.#list().catch(() => undefined);
      const target = now?.find((x) => x.id === p.tokenId);
      if (now && target && !isActive(target) && !now.some((x) => x.name === p.name && isActive(x))) {
        return this.#familyRevoked(p.tokenId!, undefined, `the rotation of id ${p.tokenId} was refused (${what}) because the token had been rotated meanwhile, and no token named "${p.name}" is active now`);
      }
    }
    if (!mayHaveActed(err)) {
      this.#notIssued();
      const suggestion =
        err instanceof ApiError && err.code === 'PLUMB_API_BAD_REQUEST'
          ? 'the instance refused the request (check scopes, access level and the instance\'s maximum token lifetime); fix the configuration and plan again'
          : err instanceof ApiError && (err.status === 401 || err.status === 403)
            ? 'the credential in token_env needs to be an administrator or an Owner of the group'
            : 'plan again';
      return this.#fail(err instanceof ApiError ? err.code : 'PLUMB_INTERNAL', `${op} of "${p.name}" failed: ${what}; the instance did not issue a token`, suggestion);
    }
    let after: GroupAccessToken[];
    try {
      after = await this.#list();
    } catch {
      this.#updateSlot({ unknown: { op, ...(p.tokenId !== undefined && { tokenId: p.tokenId }), at: this.#ctx.now.toISOString() } });
      return this.#unknownOutcome(`${op} of "${p.name}" ended without a clear answer (${what}), and the group could not be listed to find out`);
    }
    const known = new Set(before.map((x) => x.id));
    const appeared = after.filter((x) => !known.has(x.id) && x.name === p.name && isActive(x));
    if (op === 'replace') {
      this.#notIssued(); // what appeared is revoked below, or noted for revocation
      const dropped: number[] = [];
      for (const x of appeared) {
        if (await this.#revoke(x.id)) dropped.push(x.id);
        else this.#remember({ id: x.id, name: p.name, kind: 'revoke-pending' });
      }
      return this.#stop(
        'PLUMB_TOKEN_OUTCOME_UNKNOWN',
        `Creating the replacement for "${p.name}" ended without a clear answer (${what})`,
        `plumb listed the group again and did not repeat the request. State now: the old token id ${p.tokenId} is active and unchanged. ${
          appeared.length === 0
            ? 'No new token was created.'
            : `The instance had created id ${appeared.map((x) => x.id).join(', ')} without plumb receiving the secret; ${dropped.length === appeared.length ? 'it was revoked' : 'it is noted for revocation by the next plan'}.`
        } The next plan replaces "${p.name}" again.`,
        'run `plumb apply` again',
      );
    }
    if (appeared.length > 0) {
      for (const x of appeared) this.#remember({ id: x.id, name: p.name, kind: 'secret-not-received' });
      const ids = appeared.map((x) => x.id).join(', ');
      const oldNow = op === 'rotate' ? after.find((x) => x.id === p.tokenId) : undefined;
      return this.#stop(
        'PLUMB_TOKEN_SECRET_NOT_RECEIVED',
        op === 'rotate'
          ? `Token "${p.name}" was rotated (id ${p.tokenId} → id ${ids}) but the answer was lost (${what})`
          : `Token "${p.name}" was created (id ${ids}) but the answer was lost (${what})`,
        `plumb listed the group again and did not repeat the request. State now: ${oldNow ? `id ${oldNow.id} is ${liveState(oldNow)}; ` : ''}id ${ids} is active and its secret never arrived. plumb noted it in ${this.#ctx.state.file}; the next plan rotates id ${ids} (safe: it is active) and delivers the new secret.`,
        'run `plumb apply` again',
      );
    }
    this.#notIssued();
    const oldNow = op === 'rotate' ? after.find((x) => x.id === p.tokenId) : undefined;
    const state =
      op === 'create'
        ? 'no token was created.'
        : oldNow && isActive(oldNow)
          ? `id ${oldNow.id} is still active: the rotation did not happen.`
          : `id ${p.tokenId} is ${oldNow ? liveState(oldNow) : 'gone'} and no replacement appeared; the next plan creates a new token.`;
    // plumb listed the group: the outcome is known now, so the failure is not told as "unknown".
    const told = err instanceof ApiAmbiguousError ? `${err.method} ${err.path}: ${describeReason(err.reason, err.status)}` : what;
    return this.#stop(
      err instanceof ApiError ? err.code : 'PLUMB_TOKEN_OUTCOME_UNKNOWN',
      `${op} of "${p.name}" failed: ${this.#ctx.secrets.redact(told)}`,
      `plumb listed the group again and did not repeat the request. State now: ${state}`,
      'run `plumb apply` again',
    );
  }

  /** Rotating plumb's own credential failed. Listing with that credential tells whether it still works. */
  async #afterFailedSelfRotate(err: unknown, target: GroupAccessToken): Promise<ApplyResponse> {
    const p = this.#p;
    const what = err instanceof Error ? this.#ctx.secrets.redact(err.message) : String(err);
    if (!mayHaveActed(err)) {
      this.#notIssued();
      const notCredential = err instanceof ApiError && (err.status === 405 || err.status === 401 || err.status === 403);
      return this.#fail(
        notCredential ? 'PLUMB_TOKEN_SELF_NOT_CREDENTIAL' : err instanceof ApiError ? err.code : 'PLUMB_INTERNAL',
        `Self-rotation of "${p.name}" was refused: ${what}; nothing was rotated`,
        notCredential
          ? `\`self: true\` means plumb authenticates with this token (${this.#ctx.instance.tokenEnv} holds its secret) and the token has scope api or self_rotate; check both, or remove \`self: true\``
          : 'plan again',
      );
    }
    let now: GroupAccessToken[];
    try {
      now = await this.#list();
    } catch (listErr) {
      // Only a 401 says the old credential is gone; a 5xx or a broken connection says nothing about it.
      this.#updateSlot({ unknown: { op: 'rotate', tokenId: target.id, at: this.#ctx.now.toISOString() } });
      if (!(listErr instanceof ApiError && listErr.status === 401)) {
        return this.#unknownOutcome(
          `Self-rotation of "${p.name}" ended without a clear answer (${what}), and the group could not be listed to find out (${
            listErr instanceof Error ? this.#ctx.secrets.redact(listErr.message) : String(listErr)
          })`,
        );
      }
      return this.#stop(
        'PLUMB_TOKEN_SELF_LOST',
        `plumb's own credential "${p.name}" (id ${target.id}) was probably rotated, but the new secret never arrived (${what})`,
        `Listing the group with the old credential now fails, so it is most likely revoked; the new token's secret is lost and plumb can no longer authenticate. Nothing else was attempted, and the rotation was not repeated (rotating a revoked token revokes its whole family).`,
        `have an administrator or a group Owner rotate "${p.name}" of group "${p.group}", deliver the secret to its sink and set ${this.#ctx.instance.tokenEnv}`,
      );
    }
    const t = now.find((x) => x.id === target.id);
    this.#notIssued();
    return this.#stop(
      err instanceof ApiError ? err.code : 'PLUMB_TOKEN_OUTCOME_UNKNOWN',
      `Self-rotation of "${p.name}" ended without a clear answer (${what})`,
      `plumb's credential still works, so the rotation did not happen (id ${target.id} is ${t ? liveState(t) : 'not listed'}). plumb did not repeat it.`,
      'run `plumb apply` again',
    );
  }

  /** An issue whose outcome plumb could not learn; the slot it noted makes every later plan show it. */
  #unknownOutcome(summary: string): ApplyResponse {
    const file = this.#ctx.state.file;
    return this.#stop(
      'PLUMB_TOKEN_OUTCOME_UNKNOWN',
      summary,
      `plumb did not repeat the request (repeating a rotation revokes the whole token family), and noted the open question in ${file}. Until it is settled, every plan and drift run reports "${this.#p.name}" as drifted (drift exits 2): the first plan that can list the group shows whether a token was issued, and if the active token is not the one whose secret the sink holds, plans a rotation of the active token (safe: it is not revoked) that delivers a fresh secret.`,
      `keep ${file} (it holds the note, never a secret), wait until the instance answers again, then run \`plumb plan\` and \`plumb apply\`; do not rotate or revoke "${this.#p.name}" by hand in the meantime`,
    );
  }

  // --- helpers ------------------------------------------------------------------------------

  #createProps() {
    const c = this.#p.create!;
    return { ...c, scopes: [...c.scopes], access_level: c.access_level as AccessLevel };
  }

  /** A fresh list of the group, after a failure that may have happened on the instance. */
  async #list(): Promise<GroupAccessToken[]> {
    const list = await sharedList(this.#ctx, this.#p.group, { maxAgeMs: 0, fromApply: true });
    this.#record(() => list);
    return list;
  }

  /**
   * The list of the group this change is applied against. In the CLI: the session's, one list per
   * group per apply (sharedList). Under the Terraform provider (`readCache`): the walk's list of the
   * group, which holds the provider's own writes, so the applies of a walk list each group once.
   * A rotation lists afresh in both (rotating a token revoked meanwhile revokes its whole family),
   * and the walk's list takes that newer read. Why an older list is safe for the other operations:
   * docs/terraform.md, "Cost: requests and time".
   */
  async #before(): Promise<GroupAccessToken[]> {
    const ctx = this.#ctx;
    const { group, op } = this.#p;
    if (ctx.readCache && op !== 'rotate') return ctx.readCache.get(tokenListKey(group), () => sharedList(ctx, group, { maxAgeMs: 0 }));
    const list = await sharedList(ctx, group, { fromApply: op === 'rotate' });
    if (op === 'rotate') this.#record(() => list);
    return list;
  }

  /** Records what this change did (or a newer list) in the walk's shared list of the group, if there is one. */
  #record(change: (list: GroupAccessToken[]) => GroupAccessToken[]): void {
    this.#ctx.readCache?.update?.(tokenListKey(this.#p.group), change);
  }

  /** Delivers, reporting failure as a diagnostic; returns whether the secret arrived. */
  async #deliver(t: DesiredAccessToken, issued: NewGroupAccessToken): Promise<boolean> {
    const ctx = this.#ctx;
    const raw = env(ctx).PLUMB_SINK_TIMEOUT_SECONDS;
    const timeoutMs = raw && /^\d+(\.\d+)?$/.test(raw) ? Number(raw) * 1000 : DEFAULT_SINK_TIMEOUT_MS;
    try {
      const note = await deliverSecret(
        t.sink!,
        { group: this.#p.group, name: t.name, id: issued.id, expiresAt: issued.expires_at, token: issued.token },
        { env: env(ctx), stdout: ctx.stdout ?? ((s) => void process.stdout.write(s)), timeoutMs, hideEnv: [ctx.instance.tokenEnv] },
      );
      this.#notes.push(note);
      this.#updateSlot({ held: issued.id, unknown: undefined, revokedByPlumb: undefined });
      return true;
    } catch (err) {
      const message = ctx.secrets.redact(err instanceof SinkError ? err.message : err instanceof Error ? err.message : String(err));
      this.#diagnostics.push(
        planDiagnostic(ctx, {
          severity: 'error',
          code: 'PLUMB_SINK_FAILED',
          summary: `Delivering the secret of "${t.name}" (id ${issued.id}) failed: ${message}`,
          address: this.#change.address,
          pointer: t.sink ? joinPointer(t.pointer, 'sink') : t.pointer,
        }),
      );
      return false;
    }
  }

  /**
   * Revokes a token, making sure it ends up revoked. Any refused or unclear answer (a 400 for a token
   * revoked meanwhile, outside plumb or by a concurrent run; a 5xx; a lost connection) is checked
   * with a fresh list: a token the instance no longer holds active is the outcome wanted, and a 400
   * for it means someone else revoked it first (`already-revoked`). Revoking is safe to repeat, but
   * only after the list shows the token still active, and never after a 400 for an active token.
   */
  async #revoke(id: number): Promise<false | 'revoked' | 'already-revoked'> {
    for (let attempt = 1; attempt <= 3; attempt++) {
      let refused = false;
      try {
        await revokeGroupAccessToken(this.#ctx.client, this.#g, id);
        this.#record(withRevoked(id));
        return 'revoked';
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) {
          this.#record(withRevoked(id));
          return attempt === 1 ? 'already-revoked' : 'revoked';
        }
        refused = !mayHaveActed(err);
      }
      try {
        const t = (await this.#list()).find((x) => x.id === id);
        if (!t || !isActive(t)) return refused ? 'already-revoked' : 'revoked';
      } catch {
        return false;
      }
      if (refused) return false;
      await this.#ctx.sleep(200 * attempt);
    }
    return false;
  }

  #revokePendingIds(): Set<number> {
    return new Set(tokenState(this.#ctx).tokenNotes(this.#ctx.instance.url).filter((n) => n.kind === 'revoke-pending').map((n) => n.id));
  }

  #remember(n: Omit<TokenNote, 'group' | 'at'>): void {
    const ctx = this.#ctx;
    tokenState(ctx).recordTokenNote(ctx.instance.url, { ...n, group: this.#p.group, at: ctx.now.toISOString() });
    ctx.state.save();
  }

  #slot() {
    return tokenState(this.#ctx).tokenSlot(this.#ctx.instance.url, this.#p.group, this.#p.name);
  }

  /**
   * Records what plumb knows about the token's sink. An open question or a revocation of plumb's own
   * is written at once; the id a sink now holds waits for the end of the apply (one write, not one
   * per token), since losing it costs nothing but a judgement the next plan cannot make.
   */
  #updateSlot(update: Partial<TokenSlot>): void {
    tokenState(this.#ctx).updateTokenSlot(this.#ctx.instance.url, this.#p.group, this.#p.name, update);
    if (update.unknown !== undefined || update.revokedByPlumb !== undefined) this.#ctx.state.save();
    else this.#ctx.state.markDirty();
  }

  /** The slot's open question before this change wrote its own (`#intend`), given back when the issue is known not to have happened. */
  #prior: TokenSlot['unknown'];

  /**
   * Written to the state file before an issue is sent (a write-ahead note): if the process ends
   * before the answer is recorded (a second signal, a kill, a crash), the next plan finds an issue
   * with no known outcome, and a token the instance issued meanwhile is rotated and its secret
   * delivered, never adopted while its secret is lost. Cleared when the secret reached the sink
   * (`#deliver`) or the issue is known not to have happened (`#notIssued`). A state that cannot be
   * written stops the change before anything is sent.
   */
  async #intend(op: 'create' | 'rotate' | 'replace', tokenId?: number): Promise<void> {
    this.#prior = this.#slot()?.unknown;
    tokenState(this.#ctx).updateTokenSlot(this.#ctx.instance.url, this.#p.group, this.#p.name, { unknown: { op, ...(tokenId !== undefined && { tokenId }), at: this.#ctx.now.toISOString() } });
    // One write for every change that notes an issue meanwhile (StateStore.saveSoon).
    await this.#ctx.state.saveSoon();
  }

  /** The issue did not happen (refused before the instance acted, or a fresh list shows nothing issued). */
  #notIssued(): void {
    this.#updateSlot({ unknown: this.#prior });
  }

  #forget(id: number): void {
    if (tokenState(this.#ctx).clearTokenNote(this.#ctx.instance.url, id)) this.#ctx.state.save();
  }

  /** Notes about tokens of this group that are not active any more have served their purpose. */
  #forgetStaleNotes(live: readonly GroupAccessToken[]): void {
    let changed = false;
    for (const t of live) if (!isActive(t) && tokenState(this.#ctx).clearTokenNote(this.#ctx.instance.url, t.id)) changed = true;
    if (changed) this.#ctx.state.save();
  }

  #done(): ApplyResponse {
    return { applied: true, diagnostics: this.#diagnostics, notes: this.#notes };
  }

  #fail(code: DiagnosticCode, summary: string, suggestion?: string, pointer?: string): ApplyResponse {
    return this.#stop(code, summary, undefined, suggestion, pointer);
  }

  #stop(code: DiagnosticCode, summary: string, detail: string | undefined, suggestion?: string, pointer?: string): ApplyResponse {
    this.#diagnostics.push(
      planDiagnostic(this.#ctx, {
        severity: 'error',
        code,
        summary: this.#ctx.secrets.redact(summary),
        ...(detail !== undefined && { detail: this.#ctx.secrets.redact(detail) }),
        ...(suggestion !== undefined && { suggestion }),
        address: this.#change.address,
        pointer: pointer ?? this.#change.pointer,
      }),
    );
    return { applied: false, diagnostics: this.#diagnostics, notes: this.#notes };
  }
}
