/**
 * The overlap window's part of a token plan (docs/tokens.md#overlap-window): a renewal by successor
 * (`planOverlap`), and the predecessors still active whose revocation the state file records as due
 * (`planRetiring`: a note before, a revocation after).
 */
import type { GroupAccessToken } from '../../api/group-access-tokens.js';
import type { AttributeChange, PlannedDelivery, Reason, ResourceChange } from '../../engine/plan.js';
import type { InstanceContext, PlanResponse } from '../../engine/resource.js';
import { planDiagnostic } from '../../engine/resource.js';
import type { DesiredAccessToken, DesiredGroup } from './model.js';
import type { NewTokenProps, TokenPayload } from './payload.js';
import type { TokenSlot } from './state.js';
import { isActive, overlapText, revokeDueAt } from './identity.js';
import { changeFingerprint, tokenState, undeclaredAddress } from './shared.js';

/** What the overlap's planning reads of one declared token (plan.ts, `DeclaredToken`). */
export interface DeclaredParts {
  readonly ctx: InstanceContext;
  readonly g: DesiredGroup;
  readonly t: DesiredAccessToken;
  readonly live: readonly GroupAccessToken[];
  readonly out: PlanResponse;
  readonly address: string;
  readonly base: Pick<ResourceChange, 'address' | 'instance' | 'kind' | 'pointer'>;
  readonly slot: TokenSlot | undefined;
}

/** What the plan of a renewal shows and sends whatever way it is made (plan.ts builds them). */
export interface RenewalParts {
  /** The attributes every renewal shows (the new token's, its id, expiry, secret and sinks). */
  readonly attributes: readonly AttributeChange[];
  readonly create: NewTokenProps;
  /** Why it is renewed, for the drift report. */
  readonly summary: string;
  /** Where the new secret goes (plan-sinks.ts, `deliveriesOf`). */
  readonly deliveries: readonly PlannedDelivery[];
}

/** The renewals a token with `rotation.overlap` makes by successor (docs/tokens.md#overlap-window). */
const OVERLAP_REASONS: ReadonlySet<Reason> = new Set(['expiring-soon', 'expiry-changed', 'sink-added', 'sink-changed', 'sink-drifted', 'sink-removed']);

/** A due time as plans show it: `2026-03-03 12:00 UTC`. */
const dueShown = (due: string): string => `${due.slice(0, 10)} ${due.slice(11, 16)} UTC`;

/**
 * The predecessors of an overlap rotation (`retiring` in the token's slot, docs/tokens.md#overlap-window):
 * still active, they are not the declaration. Once due, apply revokes them (a change shown in the
 * plan); before, plan and drift note when. The state file is untrusted: an entry is honoured only
 * for an active token of the declaration's name that is not the one its sinks hold (the slot is the
 * declaration's own, so a token of another group or name is never touched). Returns their ids.
 */
export function planRetiring(s: DeclaredParts, claimed: Set<number>): Set<number> {
  const { ctx, g, t, live, slot, out } = s;
  const ids = new Set<number>();
  for (const r of slot?.retiring ?? []) {
    const tok = live.find((x) => x.id === r.id);
    if (!tok || !isActive(tok)) continue; // expired or revoked meanwhile: nothing left to do
    if (tok.name !== t.name || r.id === slot?.held) {
      out.diagnostics.push(
        planDiagnostic(ctx, {
          severity: 'warning',
          code: 'PLUMB_STATE_ENTRY_IGNORED',
          summary: ctx.secrets.redact(
            `The state file ${ctx.state.file} holds an entry plumb ignores: token_slots of "${t.name}" asks to revoke id ${r.id}, ${tok.name !== t.name ? `which is named "${tok.name}"` : 'the token whose secret its sinks hold'}`,
          ),
          detail: `plumb revokes the predecessor of an overlap rotation only when it is an active token of the declared name that the sinks no longer hold (section of instance ${ctx.instance.url}); the file may have been edited.`,
          suggestion: 'remove the entry from the state file, or leave it: it is never acted on',
          address: s.address,
          pointer: t.pointer,
        }),
      );
      continue;
    }
    ids.add(r.id);
    claimed.add(r.id);
    const address = undeclaredAddress(ctx.instance, g.ref, tok);
    const holder = slot?.held !== undefined ? `; its successor id ${slot.held} holds the sinks` : '';
    if (Date.parse(r.due) > ctx.now.getTime()) {
      out.drift.push({ address, instance: ctx.instance.name, kind: 'group_access_token', summary: `revoke of id ${r.id} due on ${dueShown(r.due)} (overlap of token "${t.name}"${holder}); the first apply after that revokes it`, attributes: [], informational: true });
      continue;
    }
    out.changes.push({
      ...s.base,
      address,
      action: 'delete',
      reasons: ['overlap-ended'],
      attributes: [
        { name: 'name', before: tok.name },
        { name: 'id', before: tok.id },
        { name: 'expires_at', before: tok.expires_at },
      ],
      payload: { group: g.ref, name: t.name, op: 'delete', tokenId: tok.id } satisfies TokenPayload,
      liveFingerprint: changeFingerprint(live, t.name, tok.id),
    });
    out.drift.push({ address, instance: ctx.instance.name, kind: 'group_access_token', summary: `revoke of id ${r.id} due on ${dueShown(r.due)} (overlap of token "${t.name}"${holder}): the overlap has passed; apply revokes it`, attributes: [] });
  }
  return ids;
}

