/**
 * The group access token, repository file and Pages resources of
 * `shared/spec/tokens-files-pages.md`, as data. Section numbers below are the spec's.
 */
import type { ResourceFieldSpec } from './types.js';

// ---------------------------------------------------------------------------------------------
// Access levels (2.1 access_level, 4.1 create)
// ---------------------------------------------------------------------------------------------

/** Numeric access level → role name, as the spec lists them for `access_level`. */
export const ACCESS_LEVELS = {
  10: 'guest',
  15: 'planner',
  20: 'reporter',
  30: 'developer',
  40: 'maintainer',
  50: 'owner',
} as const satisfies Readonly<Record<number, string>>;

export type AccessLevel = keyof typeof ACCESS_LEVELS;
export type AccessRole = (typeof ACCESS_LEVELS)[AccessLevel];

/** Role name → numeric access level (the reverse of ACCESS_LEVELS). */
export const ACCESS_LEVEL_BY_ROLE = {
  guest: 10,
  planner: 15,
  reporter: 20,
  developer: 30,
  maintainer: 40,
  owner: 50,
} as const satisfies Readonly<Record<AccessRole, AccessLevel>>;

/** `access_level` of a created token when none is given (4.1, 8). */
export const DEFAULT_TOKEN_ACCESS_LEVEL = 40 as const satisfies AccessLevel;

const ACCESS_LEVEL_VALUES: readonly number[] = [10, 15, 20, 30, 40, 50];

// ---------------------------------------------------------------------------------------------
// 2.1 Group access token; 4.1 list query, create and rotate bodies
// ---------------------------------------------------------------------------------------------

/**
 * Scopes accepted for group access tokens. The spec only shows examples ("Complete list ... not
 * shown"); this list is the real service's v4 group access token scopes. Plumb treats a scope
 * outside it as a warning, never an error, so a newer instance with more scopes still works.
 */
export const GROUP_TOKEN_SCOPES = [
  'api',
  'read_api',
  'read_registry',
  'write_registry',
  'read_repository',
  'write_repository',
  'create_runner',
  'manage_runner',
  'ai_features',
  'k8s_proxy',
  'self_rotate',
  'read_virtual_registry',
  'write_virtual_registry',
  'read_observability',
  'write_observability',
] as const;
export type GroupTokenScope = (typeof GROUP_TOKEN_SCOPES)[number];

/** Values of the `sort` query parameter of the token list. */
export const TOKEN_LIST_SORTS = [
  'created_asc',
  'created_desc',
  'expires_asc',
  'expires_desc',
  'last_used_asc',
  'last_used_desc',
  'name_asc',
  'name_desc',
] as const;
export type TokenListSort = (typeof TOKEN_LIST_SORTS)[number];

/** Values of the `state` query parameter of the token list (since 17.2). */
export const TOKEN_LIST_STATES = ['active', 'inactive'] as const;
export type TokenListState = (typeof TOKEN_LIST_STATES)[number];

/** The group access token object as returned by list, get, create and rotate. */
export const GROUP_ACCESS_TOKEN_FIELDS: readonly ResourceFieldSpec[] = [
  { name: 'id', type: 'integer', readOnly: true, description: 'token ID' },
  { name: 'user_id', type: 'integer', readOnly: true, description: 'ID of the bot user behind the token' },
  { name: 'name', type: 'string', description: 'token name' },
  { name: 'description', type: 'string', description: 'token description' },
  { name: 'scopes', type: 'string[]', description: 'scopes of the token (see GROUP_TOKEN_SCOPES)' },
  { name: 'access_level', type: 'integer', enum: ACCESS_LEVEL_VALUES, default: DEFAULT_TOKEN_ACCESS_LEVEL, description: '10 Guest, 15 Planner, 20 Reporter, 30 Developer, 40 Maintainer, 50 Owner' },
  { name: 'active', type: 'boolean', readOnly: true, description: 'false for a revoked token' },
  { name: 'revoked', type: 'boolean', readOnly: true, description: 'true for a revoked token' },
  { name: 'created_at', type: 'datetime', readOnly: true, description: 'creation time' },
  { name: 'expires_at', type: 'date', description: 'expiry date; on create, defaults to the maximum allowed lifetime (since 16.0)' },
  { name: 'last_used_at', type: 'datetime', nullable: true, readOnly: true, description: 'last use; returned by list and rotate, omitted by get' },
  { name: 'token', type: 'string', readOnly: true, secret: true, description: 'the secret value; returned only by create and rotate' },
];

