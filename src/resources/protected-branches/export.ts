/**
 * Protected branches' part of `plumb export`: each `--protected-branches PROJECT` is listed once
 * (`GET /projects/:id/protected_branches`) and every rule is declared whole, levels by their words
 * (the Premium fields only where the instance returns them).
 */
import type { ExportEntry, ExportResult, ResourceExporter } from '../../engine/export.js';
import { decodedSegment } from '../../api/path.js';
import { listRules } from './api.js';
import { FLAG_FIELDS, LEVEL_FIELDS, levelWord } from './levels.js';
import { KIND } from './model.js';

/** `--protected-branches PROJECT`, repeatable: the projects whose protected branches to export. */
export const protectedBranchesExporter: ResourceExporter<readonly string[]> = {
  kind: KIND,
  flags: [{ name: 'protected-branches', type: 'string', multiple: true, arg: 'PROJECT', help: "export this project's protected branches (repeatable)" }],
  parseOptions: (values) => (values['protected-branches'] as readonly string[] | undefined) ?? [],
  notFound(apiPath) {
    const m = /^\/projects\/([^/]+)\/protected_branches/.exec(apiPath);
    return m ? `project "${decodedSegment(m[1]!)}" (--protected-branches ${decodedSegment(m[1]!)})` : undefined;
  },

  async export(ctx): Promise<ExportResult> {
    const perProject = await Promise.all(
      ctx.options.map(async (ref) => {
        const rules = await listRules(ctx.client, /^\d+$/.test(ref) ? Number(ref) : ref);
        return rules.map((r): ExportEntry => {
          const value: Record<string, unknown> = {};
          for (const f of LEVEL_FIELDS) if (r[f] !== undefined) value[f] = levelWord(r[f]);
          for (const f of FLAG_FIELDS) if (r[f] !== undefined) value[f] = r[f];
          return { path: ['projects', ref, 'protected_branches', r.name], value };
        });
      }),
    );
    const entries = perProject.flat();
    return { entries, counts: { protected_branches: entries.length }, summary: `${entries.length} protected branch(es) of ${ctx.options.length} project(s)` };
  },
};
