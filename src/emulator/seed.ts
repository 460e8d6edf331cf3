/**
 * Seed files (YAML or JSON): structural validation with a JSON Schema (ajv), semantic checks
 * (references, ids, scopes, access levels, settings through the catalogue), and building the state.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Ajv, type ErrorObject } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { DEFAULT_TOKEN_ACCESS_LEVEL, GROUP_TOKEN_SCOPES } from '../catalogue/index.js';
import { lfsPointer, makeBlob, Repository, type BlobEntry, type Person } from './git.js';
import { addJobToken, addMergeRequest, ciState } from './ci.js';
import { defaultBranchProtection } from './branches.js';
import { seedVariable } from './variables.js';
import { DEFAULT_VERSION } from './version.js';
import { applySettingsUpdate, defaultSettings, defaultSettingsRecord, effectiveSetting, SettingsSeedError } from './settings.js';
import { EmulatorState, tokenDigest, type GroupRecord, type PagesDomain, type PagesRecord, type ProjectRecord, type ProtectedBranchRecord, type TokenRecord } from './state.js';
import { parseDate, parseDateTime } from './time.js';
import { ACCESS_LEVEL_VALUES } from './tokens.js';
import type { EmulatorSeed, EmulatorTier, SeedFile, SeedPersonalToken, SeedProject } from './types.js';

export class SeedError extends Error {
  constructor(
    message: string,
    readonly problems: readonly string[] = [message],
  ) {
    super(message);
    this.name = 'SeedError';
  }
}

const visibility = { enum: ['private', 'internal', 'public'] };
const date = { type: ['string', 'null'], pattern: '^\\d{4}-\\d{2}-\\d{2}$' };
const token = {
  type: 'object',
  required: ['name', 'token', 'scopes'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1 },
    token: { type: 'string', minLength: 8 },
    scopes: { type: 'array', minItems: 1, items: { type: 'string' } },
    id: { type: 'integer', minimum: 1 },
    description: { type: ['string', 'null'] },
    expires_at: date,
    revoked: { type: 'boolean' },
    created_at: { type: 'string' },
    last_used_at: { type: ['string', 'null'] },
  },
};
const member = {
  type: 'object',
  required: ['username', 'access_level'],
  additionalProperties: false,
  properties: { username: { type: 'string' }, access_level: { type: 'integer' } },
};
const file = {
  anyOf: [
    { type: 'string' },
    {
      type: 'object',
      additionalProperties: false,
      properties: {
        content: { type: 'string' },
        content_base64: { type: 'string' },
        execute: { type: 'boolean' },
        lfs_content: { type: 'string' },
      },
    },
  ],
};

const variables = {
  type: 'array',
  items: {
    type: 'object',
    required: ['key', 'value'],
    additionalProperties: false,
    properties: {
      key: { type: 'string' },
      value: { type: 'string' },
      variable_type: { enum: ['env_var', 'file'] },
      protected: { type: 'boolean' },
      masked: { type: 'boolean' },
      hidden: { type: 'boolean' },
      raw: { type: 'boolean' },
      environment_scope: { type: 'string' },
      description: { type: 'string' },
    },
  },
};

const SEED_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    instance: {
      type: 'object',
      additionalProperties: false,
      properties: {
        pages_enabled: { type: 'boolean' },
        pages_host: { type: 'string', minLength: 1 },
        pages_https: { type: 'boolean' },
        version: { type: 'string', pattern: '^\\d+\\.\\d+\\.\\d+' },
      },
    },
    settings: { type: 'object' },
    users: {
      type: 'array',
      items: {
        type: 'object',
        required: ['username'],
        additionalProperties: false,
        properties: {
          username: { type: 'string', minLength: 1 },
          id: { type: 'integer', minimum: 1 },
          name: { type: 'string' },
          email: { type: 'string' },
          admin: { type: 'boolean' },
          created_at: { type: 'string' },
          personal_access_tokens: { type: 'array', items: token },
        },
      },
    },
    groups: {
      type: 'array',
      items: {
        type: 'object',
        required: ['full_path'],
        additionalProperties: false,
        properties: {
          full_path: { type: 'string', pattern: '^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$' },
          id: { type: 'integer', minimum: 1 },
          name: { type: 'string' },
          visibility,
          description: { type: 'string' },
          members: { type: 'array', items: member },
          access_tokens: {
            type: 'array',
            items: { ...token, properties: { ...token.properties, access_level: { type: 'integer' } } },
          },
          variables,
        },
      },
    },
    projects: {
      type: 'array',
      items: {
        type: 'object',
        required: ['path_with_namespace'],
        additionalProperties: false,
        properties: {
          path_with_namespace: { type: 'string', pattern: '^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)+$' },
          id: { type: 'integer', minimum: 1 },
          name: { type: 'string' },
          visibility,
          description: { type: 'string' },
          archived: { type: 'boolean' },
          default_branch: { type: 'string', minLength: 1 },
          members: { type: 'array', items: member },
          shared_with_groups: {
            type: 'array',
            items: {
              type: 'object',
              required: ['full_path'],
              additionalProperties: false,
              properties: { full_path: { type: 'string', minLength: 1 }, group_access: { type: 'integer' } },
            },
          },
          files: { type: 'object', additionalProperties: file },
          branches: {
            type: 'object',
            additionalProperties: {
              type: 'object',
              additionalProperties: false,
              properties: {
                from: { type: 'string' },
                message: { type: 'string' },
                files: { type: 'object', additionalProperties: { anyOf: [file, { type: 'null' }] } },
              },
            },
          },
          tags: { type: 'object', additionalProperties: { type: 'string' } },
          protected_branches: {
            type: 'array',
            items: {
              anyOf: [
                { type: 'string', minLength: 1 },
                {
                  type: 'object',
                  required: ['name'],
                  additionalProperties: false,
                  properties: {
                    name: { type: 'string', minLength: 1 },
                    push_access_level: { enum: [0, 30, 40, 60] },
                    merge_access_level: { enum: [0, 30, 40, 60] },
                    allow_force_push: { type: 'boolean' },
                  },
                },
              ],
            },
          },
          merge_requests: {
            type: 'array',
            items: {
              type: 'object',
              required: ['iid'],
              additionalProperties: false,
              properties: { iid: { type: 'integer', minimum: 1 }, title: { type: 'string' } },
            },
          },
          ci_job_tokens: {
            type: 'array',
            items: {
              type: 'object',
              required: ['token', 'username'],
              additionalProperties: false,
              properties: { token: { type: 'string', minLength: 8 }, username: { type: 'string', minLength: 1 } },
            },
          },
          pages_access_level: { enum: ['disabled', 'private', 'enabled', 'public'] },
          variables,
          pages: {
            type: 'object',
            additionalProperties: false,
            properties: {
              enabled: { type: 'boolean' },
              unique_domain: { type: 'string', minLength: 1 },
              unique_domain_enabled: { type: 'boolean' },
              https_only: { type: 'boolean' },
              primary_domain: { type: ['string', 'null'] },
              domains: {
                type: 'array',
                items: {
                  anyOf: [
                    { type: 'string', minLength: 1 },
                    {
                      type: 'object',
                      required: ['domain'],
                      additionalProperties: false,
                      properties: {
                        domain: { type: 'string', minLength: 1 },
                        certificate: { type: 'boolean' },
                        certificate_expires_at: { type: 'string' },
                        certificate_subject: { type: 'string' },
                        verified: { type: 'boolean' },
                        enabled_until: { type: ['string', 'null'] },
                        auto_ssl_enabled: { type: 'boolean' },
                      },
                    },
                  ],
                },
              },
              deployments: {
                type: 'array',
                items: {
                  type: 'object',
                  additionalProperties: false,
                  properties: {
                    path_prefix: { type: 'string' },
                    root_directory: { type: ['string', 'null'] },
                    created_at: { type: 'string' },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
} as const;

let validator: ReturnType<Ajv['compile']> | undefined;

function describe(e: ErrorObject): string {
  const where = e.instancePath === '' ? 'seed' : `seed${e.instancePath.replace(/\/(\d+)/g, '[$1]').replace(/\//g, '.')}`;
  if (e.keyword === 'additionalProperties') {
    return `${where}: unknown key '${String((e.params as { additionalProperty: string }).additionalProperty)}'`;
  }
  if (e.keyword === 'required') return `${where}: missing '${String((e.params as { missingProperty: string }).missingProperty)}'`;
  return `${where}: ${e.message ?? 'is invalid'}`;
}

/** Structural validation; throws a SeedError listing every problem. */
export function validateSeed(seed: unknown): asserts seed is EmulatorSeed {
  validator ??= new Ajv({ allErrors: true, strict: false }).compile(SEED_SCHEMA);
  if (validator(seed)) return;
  const problems = [...new Set((validator.errors ?? []).filter((e) => e.keyword !== 'anyOf').map(describe))];
  throw new SeedError(`invalid seed:\n  - ${problems.join('\n  - ')}`, problems);
}

