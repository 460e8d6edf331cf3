/** Public types of the emulator: options, faults, recorded requests and the seed format. */
import type { EmulatorRoute } from './server.js';

export type EmulatorTier = 'free' | 'premium' | 'ultimate';
export type Visibility = 'private' | 'internal' | 'public';

export type FaultAction =
  | { kind: 'latency'; ms: number }
  /**
   * A canned answer. `after: true`: the request is carried out first and its real answer replaced
   * (a write the instance committed, answered 500 by a proxy or a crash after the commit).
   */
  | { kind: 'status'; status: number; retryAfter?: number; body?: unknown; after?: boolean }
  | { kind: 'drop'; when: 'before' | 'after' };

export interface FaultRule {
  /** HTTP method, case-insensitive; any method when absent. */
  method?: string;
  /**
   * Matched against the path after `/api/v4` (as sent, percent-encoding kept, and decoded). A string
   * is an exact path or a glob: `*` matches within one segment, `**` across segments.
   */
  path?: string | RegExp;
  /** Only the nth matching request (1-based), then `times` requests from there. */
  nth?: number;
  /** How many matching requests to affect (default unlimited, or 1 when `nth` is set). */
  times?: number;
  /** 0..1: each otherwise-eligible request is affected with this probability (seeded PRNG). */
  probability?: number;
  action: FaultAction;
}

export interface RecordedRequest {
  readonly method: string;
  /** Path after `/api/v4`, as sent (percent-encoding kept). */
  readonly path: string;
  /** Raw query string without `?` ('' when none). */
  readonly query: string;
  /** Response status; 0 when the connection was dropped by a fault. */
  readonly status: number;
  /** When the request was answered, on the emulator's clock (`now`). */
  readonly at: Date;
  /**
   * When the request arrived and when its answer was written (or the connection dropped), in
   * milliseconds of the emulator process's monotonic clock (`performance.now()`): real elapsed time
   * whatever `now` says, to compare the order and overlap of requests.
   */
  readonly receivedMs: number;
  readonly answeredMs: number;
}

export interface EmulatorOptions {
  /** Seed object, or path to a YAML/JSON seed file. */
  seed?: EmulatorSeed | string;
  host?: string;
  port?: number;
  tier?: EmulatorTier;
  /** >0: GET /application/settings returns the pre-PUT values for this many seconds after a PUT. */
  settingsCacheSeconds?: number;
  /** Clock for token expiry/creation, commit dates, rate-limit windows and the settings cache. */
  now?: () => Date;
  faults?: FaultRule[];
  faultSeed?: number;
  /**
   * Answer every request this many milliseconds after it arrived (default 0), as a remote instance
   * would. Each request waits on its own: concurrent requests overlap, so N requests in flight take
   * one latency, not N. Added to any latency fault.
   */
  latencyMs?: number;
  /**
   * Above this many results a list leaves out X-Total, X-Total-Pages and the rel="last" link, as the
   * real service does above 10,000 (the default). Lower it in tests to reach that case cheaply.
   */
  paginationCountLimit?: number;
  /**
   * Extra route modules: endpoints the service does not have, for a test-only kind that brings its
   * own (test/fixtures/kinds/maintenance/emulator.ts). The emulator never imports a kind; a test
   * hands it the routes at start. Matched after the built-in endpoints, never instead of one.
   */
  routes?: readonly EmulatorRoute[];
}

// ---------------------------------------------------------------------------------------------
// Seed format (docs/emulator.md)
// ---------------------------------------------------------------------------------------------

export interface SeedPersonalToken {
  name: string;
  /** The secret value the client will send in PRIVATE-TOKEN. */
  token: string;
  scopes: string[];
  id?: number;
  description?: string;
  /** YYYY-MM-DD, or null for no expiry. */
  expires_at?: string | null;
  revoked?: boolean;
  created_at?: string;
  last_used_at?: string | null;
}

export interface SeedGroupToken extends SeedPersonalToken {
  /** 10, 15, 20, 30, 40 or 50; default 40. */
  access_level?: number;
}

export interface SeedUser {
  username: string;
  id?: number;
  name?: string;
  email?: string;
  admin?: boolean;
  /** ISO 8601 datetime; default the instance's start. */
  created_at?: string;
  personal_access_tokens?: SeedPersonalToken[];
}

/** A CI/CD variable of a seeded project or group (the API's fields and defaults). */
export interface SeedVariable {
  /** `[A-Za-z0-9_]`, at most 255 characters; once per `environment_scope`. */
  key: string;
  value: string;
  /** Default `env_var`. */
  variable_type?: 'env_var' | 'file';
  /** Default false. */
  protected?: boolean;
  /** Default false; the value must then satisfy the masking rules. */
  masked?: boolean;
  /** The API's `masked_and_hidden` (implies masked): the value is never returned. Default false. */
  hidden?: boolean;
  /** Default false. */
  raw?: boolean;
  /** Default `*`. */
  environment_scope?: string;
  description?: string;
}

export interface SeedMember {
  username: string;
  access_level: number;
}

