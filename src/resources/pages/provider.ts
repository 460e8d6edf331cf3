/**
 * Project Pages as a resource: partial ownership of each declared project's Pages settings, plus
 * an unpublish on request. A plan reads each project once (GET /projects/:id/pages), concurrently;
 * an apply PATCHes only the fields that differ, and unpublishes (DELETE) only when the destroy was
 * accepted (`--allow-destroy`, or `allow_unpublish: true` on the project's Pages block).
 *
 * The instance's refusals are the user's to fix, so each becomes a diagnostic on the YAML line
 * that asked for it: 404 (Pages disabled on the instance or for the project; a project that never
 * deployed a site still has its settings, and is planned like any other), 403 (a role below
 * Maintainer), 400 (a primary domain not assigned to the project, HTTPS forced without
 * certificates). At plan time they stop the plan before any write; at apply time they replace
 * the write's success.
 */
import { PAGES_UPDATE_RESPONSE_FIELD } from '../../catalogue/index.js';
import { X509Certificate } from 'node:crypto';
import { getPages, listPagesDomains, unpublishPages, updatePages } from '../../api/pages.js';
import type { PagesDomain, PagesSettings } from '../../api/pages.js';
import { ApiBadRequestError, ApiError, ApiForbiddenError, ApiNotFoundError } from '../../api/errors.js';
import type { DesiredPages, PagesProject } from './model.js';
import { pagesOf } from './model.js';
import { joinPointer } from '../../config/pointer.js';
import { stateFingerprint } from '../../engine/fingerprint.js';
import type { AttributeChange, DriftEntry, ExpiryEntry, PlanDiagnostic, PlanRisk, ResourceChange } from '../../engine/plan.js';
import type { ApplyResponse, InstanceContext, PlanResponse, ResourceProvider } from '../../engine/resource.js';
import { daysUntil, mergePlanResponses, planDiagnostic } from '../../engine/resource.js';
import { distinctProjects } from '../../engine/same-project.js';
import { getProjectRef } from '../../api/namespaces.js';
import { parsePagesPayload } from './payload.js';
import type { PagesPayload, PagesUpdate } from './payload.js';

type Field = keyof typeof PAGES_UPDATE_RESPONSE_FIELD;
const FIELDS = Object.keys(PAGES_UPDATE_RESPONSE_FIELD) as Field[];

/** The destroy's id in a plan's risks (`gate: 'destroy'`): not an `allow_risky` id. */
export const UNPUBLISH_RISK_ID = 'pages-unpublish';

function declared(ctx: Pick<InstanceContext, 'instance'>): PagesProject[] {
  return [...pagesOf(ctx.instance)];
}

function projectFor(ctx: Pick<InstanceContext, 'instance'>, ref: string): PagesProject | undefined {
  return declared(ctx).find((p) => p.ref === ref);
}

export function pagesAddress(instance: string, ref: string): string {
  return `${instance}.project[${JSON.stringify(ref)}].pages`;
}

/** The unpublish is its own change: what it destroys is the deployments, not the settings. */
function unpublishAddress(instance: string, ref: string): string {
  return `${pagesAddress(instance, ref)}.deployments`;
}

/** A primary domain as compared: none is `null`; names compare case-insensitively. */
function domainKey(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v.toLowerCase() : null;
}

function liveValue(live: PagesSettings, field: Field): unknown {
  return (live as unknown as Record<string, unknown>)[PAGES_UPDATE_RESPONSE_FIELD[field]];
}

function holds(field: Field, live: unknown, want: unknown): boolean {
  return field === 'pages_primary_domain' ? domainKey(live) === domainKey(want) : live === want;
}

function isPublished(live: PagesSettings): boolean {
  return Array.isArray(live.deployments) && live.deployments.length > 0;
}

/** What the plan compared: the declared fields as the instance holds them, and publication. */
function fingerprintOf(pages: DesiredPages, live: PagesSettings): string {
  const view: Record<string, unknown> = {};
  for (const f of FIELDS) {
    if (pages.fields[f] === undefined) continue;
    const v = liveValue(live, f);
    view[f] = f === 'pages_primary_domain' ? domainKey(v) : v;
  }
  if (pages.published !== undefined) view.published = isPublished(live);
  return stateFingerprint(view);
}

