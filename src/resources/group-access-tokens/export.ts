/**
 * Group access tokens' part of `plumb export`: the active tokens of the groups named (`--group`) or
 * of every group the credential owns, as declarations by name (docs/export.md).
 *
 * - Expiry: a rotation policy when the token's lifetime (created → expires) fits one (1–400 days),
 *   so plan keeps it as it is until it is due; otherwise its fixed `expires_at`. A token that never
 *   expires gets a 365-day policy and a comment: the first apply rotates it (plumb declares no
 *   token without an expiry).
 * - Sinks: plumb cannot know where a secret should go. Without `--sink-dir` each token carries a
 *   commented-out placeholder and the configuration fails validation (PLUMB_TOKEN_SINK_MISSING)
 *   until someone chooses; with it, each token delivers into its own file there.
 * - Two active tokens with one name: the newest is exported with `id:` pinning it, and a comment
 *   names the others.
 */
import { ACCESS_LEVELS } from '../../catalogue/index.js';
import { listGroupAccessTokens } from '../../api/group-access-tokens.js';
import type { GroupAccessToken } from '../../api/group-access-tokens.js';
import { getGroupRef, listOwnedGroups } from '../../api/namespaces.js';
import type { ExportEntry, ExportResult, ResourceExporter } from '../../engine/export.js';
import { ExportOptionError } from '../../engine/export.js';
import { decodedSegment } from '../../api/path.js';
import { daysBetween } from './identity.js';
import { fromLiteralText } from '../../config/interpolate.js';
import { isPlainObject } from '../../config/loading.js';

const DEFAULT_ROTATE_BEFORE = 7;
const MAX_LIFETIME = 400;

/** A file name for a token's sink: group path and token name, reduced to safe characters. */
export function sinkFileName(group: string, name: string): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '_');
  return `${safe(group.replace(/\//g, '__'))}--${safe(name)}.token`;
}

function expiryOf(t: GroupAccessToken, today: string): { value: Record<string, unknown>; note?: string } {
  if (t.expires_at === null) {
    return { value: { rotation: { lifetime_days: 365, rotate_before_days: 14 } }, note: 'never expires on the instance; plumb declares none without an expiry, so the first apply rotates it to this policy' };
  }
  const created = t.created_at.slice(0, 10);
  // The lifetime must cover what is left of the token (else plan sees it outlive the policy).
  const lifetime = Math.max(daysBetween(created, t.expires_at), daysBetween(today, t.expires_at));
  if (lifetime >= 2 && lifetime <= MAX_LIFETIME) {
    const before = Math.min(DEFAULT_ROTATE_BEFORE, lifetime - 1);
    return { value: { rotation: { lifetime_days: lifetime, rotate_before_days: before } }, note: `rotation inferred from its lifetime (created ${created}, expires ${t.expires_at})` };
  }
  return { value: { expires_at: t.expires_at } };
}

/** What a token's declaration in the earlier export says that export keeps: its sink and its rotation policy. */
interface Kept {
  readonly sink?: unknown;
  readonly rotation?: { readonly lifetime_days: number; readonly rotate_before_days: number };
}

/**
 * The tokens the earlier export of this directory declares (ExportContext.previous), by group path
 * and name: a sink someone chose (or edited) and a rotation policy someone set, which the instance
 * cannot say and export would otherwise infer again from the token alone.
 */
function keptTokens(previous: Readonly<Record<string, unknown>> | undefined): Map<string, Kept> {
  const out = new Map<string, Kept>();
  const groups = plain(previous?.groups);
  for (const [group, g] of Object.entries(groups ?? {})) {
    for (const [name, t] of Object.entries(plain(plain(g)?.access_tokens) ?? {})) {
      const token = plain(t);
      if (!token) continue;
      const rotation = plain(token.rotation);
      const policy =
        rotation && Number.isInteger(rotation.lifetime_days) && Number.isInteger(rotation.rotate_before_days)
          ? { lifetime_days: rotation.lifetime_days as number, rotate_before_days: rotation.rotate_before_days as number }
          : undefined;
      // Kept as the configuration read it: export writes every string again as literal text.
      const sink = plain(token.sink) && Object.keys(plain(token.sink)!).length > 0 ? readBack(token.sink) : undefined;
      if (policy || sink) out.set(JSON.stringify([group, name]), { ...(sink !== undefined && { sink }), ...(policy && { rotation: policy }) });
    }
  }
  return out;
}

