/**
 * The provider's data sources, one registry read generically by ValidateDataResourceConfig and
 * ReadDataSource (no switch over type names): each kind's own (`TerraformPart.dataSource`)
 * and the two the provider serves by itself, which list what a group
 * holds for `for_each` (issue 23, docs/terraform.md#data-sources):
 *
 * - `plumb_projects`: `GET /groups/:id/projects` (with `include_subgroups`, archived projects left
 *   out unless `include_archived`), the Terraform counterpart of YAML's `platform/**` / `platform/*`
 *   project selectors;
 * - `plumb_groups`: `GET /groups/:id/descendant_groups` (or `/subgroups` without
 *   `include_descendants`), the counterpart of the group selectors.
 *
 * Both go through src/api/discovery.ts (the first page, then the others at once; never a listing
 * of the whole instance), on the instance the provider block configured (its url allowed by the
 * connection rules at ConfigureProvider), and drop what `exclude` matches (src/util/path-glob.ts,
 * the patterns of YAML's `exclude:`). Their schemas are generated (src/catalogue/data-sources.ts),
 * so the CDKTF bindings hold them too.
 */
import { listDescendantGroups, listGroupProjects, listSubgroups } from '../api/discovery.js';
import { ApiError } from '../api/errors.js';
import { DATA_SOURCE_DEFAULTS, GROUPS_DATA_SOURCE, PROJECTS_DATA_SOURCE } from '../catalogue/data-sources.js';
import type { DiagnosticCode } from '../diagnostics/codes.js';
import type { InstanceContext } from '../engine/resource.js';
import { apiSuggestion } from '../engine/engine.js';
import { UNKNOWN, containsUnknown, hasTfErrors, isUnknown } from '../resources/terraform.js';
import type { ApplyResult, CtyValue, DataSourceDoor, TerraformDataSource, TerraformPart, TfDiagnostic, TfObject } from '../resources/terraform.js';
import { anyPathGlob, pathGlobProblem } from '../util/path-glob.js';
import { INSTANCE } from './config.js';
import { NOT_CONFIGURED, readInstance } from './resources.js';
import type { Runtime } from './resources.js';

const ARGUMENT: DiagnosticCode = 'PLUMB_TF_DATA_SOURCE_ARGUMENT';
const NOT_FOUND: DiagnosticCode = 'PLUMB_API_NOT_FOUND';

const argumentError = (attribute: string, summary: string, help: string): TfDiagnostic => ({
  severity: 'error',
  summary,
  detail: `help: ${help} (${ARGUMENT})`,
  path: [{ attribute }],
});

/** `group` names one group by full path or id; a value not known yet is checked once it is. */
function checkGroup(v: CtyValue | undefined): TfDiagnostic[] {
  if (typeof v !== 'string') return [];
  const why =
    v.trim() === '' ? 'it is empty'
    : v !== v.trim() ? 'it starts or ends with white space'
    : v.startsWith('/') || v.endsWith('/') ? 'a full path has no leading or trailing "/"'
    : v.includes('//') ? 'it has an empty segment ("//")'
    : v.includes('*') ? 'it names one group, not a pattern'
    : undefined;
  if (!why) return [];
  return [argumentError('group', `group "${v}" is not a group's full path or id: ${why}`, 'give one group, as its full path (platform/infra) or numeric id; leave out what you do not want with exclude (patterns with * and ** go there)')];
}

/** Each known `exclude` entry is a full path or a valid pattern. */
function checkExclude(v: CtyValue | undefined): TfDiagnostic[] {
  if (!Array.isArray(v)) return [];
  return (v as CtyValue[]).flatMap((p) => {
    if (typeof p !== 'string') return [];
    const why = pathGlobProblem(p);
    return why ? [argumentError('exclude', `exclude entry "${p}" is not a full path or a pattern: ${why}`, 'write full paths (platform/legacy) or patterns: * within one segment (platform/legacy-*), ** at any depth (platform/old/**)')] : [];
  });
}

const flag = (v: CtyValue | undefined, fallback: boolean): boolean | typeof UNKNOWN => (isUnknown(v) ? UNKNOWN : typeof v === 'boolean' ? v : fallback);
const strings = (v: CtyValue | undefined): string[] => (Array.isArray(v) ? (v as CtyValue[]).filter((x): x is string => typeof x === 'string') : []);
const byPath = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** A failed listing, at the `group` attribute: a 404 is a group that is not there (or not visible). */
function listingFailed(err: ApiError, group: string, what: string, hint: string | undefined): TfDiagnostic {
  if (err.status === 404) {
    return {
      severity: 'error',
      summary: `Group "${group}" not found`,
      detail: `${err.method} ${err.path} answered 404: no group has this full path or id, or the token cannot see it.\nhelp: give the group's full path (platform/infra) or numeric id, and a token that can read the group (${NOT_FOUND})`,
      path: [{ attribute: 'group' }],
    };
  }
  return { severity: 'error', summary: `Listing the ${what} of group "${group}" failed: ${err.message}`, detail: `${err.method} ${err.path} (${err.code})${hint ? `\nhelp: ${hint}` : ''}`, path: [{ attribute: 'group' }] };
}

/**
 * The shared shape of both listings: the inputs echoed (defaults filled in), and while any input is
 * not known yet, every computed attribute unknown and no request.
 */