/** What a refusal of the instance means for this project, on the YAML line it is about. */
function refusal(ctx: InstanceContext, project: PagesProject, err: ApiError, address: string, call: string, fieldPointers: readonly string[] = []): PlanDiagnostic | undefined {
  const at = project.pages.pointer;
  const said = err.serverMessage ? ` (the instance said: ${err.serverMessage})` : '';
  if (err instanceof ApiNotFoundError) {
    if (/project not found/i.test(err.serverMessage ?? '')) {
      return planDiagnostic(ctx, {
        severity: 'error',
        code: 'PLUMB_PAGES_PROJECT_NOT_FOUND',
        summary: `Project "${project.ref}" does not exist on instance "${ctx.instance.name}", or plumb's token cannot see it`,
        detail: `${call} answered 404${said}.`,
        suggestion: 'check the project path (or numeric id), and that the token belongs to a member of the project or an administrator',
        address,
        pointer: project.pointer,
      });
    }
    return planDiagnostic(ctx, {
      severity: 'error',
      code: 'PLUMB_PAGES_UNAVAILABLE',
      summary: `Pages of project "${project.ref}" cannot be read or changed: Pages is disabled on the instance, or for this project`,
      detail: `${call} answered 404${said}. The instance answers 404 to every Pages request while Pages is off for the whole instance, or for the project (its Pages feature, pages_access_level, is disabled); whether a site was ever deployed does not matter.`,
      suggestion: "have a Maintainer turn the project's Pages feature on (pages_access_level other than disabled), or the administrator turn Pages on for the instance, then plan again; or remove this pages block",
      address,
      pointer: at,
    });
  }
  if (err instanceof ApiForbiddenError && /scope/i.test(err.serverMessage ?? '')) {
    return planDiagnostic(ctx, {
      severity: 'error',
      code: 'PLUMB_PAGES_FORBIDDEN',
      summary: `plumb's token lacks the scope to ${call.startsWith('GET') ? 'read' : 'change'} the Pages of project "${project.ref}": ${call.startsWith('GET') ? 'reading needs read_api or api' : 'a change needs the api scope (read_api only reads)'}`,
      detail: `${call} answered 403${said}. The token's role is not the problem: its scopes are.`,
      suggestion: `give ${ctx.instance.tokenEnv} a token with the api scope`,
      address,
      pointer: at,
    });
  }
  if (err instanceof ApiForbiddenError) {
    return planDiagnostic(ctx, {
      severity: 'error',
      code: 'PLUMB_PAGES_FORBIDDEN',
      summary: `plumb's token may not ${call.startsWith('GET') ? 'read' : 'change'} the Pages of project "${project.ref}": it needs at least the Maintainer role there`,
      detail: `${call} answered 403${said}. Reading and changing Pages settings and unpublishing need the Maintainer role in the project (or an administrator); a change also needs the api scope.`,
      suggestion: `give the token's user the Maintainer role in "${project.ref}" (or use an administrator's token with the api scope)`,
      address,
      pointer: at,
    });
  }
  if (err instanceof ApiBadRequestError) {
    const message = err.serverMessage ?? '';
    const domain = /primary.?domain/i.test(message);
    const field = domain ? 'pages_primary_domain' : /https/i.test(message) ? 'pages_https_only' : /unique/i.test(message) ? 'pages_unique_domain_enabled' : undefined;
    const pointer = field ? joinPointer(at, field) : fieldPointers[0] ?? at;
    if (domain) {
      const wanted = project.pages.fields.pages_primary_domain;
      return planDiagnostic(ctx, {
        severity: 'error',
        code: 'PLUMB_PAGES_DOMAIN_NOT_ASSIGNED',
        summary: `"${String(wanted)}" is not one of the Pages domains of project "${project.ref}"`,
        detail: `${call} answered 400${said}. The primary domain must be a domain already added to the project's Pages. Nothing was changed by this request.`,
        suggestion: 'add the domain to the project\'s Pages first, or write one of its domains (an empty value clears the primary domain)',
        address,
        pointer,
      });
    }
    return planDiagnostic(ctx, {
      severity: 'error',
      code: 'PLUMB_PAGES_REJECTED',
      summary: `The instance rejected the Pages update of project "${project.ref}": ${message || 'no message'}`,
      detail: `${call} answered 400. Nothing was changed by this request.`,
      suggestion: field === 'pages_https_only' ? 'add a TLS certificate to every Pages domain of the project, or leave pages_https_only off' : 'fix the value in the configuration and plan again',
      address,
      pointer,
    });
  }
  return undefined;
}