/** A request field: a ResourceFieldSpec plus whether the request must carry it. */
export interface RequestFieldSpec extends ResourceFieldSpec {
  readonly required: boolean;
}

/** Query parameters of GET /groups/:id/access_tokens (the path `id` is not included). */
export const TOKEN_LIST_QUERY_FIELDS: readonly RequestFieldSpec[] = [
  { name: 'created_after', type: 'datetime', required: false, description: 'created after' },
  { name: 'created_before', type: 'datetime', required: false, description: 'created before' },
  { name: 'expires_after', type: 'date', required: false, description: 'expires after' },
  { name: 'expires_before', type: 'date', required: false, description: 'expires before' },
  { name: 'last_used_after', type: 'datetime', required: false, description: 'last used after' },
  { name: 'last_used_before', type: 'datetime', required: false, description: 'last used before' },
  { name: 'revoked', type: 'boolean', required: false, description: 'true returns only revoked tokens' },
  { name: 'search', type: 'string', required: false, description: 'tokens whose name contains the value' },
  { name: 'sort', type: 'string', enum: TOKEN_LIST_SORTS, required: false, description: 'sort order' },
  { name: 'state', type: 'string', enum: TOKEN_LIST_STATES, required: false, since: '17.2', description: 'active or inactive' },
];

/** JSON body of POST /groups/:id/access_tokens. */
export const TOKEN_CREATE_FIELDS: readonly RequestFieldSpec[] = [
  { name: 'name', type: 'string', required: true, description: 'token name' },
  { name: 'description', type: 'string', required: false, description: 'token description' },
  { name: 'scopes', type: 'string[]', required: true, description: 'scopes of the token' },
  { name: 'access_level', type: 'integer', enum: ACCESS_LEVEL_VALUES, default: DEFAULT_TOKEN_ACCESS_LEVEL, required: false, description: 'access level of the token' },
  { name: 'expires_at', type: 'date', required: false, description: 'if omitted, the maximum allowed lifetime (since 16.0)' },
];

/** Body of POST /groups/:id/access_tokens/:token_id/rotate (rotate since 16.0). */
export const TOKEN_ROTATE_FIELDS: readonly RequestFieldSpec[] = [
  { name: 'expires_at', type: 'date', required: false, since: '16.6', description: 'expiry of the new token; default 1 week when expiry is required, otherwise the maximum allowed lifetime' },
];

// ---------------------------------------------------------------------------------------------
// 2.2 Repository file (get response) and its HEAD metadata headers
// ---------------------------------------------------------------------------------------------

export const REPOSITORY_FILE_FIELDS: readonly ResourceFieldSpec[] = [
  { name: 'file_name', type: 'string', readOnly: true, description: 'file name' },
  { name: 'file_path', type: 'string', readOnly: true, description: 'full path' },
  { name: 'size', type: 'integer', readOnly: true, description: 'size in bytes' },
  { name: 'encoding', type: 'string', readOnly: true, description: 'encoding of content, e.g. base64' },
  { name: 'content', type: 'string', readOnly: true, description: 'Base64-encoded content' },
  { name: 'content_sha256', type: 'string', readOnly: true, description: 'SHA256 of the content' },
  { name: 'ref', type: 'string', readOnly: true, description: 'branch, tag or commit used' },
  { name: 'blob_id', type: 'string', readOnly: true, description: 'blob SHA' },
  { name: 'commit_id', type: 'string', readOnly: true, description: 'commit SHA for the file' },
  { name: 'last_commit_id', type: 'string', readOnly: true, description: 'SHA of the last commit that modified the file' },
  { name: 'execute_filemode', type: 'boolean', readOnly: true, description: 'execute flag set' },
];

/**
 * Metadata headers of HEAD on the file endpoints → the field of REPOSITORY_FILE_FIELDS with the same
 * value. Header names as the spec writes them; HTTP header names compare case-insensitively (Node
 * lowercases them).
 */
