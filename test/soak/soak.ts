/**
 * The fault soak: plumb's CLI (in-process, real HTTP on loopback) against the emulator while faults
 * are injected into its requests, round after round, and the emulator's own state checked after
 * each round for the properties that matter when a secret is shown once.
 *
 * A round moves the clock 25 days on (every token of a 30-day lifetime is due again, plumb's own
 * credential included), changes a few settings, one token's scopes (a replacement), one file's
 * content and another's execute bit, and a Pages primary domain, then runs
 * `plumb apply` with 1–3 faults scheduled at random positions among its requests: 5xx, 429 with
 * Retry-After, a connection dropped before or after the instance acted, a time-out (the instance
 * acts after the client gave up), or a slow answer. Then the faults go and plumb must converge
 * within two clean applies. Invariants, counted as violations (target: 0):
 * - rotated-twice: no token has two successors (a repeated rotation);
 * - family-revoked: no token is revoked without a DELETE or a rotation (a reuse attempt);
 * - secret-in-sink: after convergence, every declared token has one active token whose secret is
 *   in its sink;
 * - secret-in-output: no secret (issued, credential, interpolated) in stdout, stderr or any file
 *   plumb wrote other than the sinks;
 * - outcome-true: every change the faulted run reported `applied` holds on the instance, and a
 *   run that exited 0 applied everything;
 * - converged: two clean applies reach a plan without changes (and drift exits 0);
 * - commits: no spurious or duplicate commit: on the managed branch, every commit changes the tree,
 *   touches only declared files, and no file is committed twice in one round;
 * - lock: the faulted apply runs on two "machines" at once (two state files, the instance's
 *   `lock:` declared): they hold the lock in turn, never at once (the lock project's commits alternate
 *   lock and unlock; one that starts while the other holds it reports PLUMB_STATE_LOCKED, or
 *   PLUMB_LOCK_FAILED when a fault hit its lock requests), and no lock file
 *   is left on the instance once the round converged.
 *
 * - lifetime: the last round of each episode lowers `max_personal_access_token_lifetime` to
 *   LIMIT_DAYS, below the remaining life of every live token (all were issued for 30 days):
 *   a configuration whose tokens keep a 30-day lifetime is refused offline
 *   (`PLUMB_TOKEN_BEYOND_MAX_LIFETIME`, no request that writes); one whose lifetimes fit is planned
 *   with the risk `token-lifetime-revokes-credential` (plumb's own token first), and apply without
 *   accepting it changes nothing; accepted (`--allow-risky`, with faults), plumb re-issues every
 *   declared token within the limit (its own last, by self rotation) and sends the limit after them,
 *   so an apply that exits 0 lost no declared token to it; every managed token the instance does
 *   revoke for the limit (a fault kept a re-issue from happening), in whichever apply the limit
 *   lands, is reported by that apply (`PLUMB_TOKENS_REVOKED_BY_LIMIT`); where plumb's own was among
 *   them the administrator issues plumb a new credential by hand, and the next applies converge with
 *   every declared token within the limit.
 *
 * When the answer to plumb's own credential's rotation is lost, plumb reports
 * PLUMB_TOKEN_SELF_LOST and stops, as documented; the soak checks the report is true (the old
 * credential is revoked) and then plays the administrator who rotates it by hand.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runApply, runDrift, runPlan } from '../../src/commands/reconcile.js';
import type { Io } from '../../src/commands/output.js';
import { mulberry32 } from '../../src/emulator/faults.js';
import { startTestEmulator } from '../helpers/emulator.js';
import type { FaultAction, RunningEmulator } from '../../src/emulator/index.js';

export const INVARIANTS = ['rotated-twice', 'family-revoked', 'secret-in-sink', 'secret-in-output', 'outcome-true', 'converged', 'commits', 'lock', 'lifetime'] as const;
export type Invariant = (typeof INVARIANTS)[number];

export const FAULT_KINDS = ['500', '502', '503', '429', 'drop-before', 'drop-after', 'timeout', 'slow'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface SoakOptions {
  readonly seed: number;
  /** Stop once at least this many faults were injected. */
  readonly minFaults: number;
  /** Rounds before a fresh emulator (default 8). */
  readonly roundsPerEpisode?: number;
}

export interface SoakResult {
  readonly faults: number;
  readonly byKind: Record<FaultKind, number>;
  readonly faultedRuns: number;
  readonly cleanRuns: number;
  readonly episodes: number;
  readonly selfLostRecoveries: number;
  /** Commits on the managed branch whose safety was checked. */
  readonly commitsChecked: number;
  /** Faulted rounds' second apply (the other machine), and how many of them the lock turned away. */
  readonly concurrentRuns: number;
  readonly lockRefusals: number;
  /**
   * Lifetime-lowering rounds run; declared tokens the accepted apply re-issued within the limit
   * before it sent the limit; managed tokens the instance revoked for the limit (in any apply of
   * the round), each reported by the apply that sent it.
   */
  readonly lifetimeRounds: number;
  readonly reissuedBeforeLimit: number;
  readonly revokedByLimit: number;
  readonly violations: Record<Invariant, string[]>;
}