function equal(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function readBack(v: unknown): unknown {
  if (typeof v === 'string') return fromLiteralText(v);
  if (Array.isArray(v)) return v.map(readBack);
  if (plain(v)) return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, readBack(x)]));
  return v;
}

function plain(v: unknown): Record<string, unknown> | undefined {
  return isPlainObject(v) ? v : undefined;
}

function tokenEntries(group: string, tokens: readonly GroupAccessToken[], today: string, sinkDir: string | undefined, kept: ReadonlyMap<string, Kept>): { entries: ExportEntry[]; dirs: string[] } {
  const byName = new Map<string, GroupAccessToken[]>();
  for (const t of tokens) byName.set(t.name, [...(byName.get(t.name) ?? []), t]);
  const entries: ExportEntry[] = [];
  for (const [name, same] of byName) {
    const sorted = [...same].sort((a, b) => b.id - a.id);
    const t = sorted[0]!;
    const keep = kept.get(JSON.stringify([group, name]));
    const inferred = expiryOf(t, today);
    // A policy already declared is kept, unless the token never expires (the first apply rotates it
    // anyway); said only where it is not what export infers, so an unchanged re-export is the same text.
    const keepPolicy = keep?.rotation && t.expires_at !== null && !equal(keep.rotation, inferred.value.rotation);
    const { value: expiry, note } = keepPolicy ? { value: { rotation: keep.rotation }, note: 'rotation policy kept from the earlier export in this directory' } : inferred;
    const fresh = sinkDir !== undefined ? { file: `${sinkDir}/${sinkFileName(group, name)}` } : undefined;
    const keepSink = keep?.sink !== undefined && !equal(keep.sink, fresh);
    const sink = keepSink ? keep.sink : fresh;
    const level = ACCESS_LEVELS[t.access_level as keyof typeof ACCESS_LEVELS] ?? t.access_level;
    const value: Record<string, unknown> = {
      scopes: [...t.scopes].sort(),
      access_level: level,
      ...(t.description ? { description: t.description } : {}),
      ...expiry,
      ...(sorted.length > 1 ? { id: t.id } : {}),
      ...(sink !== undefined ? { sink } : {}),
    };
    const lines = [` token id ${t.id}${note ? `; ${note}` : ''}`];
    if (sorted.length > 1) lines.push(` ${sorted.length - 1} other active token(s) share this name (id ${sorted.slice(1).map((o) => o.id).join(', ')}); this declaration pins the newest`);
    if (keepSink) lines.push(' sink kept from the earlier export in this directory');
    if (sink === undefined) {
      lines.push(' TODO(plumb export): choose where plumb delivers this token\'s secret when it rotates it;');
      lines.push(` until then this configuration does not validate (PLUMB_TOKEN_SINK_MISSING). For example:`);
      lines.push(`   sink: {file: secrets/${sinkFileName(group, name)}}   or {command: [...]}, {stdout: true}`);
    }
    entries.push({ path: ['groups', group, 'access_tokens', name], value, comment: lines.join('\n') });
  }
  return { entries, dirs: sinkDir !== undefined && entries.length > 0 ? [sinkDir] : [] };
}

/** `--group REF` (repeatable; none: every group the credential owns) and `--sink-dir DIR`. */
interface TokenExportOptions {
  readonly groups: readonly string[];
  /**
   * Token sinks become files in this directory (relative to the output directory). Absent: each
   * token gets a commented-out placeholder and the configuration does not validate
   * (`PLUMB_TOKEN_SINK_MISSING`) until someone chooses where its secret goes.
   */
  readonly sinkDir?: string;
}