export const FILE_METADATA_HEADERS = {
  'X-Service-Blob-Id': 'blob_id',
  'X-Service-Commit-Id': 'commit_id',
  'X-Service-Content-Sha256': 'content_sha256',
  'X-Service-Encoding': 'encoding',
  'X-Service-File-Name': 'file_name',
  'X-Service-File-Path': 'file_path',
  'X-Service-Last-Commit-Id': 'last_commit_id',
  'X-Service-Ref': 'ref',
  'X-Service-Size': 'size',
  'X-Service-Execute-Filemode': 'execute_filemode',
} as const satisfies Readonly<Record<string, string>>;

// ---------------------------------------------------------------------------------------------
// 2.3 Blame range
// ---------------------------------------------------------------------------------------------

export const BLAME_RANGE_FIELDS: readonly ResourceFieldSpec[] = [
  { name: 'commit', type: 'object', readOnly: true, description: 'the commit of this range (see BLAME_COMMIT_FIELDS)' },
  { name: 'lines', type: 'string[]', readOnly: true, description: 'the file lines of this range' },
];

/** Fields of the `commit` object of a blame range. */
export const BLAME_COMMIT_FIELDS: readonly ResourceFieldSpec[] = [
  { name: 'id', type: 'string', readOnly: true, description: 'commit SHA' },
  { name: 'message', type: 'string', readOnly: true, description: 'commit message' },
  { name: 'parent_ids', type: 'string[]', readOnly: true, description: 'parent commit SHAs' },
  { name: 'authored_date', type: 'datetime', readOnly: true, description: 'author date' },
  { name: 'author_name', type: 'string', readOnly: true, description: 'author name' },
  { name: 'author_email', type: 'string', readOnly: true, description: 'author email' },
  { name: 'committed_date', type: 'datetime', readOnly: true, description: 'committer date' },
  { name: 'committer_name', type: 'string', readOnly: true, description: 'committer name' },
  { name: 'committer_email', type: 'string', readOnly: true, description: 'committer email' },
];

// ---------------------------------------------------------------------------------------------
// 4.2 File write body (POST create, PUT update, DELETE) and 2.4 write result
// ---------------------------------------------------------------------------------------------

/** Whether a body field is required, optional or not accepted (`-` in the spec) for one method. */
export type FieldPresence = 'required' | 'optional' | 'absent';

/** A body field of the file write endpoints, with its presence per method. */
export interface FileWriteFieldSpec extends ResourceFieldSpec {
  readonly methods: { readonly POST: FieldPresence; readonly PUT: FieldPresence; readonly DELETE: FieldPresence };
}

export const FILE_WRITE_FIELDS: readonly FileWriteFieldSpec[] = [
  { name: 'branch', type: 'string', methods: { POST: 'required', PUT: 'required', DELETE: 'required' }, description: 'branch that receives the commit' },
  { name: 'commit_message', type: 'string', methods: { POST: 'required', PUT: 'required', DELETE: 'required' }, description: 'commit message' },
  { name: 'content', type: 'string', methods: { POST: 'required', PUT: 'required', DELETE: 'absent' }, description: 'file content' },
  { name: 'author_email', type: 'string', methods: { POST: 'optional', PUT: 'optional', DELETE: 'optional' }, description: 'commit author email' },
  { name: 'author_name', type: 'string', methods: { POST: 'optional', PUT: 'optional', DELETE: 'optional' }, description: 'commit author name' },
  { name: 'encoding', type: 'string', enum: ['base64', 'text'], default: 'text', methods: { POST: 'optional', PUT: 'optional', DELETE: 'absent' }, description: 'encoding of content: base64 or text' },
  { name: 'execute_filemode', type: 'boolean', methods: { POST: 'optional', PUT: 'optional', DELETE: 'absent' }, description: 'true sets, false clears the execute flag' },
  { name: 'start_branch', type: 'string', methods: { POST: 'optional', PUT: 'optional', DELETE: 'optional' }, description: 'base branch to create the branch from' },
  { name: 'last_commit_id', type: 'string', methods: { POST: 'absent', PUT: 'optional', DELETE: 'optional' }, description: 'last known commit ID of the file' },
];

/** Response of POST (201) and PUT (200) on a file. */
export const FILE_WRITE_RESULT_FIELDS: readonly ResourceFieldSpec[] = [
  { name: 'file_path', type: 'string', readOnly: true, description: 'path of the created or updated file' },
  { name: 'branch', type: 'string', readOnly: true, description: 'branch the commit went to' },
];

