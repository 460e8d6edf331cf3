/**
 * Builds plumb's JSON Schemas: the instance's own keys here, each resource kind's fragment from its
 * `KindConfig.schema()` (src/resources/<kind>/schema.ts, built from the catalogue), mounted where its
 * `mount` says: directly under an instance, or in the definition of a shared container (a group, a
 * project) that this file builds from the kinds mounted under it. Used by `scripts/generate.ts`
 * (which commits the results under schemas/, for the built-in kinds it passes), by the staleness
 * test and by `withKinds`; never by the CLI. The kinds are always passed in.
 */
import { CONTAINERS } from '../catalogue/containers.js';
import type { ContainerName } from '../catalogue/containers.js';
import type { KindConfig, JsonSchema } from '../config/kinds.js';
import { mountContainers, mountedUnder } from '../config/kinds.js';

export type { JsonSchema } from '../config/kinds.js';

const SCHEMA_BASE = 'https://plumb.dev/schemas';
const DRAFT = 'http://json-schema.org/draft-07/schema#';

/** Each container's definition name (`group`, `project`). */
const definitionOf = (c: ContainerName): string => CONTAINERS[c].noun;

/** A container's definition: the keys of every kind mounted under it, in the registry's order. */
function containerSchema(c: ContainerName, kinds: readonly KindConfig[]): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    properties: Object.assign({}, ...kinds.filter((k) => mountedUnder(k.mount, c)).map((k) => k.schema().properties)) as JsonSchema,
  };
}

/** The containers the kinds mount under, in the order they first appear in the registry. */
function containersOf(kinds: readonly KindConfig[]): ContainerName[] {
  return [...new Set(kinds.flatMap((k) => mountContainers(k.mount)))];
}

/** What the kinds put directly under an instance: their top-level keys, then one map per container. */
function kindProperties(kinds: readonly KindConfig[], defaults: boolean): JsonSchema {
  const out: JsonSchema = {};
  for (const k of kinds.filter((x) => mountContainers(x.mount).length === 0)) {
    const s = k.schema();
    Object.assign(out, defaults ? (s.defaults ?? s.properties) : s.properties);
  }
  for (const c of containersOf(kinds)) {
    out[c] = { type: 'object', additionalProperties: { $ref: `#/definitions/${definitionOf(c)}` }, description: defaults ? CONTAINERS[c].defaultsDescription : CONTAINERS[c].description };
  }
  return out;
}

/** Every definition: the instance, then per kind in the registry's order its container (first time) and its own. */
function definitions(kinds: readonly KindConfig[]): JsonSchema {
  const out: JsonSchema = { instance: instanceSchema(kinds) };
  for (const k of kinds) {
    for (const c of mountContainers(k.mount)) if (!(definitionOf(c) in out)) out[definitionOf(c)] = containerSchema(c, kinds);
    Object.assign(out, k.schema().definitions ?? {});
  }
  return out;
}

export function instanceSchema(kinds: readonly KindConfig[]): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    properties: {
      url: { type: 'string', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/]+', description: 'Base URL of the instance, without /api/v4.' },
      token_env: {
        type: 'string',
        pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
        description: 'Name of the environment variable holding the access token (never the token itself).',
      },
      ca_bundle: { type: 'string', minLength: 1, description: 'PEM file of a private CA (relative to this YAML file).' },
      allow_insecure_http: { type: 'boolean', default: false, description: 'Allow plain HTTP to a non-loopback host.' },
      settings_verify_seconds: {
        type: 'integer',
        minimum: 0,
        maximum: 600,
        default: 90,
        description: 'How long apply waits for cached settings to show their new values before calling them drifted.',
      },
      allow_risky: {
        type: 'array',
        uniqueItems: true,
        // Ids are checked by plumb itself (unknown id with a did-you-mean), not by a pattern here.
        items: { type: 'string' },
        description:
          'Ids of risky changes (changes that can lock people or plumb out, skip a review or leave something unprotected) this instance accepts without --allow-risky; see docs/plans.md.',
      },
      lock: {
        type: 'object',
        additionalProperties: false,
        required: ['project', 'path'],
        description:
          'A lock on the instance that apply holds while it works, so applies on different machines never run at once: a file in a repository of the instance, created to acquire and deleted to release (docs/state.md#locking).',
        properties: {
          project: {
            type: ['string', 'integer'],
            minLength: 1,
            minimum: 1,
            description: 'The project holding the lock file: its full path or numeric id. The token needs the Developer role there (Maintainer on a protected branch).',
          },
          path: { type: 'string', minLength: 1, description: 'Path of the lock file in the repository, e.g. `locks/plumb-production.json`.' },
          branch: { type: 'string', minLength: 1, description: "Branch of the lock file. Default: the project's default branch." },
          ttl_minutes: {
            type: 'integer',
            minimum: 1,
            maximum: 1440,
            default: 60,
            description: 'How long a lock stays valid; an apply of another machine takes over a lock older than this (a run that died without releasing it).',
          },
        },
      },
      ...kindProperties(kinds, false),
    },
  };
}

export function configSchema(kinds: readonly KindConfig[]): JsonSchema {
  return {
    $schema: DRAFT,
    $id: `${SCHEMA_BASE}/plumb-config.schema.json`,
    title: 'plumb configuration',
    type: 'object',
    additionalProperties: false,
    properties: {
      version: { const: 1, description: 'Configuration format version.' },
      instances: {
        type: 'object',
        description: 'Target instances by a name of your choice.',
        propertyNames: { pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$' },
        additionalProperties: { $ref: '#/definitions/instance' },
      },
      defaults: {
        type: 'object',
        description:
          'Settings, groups and projects every instance inherits (docs/config.md#shared-defaults). An instance overrides a setting, a token, a file, a Pages field or a group or project key by declaring it; the rules between settings apply to each instance as merged.',
        additionalProperties: false,
        properties: kindProperties(kinds, true),
      },
    },
    definitions: definitions(kinds),
  };
}

/** Stand-alone schema for one resource kind, for tools that validate a single block. */
export function resourceSchema(title: string, body: JsonSchema, file: string): JsonSchema {
  return { $schema: DRAFT, $id: `${SCHEMA_BASE}/${file}`, title, ...body };
}

/** Each kind's stand-alone schema file (schemas/<file>), in the registry's order. */
export function standaloneSchemas(kinds: readonly KindConfig[]): Record<string, JsonSchema> {
  return Object.fromEntries(kinds.flatMap((k) => {
    const s = k.schema().standalone;
    return s ? [[s.file, resourceSchema(s.title, s.body, s.file)]] : [];
  }));
}
