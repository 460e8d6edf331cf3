/**
 * Shared setup for the group access token tests: an emulator on a clock that plumb's `--now`
 * follows, a working directory, and a leak check for the secrets the emulator issues.
 *
 * The test cannot register issued secrets in advance (the emulator makes them up), so after every
 * run it looks for anything in the emulator's token format — in stdout, stderr and every file under
 * the working directory except the sink files the test allowed.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { startTestEmulator } from '../../helpers/emulator.js';
import type { EmulatorSeed, FaultRule, RunningEmulator, SeedGroupToken } from '../../../src/emulator/index.js';
import { secret, workdir } from '../../helpers/cli.js';
import type { CliResult, Workdir } from '../../helpers/cli.js';

export const ADMIN_TOKEN = secret('admin-token-for-token-tests-0123456789');

/** What the emulator issues: `svc-` and 20 characters (src/emulator/state.ts generateTokenValue). */
export const ISSUED = /svc-[A-Za-z0-9_-]{20}/g;

const DAY = 86_400_000;

export function addDays(date: string, days: number): string {
  return new Date(Date.parse(date + 'T00:00:00Z') + days * DAY).toISOString().slice(0, 10);
}

export interface TokenSpec {
  readonly scopes?: readonly string[];
  readonly access_level?: number | string;
  readonly description?: string;
  readonly expires_at?: string;
  readonly rotation?: { readonly lifetime_days: number; readonly rotate_before_days?: number; readonly overlap?: string };
  /** Raw YAML of the sink mapping; default: a file sink `secrets/<name>.token`. */
  readonly sink?: string;
  /** Raw YAML (flow style) of a `sinks:` list, instead of `sink`. */
  readonly sinks?: string;
  readonly self?: boolean;
  readonly id?: number;
}

export interface GroupSpec {
  readonly prune?: boolean;
  readonly tokens: Readonly<Record<string, TokenSpec>>;
}

export interface Harness {
  readonly emu: RunningEmulator;
  readonly wd: Workdir;
  /** The emulator's day (and plumb's --now), YYYY-MM-DD. */
  today: string;
  /** Sets both clocks to `date` (noon UTC, wall time keeps ticking within the day). */
  setToday(date: string): void;
  /** Emulator time minus wall time, ms (to compare recorded request times with file times). */
  clockOffset(): number;
  /** Writes plumb.yaml. */
  config(groups: Readonly<Record<string, GroupSpec>>, opts?: { tokenEnv?: string }): void;
  /** A file that may hold an issued secret (a command sink's target). */
  allow(rel: string): string;
  /** Runs plumb with --now at the harness's day, then checks for leaked secrets. */
  run(args: readonly string[], env?: Record<string, string>, opts?: { stdoutMaySecrets?: boolean }): Promise<CliResult>;
  /** The secret in a sink file, or undefined. */
  sinkValue(name: string): string | undefined;
  /** The emulator's record of the token whose secret is in the sink file. */
  tokenInSink(name: string): ReturnType<RunningEmulator['state']['tokenByValue']>;
  /** Active tokens of a group with the name. */
  active(group: string, name: string): { id: number; name: string; expiresAt: string | null; scopes: string[] }[];
  count(method: string, pathGlob: RegExp): number;
  addFault(rule: FaultRule): void;
  close(): Promise<void>;
}

export const BASE_DAY = '2026-03-01';

export function seedToken(name: string, token: string, extra: Partial<SeedGroupToken> = {}): SeedGroupToken {
  return { name, token: secret(token), scopes: ['read_api'], access_level: 30, expires_at: addDays(BASE_DAY, 60), ...extra };
}

