/**
 * Group access tokens: list (filters, sort, pagination), get, create, rotate (by id and `self`, with
 * reuse detection) and revoke. Tokens authenticate as their bot user, a member of the group at the
 * token's access level.
 */
import { randomBytes } from 'node:crypto';
import {
  ACCESS_LEVELS,
  DEFAULT_TOKEN_ACCESS_LEVEL,
  GROUP_TOKEN_SCOPES,
  LIMITS,
  TOKEN_LIST_STATES,
} from '../catalogue/index.js';
import { findGroup, revokeFamily, requireCaller, requireScope, type Caller } from './auth.js';
import {
  badRequest,
  json,
  noContent,
  notAllowed,
  notFound,
  paramErrors,
  unauthorized,
  type ApiResponse,
  type Params,
} from './http.js';
import { paginate, type PageRequest } from './pagination.js';
import { boolParam, enumParam, str, type Parsed } from './params.js';
import { effectiveSetting } from './settings.js';
import { tokenDigest, type EmulatorState, type GroupRecord, type TokenRecord } from './state.js';
import { addDays, isoDateTime, parseDate, parseDateTime } from './time.js';

export const ACCESS_LEVEL_VALUES: readonly number[] = Object.keys(ACCESS_LEVELS).map(Number);

export interface TokenCtx {
  readonly state: EmulatorState;
  readonly caller: Caller | null;
  readonly params: Params;
  readonly page: PageRequest;
}

// --- helpers -----------------------------------------------------------------------------------

/** The maximum token lifetime in days: max_personal_access_token_lifetime, 365 when blank. */
export function maxLifetimeDays(state: EmulatorState): number {
  const v = effectiveSetting(state, 'max_personal_access_token_lifetime');
  return typeof v === 'number' && v > 0 ? v : LIMITS.defaultLifetimeDays;
}

/** The fields every token response shares, personal or group (list, get, rotate, `…/self`). */
export function tokenFields(state: EmulatorState, token: TokenRecord, lastUsed: boolean): Record<string, unknown> {
  return {
    id: token.id,
    name: token.name,
    revoked: token.revoked,
    created_at: isoDateTime(token.createdAt),
    description: token.description,
    scopes: [...token.scopes],
    user_id: token.userId,
    ...(lastUsed && { last_used_at: token.lastUsedAt ? isoDateTime(token.lastUsedAt) : null }),
    active: state.isActive(token),
    expires_at: token.expiresAt,
  };
}

export function renderToken(
  state: EmulatorState,
  token: TokenRecord,
  opts: { lastUsed: boolean; secret?: string },
): Record<string, unknown> {
  const group = token.groupId === null ? undefined : state.groupById(token.groupId);
  return {
    ...tokenFields(state, token, opts.lastUsed),
    access_level: group?.members.get(token.userId) ?? null,
    ...(opts.secret !== undefined && { token: opts.secret }),
  };
}

/** Owner (not a bot) or administrator. */
function canManage(state: EmulatorState, caller: Caller, group: GroupRecord): boolean {
  if (caller.admin) return true;
  if (caller.user.bot) return false;
  return state.groupAccess(caller.user.id, group) >= 50;
}

function groupTokens(state: EmulatorState, group: GroupRecord): TokenRecord[] {
  return state.tokens.filter((t) => t.kind === 'group' && t.groupId === group.id);
}

function findToken(state: EmulatorState, group: GroupRecord, ref: string): TokenRecord | undefined {
  if (!/^\d+$/.test(ref)) return undefined;
  return groupTokens(state, group).find((t) => t.id === Number(ref));
}


/**
 * A `Date` parameter as Grape coerces it (`Date.parse`): a date, or a datetime whose date part is
 * taken as written (`2026-03-01T23:30:00-05:00` is 2026-03-01, the zone is not applied).
 */
function dateParam(params: Params, name: string): Parsed<string> {
  const raw = params[name];
  if (raw === undefined || raw === null || raw === '') return {};
  const s = str(raw)?.trim();
  const d = s === undefined ? undefined : s.length > 10 ? (parseDateTime(s) && parseDate(s.slice(0, 10))) : parseDate(s);
  return d === undefined ? { error: `${name} is invalid` } : { value: d };
}

function dateTimeParam(params: Params, name: string): Parsed<Date> {
  const raw = params[name];
  if (raw === undefined || raw === null || raw === '') return {};
  const s = str(raw);
  const d = s === undefined ? undefined : parseDateTime(s);
  return d === undefined ? { error: `${name} is invalid` } : { value: d };
}