const ADMIN = 'soak-admin-token-000000000001';
const CREDENTIAL = 'soak-plumb-credential-0000001';
const SETTING_SECRET = 'soak-spam-check-key-0000001';
const ISSUED = /svc-[A-Za-z0-9_-]{20}/g;
const KNOWN = [ADMIN, CREDENTIAL, SETTING_SECRET];
const REQUEST_TIMEOUT_MS = 250;
const D0 = '2026-03-01';
const DAY = 86_400_000;
const SITE = 'platform/site';
/** The project holding the instance's lock file. */
const LOCKS = 'platform/locks';
const LOCK_PATH = 'plumb.lock';
/** The lowered max_personal_access_token_lifetime of the lifetime round (tokens are issued for 30). */
const LIMIT_DAYS = 20;
/** The files declared in SITE (their content or execute bit changes every round). */
const FILES = ['CODEOWNERS', 'static.txt', 'scripts/run.sh'] as const;

const addDays = (date: string, days: number): string => new Date(Date.parse(date + 'T00:00:00Z') + days * DAY).toISOString().slice(0, 10);
const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

/** Declared tokens: group → names. `plumb` is the credential plumb runs with (`self: true`). */
const DECLARED: Record<string, readonly string[]> = { platform: ['plumb', 'due', 'changed'], apps: ['fresh-a', 'fresh-b'] };

function action(kind: FaultKind): FaultAction {
  switch (kind) {
    case '429':
      return { kind: 'status', status: 429, retryAfter: 0 };
    case 'drop-before':
      return { kind: 'drop', when: 'before' };
    case 'drop-after':
      return { kind: 'drop', when: 'after' };
    case 'timeout':
      return { kind: 'latency', ms: REQUEST_TIMEOUT_MS + 150 };
    case 'slow':
      return { kind: 'latency', ms: 40 };
    default:
      return { kind: 'status', status: Number(kind) };
  }
}

interface Episode {
  readonly emu: RunningEmulator;
  readonly dir: string;
  today: string;
  round: number;
  /** Clock offset of the emulator from wall time. */
  offset: number;
  /** Tokens the instance revoked because they outlived a lowered lifetime limit (not a family revocation). */
  readonly policyRevoked: Set<number>;
}

async function startEpisode(): Promise<Episode> {
  const ep = { offset: Date.parse(D0 + 'T12:00:00Z') - Date.now() } as Episode & { offset: number };
  const emu = await startTestEmulator({
    seed: {
      users: [{ username: 'root', admin: true, personal_access_tokens: [{ name: 'admin', token: ADMIN, scopes: ['api'] }] }],
      groups: [
        {
          full_path: 'platform',
          access_tokens: [
            { name: 'plumb', token: CREDENTIAL, scopes: ['api'], access_level: 50, expires_at: addDays(D0, 3) },
            { name: 'due', token: 'soak-seeded-due-0000001', scopes: ['read_api'], access_level: 30, expires_at: addDays(D0, 2) },
            { name: 'changed', token: 'soak-seeded-chg-0000001', scopes: ['read_api'], access_level: 30, expires_at: addDays(D0, 20) },
            { name: 'stray', token: 'soak-seeded-str-0000001', scopes: ['read_api'], access_level: 30, expires_at: addDays(D0, 20) },
          ],
        },
        { full_path: 'apps' },
      ],
      projects: [
        {
          path_with_namespace: SITE,
          default_branch: 'main',
          protected_branches: [],
          files: { 'README.md': 'hello\n' },
          pages: {
            unique_domain_enabled: false,
            https_only: false,
            domains: ['site.example.test', 'www.example.test'],
            deployments: [{ created_at: '2026-01-01T00:00:00.000Z' }],
          },
        },
        { path_with_namespace: LOCKS, default_branch: 'main', files: { 'README.md': 'locks of plumb applies\n' } },
      ],
    },
    now: () => new Date(Date.now() + ep.offset),
  });
  // plumb runs as the group token `plumb`, whose bot user may administer the instance.
  const cred = emu.state.tokenByValue(CREDENTIAL)!;
  emu.state.userById(cred.userId)!.admin = true;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'plumb-soak-'));
  mkdirSync(path.join(dir, 'secrets'));
  writeFileSync(path.join(dir, 'secrets', 'platform-plumb.token'), CREDENTIAL, { mode: 0o600 });
  return Object.assign(ep, { emu, dir, today: D0, round: 0, policyRevoked: new Set<number>() });
}

function setToday(ep: Episode, date: string): void {
  ep.offset = Date.parse(date + 'T12:00:00Z') - Date.now();
  ep.today = date;
}

/**
 * `limit`: the lifetime round's configuration: the lowered limit, and token lifetimes of `lifetime`
 * days (LIMIT_DAYS fits; 30, the usual, is beyond it).
 */
