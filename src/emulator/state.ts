/**
 * The emulator's live state: settings, users, tokens, groups, projects (with their repositories and
 * Pages). Plain data, so tests can inspect it and change it out of band
 * (`emulator.state.settings.signup_enabled = false`).
 */
import { createHash, randomBytes } from 'node:crypto';
import { makeBlob, type Person, type Repository } from './git.js';
import { addDays } from './time.js';
import type { EmulatorTier, Visibility } from './types.js';

export interface UserRecord {
  id: number;
  username: string;
  name: string;
  email: string;
  admin: boolean;
  /** Bot user behind a group access token. */
  bot: boolean;
  /** When the account was created (the seed's `created_at`, else the instance's start; a bot: its token's creation). */
  createdAt: Date;
}

export interface TokenRecord {
  id: number;
  userId: number;
  name: string;
  description: string | null;
  scopes: string[];
  /** SHA-256 of the secret value; the value itself is never stored. */
  digest: string;
  createdAt: Date;
  /** YYYY-MM-DD or null. The token works through the end of that (UTC) day. */
  expiresAt: string | null;
  revoked: boolean;
  /** When it was revoked (on the clock); null while not revoked. Drives the purge of inactive tokens. */
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  /** The token this one replaced by rotation (the token family link). */
  previousId: number | null;
  kind: 'personal' | 'group';
  /** For group tokens: the group the bot user belongs to. */
  groupId: number | null;
}

/**
 * A CI/CD variable of a project or group (variables.ts). `hidden` is the real `masked_and_hidden`:
 * its value is kept (pipelines read it) but never returned by the API again.
 */
export interface VariableRecord {
  key: string;
  value: string;
  variableType: 'env_var' | 'file';
  protected: boolean;
  masked: boolean;
  hidden: boolean;
  raw: boolean;
  environmentScope: string;
  description: string | null;
}

export interface GroupRecord {
  id: number;
  fullPath: string;
  path: string;
  name: string;
  parentId: number | null;
  visibility: Visibility;
  description: string;
  createdAt: Date;
  /** user id -> access level */
  members: Map<number, number>;
  /** The group's CI/CD variables, in creation order. */
  variables: VariableRecord[];
}

export interface PagesDomain {
  domain: string;
  certificate: boolean;
  /** The certificate's notAfter (with `certificate`); null: not seeded (far in the future). */
  certificateExpiresAt: Date | null;
  /** The certificate's subject, as openssl prints it. */
  certificateSubject: string;
  /** Whether the domain's ownership is verified (its DNS TXT record was found). */
  verified: boolean;
  verificationCode: string;
  /** Until when the domain is served; null: disabled (an unverified domain past its grace period). */
  enabledUntil: Date | null;
  autoSslEnabled: boolean;
}

export interface PagesDeployment {
  createdAt: Date;
  pathPrefix: string;
  rootDirectory: string | null;
}

export interface PagesRecord {
  uniqueDomain: string;
  uniqueDomainEnabled: boolean;
  httpsOnly: boolean;
  primaryDomain: string | null;
  domains: PagesDomain[];
  deployments: PagesDeployment[];
}

export type PagesAccessLevel = 'disabled' | 'private' | 'enabled' | 'public';

/**
 * A protected branch rule (branches.ts): a name or wildcard (`release/*`) and the roles that may
 * push and merge (0 No one, 30 Developers + Maintainers, 40 Maintainers, 60 Admins).
 */
export interface ProtectedBranchRecord {
  id: number;
  name: string;
  pushAccessLevel: number;
  mergeAccessLevel: number;
  unprotectAccessLevel: number;
  allowForcePush: boolean;
  codeOwnerApprovalRequired: boolean;
}

export interface ProjectRecord {
  id: number;
  pathWithNamespace: string;
  path: string;
  name: string;
  namespaceId: number;
  visibility: Visibility;
  description: string;
  createdAt: Date;
  /**
   * Archived projects are read-only, as in the real service: repository file writes and the Pages
   * PATCH answer 403; `GET /groups/:id/projects?archived=` filters on it.
   */
  archived: boolean;
  defaultBranch: string;
  members: Map<number, number>;
  /**
   * Groups the project is shared with (group id -> the share's maximum access level), as the real
   * project-group links: members of such a group get the lower of their role there and that level,
   * and `GET /groups/:id/projects` lists the project under that group while `with_shared` is true.
   */
  sharedWith: Map<number, number>;
  repo: Repository;
  /** Protected branch rules, in creation order (the seed's, else the instance default's). */
  protectedBranches: ProtectedBranchRecord[];
  /**
   * The project's Pages feature, as the real project API's `pages_access_level`: `disabled` turns
   * the Pages endpoints off for the project (404); any other level leaves them on.
   */
  pagesAccessLevel: PagesAccessLevel;
  /** The project's Pages settings and deployments; there whether or not a site was ever deployed. */
  pages: PagesRecord;
  /** LFS objects by sha256 oid. */
  lfsObjects: Map<string, Buffer>;
  /** The project's CI/CD variables, in creation order. */
  variables: VariableRecord[];
}