function parseOptions(values: Readonly<Record<string, unknown>>): TokenExportOptions {
  const sinkDir = values['sink-dir'] as string | undefined;
  if (sinkDir !== undefined && (sinkDir === '' || sinkDir.startsWith('/') || sinkDir.split('/').includes('..'))) {
    throw new ExportOptionError(`--sink-dir must be a directory inside the output directory, not "${sinkDir}"`, 'for example --sink-dir secrets (plumb export --help lists the options)');
  }
  return { groups: (values.group as readonly string[] | undefined) ?? [], ...(sinkDir !== undefined && { sinkDir: sinkDir.replace(/\/+$/, '') }) };
}

export const groupAccessTokensExporter: ResourceExporter<TokenExportOptions> = {
  kind: 'group_access_token',
  flags: [
    { name: 'group', type: 'string', multiple: true, arg: 'REF', help: "export this group's access tokens (repeatable; default: every group in\nwhich the token's user is Owner)" },
    {
      name: 'sink-dir',
      type: 'string',
      arg: 'DIR',
      help: "deliver each token's secret into a file in DIR (relative to the output\ndirectory; created); without it, each token gets a TODO placeholder and\nthe configuration does not validate until a sink is chosen",
    },
  ],
  parseOptions,
  // The sink directory gets a .gitignore ignoring everything: it holds token files only.
  outputDirs: (o) => (o.sinkDir !== undefined ? [{ dir: o.sinkDir, flag: '--sink-dir', secrets: true, what: 'token secrets', holds: (name: string) => name === '.gitignore' || name.endsWith('.token') }] : []),
  notFound(apiPath) {
    const m = /^\/groups\/([^/?]+)/.exec(apiPath);
    return m ? `group "${decodedSegment(m[1]!)}" (--group ${decodedSegment(m[1]!)})` : undefined;
  },

  async export(ctx): Promise<ExportResult> {
    const { options: request, client } = ctx;
    const groups =
      request.groups.length > 0
        ? await Promise.all(request.groups.map((ref) => getGroupRef(client, /^\d+$/.test(ref) ? Number(ref) : ref)))
        : await listOwnedGroups(client);
    const perGroup = await Promise.all(
      groups.map(async (g) => ({ g, tokens: await listGroupAccessTokens(client, g.id, { state: 'active' }) })),
    );
    const entries: ExportEntry[] = [];
    const dirs = new Set<string>();
    const kept = keptTokens(ctx.previous);
    for (const { g, tokens } of perGroup) {
      const active = tokens.filter((t) => t.active && !t.revoked);
      if (active.length === 0) continue;
      const r = tokenEntries(g.full_path, active, ctx.today, request.sinkDir, kept);
      entries.push(...r.entries);
      r.dirs.forEach((d) => dirs.add(d));
    }
    const notes = request.groups.length === 0 ? [`groups: ${groups.length} owned by the credential, ${perGroup.filter((p) => p.tokens.some((t) => t.active)).length} with active tokens`] : [];
    // Secrets delivered into the output directory must never be committed with the configuration.
    const files = [...dirs].map((d) => ({ path: `${d}/.gitignore`, content: Buffer.from('# Token secrets delivered by plumb: never commit them.\n*\n!.gitignore\n') }));
    const groupCount = new Set(entries.map((e) => e.path[1])).size;
    return {
      entries,
      directories: [...dirs],
      files,
      notes,
      counts: { tokens: entries.length, groups: groupCount },
      summary: `${entries.length} token(s) in ${groupCount} group(s)`,
      todo: entries.some((e) => (e.value as { sink?: unknown }).sink === undefined) ? ['Each token needs a sink before the configuration validates: see the TODO comments.'] : [],
    };
  },
};
