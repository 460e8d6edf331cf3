/**
 * The variables that hold a credential plumb or the CI uses. No configuration value may interpolate
 * one (docs/security.md#what-a-value-may-interpolate): a merge request that could would have apply
 * write the administrator token, or the job's own credentials, into the instance, where a setting
 * that talks to another host (a spam-check endpoint and its key) or a repository file hands it on.
 */
import { isPlainObject } from './loading.js';

/**
 * Credentials by name: plumb's own variables (the token, the read, apply and comment tokens the CI
 * component reads, the Terraform provider's `token` hand-over — PROVIDER_TOKEN_ENV in
 * src/provider/config.ts), and the credentials the service's CI and GitHub Actions give every job.
 */
const CREDENTIAL_NAMES: ReadonlySet<string> = new Set([
  'PLUMB_TOKEN',
  'PLUMB_READ_TOKEN',
  'PLUMB_APPLY_TOKEN',
  'PLUMB_COMMENT_TOKEN',
  'PLUMB_TF_PROVIDER_TOKEN',
  'CI_JOB_TOKEN',
  'CI_BUILD_TOKEN',
  'CI_REGISTRY_PASSWORD',
  'CI_DEPLOY_PASSWORD',
  'CI_DEPENDENCY_PROXY_PASSWORD',
  // The clone URL carries the job token as its password.
  'CI_REPOSITORY_URL',
  'GITHUB_TOKEN',
  // What GitHub's CLI reads, and how docs/ci.md's workflow hands it the job's token.
  'GH_TOKEN',
  'ACTIONS_RUNTIME_TOKEN',
  'ACTIONS_ID_TOKEN_REQUEST_TOKEN',
]);

/** `CI_JOB_JWT`, `CI_JOB_JWT_V1`, `CI_JOB_JWT_V2` and any later one. */
const CREDENTIAL_PREFIXES: readonly string[] = ['CI_JOB_JWT'];

/** The credential variables of one configuration, and their values (to recognise a copy under another name). */
export interface Credentials {
  /** Every name that is a credential: the fixed ones and each `token_env` of the configuration. */
  readonly names: ReadonlySet<string>;
  /** The non-empty values of those variables in this environment (as set, and trimmed). */
  readonly values: ReadonlySet<string>;
}

/**
 * The credentials of a configuration, from its parsed documents (before any value is interpolated,
 * so a `token_env` declared in a later file still protects its variable in an earlier one).
 */
export function credentialsOf(documents: readonly unknown[], env: NodeJS.ProcessEnv): Credentials {
  const names = new Set(CREDENTIAL_NAMES);
  for (const doc of documents) {
    if (!isPlainObject(doc)) continue;
    const holders = [doc.defaults, ...(isPlainObject(doc.instances) ? Object.values(doc.instances) : [])];
    for (const h of holders) if (isPlainObject(h) && typeof h.token_env === 'string') names.add(h.token_env);
  }
  for (const name of Object.keys(env)) if (CREDENTIAL_PREFIXES.some((p) => name.startsWith(p))) names.add(name);
  const values = new Set<string>();
  for (const name of names) {
    const v = env[name];
    if (typeof v === 'string' && v.trim() !== '') values.add(v).add(v.trim());
  }
  return { names, values };
}

/** Why `name` may not be interpolated, or undefined when it may. */
export function credentialName(name: string, credentials: Credentials): string | undefined {
  const fixed = CREDENTIAL_NAMES.has(name) || CREDENTIAL_PREFIXES.some((p) => name.startsWith(p));
  if (fixed && name.startsWith('PLUMB_')) return `${name} holds a token plumb uses`;
  if (fixed) return `${name} holds a credential the CI gives the job`;
  if (credentials.names.has(name)) return `${name} is named by a token_env of the configuration: it holds an instance's token`;
  return undefined;
}

/** Whether `value` (read from a variable or a file) is the value of a credential variable. */
export function holdsCredential(value: string, credentials: Credentials): boolean {
  return credentials.values.has(value.trim());
}