function writeConfig(ep: Episode, limit?: { lifetime: number }): void {
  const r = ep.round;
  const lines = [
    'version: 1',
    'instances:',
    '  local:',
    `    url: ${ep.emu.url}`,
    '    token_env: PLUMB_TOKEN',
    `    lock: {project: ${LOCKS}, path: ${LOCK_PATH}}`,
    '    settings:',
    `      signup_enabled: ${r % 2 === 0}`,
    `      default_projects_limit: ${100 + r}`,
    `      spam_check_api_key: \${env:SOAK_SPAM_KEY}`,
    ...(limit ? [`      max_personal_access_token_lifetime: ${LIMIT_DAYS}`] : []),
    '    groups:',
  ];
  for (const [group, names] of Object.entries(DECLARED)) {
    lines.push(`      ${group}:`, '        prune_access_tokens: true', '        access_tokens:');
    for (const name of names) {
      const scopes = name === 'plumb' ? ['api'] : name === 'changed' ? (r % 2 === 0 ? ['api'] : ['read_api']) : ['read_api'];
      lines.push(
        `          ${name}:`,
        `            scopes: ${JSON.stringify(scopes)}`,
        `            access_level: ${name === 'plumb' ? 50 : 30}`,
        `            rotation: {lifetime_days: ${limit?.lifetime ?? 30}, rotate_before_days: 7}`,
        `            sink: {file: secrets/${group}-${name}.token}`,
        ...(name === 'plumb' ? ['            self: true'] : []),
      );
    }
  }
  const f = desiredFiles(r);
  lines.push('    projects:', `      ${SITE}:`, '        files:');
  for (const file of FILES) {
    lines.push(`          ${file}:`, `            content: ${JSON.stringify(f[file].content)}`, `            execute_filemode: ${f[file].execute}`);
  }
  lines.push('        pages:', `          pages_primary_domain: ${desiredDomain(r)}`, '          pages_unique_domain_enabled: false');
  writeFileSync(path.join(ep.dir, 'plumb.yaml'), lines.join('\n') + '\n');
}

function desiredFiles(round: number): Record<(typeof FILES)[number], { content: string; execute: boolean }> {
  return {
    CODEOWNERS: { content: `* @team-${round % 3}\n`, execute: false },
    'static.txt': { content: 'constant\n', execute: false },
    'scripts/run.sh': { content: '#!/bin/sh\necho run\n', execute: round % 2 === 0 },
  };
}

const desiredDomain = (round: number): string => (round % 2 === 0 ? 'www.example.test' : 'site.example.test');

/** The project's repository and its main branch's head. */
function siteRepo(ep: Episode) {
  const repo = ep.emu.state.projectByRef(SITE)!.repo;
  return { repo, head: repo.branchHead('main')! };
}

/** The messages of the lock project's commits since `since` (first-parent), oldest first. */
function lockCommitsSince(ep: Episode, since: string | undefined): string[] {
  const repo = ep.emu.state.projectByRef(LOCKS)!.repo;
  const out: string[] = [];
  for (let c = repo.branchHead('main'); c && c.id !== since; c = repo.parent(c)) out.unshift(c.message.trim());
  return out;
}

/**
 * Whether two applies that both got past the instance lock held it one after the other: every
 * acquisition is released (`plumb: unlock`) before the next one, and no unexpired lock is taken over
 * within a round. Both may get through when one starts after the other has finished (a slow start
 * under load), never while the other holds the lock.
 */
function heldInTurn(messages: readonly string[]): boolean {
  let held = false;
  for (const m of messages) {
    if (m === 'plumb: lock apply') {
      if (held) return false;
      held = true;
    } else if (m === 'plumb: unlock') held = false;
    else if (m.startsWith('plumb: take over')) return false;
  }
  return true;
}

/** Commits made on the managed branch since `since` (first-parent), oldest first. */
function commitsSince(ep: Episode, since: string) {
  const { repo, head } = siteRepo(ep);
  const out = [];
  for (let c = head; c && c.id !== since; c = repo.parent(c)!) out.unshift(c);
  return out;
}

/** No empty commit, none outside the declared files, no file committed twice in one round. */
function commitSafety(ep: Episode, since: string, v: SoakResult['violations']): void {
  const { repo } = siteRepo(ep);
  const perFile = new Map<string, number>();
  for (const c of commitsSince(ep, since)) {
    const parent = repo.parent(c);
    if (parent && parent.treeId === c.treeId) v.commits.push(`round ${ep.round}: empty commit ${c.id.slice(0, 8)} ("${c.message}")`);
    const changed = new Set([...c.files.keys(), ...(parent?.files.keys() ?? [])].filter((p) => c.files.get(p)?.sha !== parent?.files.get(p)?.sha || c.files.get(p)?.mode !== parent?.files.get(p)?.mode));
    for (const p of changed) {
      if (!(FILES as readonly string[]).includes(p)) v.commits.push(`round ${ep.round}: commit ${c.id.slice(0, 8)} changed undeclared ${p}`);
      perFile.set(p, (perFile.get(p) ?? 0) + 1);
    }
  }
  for (const [p, n] of perFile) if (n > 1) v.commits.push(`round ${ep.round}: ${p} committed ${n} times`);
}