async function listing<Ref>(
  door: DataSourceDoor,
  inputs: TfObject,
  computed: readonly string[],
  what: string,
  list: (ctx: InstanceContext, group: string) => Promise<Ref[]>,
  render: (kept: Ref[]) => TfObject,
  pathOf: (r: Ref) => string,
): Promise<ApplyResult> {
  if (containsUnknown(inputs)) return { newState: { ...inputs, ...Object.fromEntries(computed.map((k) => [k, UNKNOWN])) }, diagnostics: [] };
  const group = inputs.group as string;
  const r = await door.read(async (ctx) => {
    try {
      return { refs: await list(ctx, group) };
    } catch (err) {
      // What to check names the instance's URL, host and token variable (engine.ts apiSuggestion).
      if (err instanceof ApiError) return { error: err, hint: apiSuggestion(err.code, ctx.instance) };
      throw err;
    }
  });
  if (!r.value) return { newState: null, diagnostics: r.diagnostics };
  const { refs, error, hint } = r.value;
  if (error || !refs) return { newState: null, diagnostics: error ? [listingFailed(error, group, what, hint)] : [] };
  const excluded = anyPathGlob(strings(inputs.exclude));
  const kept = refs.filter((x) => !excluded(pathOf(x))).sort((a, b) => byPath(pathOf(a), pathOf(b)));
  return { newState: { ...inputs, ...render(kept) }, diagnostics: [] };
}

const projectsDataSource: TerraformDataSource = {
  typeName: PROJECTS_DATA_SOURCE,
  validate: (config) => [...checkGroup(config.group), ...checkExclude(config.exclude)],
  read(door, config) {
    const inputs: TfObject = {
      group: config.group ?? null,
      include_subgroups: flag(config.include_subgroups, DATA_SOURCE_DEFAULTS.include_subgroups),
      include_archived: flag(config.include_archived, DATA_SOURCE_DEFAULTS.include_archived),
      exclude: config.exclude ?? null,
    };
    return listing(
      door,
      inputs,
      ['projects', 'paths', 'ids'],
      'projects',
      (ctx, group) => listGroupProjects(ctx.client, group, { includeSubgroups: inputs.include_subgroups === true, archived: inputs.include_archived === true ? 'include' : 'exclude' }),
      (kept) => ({
        projects: kept.map((p) => ({
          id: p.id,
          path_with_namespace: p.path_with_namespace,
          name: p.name ?? null,
          default_branch: p.default_branch ?? null,
          archived: p.archived,
          web_url: p.web_url ?? null,
        })),
        paths: kept.map((p) => p.path_with_namespace),
        ids: Object.fromEntries(kept.map((p) => [p.path_with_namespace, p.id])),
      }),
      (p) => p.path_with_namespace,
    );
  },
};

const groupsDataSource: TerraformDataSource = {
  typeName: GROUPS_DATA_SOURCE,
  validate: (config) => [...checkGroup(config.group), ...checkExclude(config.exclude)],
  read(door, config) {
    const inputs: TfObject = {
      group: config.group ?? null,
      include_descendants: flag(config.include_descendants, DATA_SOURCE_DEFAULTS.include_descendants),
      exclude: config.exclude ?? null,
    };
    return listing(
      door,
      inputs,
      ['groups', 'paths', 'ids'],
      'groups',
      (ctx, group) => (inputs.include_descendants === true ? listDescendantGroups(ctx.client, group) : listSubgroups(ctx.client, group)),
      (kept) => ({
        groups: kept.map((g) => ({ id: g.id, full_path: g.full_path, name: g.name ?? null, web_url: g.web_url ?? null })),
        paths: kept.map((g) => g.full_path),
        ids: Object.fromEntries(kept.map((g) => [g.full_path, g.id])),
      }),
      (g) => g.full_path,
    );
  },
};

/** Every data source the provider serves: its kinds' own (the registry it runs with), then the fleet listings. */
export function dataSourcesOf(parts: readonly TerraformPart[]): readonly TerraformDataSource[] {
  return [
    ...parts.flatMap((p): TerraformDataSource[] => {
      const ds = p.dataSource;
      return ds ? [{ typeName: p.typeName, schema: ds.schema, read: (door, config) => ds.read(door, config) }] : [];
    }),
    projectsDataSource,
    groupsDataSource,
  ];
}

function unknownDataSource(typeName: string, all: readonly TerraformDataSource[]): TfDiagnostic {
  return { severity: 'error', summary: `Unknown data source ${typeName}`, detail: `plumb serves ${all.map((d) => d.typeName).join(', ')}.` };
}

function doorOf(rt: Runtime): DataSourceDoor {
  return {
    today: rt.now.toISOString().slice(0, 10),
    instance: INSTANCE,
    read: (fn) => (rt.provider ? readInstance(rt, fn) : Promise.resolve({ diagnostics: [NOT_CONFIGURED] })),
  };
}

/** ValidateDataResourceConfig: the data source's offline checks (values not known yet skipped). */
export function validateDataSource(typeName: string, config: TfObject | null, parts: readonly TerraformPart[]): TfDiagnostic[] {
  const all = dataSourcesOf(parts);
  const ds = all.find((d) => d.typeName === typeName);
  if (!ds) return [unknownDataSource(typeName, all)];
  return config ? (ds.validate?.(config) ?? []) : [];
}

/** ReadDataSource: checks the configuration again (Terraform may skip validation), then reads. */
export async function readDataSource(rt: Runtime, typeName: string, config: TfObject | null): Promise<ApplyResult> {
  const all = dataSourcesOf(rt.kinds.terraformParts);
  const ds = all.find((d) => d.typeName === typeName);
  if (!ds) return { newState: null, diagnostics: [unknownDataSource(typeName, all)] };
  const invalid = config ? (ds.validate?.(config) ?? []) : [];
  if (hasTfErrors(invalid)) return { newState: null, diagnostics: invalid };
  const r = await ds.read(doorOf(rt), config ?? {});
  return { ...r, diagnostics: [...invalid, ...r.diagnostics] };
}
