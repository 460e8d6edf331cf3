/**
 * The shared containers of an instance: the groups and projects resource kinds live under
 * (`instances.<name>.groups.<ref>`, `instances.<name>.projects.<ref>`), each keyed by a full path or
 * a numeric id. A kind names its container in its mount (src/config/kinds.ts); config/
 * resolves each container entry once (its reference checked once, whatever kinds live under it) and
 * the schema generator builds one definition per container from the kinds mounted under it.
 */
export interface ContainerSpec {
  /** What one entry is, in messages ("group", "project"). */
  readonly noun: string;
  /** Its property's description under an instance. */
  readonly description: string;
  /** Its property's description under `defaults:`. */
  readonly defaultsDescription: string;
}

export const CONTAINERS = {
  groups: { noun: 'group', description: 'Groups by full path or numeric id.', defaultsDescription: 'Groups every instance inherits (tokens by name).' },
  projects: { noun: 'project', description: 'Projects by full path or numeric id.', defaultsDescription: 'Projects every instance inherits (files by path, Pages by field).' },
} as const satisfies Record<string, ContainerSpec>;

export type ContainerName = keyof typeof CONTAINERS;

export const CONTAINER_NAMES = Object.keys(CONTAINERS) as ContainerName[];
