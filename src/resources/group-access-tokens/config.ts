/**
 * The group access tokens' part of resolving a configuration: `instances.<name>.groups.<ref>`
 * (`access_tokens`, `prune_access_tokens`), and the checks across groups and instances.
 */
import path from 'node:path';
import { ACCESS_LEVELS, GROUP_TOKEN_SCOPES } from '../../catalogue/index.js';
import type { InstanceClaim, KindConfig, KindSchema, ResolveAt } from '../../config/kinds.js';
import { ciVariableClaim } from '../../catalogue/ci-variables.js';
import type { DesiredInstance, DesiredValue } from '../../config/model.js';
import type { CiVariableSink, DesiredAccessToken, DesiredGroup, TokenSink } from './model.js';
import { groupsOf } from './model.js';
import { accessTokenSchema, groupTokenProperties } from './schema.js';
import { joinPointer, splitPointer } from '../../config/pointer.js';
import type { KindPointer } from '../../config/pointer.js';
import { at, obj, outsideRoot, protectedFile, protectedFiles, push, relativeToFile } from '../../config/resolve-context.js';
import type { Ctx } from '../../config/resolve-context.js';
import { closestMatch } from '../../util/suggest.js';
import { overlapHours, overlapText } from './identity.js';
import { describeVariable, variableSinkId } from './variable-address.js';

/** Each token is defined in one place only. */
export const TOKEN_POINTERS: readonly KindPointer[] = [
  { pattern: ['instances', '*', 'groups', '*', 'access_tokens', '*'], resource: true, describe: (s) => `access token "${s[5]}" of group "${s[3]}"` },
];

export function resolveGroup(ref: string, raw: Record<string, unknown>, p: string, ctx: Ctx): DesiredGroup {
  const tokens: DesiredAccessToken[] = [];
  for (const [name, t] of Object.entries(obj(raw.access_tokens))) {
    const token = resolveToken(name, obj(t), joinPointer(p, 'access_tokens', name), ctx);
    if (token) tokens.push(token);
  }
  const selfTokens = tokens.filter((t) => t.self);
  if (selfTokens.length > 1) {
    push(ctx, {
      severity: 'error',
      code: 'PLUMB_TOKEN_SELF_TWICE',
      summary: `Group "${ref}" marks ${selfTokens.length} tokens as plumb's own credential`,
      suggestion: 'mark only the token plumb authenticates with as `self: true`',
      pointer: selfTokens[1]!.pointer,
      on: 'key',
    });
  }
  if (raw.prune_access_tokens === true && Object.keys(obj(raw.access_tokens)).length === 0) {
    push(ctx, {
      severity: 'warning',
      code: 'PLUMB_PRUNE_ALL_TOKENS',
      summary: `prune_access_tokens is on for group "${ref}", which declares no access token: apply revokes every active token of the group`,
      detail: 'Pruning revokes the active tokens of the group that the configuration does not declare; with none declared, that is all of them.',
      suggestion: 'declare the tokens to keep under access_tokens, or set prune_access_tokens: false',
      pointer: joinPointer(p, 'prune_access_tokens'),
    });
  }
  return { ref, pointer: p, pruneAccessTokens: raw.prune_access_tokens === true, accessTokens: tokens };
}

/**
 * Checks across groups and instances: plumb authenticates to an instance with one credential, so
 * at most one token per instance can be `self`; and two tokens delivering into the same file would
 * overwrite each other's secret.
 */