export async function harness(opts: { groups?: EmulatorSeed['groups']; users?: EmulatorSeed['users']; projects?: EmulatorSeed['projects']; latencyMs?: number } = {}): Promise<Harness> {
  let offset = Date.parse(BASE_DAY + 'T12:00:00Z') - Date.now();
  const seed: EmulatorSeed = {
    users: [
      { username: 'root', admin: true, personal_access_tokens: [{ name: 'plumb', token: ADMIN_TOKEN, scopes: ['api'] }] },
      ...(opts.users ?? []),
    ],
    groups: opts.groups ?? [{ full_path: 'platform' }],
    ...(opts.projects && { projects: opts.projects }),
  };
  const emu = await startTestEmulator({ seed, now: () => new Date(Date.now() + offset), latencyMs: opts.latencyMs ?? 0 });
  const wd = workdir({ PLUMB_TOKEN: ADMIN_TOKEN, PLUMB_SINK_TIMEOUT_SECONDS: '5' });
  wd.write('secrets/README', 'sinks land here\n');
  const allowed = new Set<string>();
  const h: Harness = {
    emu,
    wd,
    today: BASE_DAY,
    setToday(date) {
      offset = Date.parse(date + 'T12:00:00Z') - Date.now();
      h.today = date;
    },
    clockOffset: () => offset,
    allow(rel) {
      const full = wd.allow(rel);
      allowed.add(full);
      return full;
    },
    config(groups, o = {}) {
      const lines = ['version: 1', 'instances:', '  local:', `    url: ${emu.url}`, `    token_env: ${o.tokenEnv ?? 'PLUMB_TOKEN'}`, '    groups:'];
      for (const [ref, g] of Object.entries(groups)) {
        lines.push(`      ${JSON.stringify(ref)}:`);
        if (g.prune !== undefined) lines.push(`        prune_access_tokens: ${g.prune}`);
        lines.push('        access_tokens:' + (Object.keys(g.tokens).length === 0 ? ' {}' : ''));
        for (const [name, t] of Object.entries(g.tokens)) {
          lines.push(`          ${JSON.stringify(name)}:`);
          if (t.id !== undefined) lines.push(`            id: ${t.id}`);
          if (t.description !== undefined) lines.push(`            description: ${JSON.stringify(t.description)}`);
          lines.push(`            scopes: ${JSON.stringify(t.scopes ?? ['read_api'])}`);
          lines.push(`            access_level: ${t.access_level ?? 30}`);
          if (t.expires_at) lines.push(`            expires_at: ${t.expires_at}`);
          else {
            const r = t.rotation ?? { lifetime_days: 60, rotate_before_days: 7 };
            const overlap = 'overlap' in r && r.overlap !== undefined ? `, overlap: ${r.overlap}` : '';
            lines.push(`            rotation: {lifetime_days: ${r.lifetime_days}${r.rotate_before_days !== undefined ? `, rotate_before_days: ${r.rotate_before_days}` : ''}${overlap}}`);
          }
          const sink = t.sink ?? `{file: secrets/${name}.token}`;
          lines.push(t.sinks !== undefined ? `            sinks: ${t.sinks}` : `            sink: ${sink}`);
          if (t.self) lines.push('            self: true');
          const file = /^\{file: (.+)\}$/.exec(sink)?.[1];
          if (file) allowed.add(wd.allow(file));
        }
      }
      wd.write('plumb.yaml', lines.join('\n') + '\n');
    },
    async run(args, env = {}, o = {}) {
      const r = await wd.run(args, { PLUMB_NOW: h.today, ...env });
      if (!o.stdoutMaySecrets) expect(r.stdout.match(ISSUED), `issued secret on stdout of plumb ${args.join(' ')}`).toBeNull();
      expect(r.stderr.match(ISSUED), `issued secret on stderr of plumb ${args.join(' ')}`).toBeNull();
      scan(wd.dir, allowed);
      return r;
    },
    sinkValue(name) {
      try {
        return readFileSync(path.join(wd.dir, 'secrets', `${name}.token`), 'utf8');
      } catch {
        return undefined;
      }
    },
    tokenInSink(name) {
      const v = h.sinkValue(name);
      return v === undefined ? undefined : emu.state.tokenByValue(v);
    },
    active(group, name) {
      const g = emu.state.groupByRef(group)!;
      return emu.state.tokens
        .filter((t) => t.kind === 'group' && t.groupId === g.id && t.name === name && emu.state.isActive(t))
        .map((t) => ({ id: t.id, name: t.name, expiresAt: t.expiresAt, scopes: t.scopes }));
    },
    count(method, re) {
      return emu.requests.filter((r) => r.method === method && re.test(r.path)).length;
    },
    addFault(rule) {
      emu.addFault(rule);
    },
    close: () => emu.close(),
  };
  return h;
}

function scan(dir: string, allowed: ReadonlySet<string>): void {
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    if (allowed.has(full)) continue;
    const st = statSync(full);
    if (st.isDirectory()) scan(full, allowed);
    else {
      const found = readFileSync(full, 'utf8').match(ISSUED);
      expect(found, `issued secret found in ${path.relative(dir, full)}`).toBeNull();
    }
  }
}

export function sha256(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

/**
 * The safety property of the whole feature: no token was rotated twice. Counted per token id:
 * rotations the instance carried out (200, or a dropped connection after it acted) are at most one,
 * and no rotation was answered 401 (what a reuse attempt gets). Requests refused before the
 * instance acted (a canned 429/5xx, a connection dropped before it) do not count; pass
 * `droppedBefore` when the test's dropped connections happened before the instance acted.
 */
export function expectNoRepeatedRotation(emu: RunningEmulator, opts: { droppedBefore?: boolean } = {}): void {
  const acted = new Map<string, number>();
  for (const r of emu.requests) {
    if (r.method !== 'POST' || !/\/rotate$/.test(r.path) || /\/self\/rotate$/.test(r.path)) continue;
    expect(r.status, `${r.path} was answered 401: a rotation of a revoked token`).not.toBe(401);
    const didAct = r.status === 200 || (r.status === 0 && !opts.droppedBefore);
    if (didAct) acted.set(r.path, (acted.get(r.path) ?? 0) + 1);
  }
  for (const [p, n] of acted) expect(n, `${p} was carried out ${n} times`).toBe(1);
}

/** No token family was revoked by a reuse attempt: every family's newest token is active or was revoked by a DELETE. */
export function expectNoFamilyRevoked(emu: RunningEmulator, deleted: ReadonlySet<number> = new Set()): void {
  const { state } = emu;
  const deletedIds = new Set([
    ...deleted,
    ...emu.requests
      .filter((r) => r.method === 'DELETE' && (r.status === 204 || r.status === 0))
      .map((r) => Number(/\/(\d+)$/.exec(r.path)?.[1])),
  ]);
  for (const t of state.tokens) {
    if (t.kind !== 'group') continue;
    const newer = state.tokens.some((x) => x.previousId === t.id);
    if (newer) continue; // rotated: revoked by the rotation itself
    if (t.revoked && !deletedIds.has(t.id)) {
      throw new Error(`token ${t.id} ("${t.name}") is revoked without a DELETE or a rotation: a reuse attempt revoked its family`);
    }
  }
}
