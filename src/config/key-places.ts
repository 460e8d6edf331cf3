/**
 * Where a misplaced key belongs, for the schema pass's "move it …" help: read from the
 * configuration's JSON Schema and the kinds' mounts (`KindConfig.mount`), so every kind of the
 * registry, a test's fifth kind included, gets the same help without a list of places here.
 */
import { CONTAINERS } from '../catalogue/containers.js';
import type { KindConfig } from './kinds.js';
import { mountContainers, mountedUnder } from './kinds.js';

export interface JsonSchemaNode {
  definitions?: Record<string, JsonSchemaNode>;
  $ref?: string;
  properties?: Record<string, JsonSchemaNode>;
  additionalProperties?: JsonSchemaNode | boolean;
  patternProperties?: Record<string, JsonSchemaNode>;
  items?: JsonSchemaNode | boolean;
  oneOf?: JsonSchemaNode[];
  anyOf?: JsonSchemaNode[];
  allOf?: JsonSchemaNode[];
}

/** A place a key can be written at: the schema node holding it and how the help names it. */
interface Place {
  readonly node: JsonSchemaNode | undefined;
  readonly where: string;
}

/** `node` with its `$ref`s (into the root's definitions) followed. */
function deref(root: JsonSchemaNode, node: JsonSchemaNode | boolean | undefined): JsonSchemaNode | undefined {
  let n = typeof node === 'object' ? node : undefined;
  for (let hops = 0; n?.$ref !== undefined && hops < 16; hops++) {
    const name = /^#\/definitions\/(.+)$/.exec(n.$ref)?.[1];
    n = name === undefined ? undefined : root.definitions?.[name];
  }
  return n;
}

/** What one entry of a map or a list of `node` is (its `additionalProperties`, a pattern's value, its `items`). */
function entryOf(root: JsonSchemaNode, node: JsonSchemaNode | undefined): JsonSchemaNode | undefined {
  if (!node) return undefined;
  return deref(root, node.additionalProperties) ?? deref(root, Object.values(node.patternProperties ?? {})[0]) ?? deref(root, node.items);
}

/**
 * Every object a kind's key opens, breadth first: the key's own node, then what lies under it,
 * each with its path below the mount (`access_tokens.<name>.rotation`); `<name>` stands for any
 * key of a map, `<item>` for an item of a list.
 */
function kindPlaces(root: JsonSchemaNode, key: string, start: JsonSchemaNode | undefined, owner: string): Place[] {
  const out: Place[] = [];
  const seen = new Set<JsonSchemaNode>();
  const queue: [JsonSchemaNode | undefined, string[]][] = [[start, [key]]];
  while (queue.length > 0) {
    const [node, path] = queue.shift()!;
    if (!node || seen.has(node) || path.length > 8) continue;
    seen.add(node);
    if (node.properties) out.push({ node, where: `under \`${path.join('.')}:\` of ${owner}` });
    for (const branch of [...(node.oneOf ?? []), ...(node.anyOf ?? []), ...(node.allOf ?? [])]) queue.push([deref(root, branch), path]);
    for (const [name, child] of Object.entries(node.properties ?? {})) queue.push([deref(root, child), [...path, name]]);
    const entry = entryOf(root, node);
    if (entry) queue.push([entry, [...path, node.items !== undefined && node.additionalProperties === undefined ? '<item>' : '<name>']]);
  }
  return out;
}

/**
 * The places of a configuration, in the order the help looks: the top level, an instance, each
 * container's entry (a group, a project: next to the keys its kinds open), then each kind's keys
 * and what lies under them, in the registry's order.
 */
export function keyPlaces(root: JsonSchemaNode, kinds: readonly KindConfig[]): Place[] {
  const instance = entryOf(root, deref(root, root.properties?.instances));
  const own = Object.keys(instance?.properties ?? {}).filter((k) => !kinds.some((c) => c.mount.keys.includes(k) || (mountContainers(c.mount) as readonly string[]).includes(k)));
  const places: Place[] = [
    { node: root, where: 'to the top level of the file' },
    { node: instance, where: `directly under an instance${own.length > 0 ? ` (next to ${own.slice(0, 2).join(' and ')})` : ''}` },
  ];
  const containers = [...new Set(kinds.flatMap((c) => mountContainers(c.mount)))];
  for (const c of containers) {
    const opened = kinds.filter((k) => mountedUnder(k.mount, c)).map((k) => k.mount.keys[0]!);
    places.push({ node: entryOf(root, deref(root, instance?.properties?.[c])), where: `under a ${CONTAINERS[c].noun} (next to ${opened.length > 1 ? `${opened.slice(0, -1).join(', ')} and ${opened.at(-1)!}` : opened.join('')})` });
  }
  for (const k of kinds) {
    const under = mountContainers(k.mount);
    const holders = under.length === 0 ? [{ holder: instance, owner: 'an instance' }] : under.map((c) => ({ holder: entryOf(root, deref(root, instance?.properties?.[c])), owner: `a ${CONTAINERS[c].noun}` }));
    for (const { holder, owner } of holders) for (const key of k.mount.keys) places.push(...kindPlaces(root, key, deref(root, holder?.properties?.[key]), owner));
  }
  return places;
}

/** Where `key` is written, in words ("under a group (next to access_tokens)"); none when no place holds it. */
export function whereKeyBelongs(root: JsonSchemaNode, key: string, kinds: readonly KindConfig[]): string | undefined {
  return keyPlaces(root, kinds).find((p) => p.node?.properties?.[key] !== undefined)?.where;
}