export function checkTokenSinksAndSelf(instances: readonly DesiredInstance[], ctx: Ctx): void {
  const files = new Map<string, { token: DesiredAccessToken; instance: string; pointer: string }>();
  const variables = new Map<string, { token: DesiredAccessToken; pointer: string }>();
  let guarded: Map<string, string> | undefined;
  for (const inst of instances) {
    const selfTokens = groupsOf(inst).flatMap((g) => g.accessTokens.filter((t) => t.self));
    const groupsWithSelf = new Set(groupsOf(inst).filter((g) => g.accessTokens.some((t) => t.self)).map((g) => g.ref));
    if (selfTokens.length > 1 && groupsWithSelf.size > 1) {
      push(ctx, {
        severity: 'error',
        code: 'PLUMB_TOKEN_SELF_TWICE',
        summary: `Instance "${inst.name}" marks tokens in ${groupsWithSelf.size} groups as plumb's own credential`,
        detail: `plumb authenticates to an instance with one credential (the variable named by token_env), so only one token can be it.`,
        suggestion: 'mark only the token plumb authenticates with as `self: true`',
        pointer: selfTokens[1]!.pointer,
        on: 'key',
      });
    }
    for (const g of groupsOf(inst)) {
      for (const t of g.accessTokens) {
        for (const sink of t.sinks) {
          if (sink.kind === 'ci_variable') checkVariableSink(t, sink, inst, instances, variables, ctx);
          if (sink.kind === 'file') checkFileSink(t, sink, inst);
        }
      }
    }
  }

  function checkFileSink(t: DesiredAccessToken, sink: Extract<TokenSink, { kind: 'file' }>, inst: DesiredInstance): void {
    const sp = sink.pointer ?? joinPointer(t.pointer, 'sink');
    const outside = ctx.sinkRoot !== undefined ? outsideRoot(sink.path, ctx.sinkRoot) : undefined;
    if (outside) {
      push(ctx, {
        severity: 'error',
        code: 'PLUMB_TOKEN_SINK_FORBIDDEN',
        summary: `Token "${t.name}" would write its secret outside the configuration root: ${outside}`,
        detail: 'Under Terraform a sink file (from the configuration or from an import id) must lie inside the configuration root, the Git work tree holding the working directory (else that directory), like every other local file the configuration names.',
        suggestion: 'write the path relative to the working directory, inside it, e.g. `secrets/NAME.token` (and ignore secrets/ in Git); deliver elsewhere with `sink { command = [...] }`',
        pointer: joinPointer(sp, 'file'),
      });
      return;
    }
    const over = protectedFile(sink.path, (guarded ??= protectedFiles(ctx)));
    if (over) {
      push(ctx, {
        severity: 'error',
        code: 'PLUMB_TOKEN_SINK_FORBIDDEN',
        summary: `Token "${t.name}" would write its secret over ${over}`,
        detail: 'apply writes the secret into the sink file: over committed configuration, a file plumb publishes, or Git\'s own files, where the next commit, plan or clone would carry it.',
        suggestion: 'deliver the secret into a file of its own outside the configuration and .git/, e.g. `sink: {file: secrets/NAME.token}` (and ignore secrets/ in Git)',
        pointer: joinPointer(sp, 'file'),
      });
      return;
    }
    const seen = files.get(sink.path);
    if (seen) {
      const first = seen.token;
      const across = seen.instance !== inst.name;
      // Two groups (a selector's matches, whose sink is one line): each named by its group.
      const groupOf = (p: string) => splitPointer(p)[3] ?? '';
      const inGroups = !across && groupOf(first.pointer) !== groupOf(t.pointer);
      const name = (n: string, i: string, p: string) => (across ? `"${n}" of instance "${i}"` : inGroups ? `"${n}" of group "${groupOf(p)}"` : `"${n}"`);
      push(ctx, {
        severity: 'error',
        code: 'PLUMB_TOKEN_SINK_SHARED',
        summary: `Tokens ${name(first.name, seen.instance, first.pointer)} and ${name(t.name, inst.name, t.pointer)} deliver their secrets into the same file`,
        detail: 'The second secret would overwrite the first, and the first token would be unusable.',
        suggestion: across ? 'give each token its own file: in a token shared through defaults, `{instance}` in the path is the instance\'s name (file: "secrets/{instance}-ci.token", quoted)' : inGroups ? 'give each token its own file: in a token of a selector, `{group}` in the path is the group\'s full path (file: "secrets/{group}/ci.token", quoted)' : 'give each token its own file',
        pointer: joinPointer(sp, 'file'),
        related: [{ message: `${name(first.name, seen.instance, first.pointer)} writes it here`, location: at(ctx, joinPointer(seen.pointer, 'file')) }],
      });
    } else files.set(sink.path, { token: t, instance: inst.name, pointer: sp });
  }
}

/**
 * A ci_variable sink on another instance names one the configuration declares (its URL pin and
 * credential are the only ones plumb will send there); two sinks never deliver into one variable
 * (the second secret would overwrite the first).
 */