/** Whether the project is archived (read-only on the service); false when it cannot be read (other reads report that). */
async function archived(ctx: InstanceContext, ref: string): Promise<boolean> {
  return getProjectRef(ctx.client, ref).then(
    (p) => p.archived === true,
    () => false,
  );
}

interface ProjectPlan {
  readonly changes: ResourceChange[];
  readonly drift: DriftEntry[];
  readonly diagnostics: PlanDiagnostic[];
  readonly risks: PlanRisk[];
  readonly expiring: ExpiryEntry[];
}

/**
 * When a domain's certificate expires. A project's domain listing (the service's
 * `Entities::PagesDomain`) gives no expiration field, only the certificate and its
 * `openssl x509 -text`: its "Not After" line, else the PEM itself. Undefined when neither reads.
 */
function certificateExpiry(cert: NonNullable<PagesDomain['certificate']>): Date | undefined {
  const line = /Not After\s*:\s*([^\n]+)/.exec(cert.certificate_text ?? '');
  const fromText = line ? Date.parse(line[1]!.trim()) : NaN;
  if (!Number.isNaN(fromText)) return new Date(fromText);
  try {
    const validTo = Date.parse(new X509Certificate(cert.certificate).validTo);
    return Number.isNaN(validTo) ? undefined : new Date(validTo);
  } catch {
    return undefined;
  }
}

/**
 * The expiry horizon of one project's Pages (`--expiring-within`), from one listing of its domains:
 * each certificate that expires by the window's end (or already has), and each unverified domain
 * whose grace period (`enabled_until`) ends by then. A verified domain's `enabled_until` is renewed
 * by the instance's re-verification: not listed.
 */
async function pagesExpiry(ctx: InstanceContext, project: PagesProject, out: ProjectPlan): Promise<void> {
  const window = ctx.expiring!;
  const base = pagesAddress(ctx.instance.name, project.ref);
  let domains: PagesDomain[];
  try {
    domains = await listPagesDomains(ctx.client, project.ref);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    out.diagnostics.push(
      planDiagnostic(ctx, {
        severity: 'warning',
        code: 'PLUMB_PAGES_DOMAINS_UNREADABLE',
        summary: ctx.secrets.redact(`The Pages domains of project "${project.ref}" could not be listed for the expiry horizon: ${err.message}`),
        suggestion: 'the horizon leaves out its certificates and domains; a Maintainer\'s or an administrator\'s token reads them',
        address: base,
        pointer: project.pages.pointer,
      }),
    );
    return;
  }
  const entry = (d: PagesDomain, what: ExpiryEntry['what'], at: Date, expired: boolean): ExpiryEntry => {
    const daysLeft = daysUntil(ctx.today, at.toISOString());
    return {
      what,
      address: `${base}.domain[${JSON.stringify(d.domain)}]`,
      instance: ctx.instance.name,
      container: 'projects',
      path: project.ref,
      name: d.domain,
      expiresAt: at.toISOString(),
      daysLeft,
      state: expired || at.getTime() <= ctx.now.getTime() ? 'expired' : 'expiring',
      ...(what === 'pages_certificate' && d.certificate && { subject: d.certificate.subject }),
    };
  };
  for (const d of domains) {
    if (d.certificate) {
      const at = certificateExpiry(d.certificate) ?? (d.certificate.expired ? ctx.now : undefined);
      if (at && (d.certificate.expired || at.getTime() <= window.until.getTime())) out.expiring.push(entry(d, 'pages_certificate', at, d.certificate.expired));
    }
    if (!d.verified && d.enabled_until !== null) {
      const at = new Date(d.enabled_until);
      if (!Number.isNaN(at.getTime()) && at.getTime() <= window.until.getTime()) out.expiring.push(entry(d, 'pages_domain_verification', at, false));
    }
  }
}