export interface SeedGroup {
  /** `platform` or `platform/infra` (the parent must be seeded too). */
  full_path: string;
  id?: number;
  name?: string;
  visibility?: Visibility;
  /** Default ''. */
  description?: string;
  members?: SeedMember[];
  access_tokens?: SeedGroupToken[];
  /** The group's CI/CD variables. */
  variables?: SeedVariable[];
}

/** File content: a string (UTF-8 text) or an object. */
export type SeedFile =
  | string
  | {
      content?: string;
      /** Binary content, Base64-encoded (instead of `content`). */
      content_base64?: string;
      /** Executable bit (mode 100755). */
      execute?: boolean;
      /** Store the file as a Git LFS pointer to this content. */
      lfs_content?: string;
    };

export interface SeedBranch {
  /** Branch to start from (default: the default branch). */
  from?: string;
  /** Files changed on this branch (null deletes); committed as one commit. */
  files?: Record<string, SeedFile | null>;
  message?: string;
}

export interface SeedPagesDomain {
  domain: string;
  /** Whether the domain has a TLS certificate (default true). */
  certificate?: boolean;
  /** When its certificate expires (ISO datetime; default a year after the emulator's start). */
  certificate_expires_at?: string;
  /** The certificate's subject (default `/CN=<domain>`). */
  certificate_subject?: string;
  /** Whether its ownership is verified (default true). */
  verified?: boolean;
  /** Until when it is served (ISO datetime or null: disabled; default a week after the emulator's start). */
  enabled_until?: string | null;
  auto_ssl_enabled?: boolean;
}

export interface SeedDeployment {
  /** '' (default) for the main deployment; set for parallel deployments. */
  path_prefix?: string;
  root_directory?: string | null;
  created_at?: string;
}

export interface SeedPages {
  /** `false` is the same as the project's `pages_access_level: disabled` (default true). */
  enabled?: boolean;
  unique_domain?: string;
  unique_domain_enabled?: boolean;
  https_only?: boolean;
  primary_domain?: string | null;
  domains?: (string | SeedPagesDomain)[];
  deployments?: SeedDeployment[];
}

export interface SeedProjectShare {
  /** A seeded group. */
  full_path: string;
  /** 10, 15, 20, 30, 40 or 50; default 30. */
  group_access?: number;
}

export interface SeedProject {
  /** `group/sub/project`; the namespace must be a seeded group. */
  path_with_namespace: string;
  id?: number;
  name?: string;
  visibility?: Visibility;
  /** Default ''. */
  description?: string;
  /** Default false. */
  archived?: boolean;
  default_branch?: string;
  members?: SeedMember[];
  /**
   * Groups the project is shared with (a project-group link): each group's members get at most
   * `group_access` (default 30, Developer) on the project, and the group's project list shows it
   * while `with_shared` is true.
   */
  shared_with_groups?: SeedProjectShare[];
  /** Files of the initial commit on the default branch. */
  files?: Record<string, SeedFile>;
  branches?: Record<string, SeedBranch>;
  /** Tag name -> branch name or commit-ish. */
  tags?: Record<string, string>;
  /**
   * Protected branches: a name (or wildcard) that only Maintainers may push to and merge into, or a
   * rule with its levels (0 No one, 30 Developers + Maintainers, 40 Maintainers, 60 Admins).
   * Default: the default branch, protected as the instance setting
   * `default_branch_protection_defaults` says (Maintainers push and merge, unless changed).
   */
  protected_branches?: (string | SeedProtectedBranch)[];
  /** Open merge requests a note can be posted on (`plumb comment`), by `iid`; title optional. */
  merge_requests?: SeedMergeRequest[];
  /**
   * Tokens of running CI jobs of this project (`CI_JOB_TOKEN`): each acts as `username`, in this
   * project only, on the Terraform-state and merge-request-note routes (basic auth as `gitlab-ci-token`).
   */
  ci_job_tokens?: SeedJobToken[];
  /**
   * The project's Pages feature, as the real project API names it: `disabled` makes every Pages
   * endpoint answer 404 for the project (default `enabled`).
   */
  pages_access_level?: 'disabled' | 'private' | 'enabled' | 'public';
  pages?: SeedPages;
  /** The project's CI/CD variables. */
  variables?: SeedVariable[];
}

export interface SeedProtectedBranch {
  name: string;
  /** Default 40. */
  push_access_level?: number;
  /** Default 40. */
  merge_access_level?: number;
  /** Default false. */
  allow_force_push?: boolean;
}

export interface SeedMergeRequest {
  iid: number;
  title?: string;
}

export interface SeedJobToken {
  /** The job token's value (at least 8 characters). */
  token: string;
  username: string;
}

export interface SeedInstance {
  /** The Pages feature on the instance (default true). */
  pages_enabled?: boolean;
  /** Pages host name (default `pages.example.test`). */
  pages_host?: string;
  /** Pages served over HTTPS (default true). */
  pages_https?: boolean;
  /** Version `GET /version` reports (default 18.2.0, the latest version the spec names). */
  version?: string;
}

export interface EmulatorSeed {
  instance?: SeedInstance;
  /** Initial application settings, by request or response name. */
  settings?: Record<string, unknown>;
  users?: SeedUser[];
  groups?: SeedGroup[];
  projects?: SeedProject[];
}
