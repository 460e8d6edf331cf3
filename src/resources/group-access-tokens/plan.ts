/**
 * Planning group access tokens (docs/tokens.md): every sink checked before any request; each
 * declared group's tokens listed once (every page, no state filter) and classified locally, the
 * state file's notes honoured only for tokens plumb manages; groups planned concurrently, the
 * client bounding the requests in flight.
 */
import type { GroupAccessToken } from '../../api/group-access-tokens.js';
import { ApiError } from '../../api/errors.js';
import { getGroupRef } from '../../api/namespaces.js';
import type { DesiredAccessToken, DesiredGroup, TokenSink } from './model.js';
import { checkVariableSink } from './sink-ci-variable.js';
import { deliveriesOf, sinkStatuses, unmaskedRisks } from './plan-sinks.js';
import type { SinkStatus } from './plan-sinks.js';
import { groupsOf } from './model.js';
import { MASK } from '../../config/secrets.js';
import { joinPointer } from '../../config/pointer.js';
import type { AttributeChange, ExpiryEntry, PlanDiagnostic, Reason, ResourceChange } from '../../engine/plan.js';
import type { InstanceContext, PlanResponse } from '../../engine/resource.js';
import { planDiagnostic } from '../../engine/resource.js';
import { checkSink, describeSink } from './sinks.js';
import { revocationRisks } from './risks.js';
import { credentialOf } from '../../engine/risks.js';
import type { TokenNote } from './state.js';
import type { NewTokenProps, TokenPayload } from './payload.js';
import { addDays, attributeDiffs, daysBetween, identify, isActive, liveState, newExpiry, rotationReason, type Identity } from './identity.js';
import { overlapOf, planOverlap, planRetiring, retiringNames } from './plan-overlap.js';
import type { DeclaredParts } from './plan-overlap.js';
import { changeFingerprint, env, findDeclared, freshSinkChecks, groupParam, managesTokens, runsAsGroupToken, sharedList, tokenAddress, tokenListKey, tokenState, undeclaredAddress } from './shared.js';

const KNOWN_AFTER = '(known after apply)';

