/** Project Pages: GET settings, PATCH settings, DELETE (unpublish). Maintainer or administrator. */
import { PAGES_UPDATE_FIELDS } from '../catalogue/index.js';
import { findProject, requireCaller, type Caller } from './auth.js';
import { badRequest, forbidden, json, noContent, notFound, paramErrors, type ApiResponse, type Params } from './http.js';
import { paginate } from './pagination.js';
import type { PageRequest } from './pagination.js';
import type { EmulatorState, PagesDomain, PagesRecord, ProjectRecord } from './state.js';
import { isoDateTime } from './time.js';

export interface PagesCtx {
  readonly state: EmulatorState;
  readonly caller: Caller | null;
  readonly params: Params;
}

function pagesUrl(state: EmulatorState, project: ProjectRecord, pages: PagesRecord): string {
  const scheme = state.instance.pagesHttps ? 'https' : 'http';
  if (pages.uniqueDomainEnabled) return `${scheme}://${pages.uniqueDomain}`;
  const [top, ...rest] = project.pathWithNamespace.split('/');
  return `${scheme}://${top!.toLowerCase()}.${state.instance.pagesHost}/${rest.join('/')}`;
}

export function renderPages(state: EmulatorState, project: ProjectRecord, pages: PagesRecord): Record<string, unknown> {
  const url = pagesUrl(state, project, pages);
  return {
    url,
    is_unique_domain_enabled: pages.uniqueDomainEnabled,
    force_https: pages.httpsOnly,
    primary_domain: pages.primaryDomain,
    deployments: pages.deployments.map((d) => ({
      created_at: isoDateTime(d.createdAt),
      url: d.pathPrefix ? `${url}/${d.pathPrefix}` : url,
      path_prefix: d.pathPrefix,
      root_directory: d.rootDirectory,
    })),
  };
}

/**
 * Pages on the instance, the project visible, the caller Maintainer+, the Pages feature on for the
 * project. As the real `lib/api/pages.rb`, nothing here asks whether a site was ever deployed: a
 * project that never deployed (or whose site was removed) has its settings all the same.
 */
function access(ctx: PagesCtx, projectRef: string, write = false): { project: ProjectRecord; pages: PagesRecord } {
  if (!ctx.state.instance.pagesEnabled) throw notFound();
  const caller = requireCaller(ctx.caller);
  const project = findProject(ctx.state, caller, projectRef);
  // `update_pages` is among the abilities an archived project withholds from everyone.
  if (write && project.archived) throw forbidden();
  if (!caller.admin && ctx.state.projectAccess(caller.user.id, project) < 40) throw forbidden();
  if (project.pagesAccessLevel === 'disabled') throw notFound();
  return { project, pages: project.pages };
}

export function getPages(ctx: PagesCtx, projectRef: string): ApiResponse {
  const { project, pages } = access(ctx, projectRef);
  return json(200, renderPages(ctx.state, project, pages));
}

const TRUE = ['true', 't', '1', 'yes', 'y', 'on'];
const FALSE = ['false', 'f', '0', 'no', 'n', 'off'];

export function patchPages(ctx: PagesCtx, projectRef: string): ApiResponse {
  // As the real API: Pages-enabled and authentication checks, then parameter validation, then the
  // project and role checks.
  if (!ctx.state.instance.pagesEnabled) throw notFound();
  requireCaller(ctx.caller);
  const errors: string[] = [];
  const values: Record<string, boolean | string | null> = {};
  for (const field of PAGES_UPDATE_FIELDS) {
    const raw = ctx.params[field.name];
    if (raw === undefined) continue;
    if (field.type === 'boolean') {
      if (raw === null || raw === '') continue;
      const s = String(raw).toLowerCase();
      if (typeof raw === 'boolean') values[field.name] = raw;
      else if (TRUE.includes(s)) values[field.name] = true;
      else if (FALSE.includes(s)) values[field.name] = false;
      else errors.push(`${field.name} is invalid`);
    } else if (raw === null || typeof raw === 'string') {
      values[field.name] = raw === '' ? null : raw;
    } else {
      errors.push(`${field.name} is invalid`);
    }
  }
  if (errors.length > 0) throw paramErrors(errors);
  const { project, pages } = access(ctx, projectRef, true);

  const next: PagesRecord = { ...pages };
  if ('pages_unique_domain_enabled' in values) next.uniqueDomainEnabled = values['pages_unique_domain_enabled'] as boolean;
  if ('pages_https_only' in values) next.httpsOnly = values['pages_https_only'] as boolean;
  if ('pages_primary_domain' in values) {
    const domain = values['pages_primary_domain'] as string | null;
    if (domain !== null && !pages.domains.some((d) => d.domain.toLowerCase() === domain.toLowerCase())) {
      throw badRequest(`Pages primary domain '${domain}' is not one of the project's Pages domains`);
    }
    next.primaryDomain = domain === null ? null : pages.domains.find((d) => d.domain.toLowerCase() === domain.toLowerCase())!.domain;
  }
  if (next.httpsOnly && !pages.httpsOnly && pages.domains.some((d) => !d.certificate)) {
    throw badRequest('Pages https only cannot be enabled unless all domains have TLS certificates');
  }
  project.pages = next;
  return json(200, renderPages(ctx.state, project, next));
}