/** Reads a YAML or JSON seed file. */
export async function loadSeedFile(path: string): Promise<EmulatorSeed> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new SeedError(`cannot read seed file ${path}: ${(e as Error).message}`);
  }
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (e) {
    throw new SeedError(`seed file ${path} is not valid YAML/JSON: ${(e as Error).message}`);
  }
  try {
    validateSeed(value ?? {});
  } catch (e) {
    if (e instanceof SeedError) throw new SeedError(`${path}: ${e.message}`, e.problems);
    throw e;
  }
  return (value ?? {}) as EmulatorSeed;
}

export interface StateOptions {
  tier?: EmulatorTier;
  now?: () => Date;
  settingsCacheSeconds?: number;
}

function seedBlob(f: SeedFile, lfs: Map<string, Buffer>): BlobEntry {
  if (typeof f === 'string') return makeBlob(Buffer.from(f, 'utf8'));
  if (f.lfs_content !== undefined) {
    const content = Buffer.from(f.lfs_content, 'utf8');
    const { pointer, oid } = lfsPointer(content);
    lfs.set(oid, content);
    return makeBlob(pointer, f.execute ?? false);
  }
  const data = f.content_base64 !== undefined ? Buffer.from(f.content_base64, 'base64') : Buffer.from(f.content ?? '', 'utf8');
  return makeBlob(data, f.execute ?? false);
}

