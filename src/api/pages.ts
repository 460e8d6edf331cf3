/**
 * Project Pages: `/projects/:id/pages` (Maintainer or above; the instance must have Pages enabled).
 */
import type { ApiClient } from './client.js';
import { apiPath } from './path.js';
import type { ApiPath, PathParam } from './path.js';

export interface PagesDeployment {
  readonly created_at: string;
  readonly url: string;
  /** Empty for the main deployment, set for parallel deployments. */
  readonly path_prefix: string;
  readonly root_directory: string | null;
}

export interface PagesSettings {
  readonly url: string;
  readonly is_unique_domain_enabled: boolean;
  readonly force_https: boolean;
  readonly primary_domain: string | null;
  readonly deployments: readonly PagesDeployment[];
}

export interface UpdatePagesProps {
  readonly pages_unique_domain_enabled?: boolean;
  readonly pages_https_only?: boolean;
  /** One of the domains already assigned to the project; all Pages requests redirect to it. */
  readonly pages_primary_domain?: string;
}

const pagesPath = (projectId: PathParam): ApiPath => apiPath`/projects/${projectId}/pages`;

export async function getPages(client: ApiClient, projectId: PathParam): Promise<PagesSettings> {
  const res = await client.request<PagesSettings>({ method: 'GET', path: pagesPath(projectId) });
  return res.body;
}

/** PATCH with a JSON body; setting the same values twice is harmless, so it is retried like a GET. */
export async function updatePages(
  client: ApiClient,
  projectId: PathParam,
  props: UpdatePagesProps,
): Promise<PagesSettings> {
  const res = await client.request<PagesSettings>({
    method: 'PATCH',
    path: pagesPath(projectId),
    body: props,
    idempotent: true,
  });
  return res.body;
}

/** Removes the published Pages. Not repeated on an unclear outcome (the caller can `getPages`). */
export async function unpublishPages(client: ApiClient, projectId: PathParam): Promise<void> {
  await client.request({ method: 'DELETE', path: pagesPath(projectId) });
}
