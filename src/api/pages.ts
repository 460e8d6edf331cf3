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

/** A Pages domain's certificate as a project's domain listing gives it (no expiration field: its text has it). */
export interface PagesDomainCertificate {
  readonly subject: string;
  readonly expired: boolean;
  /** PEM. */
  readonly certificate: string;
  /** `openssl x509 -text` of the certificate. */
  readonly certificate_text: string;
}

/** `GET /projects/:id/pages/domains` (the service's `Entities::PagesDomain`). */
export interface PagesDomain {
  readonly domain: string;
  readonly url: string;
  readonly verified: boolean;
  readonly verification_code: string;
  /** ISO datetime until which the domain is served (renewed while it stays verified); null: disabled. */
  readonly enabled_until: string | null;
  readonly auto_ssl_enabled: boolean;
  /** Absent when the domain has no certificate. */
  readonly certificate?: PagesDomainCertificate;
}

/** A project's custom Pages domains, every page (Maintainer or above, Pages on). */
export async function listPagesDomains(client: ApiClient, projectId: PathParam): Promise<PagesDomain[]> {
  const { items } = await client.listAll<PagesDomain>({ path: apiPath`/projects/${projectId}/pages/domains` });
  return items;
}