/**
 * A rotation with an overlap window (docs/tokens.md#overlap-window): apply creates the successor
 * (same name, scopes, role, description), delivers it to every sink, and records the predecessor's
 * revocation as due `overlap` after; the first apply after that revokes it.
 */
export function planOverlap(s: DeclaredParts, L: GroupAccessToken, reason: Reason, overlap: number, fp: string, made: RenewalParts): void {
  const { ctx, g, t } = s;
  // The plan's day, not its clock: a saved plan shows the same when apply checks it again (apply
  // records the exact time from its own clock).
  const about = revokeDueAt(new Date(`${ctx.today}T00:00:00Z`), overlap).slice(0, 10);
  const due = `${overlapText(overlap)} after the successor reached every sink (about ${about})`;
  s.out.changes.push({
    ...s.base,
    action: 'rotate',
    reasons: [reason],
    attributes: [
      ...made.attributes,
      { name: 'overlap', after: overlapText(overlap) },
      { name: 'revoke_old_on', after: `id ${L.id}, ${due}; the first apply after that revokes it` },
      { name: 'rotated_by', after: 'successor (created and delivered before the predecessor is revoked)' },
    ],
    payload: { group: g.ref, name: t.name, op: 'overlap', tokenId: L.id, create: made.create, overlapHours: overlap } satisfies TokenPayload,
    liveFingerprint: fp,
    deliveries: made.deliveries,
  });
  const expiry = made.create.expires_at;
  s.out.drift.push({
    address: s.address,
    instance: ctx.instance.name,
    kind: 'group_access_token',
    summary: `${made.summary.replace(/; apply rotates it$/, '')}; apply creates its successor and delivers it, and id ${L.id} stays active ${due}`,
    attributes: reason === 'expiry-changed' && L.expires_at !== expiry ? [{ name: 'expires_at', before: L.expires_at, after: expiry }] : [],
  });
}

/**
 * The overlap (hours) a renewal of `t` for `reason` keeps, if any. An overlap keeps the predecessor
 * alive for consumers that still hold it: only when the sinks hold it (on schedule, or a fresh
 * secret for sinks added, moved, drifted or removed); a secret nobody received has no consumer to
 * wait for, and plumb's own credential rotates through `self`.
 */
export function overlapOf(t: DesiredAccessToken, reason: Reason): number | undefined {
  return t.self || !OVERLAP_REASONS.has(reason) ? undefined : t.rotation?.overlapHours;
}

/**
 * The predecessors the state file records for the group's declared tokens, by id, with the name
 * they are recorded under: revoked before they expire, so not an expiry warning.
 */
export function retiringNames(ctx: InstanceContext, g: DesiredGroup): Map<number, string> {
  const state = tokenState(ctx);
  return new Map(g.accessTokens.flatMap((d) => (state.tokenSlot(ctx.instance.url, g.ref, d.name)?.retiring ?? []).map((r) => [r.id, d.name] as const)));
}