/** The site's files and Pages are what the round declares. */
function siteHolds(ep: Episode): string[] {
  const problems: string[] = [];
  const { head } = siteRepo(ep);
  const want = desiredFiles(ep.round);
  for (const file of FILES) {
    const blob = head.files.get(file);
    if (!blob || blob.data.toString('utf8') !== want[file].content || (blob.mode === '100755') !== want[file].execute) problems.push(file);
  }
  const pages = ep.emu.state.projectByRef(SITE)!.pages!;
  if (pages.primaryDomain !== desiredDomain(ep.round)) problems.push('pages');
  return problems;
}

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function sinkValue(ep: Episode, group: string, name: string): string | undefined {
  try {
    return readFileSync(path.join(ep.dir, 'secrets', `${group}-${name}.token`), 'utf8');
  } catch {
    return undefined;
  }
}

/** `state`: another machine's state file (the second of two concurrent applies); `allowRisky`: apply --allow-risky. */
async function cli(ep: Episode, command: 'apply' | 'plan' | 'drift', state?: string, allowRisky = false): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const io: Io = {
    stdout: (s) => void (stdout += s),
    stderr: (s) => void (stderr += s),
    isTTY: false,
    env: { PATH: process.env.PATH ?? '', PLUMB_TOKEN: sinkValue(ep, 'platform', 'plumb') ?? CREDENTIAL, SOAK_SPAM_KEY: SETTING_SECRET, PLUMB_SINK_TIMEOUT_SECONDS: '5' },
    cwd: ep.dir,
  };
  const flags = { config: [], now: ep.today, json: command === 'apply', ...(state && { state }) };
  const hooks = { sleep: async () => {}, client: { baseDelayMs: 5, requestTimeoutMs: REQUEST_TIMEOUT_MS } };
  const code =
    command === 'apply'
      ? await runApply({ ...flags, autoApprove: true, ...(allowRisky && { allowRisky: true }) }, io, hooks)
      : command === 'plan'
        ? await runPlan({ ...flags, detailedExitcode: true }, io, hooks)
        : await runDrift(flags, io, hooks);
  return { code, stdout, stderr };
}

/** Secrets in the run's output or in any file plumb wrote except the sinks. */
function leaks(ep: Episode, run: Run): string[] {
  const out: string[] = [];
  const check = (where: string, text: string): void => {
    if (ISSUED.test(text)) out.push(`an issued secret in ${where}`);
    ISSUED.lastIndex = 0;
    for (const k of KNOWN) if (text.includes(k)) out.push(`a configured secret in ${where}`);
  };
  check('stdout', run.stdout);
  check('stderr', run.stderr);
  const walk = (d: string): void => {
    for (const e of readdirSync(d)) {
      const full = path.join(d, e);
      if (statSync(full).isDirectory()) walk(full);
      else if (!full.startsWith(path.join(ep.dir, 'secrets') + path.sep)) check(path.relative(ep.dir, full), readFileSync(full, 'utf8'));
    }
  };
  walk(ep.dir);
  return out;
}

/** From the emulator's state: repeated rotations and family revocations so far in the episode. */
function tokenSafety(ep: Episode, v: SoakResult['violations']): void {
  const { state, requests } = ep.emu;
  const deleted = new Set(
    requests.filter((r) => r.method === 'DELETE' && (r.status === 204 || r.status === 0)).map((r) => Number(/\/(\d+)$/.exec(r.path)?.[1])),
  );
  for (const t of state.tokens) {
    if (t.kind !== 'group') continue;
    const successors = state.tokens.filter((x) => x.previousId === t.id).length;
    if (successors > 1) v['rotated-twice'].push(`token ${t.id} ("${t.name}") has ${successors} successors`);
    if (t.revoked && successors === 0 && !deleted.has(t.id) && !ep.policyRevoked.has(t.id)) v['family-revoked'].push(`token ${t.id} ("${t.name}") revoked without a DELETE or a rotation`);
  }
  for (const r of requests) if (r.method === 'POST' && /\/\d+\/rotate$/.test(r.path) && r.status === 401) v['rotated-twice'].push(`${r.path} answered 401 (a revoked token was rotated)`);
}

function activeTokens(ep: Episode, group: string, name: string) {
  const g = ep.emu.state.groupByRef(group)!;
  return ep.emu.state.tokens.filter((t) => t.kind === 'group' && t.groupId === g.id && t.name === name && ep.emu.state.isActive(t));
}

function holds(ep: Episode, group: string, name: string): boolean {
  const active = activeTokens(ep, group, name);
  const value = sinkValue(ep, group, name);
  return active.length === 1 && value !== undefined && sha256(value) === active[0]!.digest;
}