/**
 * A seeded project's protected branches: the seed's rules, else the default branch protected as
 * the instance's `default_branch_protection_defaults` says (as a new project's is).
 */
function seedProtections(state: EmulatorState, rules: SeedProject['protected_branches'], defaultBranch: string): ProtectedBranchRecord[] {
  if (rules === undefined) {
    const rule = defaultBranchProtection(state, defaultBranch, 0);
    return rule ? [{ ...rule, id: state.nextId('protected_branch') }] : [];
  }
  return rules.map((r) => {
    const rule = typeof r === 'string' ? { name: r } : r;
    return {
      id: state.nextId('protected_branch'),
      name: rule.name,
      pushAccessLevel: rule.push_access_level ?? 40,
      mergeAccessLevel: rule.merge_access_level ?? 40,
      unprotectAccessLevel: 40,
      allowForcePush: rule.allow_force_push ?? false,
      codeOwnerApprovalRequired: false,
    };
  });
}

/** Builds a live state from a seed (validated here too). */
export function createEmulatorState(seed: EmulatorSeed = {}, opts: StateOptions = {}): EmulatorState {
  validateSeed(seed);
  const state = new EmulatorState();
  state.tier = opts.tier ?? 'ultimate';
  if (opts.now) state.now = opts.now;
  state.settingsCacheSeconds = opts.settingsCacheSeconds ?? 0;
  const problems: string[] = [];
  const now = state.now();

  // Instance and settings.
  state.instance = {
    pagesEnabled: seed.instance?.pages_enabled ?? true,
    pagesHost: seed.instance?.pages_host ?? 'pages.example.test',
    pagesHttps: seed.instance?.pages_https ?? true,
    version: seed.instance?.version ?? DEFAULT_VERSION,
  };
  state.settings = defaultSettings();
  state.settingsRecord = defaultSettingsRecord(now);
  if (seed.settings) {
    try {
      applySettingsUpdate(state, seed.settings, { mode: 'seed' });
    } catch (e) {
      if (e instanceof SettingsSeedError) problems.push(`seed.settings: ${e.message}`);
      else throw e;
    }
  }

  const time = (value: string | null | undefined, where: string): Date | null => {
    if (value === undefined || value === null) return null;
    const d = parseDateTime(value);
    if (!d) problems.push(`${where}: '${value}' is not an ISO 8601 datetime`);
    return d ?? null;
  };
  const day = (value: string | null | undefined, where: string): string | null => {
    if (value === undefined || value === null) return null;
    const d = parseDate(value);
    if (!d) problems.push(`${where}: '${value}' is not a valid date`);
    return d ?? null;
  };
  const tokenValues = new Set<string>();
  const reserveTokenValue = (value: string, where: string): void => {
    if (tokenValues.has(value)) problems.push(`${where}: token value is used twice`);
    tokenValues.add(value);
  };

  // Reserve explicit ids first so generated ones never collide.
  for (const u of seed.users ?? []) if (u.id) state.reserveId('user', u.id);
  for (const g of seed.groups ?? []) if (g.id) state.reserveId('group', g.id);
  for (const p of seed.projects ?? []) if (p.id) state.reserveId('project', p.id);
  const allTokens = [
    ...(seed.users ?? []).flatMap((u) => u.personal_access_tokens ?? []),
    ...(seed.groups ?? []).flatMap((g) => g.access_tokens ?? []),
  ];
  for (const t of allTokens) if (t.id) state.reserveId('token', t.id);
  const seenIds = { user: new Set<number>(), group: new Set<number>(), project: new Set<number>(), token: new Set<number>() };
  const uniqueId = (kind: keyof typeof seenIds, id: number | undefined, where: string): number => {
    const value = id ?? state.nextId(kind);
    if (seenIds[kind].has(value)) problems.push(`${where}: ${kind} id ${value} is used twice`);
    seenIds[kind].add(value);
    return value;
  };

  const makeToken = (
    t: SeedPersonalToken,
    where: string,
    userId: number,
    kind: 'personal' | 'group',
    groupId: number | null,
  ): TokenRecord => {
    reserveTokenValue(t.token, where);
    return {
      id: uniqueId('token', t.id, where),
      userId,
      name: t.name,
      description: t.description ?? null,
      scopes: [...t.scopes],
      digest: tokenDigest(t.token),
      createdAt: time(t.created_at, `${where}.created_at`) ?? now,
      expiresAt: day(t.expires_at, `${where}.expires_at`),
      revoked: t.revoked ?? false,
      // A seeded revoked token counts as revoked when the instance starts.
      revokedAt: t.revoked ? now : null,
      lastUsedAt: time(t.last_used_at, `${where}.last_used_at`),
      previousId: null,
      kind,
      groupId,
    };
  };

  // Users.
  (seed.users ?? []).forEach((u, i) => {
    const where = `seed.users[${i}]`;
    if (state.userByUsername(u.username)) problems.push(`${where}: username '${u.username}' is used twice`);
    const user = {
      id: uniqueId('user', u.id, where),
      username: u.username,
      name: u.name ?? u.username,
      email: u.email ?? `${u.username}@example.test`,
      admin: u.admin ?? false,
      bot: false,
      createdAt: time(u.created_at, `${where}.created_at`) ?? now,
    };
    state.users.push(user);
    (u.personal_access_tokens ?? []).forEach((t, j) => {
      state.tokens.push(makeToken(t, `${where}.personal_access_tokens[${j}]`, user.id, 'personal', null));
    });
  });

  const memberMap = (members: { username: string; access_level: number }[] | undefined, where: string): Map<number, number> => {
    const map = new Map<number, number>();
    (members ?? []).forEach((m, i) => {
      const user = state.userByUsername(m.username);
      if (!user) problems.push(`${where}.members[${i}]: unknown user '${m.username}'`);
      if (!ACCESS_LEVEL_VALUES.includes(m.access_level)) {
        problems.push(`${where}.members[${i}].access_level: must be one of ${ACCESS_LEVEL_VALUES.join(', ')}`);
      }
      if (user) map.set(user.id, m.access_level);
    });
    return map;
  };

  // Groups (parents first, whatever the order in the file).
  const groups = [...(seed.groups ?? [])].map((g, i) => ({ g, i })).sort((a, b) => a.g.full_path.split('/').length - b.g.full_path.split('/').length);
  for (const { g, i } of groups) {
    const where = `seed.groups[${i}]`;
    const parts = g.full_path.split('/');
    const parentPath = parts.slice(0, -1).join('/');
    const parent = parentPath ? state.groupByRef(parentPath) : undefined;
    if (parentPath && !parent) problems.push(`${where}: parent group '${parentPath}' is not seeded`);
    if (state.groupByRef(g.full_path)) problems.push(`${where}: group '${g.full_path}' is seeded twice`);
    const group: GroupRecord = {
      id: uniqueId('group', g.id, where),
      fullPath: g.full_path,
      path: parts[parts.length - 1]!,
      name: g.name ?? parts[parts.length - 1]!,
      parentId: parent?.id ?? null,
      visibility: g.visibility ?? 'private',
      description: g.description ?? '',
      createdAt: now,
      members: memberMap(g.members, where),
      variables: [],
    };
    state.groups.push(group);
    (g.variables ?? []).forEach((v, j) => {
      for (const problem of seedVariable(group, v)) problems.push(`${where}.variables[${j}]: ${problem}`);
    });
    (g.access_tokens ?? []).forEach((t, j) => {
      const tw = `${where}.access_tokens[${j}]`;
      const level = t.access_level ?? DEFAULT_TOKEN_ACCESS_LEVEL;
      if (!ACCESS_LEVEL_VALUES.includes(level)) problems.push(`${tw}.access_level: must be one of ${ACCESS_LEVEL_VALUES.join(', ')}`);
      const bad = t.scopes.filter((s) => !(GROUP_TOKEN_SCOPES as readonly string[]).includes(s));
      if (bad.length > 0) problems.push(`${tw}.scopes: unknown scope(s) ${bad.join(', ')}`);
      const suffix = createHash('sha256').update(`${group.id}:${t.name}:${j}`).digest('hex').slice(0, 8);
      const bot = {
        id: state.nextId('user'),
        username: `group_${group.id}_bot_${suffix}`,
        name: t.name,
        email: `group_${group.id}_bot_${suffix}@noreply.example.test`,
        admin: false,
        bot: true,
        createdAt: now,
      };
      state.users.push(bot);
      group.members.set(bot.id, level);
      state.tokens.push(makeToken(t, tw, bot.id, 'group', group.id));
    });
  }

  const shares = (list: { full_path: string; group_access?: number }[] | undefined, where: string): Map<number, number> => {
    const map = new Map<number, number>();
    (list ?? []).forEach((s, i) => {
      const group = state.groupByRef(s.full_path);
      if (!group) problems.push(`${where}.shared_with_groups[${i}]: group '${s.full_path}' is not seeded`);
      const level = s.group_access ?? 30;
      if (!ACCESS_LEVEL_VALUES.includes(level)) problems.push(`${where}.shared_with_groups[${i}].group_access: must be one of ${ACCESS_LEVEL_VALUES.join(', ')}`);
      if (group) map.set(group.id, level);
    });
    return map;
  };

  // Projects.
  const seedAuthor: Person = (() => {
    const admin = state.users.find((u) => u.admin && !u.bot);
    return admin ? { name: admin.name, email: admin.email } : { name: 'Administrator', email: 'admin@example.test' };
  })();
  (seed.projects ?? []).forEach((p, i) => {
    const where = `seed.projects[${i}]`;
    const parts = p.path_with_namespace.split('/');
    const nsPath = parts.slice(0, -1).join('/');
    const namespace = state.groupByRef(nsPath);
    if (!namespace) {
      problems.push(`${where}: namespace group '${nsPath}' is not seeded`);
      return;
    }
    if (state.projectByRef(p.path_with_namespace)) problems.push(`${where}: project '${p.path_with_namespace}' is seeded twice`);
    const repo = new Repository();
    const lfsObjects = new Map<string, Buffer>();
    const defaultBranch = p.default_branch ?? 'main';
    const files = Object.entries(p.files ?? {});
    if (files.length > 0) {
      repo.commit({
        branch: defaultBranch,
        changes: new Map(files.map(([path, f]) => [path.replace(/^\/+/, ''), seedBlob(f, lfsObjects)])),
        author: seedAuthor,
        committer: seedAuthor,
        message: 'Initial commit',
        date: now,
      });
    }
    for (const [name, b] of Object.entries(p.branches ?? {})) {
      const from = b.from ?? defaultBranch;
      const base = repo.branchHead(from);
      if (!base) {
        problems.push(`${where}.branches.${name}: branch '${from}' to start from does not exist`);
        continue;
      }
      const changes = Object.entries(b.files ?? {});
      if (changes.length === 0) {
        repo.branches.set(name, base.id);
        continue;
      }
      repo.commit({
        branch: name,
        parent: base,
        changes: new Map(changes.map(([path, f]) => [path.replace(/^\/+/, ''), f === null ? null : seedBlob(f, lfsObjects)])),
        author: seedAuthor,
        committer: seedAuthor,
        message: b.message ?? `Update ${name}`,
        date: now,
      });
    }
    for (const [tag, ref] of Object.entries(p.tags ?? {})) {
      const c = repo.resolve(ref);
      if (!c) problems.push(`${where}.tags.${tag}: '${ref}' does not resolve to a commit`);
      else repo.tags.set(tag, c.id);
    }
    const id = uniqueId('project', p.id, where);
    // Every project has Pages settings, deployed or not (the real service keeps them with the
    // project); the feature is off for the project only through pages_access_level (or enabled: false).
    const seedPages = p.pages ?? {};
    let pages: PagesRecord;
    {
      const domains = (seedPages.domains ?? []).map((d, j): PagesDomain => {
        const s = typeof d === 'string' ? { domain: d } : d;
        const at = `${where}.pages.domains[${j}]`;
        return {
          domain: s.domain,
          certificate: s.certificate ?? true,
          certificateExpiresAt: time(s.certificate_expires_at, `${at}.certificate_expires_at`) ?? new Date(now.getTime() + 365 * 86_400_000),
          certificateSubject: s.certificate_subject ?? `/CN=${s.domain}`,
          verified: s.verified ?? true,
          verificationCode: createHash('sha256').update(`verify:${s.domain}`).digest('hex').slice(0, 32),
          enabledUntil: s.enabled_until === null ? null : (time(s.enabled_until, `${at}.enabled_until`) ?? new Date(now.getTime() + 7 * 86_400_000)),
          autoSslEnabled: s.auto_ssl_enabled ?? false,
        };
      });
      const primary = seedPages.primary_domain ?? null;
      if (primary !== null && !domains.some((d) => d.domain === primary)) {
        problems.push(`${where}.pages.primary_domain: '${primary}' is not one of the project's domains`);
      }
      const hash = createHash('sha256').update(`pages:${id}`).digest('hex').slice(0, 6);
      const uniqueDefault = effectiveSetting(state, 'pages_unique_domain_default_enabled');
      pages = {
        uniqueDomain: seedPages.unique_domain ?? `${parts[parts.length - 1]!.toLowerCase()}-${hash}.${state.instance.pagesHost}`,
        uniqueDomainEnabled: seedPages.unique_domain_enabled ?? (typeof uniqueDefault === 'boolean' ? uniqueDefault : true),
        httpsOnly: seedPages.https_only ?? false,
        primaryDomain: primary,
        domains,
        deployments: (seedPages.deployments ?? []).map((d, j) => ({
          createdAt: time(d.created_at, `${where}.pages.deployments[${j}].created_at`) ?? now,
          pathPrefix: d.path_prefix ?? '',
          rootDirectory: d.root_directory === undefined ? 'public' : d.root_directory,
        })),
      };
    }
    const project: ProjectRecord = {
      id,
      pathWithNamespace: p.path_with_namespace,
      path: parts[parts.length - 1]!,
      name: p.name ?? parts[parts.length - 1]!,
      namespaceId: namespace.id,
      visibility: p.visibility ?? 'private',
      description: p.description ?? '',
      createdAt: now,
      archived: p.archived ?? false,
      defaultBranch,
      members: memberMap(p.members, where),
      sharedWith: shares(p.shared_with_groups, where),
      repo,
      protectedBranches: seedProtections(state, p.protected_branches, defaultBranch),
      pagesAccessLevel: seedPages.enabled === false ? 'disabled' : (p.pages_access_level ?? 'enabled'),
      pages,
      lfsObjects,
      variables: [],
    };
    state.projects.push(project);
    (p.variables ?? []).forEach((v, j) => {
      for (const problem of seedVariable(project, v)) problems.push(`${where}.variables[${j}]: ${problem}`);
    });
    // What a pipeline of the project would have: merge requests to comment on, running jobs' tokens.
    const iids = new Set<number>();
    (p.merge_requests ?? []).forEach((mr, j) => {
      if (iids.has(mr.iid)) problems.push(`${where}.merge_requests[${j}]: iid ${mr.iid} is used twice`);
      iids.add(mr.iid);
      addMergeRequest(state, p.path_with_namespace, mr.iid, mr.title);
    });
    (p.ci_job_tokens ?? []).forEach((job, j) => {
      if (!state.userByUsername(job.username)) problems.push(`${where}.ci_job_tokens[${j}]: unknown user '${job.username}'`);
      else if (ciState(state).jobTokens.has(job.token)) problems.push(`${where}.ci_job_tokens[${j}]: the token is used twice`);
      else addJobToken(state, job.token, job.username, p.path_with_namespace);
    });
  });

  if (problems.length > 0) throw new SeedError(`invalid seed:\n  - ${problems.join('\n  - ')}`, problems);
  return state;
}