function checkVariableSink(
  t: DesiredAccessToken,
  sink: CiVariableSink,
  inst: DesiredInstance,
  instances: readonly DesiredInstance[],
  variables: Map<string, { token: DesiredAccessToken; pointer: string }>,
  ctx: Ctx,
): void {
  const sp = sink.pointer ?? joinPointer(t.pointer, 'sink');
  if (sink.instance !== undefined && !instances.some((i) => i.name === sink.instance)) {
    const names = instances.map((i) => i.name);
    const guess = closestMatch(sink.instance, names);
    push(ctx, {
      severity: 'error',
      code: 'PLUMB_SINK_INSTANCE_UNKNOWN',
      summary: `The ci_variable sink of token "${t.name}" names instance "${sink.instance}", which the configuration does not declare`,
      detail: 'A sink on another instance is reached only with that instance\'s own URL pin and credential, so the instance must be declared in this configuration.',
      suggestion: guess ? `did you mean "${guess}"?` : `declare the instance under instances:, or use one of: ${names.join(', ')}`,
      pointer: joinPointer(sp, 'ci_variable', 'instance'),
    });
    return;
  }
  const id = variableSinkId(inst.name, sink);
  const seen = variables.get(id);
  if (seen) {
    push(ctx, {
      severity: 'error',
      code: 'PLUMB_SINK_VARIABLE_SHARED',
      summary: `Tokens "${seen.token.name}" and "${t.name}" deliver into the same CI/CD variable ${describeVariable(inst.name, sink)}`,
      detail: 'The second secret would overwrite the first one in the variable.',
      suggestion: 'give each sink its own key (or environment_scope)',
      pointer: joinPointer(sp, 'ci_variable', 'key'),
      related: [{ message: `"${seen.token.name}" delivers there`, location: at(ctx, joinPointer(seen.pointer, 'ci_variable', 'key')) }],
    });
  } else variables.set(id, { token: t, pointer: sp });
}

/**
 * A declared token must fit the instance's declared maximum lifetime
 * (`max_personal_access_token_lifetime`, which also bounds group access tokens): the instance
 * refuses to issue one beyond it, and lowering the limit revokes the live tokens beyond it.
 */
export function checkTokenLifetimes(instances: readonly DesiredInstance[], ctx: Ctx): void {
  for (const inst of instances) {
    // The instance's declared limit, read from the application settings' part by its kind name
    // (a kind never imports another; config/model.ts's DesiredValue is the shared shape).
    const limit = (inst.resources.get('application_settings') as ReadonlyMap<string, DesiredValue> | undefined)?.get('max_personal_access_token_lifetime');
    if (!limit || limit.secret || typeof limit.value !== 'number' || !Number.isInteger(limit.value) || limit.value < 1) continue;
    const days = limit.value;
    const latest = addDays(ctx.today, days);
    for (const g of groupsOf(inst)) {
      for (const t of g.accessTokens) {
        const related = [{ message: `max_personal_access_token_lifetime is ${days} day(s) here`, location: at(ctx, limit.pointer, 'key') }];
        if (t.rotation && t.rotation.lifetimeDays > days) {
          push(ctx, {
            severity: 'error',
            code: 'PLUMB_TOKEN_BEYOND_MAX_LIFETIME',
            summary: `Token "${t.name}" of group "${g.ref}" rotates to a lifetime of ${t.rotation.lifetimeDays} days, beyond the instance's max_personal_access_token_lifetime (${days})`,
            detail: 'The instance refuses to issue a token beyond its maximum lifetime, and lowering the limit revokes every live token that outlives it.',
            suggestion: `set lifetime_days to ${days} or less, or raise max_personal_access_token_lifetime`,
            pointer: joinPointer(t.pointer, 'rotation', 'lifetime_days'),
            related,
          });
        } else if (t.expiresAt !== undefined && t.expiresAt > latest) {
          push(ctx, {
            severity: 'error',
            code: 'PLUMB_TOKEN_BEYOND_MAX_LIFETIME',
            summary: `Token "${t.name}" of group "${g.ref}" expires on ${t.expiresAt}, after ${latest}, the latest date max_personal_access_token_lifetime (${days} days) allows`,
            detail: 'The instance refuses to issue a token beyond its maximum lifetime, and lowering the limit revokes every live token that outlives it.',
            suggestion: `choose an expires_at on or before ${latest}, or raise max_personal_access_token_lifetime`,
            pointer: joinPointer(t.pointer, 'expires_at'),
            related,
          });
        }
      }
    }
  }
}