/** Every change the run reported applied is true on the instance now. */
function outcomesTrue(ep: Episode, run: Run, v: SoakResult['violations']): void {
  let report: { ok?: boolean; outcomes?: { address: string; action: string; status: string }[] };
  try {
    report = JSON.parse(run.stdout);
  } catch {
    if (run.code === 0) v['outcome-true'].push(`round ${ep.round}: apply exited 0 without a JSON report`);
    return;
  }
  const outcomes = report.outcomes ?? [];
  if (run.code === 0 && outcomes.some((o) => o.status !== 'applied')) v['outcome-true'].push(`round ${ep.round}: exit 0 with changes not applied`);
  for (const o of outcomes) {
    if (o.status !== 'applied') continue;
    const m = /^local\.group\["([^"]+)"\]\.access_token\["([^"]+)"\](#(\d+))?$/.exec(o.address);
    if (m) {
      const [, group, name, , id] = m;
      if (o.action === 'delete') {
        const t = ep.emu.state.tokenById(Number(id));
        if (t && ep.emu.state.isActive(t)) v['outcome-true'].push(`round ${ep.round}: ${o.address} reported revoked but is active`);
      } else if (!holds(ep, group!, name!)) {
        v['outcome-true'].push(`round ${ep.round}: ${o.address} reported ${o.action}d but its sink does not hold the one active token`);
      }
    } else if (o.address.startsWith(`local.project[${JSON.stringify(SITE)}]`)) {
      const file = /\.file\["([^"]+)"\]$/.exec(o.address)?.[1];
      const wrong = siteHolds(ep);
      if (file ? wrong.includes(file) : o.address.endsWith('.pages') && wrong.includes('pages')) {
        v['outcome-true'].push(`round ${ep.round}: ${o.address} reported applied but the instance holds something else`);
      }
    } else if (o.address === 'local.application_settings') {
      const s = ep.emu.state.settings as Record<string, unknown>;
      if (s.signup_enabled !== (ep.round % 2 === 0) || s.default_projects_limit !== 100 + ep.round) {
        v['outcome-true'].push(`round ${ep.round}: settings reported applied but the instance holds other values`);
      }
    }
  }
}

function emptyResult(): { -readonly [K in keyof SoakResult]: SoakResult[K] } {
  return {
    faults: 0,
    byKind: Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>,
    faultedRuns: 0,
    cleanRuns: 0,
    episodes: 0,
    selfLostRecoveries: 0,
    commitsChecked: 0,
    concurrentRuns: 0,
    lockRefusals: 0,
    lifetimeRounds: 0,
    reissuedBeforeLimit: 0,
    revokedByLimit: 0,
    violations: Object.fromEntries(INVARIANTS.map((i) => [i, []])) as unknown as Record<Invariant, string[]>,
  };
}

/**
 * plumb cannot release the instance lock once its own credential is gone (revoked by a new lifetime
 * limit, or rotated with the new secret lost): it warns, and the administrator deletes the lock by
 * hand, as the warning says. A lock left without that warning is a violation.
 */
async function removeStaleLock(ep: Episode, runs: readonly Run[], tag: string, v: SoakResult['violations']): Promise<void> {
  if (!ep.emu.state.projectByRef(LOCKS)!.repo.branchHead('main')!.files.has(LOCK_PATH)) return;
  if (!runs.some((r) => /lock on .* could not be released/.test(r.stdout + r.stderr))) v.lock.push(`${tag}: the lock file is left on the instance, and plumb did not say so`);
  await fetch(`${ep.emu.url}/api/v4/projects/${encodeURIComponent(LOCKS)}/repository/files/${encodeURIComponent(LOCK_PATH)}`, {
    method: 'DELETE',
    headers: { 'PRIVATE-TOKEN': ADMIN, 'content-type': 'application/json' },
    body: JSON.stringify({ branch: 'main', commit_message: 'remove the stale plumb lock by hand' }),
  }).then((r) => r.arrayBuffer());
}

/** plays the administrator the PLUMB_TOKEN_SELF_LOST help asks for: rotate by hand (for `days`), deliver. */
async function recoverCredential(ep: Episode, days = 30): Promise<void> {
  const active = activeTokens(ep, 'platform', 'plumb')[0];
  if (!active) return;
  const res = await fetch(`${ep.emu.url}/api/v4/groups/platform/access_tokens/${active.id}/rotate`, {
    method: 'POST',
    headers: { 'PRIVATE-TOKEN': ADMIN, 'content-type': 'application/json' },
    body: JSON.stringify({ expires_at: addDays(ep.today, days) }),
  });
  const body = (await res.json()) as { token?: string };
  if (body.token) writeFileSync(path.join(ep.dir, 'secrets', 'platform-plumb.token'), body.token, { mode: 0o600 });
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The administrator gives plumb a new credential by hand (its own was revoked by the new limit). */
async function issueCredential(ep: Episode): Promise<void> {
  const res = await fetch(`${ep.emu.url}/api/v4/groups/platform/access_tokens`, {
    method: 'POST',
    headers: { 'PRIVATE-TOKEN': ADMIN, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'plumb', scopes: ['api'], access_level: 50, expires_at: addDays(ep.today, LIMIT_DAYS - 5) }),
  });
  const body = (await res.json()) as { token?: string };
  if (!body.token) return;
  ep.emu.state.userById(ep.emu.state.tokenByValue(body.token)!.userId)!.admin = true;
  writeFileSync(path.join(ep.dir, 'secrets', 'platform-plumb.token'), body.token, { mode: 0o600 });
}

