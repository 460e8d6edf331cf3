/**
 * `defaults:`: copied into every instance that does not declare each value, then removed from the
 * data; what each instance inherited or overrode is recorded (docs/config.md#shared-defaults).
 */
import { joinPointer } from './pointer.js';
import { isPlainObject } from './loading.js';
import type { PendingDiagnostic } from './loading.js';
import type { LocationIndex } from './locations.js';
import type { SecretRegistry } from './secrets.js';
import type { KindConfig } from './kinds.js';
import { mountContainers } from './kinds.js';

/**
 * Where an instance's value came from when `defaults:` declares it: `inherited` (the instance does
 * not declare it: the value and its location are the default's) or `overridden` (the instance
 * declares it too: its value wins). Keyed by the instance's pointer at the granularity values are
 * inherited: a setting, a token, a file, a Pages field, a group's or project's own key.
 */
export class DefaultsOrigins {
  readonly #origins = new Map<string, { readonly defaults: string; readonly how: 'inherited' | 'overridden' }>();

  /** @internal */
  record(pointer: string, defaults: string, how: 'inherited' | 'overridden'): void {
    this.#origins.set(pointer, { defaults, how });
  }

  /** The origin recorded exactly at `pointer`. */
  at(pointer: string): { readonly defaults: string; readonly how: 'inherited' | 'overridden' } | undefined {
    return this.#origins.get(pointer);
  }