function addDays(day: string, n: number): string {
  return new Date(Date.parse(day + 'T00:00:00Z') + n * 86_400_000).toISOString().slice(0, 10);
}

const ROLE_TO_LEVEL: Record<string, number> = Object.fromEntries(Object.entries(ACCESS_LEVELS).map(([n, r]) => [r, Number(n)]));

function resolveToken(name: string, raw: Record<string, unknown>, p: string, ctx: Ctx): DesiredAccessToken | undefined {
  if (name.trim() === '') {
    push(ctx, {
      severity: 'error',
      code: 'PLUMB_TOKEN_NAME_EMPTY',
      summary: 'A token has an empty name',
      detail: 'A declared token is the group\'s active token with that name; the instance refuses a token without one.',
      suggestion: 'give the token a name (the key under access_tokens)',
      pointer: p,
      on: 'key',
    });
  }
  const scopes = Array.isArray(raw.scopes) ? raw.scopes.filter((s): s is string => typeof s === 'string') : [];
  scopes.forEach((s, i) => {
    if (!(GROUP_TOKEN_SCOPES as readonly string[]).includes(s)) {
      const guess = (GROUP_TOKEN_SCOPES as readonly string[]).find((k) => k === s.toLowerCase()) ?? closestMatch(s.toLowerCase(), GROUP_TOKEN_SCOPES);
      push(ctx, {
        severity: 'warning',
        code: 'PLUMB_TOKEN_SCOPE_UNKNOWN',
        summary: `Scope "${s}" is not a known group access token scope`,
        detail: `Known scopes: ${GROUP_TOKEN_SCOPES.join(', ')}. Newer instances may accept more; the instance decides.`,
        suggestion: guess ? `did you mean "${guess}"?` : 'check the scope name',
        pointer: joinPointer(p, 'scopes', i),
      });
    }
  });
  const hasExpiry = raw.expires_at !== undefined;
  const hasRotation = raw.rotation !== undefined;
  if (hasExpiry === hasRotation) {
    push(ctx, {
      severity: 'error',
      code: hasExpiry ? 'PLUMB_TOKEN_EXPIRY_BOTH' : 'PLUMB_TOKEN_EXPIRY_MISSING',
      summary: hasExpiry
        ? `Token "${name}" has both a fixed expires_at and a rotation policy`
        : `Token "${name}" has neither expires_at nor a rotation policy`,
      suggestion: 'keep exactly one: `expires_at: YYYY-MM-DD` or `rotation: {lifetime_days: 90, rotate_before_days: 14}`',
      pointer: p,
      on: 'key',
    });
  }
  let expiresAt: string | undefined;
  if (typeof raw.expires_at === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(raw.expires_at)) {
    const ep = joinPointer(p, 'expires_at');
    if (!isRealDate(raw.expires_at)) {
      push(ctx, { severity: 'error', code: 'PLUMB_DATE_INVALID', summary: `"${raw.expires_at}" is not a calendar date`, suggestion: 'use an existing date, YYYY-MM-DD', pointer: ep });
    } else if (raw.expires_at <= ctx.today) {
      push(ctx, {
        severity: 'error',
        code: 'PLUMB_TOKEN_EXPIRES_IN_PAST',
        summary: `Token "${name}" would expire on ${raw.expires_at}, which is not after today (${ctx.today})`,
        suggestion: 'choose a future date, or use a rotation policy',
        pointer: ep,
      });
    }
    expiresAt = raw.expires_at;
  }
  let rotation: DesiredAccessToken['rotation'];
  const rot = obj(raw.rotation);
  if (typeof rot.lifetime_days === 'number') {
    const before = typeof rot.rotate_before_days === 'number' ? rot.rotate_before_days : 7;
    // Out-of-range values are reported by the schema; comparing them too would be a second error.
    const inRange = (v: number, lo: number, hi: number) => Number.isInteger(v) && v >= lo && v <= hi;
    if (before >= rot.lifetime_days && inRange(rot.lifetime_days, 1, 400) && inRange(before, 1, 399)) {
      push(ctx, {
        severity: 'error',
        code: 'PLUMB_TOKEN_ROTATION_WINDOW',
        summary: `rotate_before_days (${before}) must be smaller than lifetime_days (${rot.lifetime_days})`,
        detail: 'Otherwise every run would rotate the token again.',
        suggestion: 'shorten rotate_before_days or lengthen lifetime_days',
        pointer: joinPointer(p, 'rotation', rot.rotate_before_days === undefined ? 'lifetime_days' : 'rotate_before_days'),
      });
    }
    const overlap = typeof rot.overlap === 'string' ? overlapHours(rot.overlap) : undefined;
    rotation = { lifetimeDays: rot.lifetime_days, rotateBeforeDays: before, ...(overlap !== undefined && { overlapHours: overlap }) };
    if (overlap !== undefined) checkOverlap(name, raw, overlap, before, p, ctx);
  }
  const sinks = resolveSinks(name, raw, p, ctx);
  const self = raw.self === true;
  if (self && !scopes.includes('api') && !scopes.includes('self_rotate')) {
    push(ctx, {
      severity: 'error',
      code: 'PLUMB_TOKEN_SELF_SCOPE',
      summary: `Token "${name}" is marked self but can rotate itself only with scope api or self_rotate`,
      suggestion: 'add "self_rotate" to its scopes',
      pointer: raw.scopes === undefined ? p : joinPointer(p, 'scopes'),
      on: raw.scopes === undefined ? 'key' : 'value',
    });
  } else if (self && !scopes.includes('api') && !scopes.includes('read_api')) {
    // plumb lists the group before it plans anything, and a rotation keeps the scopes.
    push(ctx, {
      severity: 'error',
      code: 'PLUMB_TOKEN_SELF_SCOPE',
      summary: `Token "${name}" is plumb's own credential but cannot list the group's tokens, which plumb does before every plan`,
      detail: 'self_rotate lets a token rotate itself; reading the group needs read_api (or api).',
      suggestion: 'add "read_api" to its scopes',
      pointer: joinPointer(p, 'scopes'),
      on: 'value',
    });
  }
  const level = typeof raw.access_level === 'number' ? raw.access_level : typeof raw.access_level === 'string' ? ROLE_TO_LEVEL[raw.access_level] : 40;
  return {
    name,
    pointer: p,
    id: typeof raw.id === 'number' && Number.isInteger(raw.id) ? raw.id : undefined,
    description: typeof raw.description === 'string' ? raw.description : undefined,
    scopes,
    accessLevel: level ?? 40,
    expiresAt,
    rotation,
    sinks,
    self,
  };
}