/**
 * After each apply of the lifetime round. The managed tokens the instance revoked because the new
 * limit went out in this apply: active before it, revoked now, neither deleted nor rotated by plumb,
 * and expiring beyond the limit; only when this apply changed the limit. That is exactly what the
 * instance's policy does (emulator `enforceMaxLifetime`), in whichever apply the limit lands (a
 * fault may keep it from the accepted one). A family revocation looks different: it follows a
 * rotation of a revoked token (rotated-twice sees its 401) and reaches tokens within the limit too,
 * so family-revoked still counts every other revocation. The apply must report these
 * (PLUMB_TOKENS_REVOKED_BY_LIMIT), and one that exits 0 must have revoked no declared token (plumb
 * re-issues them within the limit before it sends it). Then the administrator does what plumb's
 * report asks: recovers a credential whose rotation answer was lost (PLUMB_TOKEN_SELF_LOST), issues
 * plumb a new one when the limit revoked it, deletes a lock plumb said it could not release.
 */
async function afterLifetimeApply(ep: Episode, result: ReturnType<typeof emptyResult>, run: Run, before: { ids: number[]; limit: unknown }, tag: string): Promise<void> {
  const v = result.violations;
  const st = ep.emu.state;
  const limit = (st.settings as Record<string, unknown>).max_personal_access_token_lifetime;
  const out = run.stdout + run.stderr;
  if (limit !== before.limit && typeof limit === 'number') {
    const limitDate = addDays(ep.today, limit);
    const deleted = new Set(ep.emu.requests.filter((r) => r.method === 'DELETE' && (r.status === 204 || r.status === 0)).map((r) => Number(/\/(\d+)$/.exec(r.path)?.[1])));
    const revoked = before.ids.filter((id) => {
      const t = st.tokenById(id)!;
      return !st.isActive(t) && !deleted.has(id) && !st.tokens.some((x) => x.previousId === id) && (t.expiresAt === null || t.expiresAt > limitDate);
    });
    for (const id of revoked) ep.policyRevoked.add(id);
    result.revokedByLimit += revoked.length;
    if (revoked.length > 0 && !out.includes('PLUMB_TOKENS_REVOKED_BY_LIMIT')) v.lifetime.push(`${tag}: the instance revoked ${revoked.length} managed token(s) for the new limit and plumb did not report it (exit ${run.code})`);
    const declared = revoked.map((id) => st.tokenById(id)!).filter((t) => (DECLARED[st.groupById(t.groupId!)?.fullPath ?? ''] ?? []).includes(t.name));
    if (run.code === 0 && declared.length > 0) v.lifetime.push(`${tag}: exit 0, yet the new limit revoked declared token(s) ${declared.map((t) => `"${t.name}" (id ${t.id})`).join(', ')}: they were not re-issued within it first`);
  }
  tokenSafety(ep, v);
  if (out.includes('PLUMB_TOKEN_SELF_LOST')) {
    const old = st.tokenByValue(sinkValue(ep, 'platform', 'plumb') ?? CREDENTIAL);
    if (old && st.isActive(old)) v['outcome-true'].push(`${tag}: PLUMB_TOKEN_SELF_LOST reported while the credential still works`);
    await recoverCredential(ep, LIMIT_DAYS - 5);
    result.selfLostRecoveries++;
  } else if (activeTokens(ep, 'platform', 'plumb').length === 0) {
    // plumb's own token was revoked by the limit (its rotation failed): a new one, as the risk said.
    await issueCredential(ep);
  }
  await removeStaleLock(ep, [run], tag, v);
}

/**
 * The lifetime round (see the invariants above): refused offline, gated, accepted with faults, the
 * revocation reported, then the administrator's new credential and convergence within the limit.
 */