export async function planTokens(ctx: InstanceContext): Promise<PlanResponse> {
  // A group no target can select is not read (one list request per group saved).
  const groups = groupsOf(ctx.instance).filter((g) => managesTokens(g) && ctx.targets.within(`${ctx.instance.name}.group[${JSON.stringify(g.ref)}]`));
  // Sinks first, before any request: a secret the instance issues must have somewhere to go. A
  // group with a sink that cannot receive one is not planned at all; the others are (a selector's
  // new subgroup whose sink directory is missing blocks that group only, docs/plans.md#blocked-matches).
  const sinkErrors: PlanDiagnostic[] = [];
  const unusable = new Set<DesiredGroup>();
  // A plan checks afresh; apply reuses what the plan found moments before.
  const checked = freshSinkChecks(ctx);
  // A report's plan is never applied: nothing is issued, so no sink needs to exist where it runs.
  // A ci_variable sink is checked against its instance (one list of each project's or group's
  // variables, which the drift comparison reuses), all at once.
  const variableChecks: Promise<void>[] = [];
  for (const g of groups) {
    for (const t of g.accessTokens) {
      // A token no target selects is neither issued nor checked.
      const address = tokenAddress(ctx.instance, g.ref, t.name);
      if (!ctx.targets.targeted(address)) continue;
      const unusableSink = (sink: TokenSink | undefined, problem: { summary: string; detail?: string; suggestion: string; key: string }, code: 'PLUMB_TOKEN_SINK_UNUSABLE' | 'PLUMB_SINK_VARIABLE_UNUSABLE'): void => {
        unusable.add(g);
        sinkErrors.push(
          planDiagnostic(ctx, {
            severity: 'error',
            code,
            summary: `Token "${t.name}" cannot receive its secret${sink ? ` in ${describeSink(sink)}` : ''}: ${problem.summary}`,
            detail: `${problem.detail ? problem.detail + ' ' : ''}The instance shows a new token's secret once; plumb checks every sink before it asks for anything, so nothing was requested.`,
            suggestion: problem.suggestion,
            address,
            pointer: sink?.pointer ? joinPointer(sink.pointer, ...(sink.kind === 'ci_variable' ? ['ci_variable'] : []), problem.key) : t.pointer,
          }),
        );
      };
      if (!ctx.readOnly && t.sinks.length === 0) unusableSink(undefined, checkSink(undefined, env(ctx), checked)!, 'PLUMB_TOKEN_SINK_UNUSABLE');
      for (const sink of t.sinks) {
        if (sink.kind === 'ci_variable') {
          variableChecks.push(
            checkVariableSink(ctx, sink).then((r) => {
              if (r.problem && !ctx.readOnly) unusableSink(sink, r.problem, 'PLUMB_SINK_VARIABLE_UNUSABLE');
            }),
          );
          continue;
        }
        const problem = ctx.readOnly ? undefined : checkSink(sink, env(ctx), checked);
        if (problem) unusableSink(sink, problem, 'PLUMB_TOKEN_SINK_UNUSABLE');
      }
    }
  }
  await Promise.all(variableChecks);
  // The checks of variable sinks finish in any order: the errors are listed in configuration order.
  sinkErrors.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
  const { distinct, diagnostics: duplicates } = await distinctGroups(ctx, groups);
  const perGroup = await Promise.all(distinct.filter((g) => !unusable.has(g)).map((g) => planGroup(ctx, g)));
  const changes = perGroup.flatMap((r) => r.changes);
  // plumb's own credential is rotated last: everything before it runs with a credential known to work.
  const self = changes.filter((c) => c.payload.self === true);
  const others = changes.filter((c) => !self.includes(c));
  const after = others.filter((c) => c.action !== 'no-op').map((c) => c.address);
  const risks = await revocationRisks(ctx, changes.filter((c) => ctx.targets.targeted(c.address)), (c) => (typeof c.payload.tokenId === 'number' ? c.payload.tokenId : undefined));
  // A change that issues a secret into an unmasked variable of an api token (plan-sinks.ts).
  for (const c of changes) {
    if (!['create', 'rotate', 'replace'].includes(c.action) || !ctx.targets.targeted(c.address)) continue;
    const t = findDeclared(ctx.instance, String(c.payload.group), String(c.payload.name));
    if (t && c.address === tokenAddress(ctx.instance, String(c.payload.group), t.name)) risks.push(...unmaskedRisks(ctx, t, c.address));
  }
  return {
    risks,
    changes: [...others, ...self.map((c) => (c.action === 'no-op' || after.length === 0 ? c : { ...c, order: { after } }))],
    drift: perGroup.flatMap((r) => r.drift),
    diagnostics: [...sinkErrors, ...duplicates, ...perGroup.flatMap((r) => r.diagnostics)],
    ...(ctx.expiring && { expiring: perGroup.flatMap((r) => r.expiring ?? []) }),
  };
}

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
    live = ctx.memo.reads ? await ctx.memo.reads.get(tokenListKey(g.ref), () => sharedList(ctx, g.ref, { maxAgeMs: 0 })) : await sharedList(ctx, g.ref, { maxAgeMs: 0 });
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
  const sinks = await sinkStatuses(ctx, g, (t) => tokenState(ctx).tokenSlot(instance.url, g.ref, t.name));
  const claimed = new Set<number>();
  const ordered = [...g.accessTokens.filter((t) => !t.self), ...g.accessTokens.filter((t) => t.self)];
  for (const t of ordered) planDeclared(ctx, g, t, live, notes, revokePending, claimed, out, sinks.get(t.name));

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
  const retiring = retiringNames(ctx, g);
  for (const t of live) {
    if (!isActive(t) || t.expires_at === null || t.expires_at > until || retiring.get(t.id) === t.name) continue;
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
interface DeclaredToken extends DeclaredParts {
  /** `Token "<name>" of group "<ref>"`, for diagnostics. */
  readonly who: string;
  /**
   * The token whose secret the sink holds: the last one delivered, or, after a rotation or
   * replacement whose outcome is unknown, the one it acted on.
   */
  readonly heldId: number | undefined;
  /** The expiry a new or rotated token gets. */
  readonly expiry: string;
  /** How the token's ci_variable sinks compare with its last delivery (plan-sinks.ts). */
  readonly sinks: SinkStatus | undefined;
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
  sinks: SinkStatus | undefined,
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
    sinks,
  };
  const retiring = planRetiring(s, claimed);
  const orphans = orphansOf(s, revokePending, retiring);
  planOrphans(s, orphans, claimed);
  const id = identify(t, live, orphans.length > 0 || retiring.size > 0 ? new Set([...revokePending, ...retiring, ...orphans.map((o) => o.id)]) : revokePending);
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
function orphansOf(s: DeclaredToken, revokePending: ReadonlySet<number>, retiring: ReadonlySet<number>): GroupAccessToken[] {
  if (s.slot?.unknown?.op !== 'replace' || !s.live.some((x) => x.id === s.heldId && isActive(x))) return [];
  return s.live.filter((x) => x.name === s.t.name && isActive(x) && x.id !== s.heldId && !revokePending.has(x.id) && !retiring.has(x.id));
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

/** The one sink as an attribute (as before sinks were a list); several are shown by the change's deliveries only. */
const sinkShown = (t: DesiredAccessToken): AttributeChange[] => (t.sinks.length === 1 ? [{ name: 'sink', after: describeSink(t.sinks[0]!) }] : []);
const sinkKept = (t: DesiredAccessToken): AttributeChange[] => sinkShown(t).map((a) => ({ ...a, before: a.after }));
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
      ...sinkShown(t),
    ],
    payload: { group: g.ref, name: t.name, op: 'create', create: createProps(s) } satisfies TokenPayload,
    liveFingerprint: changeFingerprint(s.live, t.name, undefined),
    deliveries: deliveriesOf(t, s.sinks),
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
  const reason: Reason | undefined = lost ? 'secret-not-received' : mismatch ? 'sink-holds-other-token' : (rotationReason(t, L, s.ctx.today) ?? s.sinks?.reason);
  for (const line of s.sinks?.lines ?? []) declaredDrift(s, line);
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
      ...sinkKept(t),
    ],
    payload: { group: g.ref, name: t.name, op: 'replace', tokenId: L.id, create: createProps(s), ...(t.self && { self: true }) } satisfies TokenPayload,
    liveFingerprint: fp,
    deliveries: deliveriesOf(t, s.sinks),
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
  const overlap = overlapOf(t, reason);
  const kept = [...replacedAttributes(t, L), { name: 'id', before: L.id, after: KNOWN_AFTER }, { name: 'expires_at', before: L.expires_at, after: expiry }, tokenShown(true), ...sinkKept(t)];
  if (overlap !== undefined) return planOverlap(s, L, reason, overlap, fp, { attributes: kept, create: createProps(s), summary: renewalSummary(s, L, reason), deliveries: deliveriesOf(t, s.sinks) });
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
      ...sinkKept(t),
      ...(t.self ? [{ name: 'rotated_by', after: "self (plumb's own credential)" }] : []),
      ...(byReplacement ? [{ name: 'rotated_by', after: 'replacement (plumb runs as a group access token, which may rotate only itself)' }] : []),
    ],
    payload: byReplacement
      ? ({ group: g.ref, name: t.name, op: 'replace', tokenId: L.id, create: createProps(s) } satisfies TokenPayload)
      : ({ group: g.ref, name: t.name, op: 'rotate', tokenId: L.id, expiresAt: expiry, ...(t.self && { self: true }) } satisfies TokenPayload),
    liveFingerprint: fp,
    deliveries: deliveriesOf(t, s.sinks),
  });
  // Only a changed expiry is a difference from the configuration; the other reasons are explained
  // by the summary (a sink's reason by the sink's own drift lines, planFound).
  if (!reason.startsWith('sink-') || reason === 'sink-holds-other-token') {
    declaredDrift(s, renewalSummary(s, L, reason), reason === 'expiry-changed' && L.expires_at !== expiry ? [{ name: 'expires_at', before: L.expires_at, after: expiry }] : []);
  }
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

