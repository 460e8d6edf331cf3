/**
 * Where plumb may send an instance's token: the instances are pinned outside the configuration
 * (docs/config.md#where-the-token-may-go). The configuration is untrusted input (a merge request
 * writes it); its `url` only chooses among the instances the environment or the command line allow.
 *
 * A URL is allowed when, compared in its canonical spelling (`canonicalInstanceUrl`: scheme, host,
 * port, path; no trailing slash, no `/api/v4`), it equals
 * - an entry of `--allow-url` (repeatable) or of `PLUMB_ALLOWED_URLS` (separated by commas or white
 *   space);
 * - `PLUMB_URL`, or `CI_SERVER_URL` when `GITLAB_CI` is `true` (the instance running the pipeline):
 *   a single-instance user sets nothing more;
 * or when its host is loopback (the emulator, a tunnel), unless `PLUMB_LOOPBACK_IS_TRUSTED=0`.
 * The scheme is part of the comparison: plain HTTP to another host needs the http:// URL itself
 * allowed (and `allow_insecure_http` on the instance).
 */
import { canonicalInstanceUrl, isLoopbackHost } from '../util/url.js';
import type { Plan } from './plan.js';
import type { DesiredConfig } from '../config/model.js';

export interface AllowedUrl {
  /** Canonical spelling. */
  readonly url: string;
  /** Where it was allowed, for messages: `--allow-url`, `PLUMB_ALLOWED_URLS`, … */
  readonly from: string;
}

export interface UrlPolicy {
  readonly allowed: readonly AllowedUrl[];
  readonly loopbackTrusted: boolean;
  /** Entries that are not absolute http(s) URLs: ignored, and named in a refusal. */
  readonly ignored: readonly string[];
}

/** The variable that lists the instances a token may be sent to. */
export const ALLOWED_URLS_ENV = 'PLUMB_ALLOWED_URLS';

/** The policy from the environment and `--allow-url` values (and, for export, `--instance-url`). */
export function urlPolicy(env: NodeJS.ProcessEnv, flags: readonly string[] = [], flagName = '--allow-url'): UrlPolicy {
  const allowed: AllowedUrl[] = [];
  const ignored: string[] = [];
  const add = (raw: string, from: string) => {
    const url = canonicalHttpUrl(raw);
    if (url === undefined) ignored.push(`${raw} (${from})`);
    else allowed.push({ url, from });
  };
  for (const f of flags) add(f, flagName);
  for (const entry of (env[ALLOWED_URLS_ENV] ?? '').split(/[\s,]+/)) if (entry !== '') add(entry, ALLOWED_URLS_ENV);
  if (env.PLUMB_URL) add(env.PLUMB_URL, 'PLUMB_URL');
  if (env.GITLAB_CI === 'true' && env.CI_SERVER_URL) add(env.CI_SERVER_URL, 'CI_SERVER_URL');
  const trust = (env.PLUMB_LOOPBACK_IS_TRUSTED ?? '').trim().toLowerCase();
  return { allowed, ignored, loopbackTrusted: !['0', 'false', 'no', 'off'].includes(trust) };
}

/** The canonical spelling of an absolute http(s) URL, or undefined. */
export function canonicalHttpUrl(raw: string): string | undefined {
  const c = canonicalInstanceUrl(raw.trim());
  return c !== undefined && /^https?:\/\//.test(c) ? c : undefined;
}

/** Whether `url` may receive the token: undefined when allowed, else the refusal in words. */
export function urlRefusal(url: string, instance: string, policy: UrlPolicy): { summary: string; detail: string; suggestion: string } | undefined {
  const canonical = canonicalHttpUrl(url);
  if (canonical === undefined) return undefined; // not a URL: the client refuses it, naming why
  if (policy.allowed.some((a) => a.url === canonical)) return undefined;
  const host = new URL(canonical).hostname;
  if (policy.loopbackTrusted && isLoopbackHost(host)) return undefined;
  const listed = policy.allowed.length === 0 ? 'none is allowed' : `allowed: ${[...new Set(policy.allowed.map((a) => `${a.url} (${a.from})`))].join(', ')}`;
  return {
    summary: `Instance "${instance}" is at ${canonical}, which is not an instance plumb may send its token to (${listed})`,
    detail:
      'The instances a token may go to are pinned outside the configuration, which a merge request can change: ' +
      `${ALLOWED_URLS_ENV} or --allow-url, PLUMB_URL, or CI_SERVER_URL in GitLab CI` +
      (policy.loopbackTrusted ? ' (loopback URLs are allowed without it)' : ' (loopback is not trusted here: PLUMB_LOOPBACK_IS_TRUSTED=0)') +
      '. Nothing was sent.' +
      (policy.ignored.length > 0 ? ` Ignored, not absolute http(s) URLs: ${policy.ignored.join(', ')}.` : ''),
    suggestion: `if this is your instance, allow it outside the configuration: --allow-url ${canonical}, or ${ALLOWED_URLS_ENV}=${canonical} (in CI, a protected variable)`,
  };
}