/**
 * `rotation.overlap` (docs/tokens.md#overlap-window): the predecessor lives on for the overlap after
 * its successor was delivered, so the overlap must end before it expires. It is rotated at the
 * latest `rotate_before_days` before its expiry (earlier when apply runs daily), so the overlap must
 * be shorter than `rotate_before_days`. plumb's own credential rotates through `self`, which
 * revokes the old secret at once: no overlap there.
 */
function checkOverlap(name: string, raw: Record<string, unknown>, hours: number, beforeDays: number, p: string, ctx: Ctx): void {
  const pointer = joinPointer(p, 'rotation', 'overlap');
  if (raw.self === true) {
    push(ctx, {
      severity: 'error',
      code: 'PLUMB_TOKEN_OVERLAP',
      summary: `Token "${name}" is plumb's own credential, which rotates through \`self\`: the old secret is revoked at once, so it cannot have an overlap`,
      suggestion: 'remove rotation.overlap from this token',
      pointer,
    });
  } else if (hours >= beforeDays * 24) {
    push(ctx, {
      severity: 'error',
      code: 'PLUMB_TOKEN_OVERLAP',
      summary: `rotation.overlap (${overlapText(hours)}) of token "${name}" must be shorter than rotate_before_days (${beforeDays} day(s))`,
      detail: 'plumb rotates the token when it expires within rotate_before_days; the old token must outlive the overlap, or it expires before its revocation is due.',
      suggestion: `shorten the overlap (e.g. ${overlapText(Math.max(1, Math.floor((beforeDays * 24) / 2)))}) or lengthen rotate_before_days`,
      pointer,
    });
  }
}

