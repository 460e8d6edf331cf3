/**
 * The Pages' part of resolving a configuration: `instances.<name>.projects.<ref>.pages`. The schema
 * pass checks the types and the host-name form; this turns the block into `DesiredPages`.
 */
import type { KindConfig, KindSchema, ResolveAt } from '../../config/kinds.js';
import type { DesiredPages, DesiredPagesFields, PagesProject } from './model.js';
import { pagesSchema } from './schema.js';
import type { KindPointer } from '../../config/pointer.js';
import { joinPointer } from '../../config/pointer.js';
import { obj, push } from '../../config/resolve-context.js';
import type { Ctx } from '../../config/resolve-context.js';

/** A project's Pages block is defined in one place only. */
export const PAGES_POINTERS: readonly KindPointer[] = [
  { pattern: ['instances', '*', 'projects', '*', 'pages'], resource: true, describe: (s) => `Pages of project "${s[3]}"` },
];

export function resolvePages(raw: Record<string, unknown>, p: string, ctx: Ctx): DesiredPages {
  const domainPointer = joinPointer(p, 'pages_primary_domain');
  if (ctx.sources.secrets.isSecretPointer(domainPointer)) {
    // Every interpolated value is a secret, and secrets never enter a plan; a domain is public.
    push(ctx, {
      severity: 'error',
      code: 'PLUMB_PAGES_INTERPOLATED',
      summary: 'pages_primary_domain is interpolated, so plumb would have to treat a public domain name as a secret',
      detail: 'Every ${env:…} or ${file:…} value is a secret to plumb: masked everywhere and never written into a plan, where apply needs this value.',
      suggestion: 'write the domain itself, e.g. docs.example.com',
      pointer: domainPointer,
    });
    return { pointer: p, fields: {}, allowUnpublish: false };
  }
  const fields: { -readonly [K in keyof DesiredPagesFields]: DesiredPagesFields[K] } = {};
  if (typeof raw.pages_https_only === 'boolean') fields.pages_https_only = raw.pages_https_only;
  if (typeof raw.pages_unique_domain_enabled === 'boolean') fields.pages_unique_domain_enabled = raw.pages_unique_domain_enabled;
  // An empty string and null both clear the primary domain; the instance stores the name as assigned.
  if (raw.pages_primary_domain === null || raw.pages_primary_domain === '') fields.pages_primary_domain = null;
  else if (typeof raw.pages_primary_domain === 'string') fields.pages_primary_domain = raw.pages_primary_domain;
  return {
    pointer: p,
    fields,
    ...(typeof raw.published === 'boolean' && { published: raw.published }),
    allowUnpublish: raw.allow_unpublish === true,
  };
}

/** This kind's configuration side, carried by its registry entry (./index.ts). */
export const PAGES_CONFIG: KindConfig = { kind: 'pages', pointers: PAGES_POINTERS, mount: { container: 'projects', keys: ['pages'] }, schema, resolve };

function resolve(raw: Readonly<Record<string, unknown>>, where: ResolveAt, ctx: Ctx): PagesProject {
  return { ref: where.ref ?? '', pointer: where.pointer, pages: resolvePages(obj(raw.pages), joinPointer(where.pointer, 'pages'), ctx) };
}

function schema(): KindSchema {
  return {
    properties: { pages: { $ref: '#/definitions/pages' } },
    definitions: { pages: pagesSchema() },
    standalone: { title: 'Pages settings', file: 'pages.schema.json', body: pagesSchema() },
  };
}