/**
 * Expiry validation shared by create and rotate; returns an error message or undefined. The date
 * must be in the future: a token expires at 00:00 UTC of its `expires_at` day, so today is already
 * past (such a token would be born expired).
 */
function expiryError(state: EmulatorState, expiresAt: string): string | undefined {
  if (expiresAt <= state.today()) return 'Expires at cannot be in the past';
  const max = addDays(state.now(), maxLifetimeDays(state));
  if (expiresAt > max) return `Expires at must be before ${max}`;
  return undefined;
}

// --- list ---------------------------------------------------------------------------------------

export function listTokens(ctx: TokenCtx, groupRef: string): ApiResponse {
  const { state, params } = ctx;
  const caller = requireCaller(ctx.caller);
  const errors: string[] = [];
  const take = <T>(p: Parsed<T>): T | undefined => {
    if (p.error) errors.push(p.error);
    return p.value;
  };
  const createdAfter = take(dateTimeParam(params, 'created_after'));
  const createdBefore = take(dateTimeParam(params, 'created_before'));
  const expiresAfter = take(dateParam(params, 'expires_after'));
  const expiresBefore = take(dateParam(params, 'expires_before'));
  const lastUsedAfter = take(dateTimeParam(params, 'last_used_after'));
  const lastUsedBefore = take(dateTimeParam(params, 'last_used_before'));
  const revoked = take(boolParam(params, 'revoked'));
  // A free string in the real API (no `values:`): an order it does not know leaves the default one.
  const sortParam = params['sort'] === undefined || params['sort'] === null ? undefined : str(params['sort']);
  const stateFilter = take(enumParam(params, 'state', TOKEN_LIST_STATES));
  const search = params['search'] === undefined ? undefined : (str(params['search']) ?? '');
  if (errors.length > 0) throw paramErrors(errors);
  const group = findGroup(state, caller, groupRef);
  if (!canManage(state, caller, group)) throw unauthorized();

  let tokens = groupTokens(state, group);
  if (stateFilter === 'active') tokens = tokens.filter((t) => state.isActive(t));
  if (stateFilter === 'inactive') tokens = tokens.filter((t) => !state.isActive(t));
  if (revoked !== undefined) tokens = tokens.filter((t) => t.revoked === revoked);
  if (search) tokens = tokens.filter((t) => t.name.toLowerCase().includes(search.toLowerCase()));
  if (createdAfter) tokens = tokens.filter((t) => t.createdAt >= createdAfter);
  if (createdBefore) tokens = tokens.filter((t) => t.createdAt <= createdBefore);
  if (expiresAfter) tokens = tokens.filter((t) => t.expiresAt !== null && t.expiresAt >= expiresAfter);
  if (expiresBefore) tokens = tokens.filter((t) => t.expiresAt !== null && t.expiresAt < expiresBefore);
  if (lastUsedAfter) tokens = tokens.filter((t) => t.lastUsedAt !== null && t.lastUsedAt >= lastUsedAfter);
  if (lastUsedBefore) tokens = tokens.filter((t) => t.lastUsedAt !== null && t.lastUsedAt <= lastUsedBefore);

  const byId = (a: TokenRecord, b: TokenRecord): number => a.id - b.id;
  // As the real scopes order in PostgreSQL: nulls last ascending and first descending; the expiry
  // and last-use sorts break ties by id descending (`reorder(expires_at: :asc, id: :desc)`), the
  // creation and name sorts name no tie-break, so ties keep id order (ascending).
  const sortBy = <T>(get: (t: TokenRecord) => T | null, cmp: (x: T, y: T) => number, dir: 1 | -1, tie: 1 | -1) =>
    (a: TokenRecord, b: TokenRecord): number => {
      const x = get(a);
      const y = get(b);
      const tied = (a.id - b.id) * tie;
      if (x === null && y === null) return tied;
      if (x === null) return dir;
      if (y === null) return -dir;
      return cmp(x, y) * dir || tied;
    };
  const time = (x: Date, y: Date): number => x.getTime() - y.getTime();
  const text = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0);
  const sorters: Record<string, (a: TokenRecord, b: TokenRecord) => number> = {
    created_asc: sortBy((t) => t.createdAt, time, 1, 1),
    created_desc: sortBy((t) => t.createdAt, time, -1, 1),
    // The other simple sorts of the real model (Sortable): creation by its column name, and id.
    created_at_asc: sortBy((t) => t.createdAt, time, 1, 1),
    created_at_desc: sortBy((t) => t.createdAt, time, -1, 1),
    id_asc: byId,
    id_desc: (a, b) => b.id - a.id,
    expires_asc: sortBy((t) => t.expiresAt, text, 1, -1),
    expires_desc: sortBy((t) => t.expiresAt, text, -1, -1),
    last_used_asc: sortBy((t) => t.lastUsedAt, time, 1, -1),
    last_used_desc: sortBy((t) => t.lastUsedAt, time, -1, -1),
    name_asc: sortBy((t) => t.name.toLowerCase(), text, 1, 1),
    name_desc: sortBy((t) => t.name.toLowerCase(), text, -1, 1),
  };
  tokens = [...tokens].sort((sortParam !== undefined && Object.hasOwn(sorters, sortParam) ? sorters[sortParam] : undefined) ?? byId);
  const page = paginate(tokens, ctx.page);
  return json(
    200,
    page.items.map((t) => renderToken(state, t, { lastUsed: true })),
    page.headers,
  );
}