async function planProject(ctx: InstanceContext, project: PagesProject): Promise<ProjectPlan> {
  const { instance } = ctx;
  const { pages } = project;
  const address = pagesAddress(instance.name, project.ref);
  const out: ProjectPlan = { changes: [], drift: [], diagnostics: [], risks: [], expiring: [] };
  const declaresFields = FIELDS.some((f) => pages.fields[f] !== undefined);
  if (!declaresFields && pages.published === undefined) return out; // an empty block asks for nothing

  let live: PagesSettings;
  try {
    live = await getPages(ctx.client, project.ref);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    // Nothing to unpublish where Pages is off (instance or project): `published: false` alone holds already.
    const servesNothing = err instanceof ApiNotFoundError && !/project not found/i.test(err.serverMessage ?? '');
    if (servesNothing && !declaresFields && pages.published === false) return out;
    const d = refusal(ctx, project, err, address, `GET /projects/${project.ref}/pages`);
    if (!d) throw err;
    out.diagnostics.push(d);
    return out;
  }
  const fingerprint = fingerprintOf(pages, live);
  if (ctx.expiring) await pagesExpiry(ctx, project, out);

  const set: { -readonly [K in keyof PagesUpdate]: PagesUpdate[K] } = {};
  const attributes: AttributeChange[] = [];
  for (const f of FIELDS) {
    const want = pages.fields[f];
    if (want === undefined) continue;
    const responseField = PAGES_UPDATE_RESPONSE_FIELD[f];
    if (!(responseField in live)) {
      out.diagnostics.push(
        planDiagnostic(ctx, {
          severity: 'warning',
          code: 'PLUMB_PAGES_FIELD_NOT_RETURNED',
          summary: `The instance does not return "${responseField}" for the Pages of project "${project.ref}"; plumb leaves ${f} alone`,
          detail: f === 'pages_primary_domain' ? 'The primary domain came with service version 17.8; this instance is probably older.' : undefined,
          suggestion: 'remove it from the configuration for this instance',
          address,
          pointer: joinPointer(pages.pointer, f),
        }),
      );
      continue;
    }
    const now = liveValue(live, f);
    if (holds(f, now, want)) continue;
    if (f === 'pages_primary_domain') set.pages_primary_domain = want === null ? '' : (want as string);
    else set[f] = want as boolean;
    attributes.push({ name: f, before: f === 'pages_primary_domain' ? (now ?? null) : now, after: want });
  }

  const lane = `pages:${instance.name}:${project.ref}`;
  if (attributes.length > 0) {
    out.changes.push({
      address,
      instance: instance.name,
      kind: 'pages',
      action: 'update',
      reasons: ['field-changed'],
      attributes,
      pointer: pages.pointer,
      payload: { type: 'update', project: project.ref, set } satisfies PagesPayload,
      liveFingerprint: fingerprint,
      order: { lane },
    });
    out.drift.push({ address, instance: instance.name, kind: 'pages', summary: `${attributes.length} declared Pages setting(s) of project "${project.ref}" differ from the instance`, attributes });
  }

  const published = isPublished(live);
  if (pages.published === false && published) {
    const target = unpublishAddress(instance.name, project.ref);
    const urls = live.deployments.map((d) => d.url);
    const lost: AttributeChange[] = [{ name: 'deployments', before: urls }];
    out.changes.push({
      address: target,
      instance: instance.name,
      kind: 'pages',
      action: 'delete',
      reasons: ['absent-requested'],
      attributes: lost,
      pointer: joinPointer(pages.pointer, 'published'),
      payload: { type: 'unpublish', project: project.ref } satisfies PagesPayload,
      liveFingerprint: fingerprint,
      // After the settings update of the same project, one request at a time.
      order: { lane },
    });
    out.risks.push({
      address: target,
      instance: instance.name,
      id: UNPUBLISH_RISK_ID,
      gate: 'destroy',
      summary: `unpublishing the Pages of project "${project.ref}" takes ${urls.length === 1 ? 'its deployment' : `its ${urls.length} deployments`} offline (${urls.join(', ')}); only a new pipeline deploys it again`,
      acknowledged: pages.allowUnpublish,
      pointer: joinPointer(pages.pointer, 'published'),
    });
    out.drift.push({ address: target, instance: instance.name, kind: 'pages', summary: `the Pages of project "${project.ref}" are published; the configuration asks for them to be unpublished`, attributes: lost });
  } else if (pages.published === true && !published) {
    out.diagnostics.push(
      planDiagnostic(ctx, {
        severity: 'warning',
        code: 'PLUMB_PAGES_NOT_PUBLISHED',
        summary: `The Pages of project "${project.ref}" are declared published, but nothing is deployed`,
        detail: 'plumb cannot publish a site: a pipeline deploys it. Someone unpublished it, or it was never deployed.',
        suggestion: 'run the project\'s Pages pipeline, or declare published: false',
        address,
        pointer: joinPointer(pages.pointer, 'published'),
      }),
    );
    out.drift.push({ address, instance: instance.name, kind: 'pages', summary: `the Pages of project "${project.ref}" are not published`, attributes: [{ name: 'published', before: false, after: true }] });
  }

  if (out.changes.length === 0) {
    out.changes.push({
      address,
      instance: instance.name,
      kind: 'pages',
      action: 'no-op',
      reasons: [],
      attributes: [],
      pointer: pages.pointer,
      payload: { type: 'none', project: project.ref } satisfies PagesPayload,
      liveFingerprint: fingerprint,
    });
  }
  return out;
}

