/**
 * Pages' part of `plumb export`: each `--pages PROJECT` is read once (`GET /projects/:id/pages`)
 * and declared with the three fields of the update request; `published: true` when the site has a
 * deployment (plumb cannot publish, so an undeployed site is left without `published`).
 */
import { getPages } from '../../api/pages.js';
import type { ExportEntry, ExportResult, ResourceExporter } from '../../engine/export.js';

export const pagesExporter: ResourceExporter = {
  kind: 'pages',
  wanted: (request) => request.pages.length > 0,

  async export(ctx): Promise<ExportResult> {
    const entries: ExportEntry[] = await Promise.all(
      ctx.request.pages.map(async (ref) => {
        const p = await getPages(ctx.client, /^\d+$/.test(ref) ? Number(ref) : ref);
        return {
          path: ['projects', ref, 'pages'],
          value: {
            pages_https_only: p.force_https,
            pages_unique_domain_enabled: p.is_unique_domain_enabled,
            pages_primary_domain: p.primary_domain ?? null,
            ...(p.deployments.length > 0 ? { published: true } : {}),
          },
          comment: ` ${p.url}; ${p.deployments.length} deployment(s)`,
        };
      }),
    );
    return { entries };
  },
};