export function deletePages(ctx: PagesCtx, projectRef: string): ApiResponse {
  const { pages } = access(ctx, projectRef);
  pages.deployments = [];
  return noContent();
}

// ---------------------------------------------------------------------------------------------
// Pages domains (`lib/api/pages_domains.rb`): read-only here (docs/emulator.md#pages-domains).

/** A date as openssl prints a certificate's validity: `Dec  8 00:00:00 2026 GMT`. */
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function opensslDate(d: Date): string {
  const month = MONTHS[d.getUTCMonth()]!;
  const iso = d.toISOString();
  return `${month} ${String(d.getUTCDate()).padStart(2, ' ')} ${iso.slice(11, 19)} ${d.getUTCFullYear()} GMT`;
}

function certificateExpiry(d: PagesDomain): Date {
  return d.certificateExpiresAt ?? new Date(Date.UTC(9999, 0, 1));
}

/**
 * The emulator holds no real certificate: `certificate` is a placeholder PEM block (not DER), and
 * `certificate_text` has the lines of `openssl x509 -text` that matter (validity and subject).
 */
function certificateText(d: PagesDomain, notBefore: Date): string {
  return [
    'Certificate:',
    '    Data:',
    '        Version: 3 (0x2)',
    '        Signature Algorithm: sha256WithRSAEncryption',
    '        Validity',
    `            Not Before: ${opensslDate(notBefore)}`,
    `            Not After : ${opensslDate(certificateExpiry(d))}`,
    `        Subject: ${d.certificateSubject.replace(/^\//, '').replace(/\//g, ', ')}`,
    '',
  ].join('\n');
}

function domainUrl(d: PagesDomain): string {
  return `${d.certificate ? 'https' : 'http'}://${d.domain}`;
}

/** The fields both listings give a domain, in the order the service's entities list them. */
function domainFields(d: PagesDomain): { domain: string; url: string } & Record<string, unknown> {
  return {
    domain: d.domain,
    url: domainUrl(d),
    verified: d.verified,
    verification_code: d.verificationCode,
    enabled_until: d.enabledUntil ? isoDateTime(d.enabledUntil) : null,
    auto_ssl_enabled: d.autoSslEnabled,
  };
}

/** `Entities::PagesDomain`: a project's listing. The certificate carries no expiration field here, only its text. */
function renderDomain(state: EmulatorState, project: ProjectRecord, d: PagesDomain): Record<string, unknown> {
  return {
    ...domainFields(d),
    ...(d.certificate && {
      certificate: {
        subject: d.certificateSubject,
        expired: certificateExpiry(d).getTime() <= state.now().getTime(),
        certificate: `-----BEGIN CERTIFICATE-----\nZW11bGF0ZWQgY2VydGlmaWNhdGUgb2YgcHJvamVjdCAj${project.id}\n-----END CERTIFICATE-----\n`,
        certificate_text: certificateText(d, project.createdAt),
      },
    }),
  };
}

/** `Entities::PagesDomainBasic`: the administrators' listing, with `project_id` and `certificate_expiration`. */
function renderDomainBasic(state: EmulatorState, project: ProjectRecord, d: PagesDomain): Record<string, unknown> {
  const { domain, url, ...rest } = domainFields(d);
  return {
    domain,
    url,
    project_id: project.id,
    ...rest,
    ...(d.certificate && { certificate_expiration: { expired: certificateExpiry(d).getTime() <= state.now().getTime(), expiration: isoDateTime(certificateExpiry(d)) } }),
  };
}

/** `GET /projects/:id/pages/domains`: as the Pages settings, Maintainer or administrator, Pages on. Paginated. */
export function listProjectDomains(ctx: PagesCtx & { readonly page: PageRequest }, projectRef: string): ApiResponse {
  const { project, pages } = access(ctx, projectRef);
  const { items, headers } = paginate(pages.domains, ctx.page);
  return json(200, items.map((d) => renderDomain(ctx.state, project, d)), headers);
}

/** `GET /pages/domains`: every project's domains, administrators only. Paginated. */
export function listAllDomains(ctx: PagesCtx & { readonly page: PageRequest }): ApiResponse {
  if (!ctx.state.instance.pagesEnabled) throw notFound();
  const caller = requireCaller(ctx.caller);
  if (!caller.admin) throw forbidden();
  const all = ctx.state.projects.flatMap((p) => p.pages.domains.map((d) => ({ p, d })));
  const { items, headers } = paginate(all, ctx.page);
  return json(200, items.map(({ p, d }) => renderDomainBasic(ctx.state, p, d)), headers);
}