export const pagesProvider: ResourceProvider<PagesPayload> = {
  kind: 'pages',

  declares(instance) {
    return pagesOf(instance).length > 0;
  },

  async plan(ctx): Promise<PlanResponse> {
    // One GET per project, all at once (the client bounds the concurrency).
    const selected = declared(ctx).filter((p) => ctx.targets.within(pagesAddress(ctx.instance.name, p.ref)));
    // A project declared under two names (id and path) is planned under neither.
    const { distinct, diagnostics: duplicates } = await distinctProjects(ctx, selected, 'Pages', (p) => p.pages.pointer);
    const perProject = await Promise.all(distinct.map((p) => planProject(ctx, p)));
    const merged = mergePlanResponses(perProject, duplicates);
    return ctx.expiring ? { ...merged, expiring: merged.expiring ?? [] } : merged;
  },

  parsePayload: parsePagesPayload,

  /** A Pages payload as a plan shows it: the fields the PATCH sends (an empty domain clears it), or the unpublish. */
  describePayload(instance, p) {
    if (p.type === 'none') return { addresses: [pagesAddress(instance, p.project)], action: 'no-op', attributes: [] };
    if (p.type === 'unpublish') return { addresses: [unpublishAddress(instance, p.project)], action: 'delete', attributes: [], cosmetic: ['deployments'] };
    const attributes = Object.entries(p.set).map(([name, value]) => ({ name, after: name === 'pages_primary_domain' && value === '' ? null : value, required: true }));
    return { addresses: [pagesAddress(instance, p.project)], action: 'update', attributes };
  },

  async liveFingerprint(ctx, _change, payload) {
    const project = projectFor(ctx, payload.project);
    if (!project) return 'not-declared';
    return fingerprintOf(project.pages, await getPages(ctx.client, project.ref));
  },

  async apply(ctx, change, payload): Promise<ApplyResponse> {
    const project = projectFor(ctx, payload.project);
    if (!project || payload.type === 'none') return { applied: false, diagnostics: [], notes: ['nothing to do'] };
    if (payload.type === 'update') {
      const call = `PATCH /projects/${project.ref}/pages`;
      try {
        const after = await updatePages(ctx.client, project.ref, payload.set);
        const names = Object.keys(payload.set) as Field[];
        const missed = names.filter((f) => PAGES_UPDATE_RESPONSE_FIELD[f] in after && !holds(f, liveValue(after, f), payload.set[f]));
        if (missed.length > 0) {
          return {
            applied: false,
            diagnostics: [
              planDiagnostic(ctx, {
                severity: 'error',
                code: 'PLUMB_PAGES_REJECTED',
                summary: `The instance accepted the Pages update of project "${project.ref}" but does not show ${missed.join(', ')} as sent`,
                detail: `${call} answered 200 with other values.`,
                suggestion: 'run `plumb plan` to see what the instance holds',
                address: change.address,
                pointer: joinPointer(project.pages.pointer, missed[0]!),
              }),
            ],
            notes: [],
          };
        }
        return { applied: true, diagnostics: [], notes: [`updated ${names.join(', ')} in one request`] };
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        // Whatever the status, the Pages as they are now say whether the PATCH was carried out
        // (a 500 can follow the write); it is never repeated.
        const now = await getPages(ctx.client, project.ref).catch(() => undefined);
        const names = Object.keys(payload.set) as Field[];
        if (now && names.every((f) => holds(f, liveValue(now, f), payload.set[f]))) {
          return { applied: true, diagnostics: [], notes: [`${call} answered ${err.status ?? 'without an answer'}, but reading the Pages again shows ${names.join(', ')} as declared: the update was carried out`] };
        }
        const fieldPointers = Object.keys(payload.set).map((f) => joinPointer(project.pages.pointer, f));
        // An archived project's Pages settings cannot be changed (the service withholds `update_pages`
        // from everyone, with a bare 403); the project is read to tell that from a missing role.
        if (err instanceof ApiForbiddenError && !/scope/i.test(err.serverMessage ?? '') && (await archived(ctx, project.ref))) {
          return {
            applied: false,
            notes: [],
            diagnostics: [
              planDiagnostic(ctx, {
                severity: 'error',
                code: 'PLUMB_PAGES_PROJECT_ARCHIVED',
                summary: `The instance refused to change the Pages of project "${project.ref}": the project is archived, and the service refuses changes to an archived project's Pages (it answered ${err.serverMessage ?? '403'})`,
                suggestion: 'unarchive the project if its Pages settings should change, or take them out of the configuration, then plan again',
                address: change.address,
                pointer: project.pages.pointer,
              }),
            ],
          };
        }
        const d = refusal(ctx, project, err, change.address, call, fieldPointers);
        if (!d) throw err;
        return { applied: false, diagnostics: [d], notes: [] };
      }
    }
    const call = `DELETE /projects/${project.ref}/pages`;
    try {
      await unpublishPages(ctx.client, project.ref);
      return { applied: true, diagnostics: [], notes: ['unpublished'] };
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      // Whatever the status (a lost answer, a 500 after the removal, a retry answered 404), the
      // Pages as they are now say whether the site is gone; the DELETE is not repeated.
      const now = await getPages(ctx.client, project.ref).catch((readErr: unknown) => (readErr instanceof ApiNotFoundError ? ('gone' as const) : undefined));
      if (now !== undefined && (now === 'gone' ? err.code === 'PLUMB_API_AMBIGUOUS' || (err.status ?? 0) >= 500 : !isPublished(now))) {
        return { applied: true, diagnostics: [], notes: [`${call} ${err.status !== undefined ? `answered ${err.status}` : 'had no clear answer'}; reading back shows nothing deployed`] };
      }
      if (err.code === 'PLUMB_API_AMBIGUOUS') throw err;
      const d = refusal(ctx, project, err, change.address, call);
      if (!d) throw err;
      return { applied: false, diagnostics: [d], notes: [] };
    }
  },
};