/**
 * Whether a token may be sent to the service at `base` (an instance URL) for something other than
 * the API client — the Terraform-state backend, the merge-request comment — under the API's pin:
 * `urlRefusal`, and plain HTTP only on loopback (the client's `allow_insecure_http` is the
 * configuration's, which neither of them reads). Undefined when allowed; `insecure` tells a plain
 * HTTP refusal from an unpinned one.
 */
export function serviceRefusal(base: string, what: string, policy: UrlPolicy): (NonNullable<ReturnType<typeof urlRefusal>> & { readonly insecure?: true }) | undefined {
  const refused = urlRefusal(base, what, policy);
  if (refused) return refused;
  const canonical = canonicalHttpUrl(base);
  if (canonical === undefined) return undefined;
  const url = new URL(canonical);
  if (url.protocol !== 'http:' || isLoopbackHost(url.hostname)) return undefined;
  return {
    insecure: true,
    summary: `${what}: ${canonical} is plain HTTP`,
    detail: 'The token would cross the network unencrypted. Nothing was sent.',
    suggestion: 'use https (plain HTTP only on loopback)',
  };
}

/**
 * A saved plan connects where the configuration says, never where the file says: a plan whose
 * instances (name → URL) differ from the configuration's is refused, naming both URLs.
 */
export function planConnectionProblem(plan: Pick<Plan, 'instances'>, config: DesiredConfig): string | undefined {
  for (const p of plan.instances as readonly unknown[]) {
    if (typeof p !== 'object' || p === null || typeof (p as { name?: unknown }).name !== 'string' || typeof (p as { url?: unknown }).url !== 'string') {
      return 'an entry of its instances list is not a name and a URL';
    }
    const { name, url } = p as { name: string; url: string };
    const declared = config.instances.find((i) => i.name === name);
    if (!declared) return `the plan names instance "${name}" (${url}), which the configuration does not declare`;
    const a = canonicalInstanceUrl(url) ?? url;
    const b = canonicalInstanceUrl(declared.url) ?? declared.url;
    if (a !== b) return `the plan was made for instance "${name}" at ${a}, and the configuration declares it at ${b}`;
  }
  return undefined;
}

/**
 * The CA bundle the service's CI gives its jobs (`CI_SERVER_TLS_CA_FILE`, written by the runner) for
 * the pipeline's own instance, when the configuration names none: undefined elsewhere. It comes from
 * the environment, like the pinned URLs, never from the configuration.
 */
export function ciCaBundle(url: string, env: NodeJS.ProcessEnv): string | undefined {
  if (env.GITLAB_CI !== 'true' || !env.CI_SERVER_TLS_CA_FILE || !env.CI_SERVER_URL) return undefined;
  const a = canonicalHttpUrl(url);
  return a !== undefined && a === canonicalHttpUrl(env.CI_SERVER_URL) ? env.CI_SERVER_TLS_CA_FILE : undefined;
}

/**
 * The CA bundle file to trust for a request to the instance at `url` (an instance URL, or any URL
 * under its `/api/v4`): the `ca_bundle` of the configuration's instance at that URL (compared
 * canonically), else, in the service's CI, the runner's CA file for its own instance (`ciCaBundle`),
 * else none (Node's default CAs). The API client, the Terraform-state backend and `plumb comment`
 * all choose their CAs here, so a host trusts the same CAs whichever request goes to it.
 */
export function trustedCaFile(url: string, instances: readonly { readonly url: string; readonly caBundle?: string | undefined }[], env: NodeJS.ProcessEnv): string | undefined {
  const at = instanceAt(url, instances);
  return at?.caBundle ?? ciCaBundle(url, env);
}

/** The configuration's instance at `url` (compared canonically: `/api/v4` and a trailing slash ignored). */
export function instanceAt<I extends { readonly url: string }>(url: string, instances: readonly I[]): I | undefined {
  const a = canonicalHttpUrl(url);
  return a === undefined ? undefined : instances.find((i) => canonicalHttpUrl(i.url) === a);
}