async function lifetimeRound(ep: Episode, result: ReturnType<typeof emptyResult>, faults: { kind: FaultKind; nth: number }[]): Promise<void> {
  const v = result.violations;
  const st = ep.emu.state;
  const tag = `round ${ep.round} (lifetime)`;
  result.lifetimeRounds++;
  const limitOf = () => (st.settings as Record<string, unknown>).max_personal_access_token_lifetime;
  const activeIds = () => st.tokens.filter((t) => t.kind === 'group' && st.isActive(t)).map((t) => t.id).sort((a, b) => a - b);
  const limitBefore = limitOf();

  // Token lifetimes beyond the declared limit: refused before any request.
  writeConfig(ep, { lifetime: 30 });
  let before = ep.emu.requests.length;
  const offline = await cli(ep, 'plan');
  if (offline.code !== 1 || !(offline.stdout + offline.stderr).includes('PLUMB_TOKEN_BEYOND_MAX_LIFETIME')) v.lifetime.push(`${tag}: lifetimes beyond the declared limit were not refused offline (exit ${offline.code})`);
  if (ep.emu.requests.length !== before) v.lifetime.push(`${tag}: the configuration refused offline made ${ep.emu.requests.length - before} request(s)`);

  // Lifetimes within the limit, live tokens beyond it: a risk, and apply refuses it unaccepted.
  writeConfig(ep, { lifetime: LIMIT_DAYS });
  const ids = activeIds();
  before = ep.emu.requests.length;
  const gated = await cli(ep, 'apply');
  for (const leak of leaks(ep, gated)) v['secret-in-output'].push(`${tag} (not accepted): ${leak}`);
  if (gated.code !== 1 || !/token-lifetime-(revokes-credential|lowered)/.test(gated.stdout + gated.stderr)) v.lifetime.push(`${tag}: lowering the limit below live tokens was not gated (exit ${gated.code})`);
  if (ep.emu.requests.slice(before).some((r) => WRITES.has(r.method) && !r.path.includes(encodeURIComponent(LOCKS)))) v.lifetime.push(`${tag}: apply without accepting the risk wrote to the instance`);
  if (limitOf() !== limitBefore || JSON.stringify(activeIds()) !== JSON.stringify(ids)) v.lifetime.push(`${tag}: apply without accepting the risk changed the instance`);

  // Accepted, with faults: plumb re-issues the declared tokens within the limit, then sends it.
  // The administrator's own token already fits the coming policy (it is not plumb's to manage).
  st.tokenByValue(ADMIN)!.expiresAt = addDays(ep.today, 10);
  for (const f of faults) ep.emu.addFault({ path: '**', nth: f.nth, times: 1, action: action(f.kind) });
  before = ep.emu.requests.length;
  let snapshot = { ids: activeIds(), limit: limitOf() };
  const accepted = await cli(ep, 'apply', undefined, true);
  result.faultedRuns++;
  const made = ep.emu.requests.length - before;
  for (const f of faults) {
    if (f.nth > made) continue;
    result.faults++;
    result.byKind[f.kind]++;
  }
  ep.emu.clearFaults();
  if (faults.some((f) => f.kind === 'timeout' && f.nth <= made)) await new Promise((r) => setTimeout(r, REQUEST_TIMEOUT_MS + 200));
  for (const leak of leaks(ep, accepted)) v['secret-in-output'].push(`${tag} (accepted): ${leak}`);
  outcomesTrue(ep, accepted, v);
  const limitDate = addDays(ep.today, LIMIT_DAYS);
  if (limitOf() === LIMIT_DAYS) {
    for (const [group, names] of Object.entries(DECLARED)) {
      for (const name of names) if (holds(ep, group, name) && activeTokens(ep, group, name).every((t) => t.expiresAt !== null && t.expiresAt <= limitDate)) result.reissuedBeforeLimit++;
    }
  }
  await afterLifetimeApply(ep, result, accepted, snapshot, `${tag} (accepted)`);

  // Then clean applies converge; the administrator steps in where plumb said it must.
  let converged = false;
  let last: Run | undefined;
  for (let i = 0; i < 2 && !converged; i++) {
    snapshot = { ids: activeIds(), limit: limitOf() };
    last = await cli(ep, 'apply', undefined, true);
    result.cleanRuns++;
    for (const leak of leaks(ep, last)) v['secret-in-output'].push(`${tag} (clean ${i + 1}): ${leak}`);
    await afterLifetimeApply(ep, result, last, snapshot, `${tag} (clean ${i + 1})`);
    converged = last.code === 0;
  }
  const plan = await cli(ep, 'plan');
  const drift = await cli(ep, 'drift');
  if (!converged || plan.code !== 0 || drift.code !== 0) {
    const why = (last ? last.stdout + last.stderr : '').split('\n').filter((l) => /error|PLUMB_/.test(l)).slice(0, 3).join(' | ');
    v.converged.push(`${tag}: not converged after 2 applies (plan exit ${plan.code}, drift exit ${drift.code}): ${why}`);
  }
  if (limitOf() !== LIMIT_DAYS) v.lifetime.push(`${tag}: the instance's limit is ${String(limitOf())} after convergence`);
  for (const [group, names] of Object.entries(DECLARED)) {
    for (const name of names) {
      if (!holds(ep, group, name)) v['secret-in-sink'].push(`${tag}: ${group}/${name}`);
      for (const t of activeTokens(ep, group, name)) if (t.expiresAt === null || t.expiresAt > limitDate) v.lifetime.push(`${tag}: ${group}/${name} (id ${t.id}) expires on ${t.expiresAt}, beyond the limit`);
    }
  }
  tokenSafety(ep, v);
}

