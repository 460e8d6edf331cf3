/**
 * Pure rules for group access tokens: how a live token is classified, which live token a
 * declaration is, and what to do about it. No I/O here, so every rule can be tested on its own and
 * read in one place (docs/tokens.md describes the same rules).
 */
import type { GroupAccessToken } from '../../api/group-access-tokens.js';
import type { DesiredAccessToken } from './model.js';
import type { Reason } from '../../engine/plan.js';

export type LiveState = 'active' | 'revoked' | 'expired';

/**
 * From the list's own fields: `revoked` wins, then `active` (false and not revoked = expired).
 * The instance's clock decides expiry, not `--now`: a token the instance still accepts is active,
 * and rotation timing (which does use `--now`) takes care of it.
 */
export function liveState(t: Pick<GroupAccessToken, 'active' | 'revoked'>): LiveState {
  if (t.revoked) return 'revoked';
  if (t.active === false) return 'expired';
  return 'active';
}

export function isActive(t: Pick<GroupAccessToken, 'active' | 'revoked'>): boolean {
  return liveState(t) === 'active';
}

const DAY = 86_400_000;

function utc(date: string): number {
  const [y, m, d] = date.split('-').map(Number);
  return Date.UTC(y!, m! - 1, d!);
}

/** Whole days from `from` to `to` (both YYYY-MM-DD); negative when `to` is earlier. */
export { daysBetween } from '../../util/days.js';

const added = new Map<string, string>();

export function addDays(date: string, days: number): string {
  const key = `${date}+${days}`;
  let out = added.get(key);
  if (out === undefined) {
    out = new Date(utc(date) + days * DAY).toISOString().slice(0, 10);
    if (added.size > 10_000) added.clear();
    added.set(key, out);
  }
  return out;
}

/** Hours of a `rotation.overlap` (`2d`, `12h`; the schema's OVERLAP_PATTERN); undefined when it is not one. */
export function overlapHours(text: string): number | undefined {
  const m = /^([1-9]\d{0,4})([hd])$/.exec(text);
  return m ? Number(m[1]) * (m[2] === 'd' ? 24 : 1) : undefined;
}

/** An overlap as the configuration writes it: `2d`, `12h`. */
export function overlapText(hours: number): string {
  return hours % 24 === 0 ? `${hours / 24}d` : `${hours}h`;
}

/** When the predecessor of a successor delivered at `now` is due for revocation (ISO date-time). */
export function revokeDueAt(now: Date, hours: number): string {
  return new Date(now.getTime() + hours * 3_600_000).toISOString();
}

export function sameScopes(a: readonly string[], b: readonly string[]): boolean {
  const x = [...new Set(a)].sort();
  const y = [...new Set(b)].sort();
  return x.length === y.length && x.every((s, i) => s === y[i]);
}

/** The expiry a newly issued token gets: today + lifetime under a policy, else the fixed date. */
export function newExpiry(t: DesiredAccessToken, today: string): string {
  return t.rotation ? addDays(today, t.rotation.lifetimeDays) : t.expiresAt!;
}

export interface AttributeDiff {
  readonly name: 'scopes' | 'access_level' | 'description';
  readonly before: unknown;
  readonly after: unknown;
}

/**
 * Differences that need a new token (the interface has no update): scopes (as sets), access
 * level, and the description when one is declared (an omitted description is not managed).
 */
export function attributeDiffs(t: DesiredAccessToken, live: GroupAccessToken): AttributeDiff[] {
  const out: AttributeDiff[] = [];
  if (!sameScopes(t.scopes, live.scopes)) out.push({ name: 'scopes', before: [...live.scopes].sort(), after: [...t.scopes].sort() });
  if (live.access_level !== t.accessLevel) out.push({ name: 'access_level', before: live.access_level, after: t.accessLevel });
  if (t.description !== undefined && (live.description ?? '') !== t.description) {
    out.push({ name: 'description', before: live.description ?? '', after: t.description });
  }
  return out;
}

/** Why an active, matching token must be rotated, if it must. */
export function rotationReason(t: DesiredAccessToken, live: GroupAccessToken, today: string): Reason | undefined {
  if (t.rotation) {
    if (live.expires_at === null) return 'expiry-changed';
    // Dates compare as strings: "expires within N days" is "expires on or before today + N".
    if (live.expires_at <= addDays(today, t.rotation.rotateBeforeDays)) return 'expiring-soon';
    // A shortened lifetime: the live token outlives what the policy now allows.
    if (live.expires_at > addDays(today, t.rotation.lifetimeDays)) return 'expiry-changed';
    return undefined;
  }
  if (t.expiresAt !== undefined && live.expires_at !== t.expiresAt) return 'expiry-changed';
  return undefined;
}

export type Identity =
  /** Exactly one active token is the declaration. */
  | { readonly kind: 'found'; readonly live: GroupAccessToken; readonly staleId?: number }
  /** No active token: the most recent inactive one with the name, if any, says why. */
  | { readonly kind: 'absent'; readonly previous?: GroupAccessToken; readonly staleId?: number }
  | { readonly kind: 'ambiguous'; readonly candidates: readonly GroupAccessToken[] }
  /** `id:` names a token that has another name. */
  | { readonly kind: 'id-mismatch'; readonly live: GroupAccessToken };

/**
 * Which live token a declaration is: the group's active token with that name. `id:` pins one when
 * several share the name; a pin that no longer names an active token falls back to the name
 * (otherwise a replaced or rotated token would be re-created forever), reported as `staleId`.
 * Tokens in `exclude` (replaced ones plumb still has to revoke) are never the declaration.
 */
export function identify(t: Pick<DesiredAccessToken, 'name' | 'id'>, live: readonly GroupAccessToken[], exclude: ReadonlySet<number>): Identity {
  const sameName = live.filter((x) => x.name === t.name);
  let staleId: number | undefined;
  if (t.id !== undefined) {
    const pinned = live.find((x) => x.id === t.id);
    if (pinned && pinned.name !== t.name) return { kind: 'id-mismatch', live: pinned };
    if (pinned && isActive(pinned)) return { kind: 'found', live: pinned };
    staleId = t.id;
  }
  const actives = sameName.filter((x) => isActive(x) && !exclude.has(x.id));
  if (actives.length > 1) return { kind: 'ambiguous', candidates: actives };
  if (actives.length === 1) return { kind: 'found', live: actives[0]!, ...(staleId !== undefined && { staleId }) };
  const previous = sameName.filter((x) => !isActive(x)).sort((a, b) => b.id - a.id)[0];
  return { kind: 'absent', ...(previous && { previous }), ...(staleId !== undefined && { staleId }) };
}