/**
 * The token's sinks: `sink:` (one) or `sinks: [...]` (several), each with its own pointer. Both at
 * once is an error at the second key; neither is the missing-sink error.
 */
function resolveSinks(name: string, raw: Record<string, unknown>, p: string, ctx: Ctx): TokenSink[] {
  if (raw.sink !== undefined && raw.sinks !== undefined) {
    push(ctx, {
      severity: 'error',
      code: 'PLUMB_TOKEN_SINKS_BOTH',
      summary: `Token "${name}" has both \`sink:\` and \`sinks:\``,
      detail: '`sink:` is the one-sink form, `sinks: [...]` the list; plumb will not guess which one you mean.',
      suggestion: 'move the `sink:` mapping into the `sinks:` list, or keep only one of them',
      pointer: joinPointer(p, 'sinks'),
      on: 'key',
    });
    return [];
  }
  if (raw.sink === undefined && raw.sinks === undefined) {
    push(ctx, {
      severity: 'error',
      code: 'PLUMB_TOKEN_SINK_MISSING',
      summary: `Token "${name}" has no sink for its secret`,
      detail: 'The instance shows a token secret exactly once, when it is created or rotated; plumb must know where to deliver it before it asks for one.',
      suggestion: 'add `sink: {file: secrets/NAME.token}`, `sink: {command: [...]}`, `sink: {stdout: true}` or `sink: {ci_variable: {project: PATH, key: KEY}}`',
      pointer: p,
      on: 'key',
    });
    return [];
  }
  const places = raw.sink !== undefined ? [{ value: raw.sink, pointer: joinPointer(p, 'sink') }] : (Array.isArray(raw.sinks) ? raw.sinks : []).map((value, i) => ({ value, pointer: joinPointer(p, 'sinks', i) }));
  const out: TokenSink[] = [];
  for (const place of places) {
    const sink = resolveSink(obj(place.value), place.pointer, p, ctx);
    if (sink) out.push(sink);
  }
  return out;
}

/** One sink mapping; shape errors are the schema's, so an unusable mapping is simply left out. */
function resolveSink(s: Record<string, unknown>, sp: string, tokenPointer: string, ctx: Ctx): TokenSink | undefined {
  // `{instance}`: the instance's name, so a token declared once in `defaults:` gets a file per instance.
  if (typeof s.file === 'string') {
    const abs = relativeToFile(ctx, joinPointer(sp, 'file'), s.file.replaceAll('{instance}', splitPointer(tokenPointer)[1] ?? ''));
    return { kind: 'file', path: abs, shown: path.relative(ctx.cwd, abs).split(path.sep).join('/') || '.', pointer: sp };
  }
  if (Array.isArray(s.command) && s.command.length > 0) {
    // A program written as a path (`./hooks/store.sh`) is relative to the YAML file, like file sinks;
    // a bare name is looked up on PATH when the plan is made.
    const cp = joinPointer(sp, 'command');
    const cwd = relativeToFile(ctx, cp, '.');
    const argv = s.command.map(String);
    const program = argv[0]!;
    if (program.includes('/') && !path.isAbsolute(program)) argv[0] = relativeToFile(ctx, cp, program);
    return { kind: 'command', argv, cwd, pointer: sp };
  }
  if (s.stdout === true) return { kind: 'stdout', pointer: sp };
  if (s.ci_variable !== undefined) return resolveCiVariable(obj(s.ci_variable), joinPointer(sp, 'ci_variable'), sp, ctx);
  return undefined;
}