export async function soak(opts: SoakOptions): Promise<SoakResult> {
  const random = mulberry32(opts.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const result = emptyResult();
  const v = result.violations;
  const perEpisode = opts.roundsPerEpisode ?? 8;
  while (result.faults < opts.minFaults) {
    const ep = await startEpisode();
    result.episodes++;
    try {
      for (ep.round = 0; ep.round < perEpisode && result.faults < opts.minFaults; ep.round++) {
        setToday(ep, addDays(D0, ep.round * 25));
        writeConfig(ep);
        // 1–3 faults, each at a random position among the run's first 30 requests (about all of them:
        // plumb's own credential is rotated last).
        const scheduled = Array.from({ length: 1 + Math.floor(random() * 3) }, () => ({ kind: pick(FAULT_KINDS), nth: 1 + Math.floor(random() * 30) }));
        const headBefore = siteRepo(ep).head.id;
        const locksBefore = ep.emu.state.projectByRef(LOCKS)!.repo.branchHead('main')?.id;
        for (const f of scheduled) ep.emu.addFault({ path: '**', nth: f.nth, times: 1, action: action(f.kind) });
        const before = ep.emu.requests.length;
        // Two machines at once: this one, and another with its own state file.
        const [faulted, other] = await Promise.all([cli(ep, 'apply'), cli(ep, 'apply', 'machine-b/state.json')]);
        result.faultedRuns++;
        result.concurrentRuns++;
        const turnedAway = (r: Run) => /PLUMB_STATE_LOCKED|PLUMB_LOCK_FAILED/.test(r.stdout + r.stderr);
        if (turnedAway(other)) result.lockRefusals++;
        if (!turnedAway(faulted) && !turnedAway(other) && !heldInTurn(lockCommitsSince(ep, locksBefore))) {
          v.lock.push(`round ${ep.round}: both concurrent applies held the lock at once (${lockCommitsSince(ep, locksBefore).join(' → ')})`);
        }
        const made = ep.emu.requests.length - before;
        for (const f of scheduled) {
          if (f.nth > made) continue;
          result.faults++;
          result.byKind[f.kind]++;
        }
        ep.emu.clearFaults();
        // A request the client timed out on is still running on the instance: let it finish.
        if (scheduled.some((f) => f.kind === 'timeout' && f.nth <= made)) await new Promise((r) => setTimeout(r, REQUEST_TIMEOUT_MS + 200));
        for (const leak of [...leaks(ep, faulted), ...leaks(ep, other)]) v['secret-in-output'].push(`round ${ep.round} (faulted): ${leak}`);
        outcomesTrue(ep, faulted, v);
        outcomesTrue(ep, other, v);
        if ([faulted, other].some((r) => (r.stderr + r.stdout).includes('PLUMB_TOKEN_SELF_LOST'))) {
          const old = ep.emu.state.tokenByValue(sinkValue(ep, 'platform', 'plumb') ?? CREDENTIAL);
          if (old && ep.emu.state.isActive(old)) v['outcome-true'].push(`round ${ep.round}: PLUMB_TOKEN_SELF_LOST reported while the credential still works`);
          await recoverCredential(ep);
          await removeStaleLock(ep, [faulted, other], `round ${ep.round} (credential lost)`, v);
          result.selfLostRecoveries++;
        }
        tokenSafety(ep, v);

        let converged = false;
        for (let i = 0; i < 2 && !converged; i++) {
          const clean = await cli(ep, 'apply');
          result.cleanRuns++;
          for (const leak of leaks(ep, clean)) v['secret-in-output'].push(`round ${ep.round} (clean ${i + 1}): ${leak}`);
          converged = clean.code === 0;
        }
        const plan = await cli(ep, 'plan');
        const drift = await cli(ep, 'drift');
        for (const leak of [...leaks(ep, plan), ...leaks(ep, drift)]) v['secret-in-output'].push(`round ${ep.round} (plan/drift): ${leak}`);
        if (!converged || plan.code !== 0 || drift.code !== 0) {
          v.converged.push(`round ${ep.round}: not converged after 2 clean applies (plan exit ${plan.code}, drift exit ${drift.code}): ${(plan.stdout + plan.stderr).split('\n').filter((l) => /error|~|\+|-\/\+|↻/.test(l)).slice(0, 3).join(' | ')}`);
        }
        for (const [group, names] of Object.entries(DECLARED)) {
          for (const name of names) if (!holds(ep, group, name)) v['secret-in-sink'].push(`round ${ep.round}: ${group}/${name}`);
        }
        for (const wrong of siteHolds(ep)) v.converged.push(`round ${ep.round}: ${SITE} ${wrong} is not as declared after convergence`);
        commitSafety(ep, headBefore, v);
        if (ep.emu.state.projectByRef(LOCKS)!.repo.branchHead('main')!.files.has(LOCK_PATH)) v.lock.push(`round ${ep.round}: the lock file is left on the instance`);
        result.commitsChecked += commitsSince(ep, headBefore).length;
        tokenSafety(ep, v);
      }
      // The episode ends with the lifetime round, on the last round's day (its tokens fresh for 30 days).
      ep.round--;
      const faults = Array.from({ length: 1 + Math.floor(random() * 2) }, () => ({ kind: pick(FAULT_KINDS), nth: 1 + Math.floor(random() * 30) }));
      await lifetimeRound(ep, result, faults);
      for (const wrong of siteHolds(ep)) v.converged.push(`round ${ep.round} (lifetime): ${SITE} ${wrong} is not as declared after convergence`);
      if (ep.emu.state.projectByRef(LOCKS)!.repo.branchHead('main')!.files.has(LOCK_PATH)) v.lock.push(`round ${ep.round} (lifetime): the lock file is left on the instance`);
    } finally {
      await ep.emu.close();
      rmSync(ep.dir, { recursive: true, force: true });
    }
  }
  // A violation found again in a later round is still one problem: keep each message once.
  for (const k of INVARIANTS) v[k] = [...new Set(v[k])];
  return result;
}