  /** The override at or above `pointer` (a diagnostic inside an overriding token names the default too). */
  overrideOver(pointer: string): { readonly pointer: string; readonly defaults: string } | undefined {
    if (this.#origins.size === 0) return undefined;
    for (let p = pointer; ; p = p.slice(0, p.lastIndexOf('/'))) {
      const o = this.#origins.get(p);
      if (o?.how === 'overridden') return { pointer: p, defaults: o.defaults };
      if (p === '' || p.split('/').length <= 3) return undefined;
    }
  }

  get size(): number {
    return this.#origins.size;
  }
}

/**
 * How `defaults:` merges into an instance: a map node merges its children key by key (`keys` names
 * a child's own spec, `each` the spec of the others); a `unit` is inherited or overridden whole. The
 * units: a setting, a token, a file, a Pages field, and every other key of a group or a project
 * (`prune_access_tokens`). docs/config.md#shared-defaults says the same for users.
 */
type MergeSpec = 'unit' | { readonly keys?: Readonly<Record<string, MergeSpec>>; readonly each?: MergeSpec };

const EACH_UNIT: MergeSpec = { each: 'unit' };

/**
 * The instance's spec, from the kinds' mounts: each key a kind mounts holds units (a setting, a
 * token, a file, a Pages field); a container (groups, projects) merges entry by entry, each
 * entry's other keys (`prune_access_tokens`) being units. With the built-in kinds:
 * `{settings: each unit, groups: {each: {access_tokens: each unit}}, projects: {each: {files, pages: each unit}}}`.
 */
function instanceSpec(kinds: readonly KindConfig[]): { readonly spec: MergeSpec; readonly sections: readonly string[] } {
  const keys: Record<string, MergeSpec> = {};
  const containers: Record<string, Record<string, MergeSpec>> = {};
  for (const k of kinds) {
    const under = mountContainers(k.mount);
    for (const into of under.length === 0 ? [keys] : under.map((c) => (containers[c] ??= {}))) for (const key of k.mount.keys) into[key] = k.mount.whole?.includes(key) ? 'unit' : EACH_UNIT;
  }
  for (const [c, under] of Object.entries(containers)) keys[c] = { each: { keys: under, each: 'unit' } };
  return { spec: { keys }, sections: Object.keys(keys) };
}

function childSpec(spec: MergeSpec, key: string): MergeSpec {
  return spec === 'unit' ? 'unit' : (spec.keys?.[key] ?? spec.each ?? 'unit');
}

/**
 * Copies what `defaults:` declares into every instance that does not declare it, and removes the
 * block from the data (the schema and the resolvers see each instance whole). An inherited value
 * keeps its default's location (`LocationIndex.alias`) and secrecy; an instance's own value wins.
 */
export function inheritDefaults(data: Record<string, unknown>, locations: LocationIndex, secrets: SecretRegistry, origins: DefaultsOrigins, pending: PendingDiagnostic[], kinds: readonly KindConfig[]): void {
  if (!('defaults' in data)) return;
  const block = data.defaults;
  delete data.defaults;
  const fileOf = (pointer: string) => locations.ownerOf(pointer) ?? 0;
  if (block === null) return;
  if (!isPlainObject(block)) {
    pending.push({
      severity: 'error',
      code: 'PLUMB_DEFAULTS_SHAPE',
      summary: '`defaults` must be a mapping of settings, groups and projects',
      suggestion: 'write `defaults:` with `settings:`, `groups:` or `projects:` under it, as under an instance',
      pointer: '/defaults',
      fileIndex: fileOf('/defaults'),
    });
    return;
  }
  const { spec, sections } = instanceSpec(kinds);
  const shared: [string, Record<string, unknown>][] = [];
  for (const [key, value] of Object.entries(block)) {
    const p = joinPointer('/defaults', key);
    if (!sections.includes(key)) {
      pending.push({
        severity: 'error',
        code: 'PLUMB_DEFAULTS_SHAPE',
        summary: `"${key}" cannot be shared in defaults`,
        detail: 'defaults holds settings, groups and projects; the connection (url, token_env, ca_bundle, …) and allow_risky belong to each instance.',
        suggestion: 'move it under each instance that needs it',
        pointer: p,
        fileIndex: fileOf(p),
        on: 'key',
      });
      continue;
    }
    if (value === null) continue;
    if (!isPlainObject(value)) {
      pending.push({
        severity: 'error',
        code: 'PLUMB_DEFAULTS_SHAPE',
        summary: `${key} in defaults must be a mapping`,
        suggestion: `write it as under an instance: \`${key}:\` with one key per ${key === 'settings' ? 'setting' : key === 'groups' ? 'group' : 'project'}`,
        pointer: p,
        fileIndex: fileOf(p),
      });
      continue;
    }
    shared.push([key, value]);
  }
  const instances = data.instances;
  if (shared.length === 0 || !isPlainObject(instances)) return;

  const recordUnits = (spec: MergeSpec, value: unknown, ip: string, dp: string) => {
    if (spec === 'unit' || !isPlainObject(value)) {
      origins.record(ip, dp, 'inherited');
      return;
    }
    for (const [k, v] of Object.entries(value)) recordUnits(childSpec(spec, k), v, joinPointer(ip, k), joinPointer(dp, k));
  };
  const inherit = (target: Record<string, unknown>, key: string, value: unknown, spec: MergeSpec, ip: string, dp: string) => {
    if (!(key in target)) {
      target[key] = structuredClone(value);
      locations.alias(ip, dp);
      for (const s of [...secrets.pointers]) if (s === dp || s.startsWith(dp + '/')) secrets.markPointer(ip + s.slice(dp.length));
      recordUnits(spec, value, ip, dp);
      return;
    }
    const own = target[key];
    // An instance's empty block stays as written (and is reported where it is).
    if (own === null) return;
    if (spec === 'unit' || !isPlainObject(own) || !isPlainObject(value)) {
      origins.record(ip, dp, 'overridden');
      return;
    }
    for (const [k, v] of Object.entries(value)) inherit(own, k, v, childSpec(spec, k), joinPointer(ip, k), joinPointer(dp, k));
  };
  for (const [name, instance] of Object.entries(instances)) {
    if (!isPlainObject(instance)) continue;
    const ip = joinPointer('/instances', name);
    for (const [key, value] of shared) inherit(instance, key, value, childSpec(spec, key), joinPointer(ip, key), joinPointer('/defaults', key));
  }
}
