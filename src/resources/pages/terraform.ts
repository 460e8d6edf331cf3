/**
 * A project's Pages as a Terraform resource (`plumb_project_pages`), on plumb's engine through the
 * provider's door (src/resources/terraform.ts). Refresh is the engine's plan of the declared
 * fields (its `before` values are the instance's), so Terraform and `plumb plan` compare alike.
 */
import { PAGES_SHAPE as SHAPE } from './shape.js';
import { PAGES_UPDATE_FIELDS, PAGES_UPDATE_RESPONSE_FIELD } from '../../catalogue/index.js';
import { getPages } from '../../api/pages.js';
import type { PagesSettings } from '../../api/pages.js';
import { ApiError, ApiNotFoundError } from '../../api/errors.js';
import type { Plan, ResourceChange } from '../../engine/plan.js';
import { UNKNOWN, applyFresh, containsUnknown, hasTfErrors, shapeParts } from '../terraform.js';
import type { ApplyResult, CtyValue, PathStep, PlanResult, TerraformPart } from '../terraform.js';


/** The attributes of the resource: the update fields (from the catalogue), then plumb's own. */
const ATTRIBUTES = [...PAGES_UPDATE_FIELDS.map((f) => f.name), 'published', 'allow_unpublish'];

/** What import reads from the instance. */
const IMPORTED = [...PAGES_UPDATE_FIELDS.map((f) => f.name), 'published'];

function pagesChanges(plan: Plan | undefined): ResourceChange[] {
  return (plan?.changes ?? []).filter((c) => c.kind === 'pages' && c.action !== 'no-op');
}

export const projectPagesTerraform: TerraformPart = {
  ...shapeParts(SHAPE),
  mount: 'projects',
  computed: { id: { type: 'string', description: 'The project.', description_kind: 'plain', computed: true } },
  // What import reads (the update fields and `published`) is optional and computed: a configuration
  // that leaves one out keeps the imported value instead of planning its removal, and plumb manages
  // only what the configuration writes (the engine plans from it).
  editAttribute: (name, a) => (IMPORTED.includes(name) && a.optional ? { ...a, computed: true } : a),

  document: (p) => (h) => {
    if (typeof p.project !== 'string') return {};
    return { projects: { [p.project]: { pages: Object.fromEntries(ATTRIBUTES.filter((k) => h.known(p[k])).map((k) => [k, h.literal(p[k]!)])) } } };
  },

  pathOf(rest) {
    // projects/<ref>/pages/<field>
    if (rest.length <= 2) return [{ attribute: 'project' }];
    return rest.length > 3 ? rest.slice(3).map((seg): PathStep => ({ attribute: seg })) : undefined;
  },

  async plan(door, prior, proposed, config): Promise<PlanResult> {
    const planned: Record<string, CtyValue> = { ...proposed, id: typeof config.project === 'string' ? config.project : UNKNOWN };
    const requiresReplace: PathStep[][] = prior && prior.project !== proposed.project ? [[{ attribute: 'project' }]] : [];
    if (containsUnknown(config) || requiresReplace.length > 0) return { planned, requiresReplace, diagnostics: [] };
    const { plan, diagnostics } = await door.plan(this.document(config));
    // Unpublishing is a destroy gate: an error here unless allow_unpublish = true (then one warning).
    for (const c of pagesChanges(plan)) diagnostics.push(...door.riskDiagnostics(plan, c.address));
    return { planned, requiresReplace, diagnostics };
  },

  async apply(door, prior, planned, config): Promise<ApplyResult> {
    // Destroy stops managing: the settings stay and the site stays published (said at plan). Unpublishing is
    // `published = false` (with allow_unpublish = true), applied before the resource is removed.
    if (planned === null || config === null) return { newState: null, diagnostics: [] };
    const { ok, diagnostics } = await applyFresh(door, this.document(config), pagesChanges);
    if (!ok) return { newState: prior, diagnostics };
    return { newState: { ...planned, id: config.project as string }, diagnostics: diagnostics.filter((d) => d.severity === 'error') };
  },

  async planDestroy(_door, prior) {
    return [{ severity: 'warning', summary: `The Pages of ${String(prior.project)} will be left as they are`, detail: 'Destroying plumb_project_pages stops managing them: the settings stay and the site stays published. To unpublish it, declare published = false and allow_unpublish = true and apply first.' }];
  },

  /** Refresh: each declared field, and `published` when declared, as the engine's plan finds them. */
  async read(door, current): Promise<ApplyResult> {
    if (typeof current.project !== 'string') return { newState: current, diagnostics: [] };
    const { plan, diagnostics } = await door.plan(this.document({ ...current, allow_unpublish: true }));
    if (!plan || hasTfErrors(diagnostics)) return { newState: current, diagnostics: diagnostics.filter((d) => d.severity === 'error') };
    const state: Record<string, CtyValue> = { ...current, id: current.project };
    for (const c of pagesChanges(plan)) {
      if (c.action === 'delete') {
        if (typeof state.published === 'boolean') state.published = true; // declared unpublished, but it serves
        continue;
      }
      for (const a of c.attributes) if (a.name in state && state[a.name] !== null) state[a.name] = a.name === 'pages_primary_domain' ? (typeof a.before === 'string' ? a.before : '') : (a.before as CtyValue);
    }
    // Declared published but nothing deployed: the plan reports it as drift.
    if (state.published === true && plan.drift.some((d) => d.kind === 'pages' && d.attributes.some((a) => a.name === 'published'))) state.published = false;
    return { newState: state, diagnostics: [] };
  },

  /** By project: the update fields and whether it is published, as the instance has them. */
  async importState(door, project): Promise<ApplyResult> {
    const r = await door.read(async (ctx): Promise<PagesSettings | string> => {
      try {
        return await getPages(ctx.client, project);
      } catch (err) {
        // Pages that serve nothing answer 404: nothing published, settings at their defaults.
        if (err instanceof ApiNotFoundError && !/project not found/i.test(err.serverMessage ?? '')) return { url: '', is_unique_domain_enabled: false, force_https: false, primary_domain: null, deployments: [] };
        if (err instanceof ApiError) return `Cannot read the Pages of ${project}: ${err.message}`;
        throw err;
      }
    });
    if (typeof r.value === 'string') return { newState: null, diagnostics: [{ severity: 'error', summary: r.value, detail: `GET /projects/${project}/pages` }] };
    const live = r.value;
    if (!live) return { newState: null, diagnostics: r.diagnostics };
    // Whether the site serves is something the instance tells, so it is imported (a configuration
    // that says `published = true` of a published site plans no change after import).
    const state: Record<string, CtyValue> = { id: project, project, published: live.deployments.length > 0, allow_unpublish: null };
    for (const [field, response] of Object.entries(PAGES_UPDATE_RESPONSE_FIELD)) {
      const v = (live as unknown as Record<string, unknown>)[response];
      state[field] = typeof v === 'boolean' || typeof v === 'string' ? v : field === 'pages_primary_domain' ? '' : false;
    }
    return { newState: state, diagnostics: [] };
  },
};