// ---------------------------------------------------------------------------------------------
// 2.5 Pages settings (response) and 4.3 PATCH fields
// ---------------------------------------------------------------------------------------------

/** GET/PATCH /projects/:id/pages response (read since 16.8). */
export const PAGES_SETTINGS_FIELDS: readonly ResourceFieldSpec[] = [
  { name: 'url', type: 'string', readOnly: true, description: "URL to access the project's Pages" },
  { name: 'is_unique_domain_enabled', type: 'boolean', readOnly: true, description: 'a unique domain is used' },
  { name: 'force_https', type: 'boolean', readOnly: true, description: 'true if HTTPS is forced' },
  { name: 'primary_domain', type: 'string', nullable: true, readOnly: true, since: '17.8', description: 'domain all Pages requests redirect to' },
  { name: 'deployments', type: 'object[]', readOnly: true, description: 'current active deployments (see PAGES_DEPLOYMENT_FIELDS); the spec writes `deployments[]`' },
];

/** One element of `deployments`. */
export const PAGES_DEPLOYMENT_FIELDS: readonly ResourceFieldSpec[] = [
  { name: 'created_at', type: 'datetime', readOnly: true, description: 'deployment time' },
  { name: 'url', type: 'string', readOnly: true, description: 'URL of the deployment' },
  { name: 'path_prefix', type: 'string', readOnly: true, description: 'empty for the main deployment, set for parallel deployments' },
  { name: 'root_directory', type: 'string', nullable: true, readOnly: true, description: 'root directory of the deployment' },
];

/**
 * PATCH /projects/:id/pages fields (update since 17.0). `pages_primary_domain` carries 17.8, the
 * version the spec gives for `primary_domain`.
 */
export const PAGES_UPDATE_FIELDS: readonly RequestFieldSpec[] = [
  { name: 'pages_unique_domain_enabled', type: 'boolean', required: false, description: 'use a unique domain' },
  { name: 'pages_https_only', type: 'boolean', required: false, description: 'force HTTPS' },
  { name: 'pages_primary_domain', type: 'string', required: false, since: '17.8', description: 'one of the already assigned domains; all Pages requests redirect to it' },
];

/** PATCH field → the response field of PAGES_SETTINGS_FIELDS that reflects it. */
export const PAGES_UPDATE_RESPONSE_FIELD = {
  pages_unique_domain_enabled: 'is_unique_domain_enabled',
  pages_https_only: 'force_https',
  pages_primary_domain: 'primary_domain',
} as const satisfies Readonly<Record<string, string>>;

// ---------------------------------------------------------------------------------------------
// 7 Errors, 8 Limits
// ---------------------------------------------------------------------------------------------

/** Error statuses of POST .../access_tokens/:token_id/rotate (success is 200). */
export const ROTATE_ERRORS: Readonly<Record<number, string>> = {
  400: 'not rotated successfully',
  401: 'token does not exist, has expired, or was revoked; caller has no access to the token; a group access token is used to rotate another one',
  403: 'the token is not allowed to rotate itself',
  404: 'caller is an administrator and the token does not exist',
  405: 'the token is not an access token',
};

/** Error statuses of DELETE .../access_tokens/:token_id (success is 204). */
export const REVOKE_ERRORS: Readonly<Record<number, string>> = {
  400: 'not revoked successfully',
  404: 'the token does not exist',
};

/** Error statuses of PUT on a file (success is 200). The message is not specific. */
export const FILE_UPDATE_ERRORS: Readonly<Record<number, string>> = {
  400: 'commit failed: file_path contains /../, the content equals the current content (empty commit), or the branch moved during the edit',
};

export const LIMITS = {
  /** GET file on blobs larger than 10 MB: 5 requests per minute (MB read as MiB). */
  largeBlobRateLimit: { requestsPerMinute: 5, aboveBytes: 10 * 1024 * 1024 },
  /** Rotate without `expires_at` when expiry is required: 1 week. */
  rotationDefaultExpiryDays: 7,
  /**
   * Create without `expires_at`: the maximum allowable lifetime, i.e. the instance setting
   * max_personal_access_token_lifetime, which means 365 days when blank.
   */
  defaultLifetimeDays: 365,
  /** Settings changes may take this long to apply (settings document, section 8). */
  settingsCacheSeconds: 60,
} as const;