// --- get ----------------------------------------------------------------------------------------

export function getToken(ctx: TokenCtx, groupRef: string, tokenRef: string): ApiResponse {
  const caller = requireCaller(ctx.caller);
  const group = findGroup(ctx.state, caller, groupRef);
  if (!canManage(ctx.state, caller, group)) throw unauthorized();
  const token = findToken(ctx.state, group, tokenRef);
  if (!token) throw notFound('group Access Token');
  return json(200, renderToken(ctx.state, token, { lastUsed: false }));
}

// --- create -------------------------------------------------------------------------------------

export function createToken(ctx: TokenCtx, groupRef: string): ApiResponse {
  const { state, params } = ctx;
  const caller = requireCaller(ctx.caller);

  // Parameter validation (API layer), before the group is looked up.
  const errors: string[] = [];
  const name = params['name'];
  if (name === undefined) errors.push('name is missing');
  else if (str(name) === undefined) errors.push('name is invalid');
  const description = params['description'];
  if (description !== undefined && description !== null && str(description) === undefined) {
    errors.push('description is invalid');
  }
  let scopes: string[] | undefined;
  const rawScopes = params['scopes'];
  if (rawScopes === undefined) errors.push('scopes is missing');
  else {
    const items = Array.isArray(rawScopes)
      ? rawScopes
      : typeof rawScopes === 'string'
        ? rawScopes.split(',').map((s) => s.trim()).filter(Boolean)
        : undefined;
    if (!items || !items.every((s) => typeof s === 'string')) errors.push('scopes is invalid');
    else if (!items.every((s) => (GROUP_TOKEN_SCOPES as readonly string[]).includes(s as string))) {
      errors.push('scopes does not have a valid value');
    } else scopes = [...new Set(items as string[])];
  }
  const expires = dateParam(params, 'expires_at');
  if (expires.error) errors.push(expires.error);
  let accessLevel: number = DEFAULT_TOKEN_ACCESS_LEVEL;
  const rawLevel = params['access_level'];
  if (rawLevel !== undefined && rawLevel !== null && rawLevel !== '') {
    const s = str(rawLevel);
    if (s === undefined || !/^\s*\d+\s*$/.test(s)) errors.push('access_level is invalid');
    else if (!ACCESS_LEVEL_VALUES.includes(Number(s))) errors.push('access_level does not have a valid value');
    else accessLevel = Number(s);
  }
  if (errors.length > 0) throw paramErrors(errors);

  // Service layer.
  const group = findGroup(state, caller, groupRef);
  if (!canManage(state, caller, group)) throw badRequest('User does not have permission to create group access token');
  if (!caller.admin && accessLevel > state.groupAccess(caller.user.id, group)) {
    throw badRequest('Access level of the token contains permissions not held by the creating user');
  }
  const tokenName = str(name)!;
  const model: string[] = [];
  if (tokenName.trim() === '') model.push("Name can't be blank");
  if (!scopes || scopes.length === 0) model.push("Scopes can't be blank");
  const expiresAt = expires.value ?? addDays(state.now(), maxLifetimeDays(state));
  const expiryProblem = expiryError(state, expiresAt);
  if (expiryProblem) model.push(expiryProblem);
  if (model.length > 0) throw badRequest(toSentence(model));

  const suffix = randomBytes(4).toString('hex');
  const bot = {
    id: state.nextId('user'),
    username: `group_${group.id}_bot_${suffix}`,
    name: tokenName,
    email: `group_${group.id}_bot_${suffix}@noreply.example.test`,
    admin: false,
    bot: true,
    createdAt: state.now(),
  };
  state.users.push(bot);
  group.members.set(bot.id, accessLevel);
  const secret = state.generateTokenValue();
  const token: TokenRecord = {
    id: state.nextId('token'),
    userId: bot.id,
    name: tokenName,
    description: description === undefined || description === null ? null : str(description)!,
    scopes: scopes!,
    digest: tokenDigest(secret),
    createdAt: state.now(),
    expiresAt,
    revoked: false,
    revokedAt: null,
    lastUsedAt: null,
    previousId: null,
    kind: 'group',
    groupId: group.id,
  };
  state.tokens.push(token);
  return json(201, renderToken(state, token, { lastUsed: true, secret }));
}

