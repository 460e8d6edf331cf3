/**
 * The Terraform data sources that list what a group holds (issue 23): `plumb_projects` and
 * `plumb_groups`, the Terraform counterpart of YAML's selectors (`platform/*`, `platform/**`, with
 * `exclude:` and archived projects skipped), meant for `for_each`. Their schemas, in the JSON form
 * `terraform providers schema -json` prints: facts of the interface, shared by the build-time
 * schema generator (src/schema/terraform.ts, from which the CDKTF bindings are generated) and the
 * provider that serves and reads them (src/provider/data-sources.ts).
 */

type AttrType = string | readonly [string, AttrType] | readonly ['object', Readonly<Record<string, AttrType>>];

export interface DataSourceAttribute {
  readonly type: AttrType;
  readonly description: string;
  readonly description_kind: 'plain';
  readonly required?: true;
  readonly optional?: true;
  readonly computed?: true;
}

export interface DataSourceShape {
  readonly version: 0;
  readonly block: {
    readonly attributes: Readonly<Record<string, DataSourceAttribute>>;
    readonly description: string;
    readonly description_kind: 'plain';
  };
}

const attr = (type: AttrType, description: string, how: 'required' | 'optional' | 'computed' | 'optional+computed'): DataSourceAttribute => ({
  type,
  description,
  description_kind: 'plain',
  ...(how === 'required' && { required: true as const }),
  ...((how === 'optional' || how === 'optional+computed') && { optional: true as const }),
  ...((how === 'computed' || how === 'optional+computed') && { computed: true as const }),
});

const group = attr('string', 'The group: its full path (platform/infra) or numeric id. A group that does not exist, or that the token cannot see, is an error.', 'required');
const exclude = (what: string) =>
  attr(
    ['set', 'string'],
    `Full paths or patterns of ${what} to leave out: * matches within one segment (platform/legacy-*), ** any number of segments (platform/old/**: everything below platform/old). Case is ignored.`,
    'optional',
  );

/** The projects' attributes, in the order of the `projects` objects. */
export const PROJECT_ATTRIBUTES = ['id', 'path_with_namespace', 'name', 'default_branch', 'archived', 'web_url'] as const;
/** The groups' attributes, in the order of the `groups` objects. */
export const GROUP_ATTRIBUTES = ['id', 'full_path', 'name', 'web_url'] as const;

export const PROJECTS_DATA_SOURCE = 'plumb_projects';
export const GROUPS_DATA_SOURCE = 'plumb_groups';

/** Defaults of the optional filters (the state shows the value used). */
export const DATA_SOURCE_DEFAULTS = {
  include_subgroups: true,
  include_archived: false,
  include_descendants: true,
} as const;

export const DATA_SOURCES: Readonly<Record<string, DataSourceShape>> = {
  [PROJECTS_DATA_SOURCE]: {
    version: 0,
    block: {
      description:
        "The projects in a group, for for_each: listed with GET /groups/:id/projects (never the whole instance), sorted by path. The Terraform counterpart of YAML's project selectors (platform/** with include_subgroups, platform/* without).",
      description_kind: 'plain',
      attributes: {
        group,
        include_subgroups: attr('bool', 'Also list the projects of every group below, at every depth (platform/**); false lists only the group\'s own projects (platform/*). Default: true.', 'optional+computed'),
        include_archived: attr('bool', 'Also list archived projects (the service refuses writes to them). Default: false.', 'optional+computed'),
        exclude: exclude('projects'),
        projects: attr(
          ['list', ['object', { id: 'number', path_with_namespace: 'string', name: 'string', default_branch: 'string', archived: 'bool', web_url: 'string' }]],
          'The projects, sorted by path_with_namespace. default_branch is null for a project without a repository, or whose code the token may not read.',
          'computed',
        ),
        paths: attr(['set', 'string'], 'The projects\' full paths: for_each = data.plumb_projects.NAME.paths, then each.value is a project path.', 'computed'),
        ids: attr(['map', 'number'], 'Each project\'s numeric id by its full path.', 'computed'),
      },
    },
  },
  [GROUPS_DATA_SOURCE]: {
    version: 0,
    block: {
      description:
        "The groups below a group, for for_each: listed with GET /groups/:id/descendant_groups or /subgroups (never the whole instance), sorted by path; the group itself is not listed. The Terraform counterpart of YAML's group selectors (platform/** with include_descendants, platform/* without).",
      description_kind: 'plain',
      attributes: {
        group,
        include_descendants: attr('bool', 'List the groups at every depth below (platform/**); false lists only the direct subgroups (platform/*). Default: true.', 'optional+computed'),
        exclude: exclude('groups'),
        groups: attr(['list', ['object', { id: 'number', full_path: 'string', name: 'string', web_url: 'string' }]], 'The groups, sorted by full_path.', 'computed'),
        paths: attr(['set', 'string'], 'The groups\' full paths: for_each = data.plumb_groups.NAME.paths, then each.value is a group path.', 'computed'),
        ids: attr(['map', 'number'], 'Each group\'s numeric id by its full path.', 'computed'),
      },
    },
  },
};