function resolveCiVariable(v: Record<string, unknown>, vp: string, sp: string, ctx: Ctx): CiVariableSink | undefined {
  const str = (k: string): string | undefined => (typeof v[k] === 'string' ? (v[k] as string) : undefined);
  const bool = (k: string, dflt: boolean): boolean => (typeof v[k] === 'boolean' ? (v[k] as boolean) : dflt);
  const project = str('project');
  const group = str('group');
  if ((project === undefined) === (group === undefined)) {
    push(ctx, {
      severity: 'error',
      code: 'PLUMB_SINK_VARIABLE_OWNER',
      summary: project === undefined ? 'A ci_variable sink names neither a project nor a group' : 'A ci_variable sink names both a project and a group',
      detail: 'A CI/CD variable belongs to exactly one project or one group.',
      suggestion: 'write `project: GROUP/PROJECT` or `group: GROUP` (one of them)',
      pointer: project !== undefined && group !== undefined ? joinPointer(vp, 'group') : vp,
      on: 'key',
    });
    return undefined;
  }
  const key = str('key');
  if (key === undefined || !/^[A-Za-z0-9_]{1,255}$/.test(key)) return undefined; // the schema reports it
  const hidden = bool('hidden', false);
  const masked = bool('masked', true);
  if (hidden && !masked) {
    push(ctx, {
      severity: 'error',
      code: 'PLUMB_SINK_VARIABLE_MASK',
      summary: `The ci_variable sink ${key} is hidden but not masked`,
      detail: 'The service makes a hidden variable masked too ("masked and hidden"), and refuses to unmask it later.',
      suggestion: 'remove `masked: false`, or `hidden: true`',
      pointer: joinPointer(vp, 'masked'),
    });
    return undefined;
  }
  const variableType = str('variable_type') === 'file' ? 'file' : 'env_var';
  const description = str('description');
  const instance = str('instance');
  return {
    kind: 'ci_variable',
    ...(project !== undefined && { project }),
    ...(group !== undefined && { group }),
    key,
    protected: bool('protected', true),
    masked,
    hidden,
    raw: bool('raw', true),
    environmentScope: str('environment_scope') ?? '*',
    variableType,
    ...(description !== undefined && { description }),
    ...(instance !== undefined && { instance }),
    pointer: sp,
  };
}

function isRealDate(d: string): boolean {
  const t = new Date(d + 'T00:00:00Z');
  return !Number.isNaN(t.getTime()) && t.toISOString().slice(0, 10) === d;
}


/** This kind's configuration side, carried by its registry entry (./index.ts). */
export const TOKEN_CONFIG: KindConfig = { kind: 'group_access_token', pointers: TOKEN_POINTERS, mount: { container: 'groups', keys: ['access_tokens', 'prune_access_tokens'] }, schema, resolve, check, claims };

/** Each ci_variable sink, as the CI/CD variable it writes (on its own instance, or the one it names): `KindConfig.claims`. */
function claims(instance: DesiredInstance): InstanceClaim[] {
  return groupsOf(instance).flatMap((g) =>
    g.accessTokens.flatMap((t) =>
      t.sinks.flatMap((s): InstanceClaim[] => {
        if (s.kind !== 'ci_variable') return [];
        const owner = s.project !== undefined ? 'project' : 'group';
        const ref = (s.project ?? s.group)!;
        return [{ id: ciVariableClaim(s.instance ?? instance.name, owner, ref, s.key, s.environmentScope), pointer: s.pointer ?? t.pointer, what: `${owner} ${ref} variable ${s.key}${s.environmentScope === '*' ? '' : ` (scope ${s.environmentScope})`}`, as: `the ci_variable sink of token "${t.name}"` }];
      }),
    ),
  );
}

/** A group's tokens; a group that declares none and does not prune is not managed (undefined). */
function resolve(raw: Readonly<Record<string, unknown>>, where: ResolveAt, ctx: Ctx): DesiredGroup | undefined {
  const g = resolveGroup(where.ref ?? '', raw, where.pointer, ctx);
  return g.accessTokens.length > 0 || g.pruneAccessTokens ? g : undefined;
}

function check(instances: readonly DesiredInstance[], ctx: Ctx): void {
  checkTokenSinksAndSelf(instances, ctx);
  checkTokenLifetimes(instances, ctx);
}

function schema(): KindSchema {
  return {
    properties: groupTokenProperties(),
    definitions: { access_token: accessTokenSchema() },
    standalone: { title: 'Group access token', file: 'group-access-token.schema.json', body: accessTokenSchema() },
  };
}