function toSentence(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

// --- rotate -------------------------------------------------------------------------------------

export function rotateToken(ctx: TokenCtx, groupRef: string, tokenRef: string): ApiResponse {
  const { state, params } = ctx;
  const caller = requireCaller(ctx.caller);
  const self = tokenRef === 'self';
  // Before scopes (section 7): `self` needs an access token (405 otherwise), and an access token
  // never rotates another token by id (401), whatever their scopes.
  if (self && (caller.token.kind !== 'group' || !caller.user.bot)) throw notAllowed();
  if (!self && caller.token.kind === 'group') throw unauthorized();
  requireScope(caller, self ? ['api', 'self_rotate'] : ['api']);
  const expires = dateParam(params, 'expires_at');
  if (expires.error) throw paramErrors([expires.error]);

  let token: TokenRecord | undefined;
  let group: GroupRecord;
  if (self) {
    group = findGroup(state, caller, groupRef);
    token = caller.token.groupId === group.id ? caller.token : undefined;
    if (!token) throw unauthorized();
  } else {
    group = findGroup(state, caller, groupRef);
    // A group access token cannot rotate another one; callers without access learn nothing.
    token = canManage(state, caller, group) ? findToken(state, group, tokenRef) : undefined;
    if (!token) throw caller.admin ? notFound() : unauthorized();
    if (token.revoked) {
      // Reuse attempt: the whole family goes.
      revokeFamily(state, token);
      throw unauthorized();
    }
    if (state.isExpired(token)) throw unauthorized();
  }

  let expiresAt = expires.value;
  if (expiresAt === undefined) {
    expiresAt =
      effectiveSetting(state, 'require_personal_access_token_expiry') === true
        ? addDays(state.now(), LIMITS.rotationDefaultExpiryDays)
        : addDays(state.now(), maxLifetimeDays(state));
  }
  const problem = expiryError(state, expiresAt);
  if (problem) throw badRequest(problem);

  state.revoke(token);
  const secret = state.generateTokenValue();
  const next: TokenRecord = {
    ...token,
    id: state.nextId('token'),
    scopes: [...token.scopes],
    digest: tokenDigest(secret),
    createdAt: state.now(),
    expiresAt,
    revoked: false,
    revokedAt: null,
    lastUsedAt: null,
    previousId: token.id,
  };
  state.tokens.push(next);
  return json(200, renderToken(state, next, { lastUsed: true, secret }));
}

// --- revoke -------------------------------------------------------------------------------------

export function revokeToken(ctx: TokenCtx, groupRef: string, tokenRef: string): ApiResponse {
  const { state } = ctx;
  const caller = requireCaller(ctx.caller);
  const group = findGroup(state, caller, groupRef);
  const token = findToken(state, group, tokenRef);
  if (!token) throw notFound('group Access Token');
  if (!canManage(state, caller, group)) {
    const bot = state.userById(token.userId);
    throw badRequest(`${caller.user.name} cannot delete ${bot?.name ?? token.name}`);
  }
  // Spec section 7: "400 when not revoked successfully"; a revoked token cannot be revoked again.
  if (token.revoked) throw badRequest(`Access token ${token.name} is already revoked`);
  state.revoke(token);
  return noContent();
}

// --- instance policy ----------------------------------------------------------------------------

/**
 * Lowering max_personal_access_token_lifetime revokes active tokens that expire beyond the new
 * limit (or never).
 */
export function enforceMaxLifetime(state: EmulatorState): number {
  const v = effectiveSetting(state, 'max_personal_access_token_lifetime');
  if (typeof v !== 'number' || v <= 0) return 0;
  const limit = addDays(state.now(), v);
  let revoked = 0;
  for (const t of state.tokens) {
    if (!state.isActive(t)) continue;
    if (t.expiresAt === null || t.expiresAt > limit) {
      state.revoke(t);
      revoked++;
    }
  }
  return revoked;
}

/** The daily clean-up of group access tokens inactive longer than the instance setting. */
export function purgeInactiveTokens(state: EmulatorState): void {
  const days = effectiveSetting(state, 'inactive_resource_access_tokens_delete_after_days');
  if (typeof days === 'number' && days >= 0) state.purgeInactiveTokens(days);
}