export interface InstanceRecord {
  pagesEnabled: boolean;
  pagesHost: string;
  /** Reported by `GET /version`. */
  version: string;
  pagesHttps: boolean;
}

export interface SettingsCache {
  /** The values GET keeps returning until `until` (epoch ms). */
  values: Record<string, unknown>;
  updatedAt: Date;
  until: number;
}

export function tokenDigest(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export type IdKind = 'user' | 'token' | 'group' | 'project' | 'protected_branch' | 'merge_request';

const TOKEN_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-';

export class EmulatorState {
  /** Settings by catalogue (request) name. */
  settings: Record<string, unknown> = {};
  /** Response-only fields (id, created_at, updated_at, ...). */
  settingsRecord: Record<string, unknown> = {};
  settingsCache: SettingsCache | null = null;
  /** >0: GET /application/settings keeps returning the pre-PUT values this long after a PUT. */
  settingsCacheSeconds = 0;
  /** Above this many results a list leaves out X-Total, X-Total-Pages and rel="last" (the real 10,000). */
  paginationCountLimit = 10_000;
  instance: InstanceRecord = { pagesEnabled: true, pagesHost: 'pages.example.test', pagesHttps: true, version: '18.2.0' };
  users: UserRecord[] = [];
  tokens: TokenRecord[] = [];
  groups: GroupRecord[] = [];
  projects: ProjectRecord[] = [];
  tier: EmulatorTier = 'ultimate';
  now: () => Date = () => new Date();
  /** Fixed-window rate-limit counters: key -> window. */
  readonly rateLimits = new Map<string, { start: number; count: number }>();
  private readonly counters: Record<IdKind, number> = { user: 1, token: 1, group: 1, project: 1, protected_branch: 1, merge_request: 1 };

  nextId(kind: IdKind): number {
    return this.counters[kind]++;
  }

  /** Makes sure generated ids do not collide with seeded ones. */
  reserveId(kind: IdKind, id: number): void {
    if (id >= this.counters[kind]) this.counters[kind] = id + 1;
  }

  today(): string {
    return addDays(this.now(), 0);
  }

  // --- users and tokens -----------------------------------------------------------------------

  userById(id: number): UserRecord | undefined {
    return this.users.find((u) => u.id === id);
  }

  userByUsername(username: string): UserRecord | undefined {
    return this.users.find((u) => u.username === username);
  }

  tokenById(id: number): TokenRecord | undefined {
    return this.tokens.find((t) => t.id === id);
  }

  tokenByValue(value: string): TokenRecord | undefined {
    const digest = tokenDigest(value);
    return this.tokens.find((t) => t.digest === digest);
  }

  /**
   * Expired from the start (00:00 UTC) of its `expires_at` day, as the real service compares the
   * date with the current time (`expires_at <= now`): a token whose `expires_at` is today is expired.
   */
  isExpired(token: TokenRecord): boolean {
    return token.expiresAt !== null && token.expiresAt <= this.today();
  }

  revoke(token: TokenRecord): void {
    if (token.revoked) return;
    token.revoked = true;
    token.revokedAt = this.now();
  }

  /**
   * Removes the group access tokens (and their bot users) that have been inactive longer than
   * `inactive_resource_access_tokens_delete_after_days`: revoked that many days ago, or expired
   * (from their expiry day) that long ago, as the real service's daily clean-up does.
   */
  purgeInactiveTokens(days: number): void {
    const cutoff = this.now().getTime() - days * 86_400_000;
    // Runs on every request over every token: expiry days are compared as strings (an expired token
    // is gone once the cutoff is past the midnight starting its expiry day), not parsed one by one,
    // which made a large instance's requests cost in proportion to its tokens.
    const cutoffDay = new Date(cutoff).toISOString().slice(0, 10);
    const pastMidnight = cutoff > Date.parse(`${cutoffDay}T00:00:00Z`);
    const gone = this.tokens.filter((t) => {
      if (t.kind !== 'group') return false;
      if (t.revoked) return (t.revokedAt?.getTime() ?? Infinity) < cutoff;
      return t.expiresAt !== null && (t.expiresAt < cutoffDay || (t.expiresAt === cutoffDay && pastMidnight));
    });
    if (gone.length === 0) return;
    const ids = new Set(gone.map((t) => t.id));
    const bots = new Set(gone.map((t) => t.userId).filter((u) => !this.tokens.some((t) => !ids.has(t.id) && t.userId === u)));
    this.tokens = this.tokens.filter((t) => !ids.has(t.id));
    for (const g of this.groups) for (const u of bots) g.members.delete(u);
    this.users = this.users.filter((u) => !bots.has(u.id));
  }

  isActive(token: TokenRecord): boolean {
    return !token.revoked && !this.isExpired(token);
  }

  /** A new random token value: the `personal_access_token_prefix` setting when set, else `svc-`. */
  generateTokenValue(): string {
    const prefix = this.settings['personal_access_token_prefix'];
    const bytes = randomBytes(20);
    let body = '';
    for (const b of bytes) body += TOKEN_ALPHABET[b % TOKEN_ALPHABET.length];
    return `${typeof prefix === 'string' && prefix !== '' ? prefix : 'svc-'}${body}`;
  }

  /** Every token of the family `token` belongs to (linked through rotation). */
  tokenFamily(token: TokenRecord): TokenRecord[] {
    let root = token;
    while (root.previousId !== null) {
      const prev = this.tokenById(root.previousId);
      if (!prev) break;
      root = prev;
    }
    const family = [root];
    for (let i = 0; i < family.length; i++) {
      const id = family[i]!.id;
      for (const t of this.tokens) if (t.previousId === id) family.push(t);
    }
    return family;
  }

  // --- groups and projects --------------------------------------------------------------------

  groupById(id: number): GroupRecord | undefined {
    return this.groups.find((g) => g.id === id);
  }

  /** A group by numeric id or full path (already URL-decoded). */
  groupByRef(ref: string): GroupRecord | undefined {
    if (/^\d+$/.test(ref)) return this.groupById(Number(ref));
    return this.groups.find((g) => g.fullPath.toLowerCase() === ref.toLowerCase());
  }

  projectByRef(ref: string): ProjectRecord | undefined {
    if (/^\d+$/.test(ref)) return this.projects.find((p) => p.id === Number(ref));
    return this.projects.find((p) => p.pathWithNamespace.toLowerCase() === ref.toLowerCase());
  }

  /** The group and its ancestors, nearest first. */
  groupChain(group: GroupRecord): GroupRecord[] {
    const chain: GroupRecord[] = [];
    let g: GroupRecord | undefined = group;
    while (g) {
      chain.push(g);
      g = g.parentId === null ? undefined : this.groupById(g.parentId);
    }
    return chain;
  }

  /** Effective membership level in a group (inherited from ancestors); 0 when none. */
  groupAccess(userId: number, group: GroupRecord): number {
    let level = 0;
    for (const g of this.groupChain(group)) level = Math.max(level, g.members.get(userId) ?? 0);
    return level;
  }

  projectAccess(userId: number, project: ProjectRecord): number {
    const ns = this.groupById(project.namespaceId);
    let level = Math.max(project.members.get(userId) ?? 0, ns ? this.groupAccess(userId, ns) : 0);
    for (const [groupId, max] of project.sharedWith) {
      const shared = this.groupById(groupId);
      if (shared) level = Math.max(level, Math.min(max, this.groupAccess(userId, shared)));
    }
    return level;
  }

  /** Whether the user is a member of the group's subtree (descendant groups or projects). */
  hasDescendantMembership(userId: number, group: GroupRecord): boolean {
    const inSubtree = (g: GroupRecord): boolean => this.groupChain(g).includes(group);
    return (
      this.groups.some((g) => inSubtree(g) && g.members.has(userId)) ||
      this.projects.some((p) => {
        const ns = this.groupById(p.namespaceId);
        return ns !== undefined && inSubtree(ns) && p.members.has(userId);
      })
    );
  }

  /**
   * Test helper: commits one file change straight into a project's repository (out of band, as a
   * push would), returning the new commit id. `content: null` deletes the file.
   */
  pushFile(
    projectRef: string | number,
    file: { branch?: string; path: string; content: string | Buffer | null; executable?: boolean; message?: string; author?: Person },
  ): string {
    const project = this.projectByRef(String(projectRef));
    if (!project) throw new Error(`no project ${projectRef}`);
    const branch = file.branch ?? project.defaultBranch;
    const parent = project.repo.branchHead(branch);
    const author = file.author ?? { name: 'Emulator', email: 'emulator@example.test' };
    const blob =
      file.content === null
        ? null
        : makeBlob(typeof file.content === 'string' ? Buffer.from(file.content) : file.content, file.executable ?? false);
    return project.repo.commit({
      branch,
      ...(parent ? { parent } : {}),
      changes: new Map([[file.path, blob]]),
      author,
      committer: author,
      message: file.message ?? `Update ${file.path}`,
      date: this.now(),
    }).id;
  }
}
