/**
 * Pages' part of `plumb export`: each `--pages PROJECT` is read once (`GET /projects/:id/pages`)
 * and declared with the three fields of the update request; `published: true` when the site has a
 * deployment (plumb cannot publish, so an undeployed site is left without `published`).
 */
import { getPages } from '../../api/pages.js';
import type { ExportEntry, ExportResult, ResourceExporter } from '../../engine/export.js';
import { decodedSegment } from '../../api/path.js';

/** `--pages PROJECT`, repeatable: the projects whose Pages to export. */
export const pagesExporter: ResourceExporter<readonly string[]> = {
  kind: 'pages',
  flags: [{ name: 'pages', type: 'string', multiple: true, arg: 'PROJECT', help: "export this project's Pages settings (repeatable)" }],
  parseOptions: (values) => (values.pages as readonly string[] | undefined) ?? [],
  notFound(apiPath) {
    const m = /^\/projects\/([^/]+)\/pages/.exec(apiPath);
    return m ? `the Pages of project "${decodedSegment(m[1]!)}" (--pages ${decodedSegment(m[1]!)}; a project without Pages answers 404 too)` : undefined;
  },

  async export(ctx): Promise<ExportResult> {
    const entries: ExportEntry[] = await Promise.all(
      ctx.options.map(async (ref) => {
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
    return { entries, counts: { pages: entries.length }, summary: `${entries.length} Pages block(s)` };
  },
};
