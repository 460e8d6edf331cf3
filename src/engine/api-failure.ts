/**
 * API failures as diagnostics that name the call, and what to check for each (docs/client.md):
 * shared by the engine's plan and apply, the selectors' listing and the commands.
 */
import { ApiError, usualFix } from '../api/errors.js';
import type { DesiredInstance } from '../config/model.js';
import type { PlanDiagnostic } from './plan.js';

/** The instance an API call went to, for messages that name its URL, host and token variable. */
export type CalledInstance = Pick<DesiredInstance, 'name' | 'url' | 'tokenEnv'>;

/**
 * Describes an API failure during planning or apply as a diagnostic naming the call; with the
 * instance, it names the full URL, the host a connection failed to, and the variable of a refused
 * token (the client's errors carry none of them: docs/client.md).
 */
export function apiFailure(err: unknown, address: string | undefined, redact: (s: string) => string, instance?: CalledInstance): PlanDiagnostic {
  if (err instanceof ApiError) {
    const host = instance && hostOf(instance.url);
    const network = err.code === 'PLUMB_API_NETWORK' || err.code === 'PLUMB_API_TIMEOUT';
    const diagnostic = err.toDiagnostic({
      summary: redact(network && host ? `Cannot reach ${host}: ${err.message}` : err.message),
      // The client's detail names the path under /api/v4; with the instance, the full URL.
      ...(instance && { detail: `${err.method} ${apiRoot(instance.url)}${err.path}${err.status !== undefined ? ` answered ${err.status}` : ' failed'}.`, suggestion: apiSuggestion(err.code, instance) }),
    });
    return { ...diagnostic, address };
  }
  return { severity: 'error', code: 'PLUMB_INTERNAL', summary: redact(err instanceof Error ? err.message : String(err)), address };
}

/** `https://host/gitlab` → `https://host/gitlab/api/v4`, as the client calls it. */
function apiRoot(url: string): string {
  const base = url.replace(/\/+$/, '');
  return base.endsWith('/api/v4') ? base : `${base}/api/v4`;
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}

/** What to check for an API failure with `code`; naming the instance's URL and token variable when known. */
export function apiSuggestion(code: string, instance?: CalledInstance): string | undefined {
  if (instance && code === 'PLUMB_API_UNAUTHORIZED') {
    return `${instance.url} refused the token in ${instance.tokenEnv} (token_env of instance "${instance.name}"): check that ${instance.tokenEnv} holds a token of this instance, not expired and not revoked`;
  }
  if (instance && (code === 'PLUMB_API_NETWORK' || code === 'PLUMB_API_TIMEOUT')) {
    return `check the url of instance "${instance.name}" (${instance.url}) and that ${hostOf(instance.url) ?? 'its host'} is reachable from here`;
  }
  return usualFix(code);
}
