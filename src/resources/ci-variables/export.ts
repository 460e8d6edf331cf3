/**
 * CI/CD variables' part of `plumb export`: `--variables-project PROJECT` and `--variables-group
 * GROUP` (repeatable), each read with one listing, declared by key (a key in several environment
 * scopes under `scopes:`). A value is never exported (decision, docs/export.md): it is
 * `${env:NAME}`, NAME made of the owner's path, the key and the scope, listed among the variables
 * the configuration needs; a re-export keeps a name already written. Every other field is written
 * as the instance holds it, defaults included.
 */
import { listVariables } from '../../api/variables.js';
import type { CiVariable } from '../../api/variables.js';
import { decodedSegment } from '../../api/path.js';
import type { ExportEntry, ExportEnv, ExportResult, ResourceExporter } from '../../engine/export.js';
import { joinPointer } from '../../config/pointer.js';
import { apiOwner } from './model.js';

const COMMENT = " value not exported: set the ${env:…} variable it names (plumb never writes a variable's value into a file)";

interface Options {
  readonly projects: readonly string[];
  readonly groups: readonly string[];
}

const strings = (v: unknown): readonly string[] => (Array.isArray(v) ? (v as unknown[]).filter((x): x is string => typeof x === 'string') : []);

/** An environment variable name for a variable's value: `PROJECT_PATH__KEY[__SCOPE]`, upper case, [A-Z0-9_] only. */
export function envNameOf(owner: string, key: string, scope: string): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '').toUpperCase();
  const name = [safe(owner), key.toUpperCase(), ...(scope === '*' ? [] : [safe(scope) || 'ALL'])].join('__');
  return /^[A-Z_]/.test(name) ? name : `V_${name}`;
}

function fields(v: CiVariable): Record<string, unknown> {
  return {
    variable_type: v.variable_type,
    protected: v.protected,
    masked: v.masked,
    ...(v.hidden === true && { masked_and_hidden: true }),
    raw: v.raw,
    ...(v.description ? { description: v.description } : {}),
  };
}

export const ciVariablesExporter: ResourceExporter<Options> = {
  kind: 'cicd_variable',
  flags: [
    { name: 'variables-project', type: 'string', multiple: true, arg: 'PROJECT', help: "export this project's CI/CD variables (repeatable; values as ${env:…} placeholders)" },
    { name: 'variables-group', type: 'string', multiple: true, arg: 'GROUP', help: "export this group's CI/CD variables (repeatable; values as ${env:…} placeholders)" },
  ],
  parseOptions: (values) => ({ projects: strings(values['variables-project']), groups: strings(values['variables-group']) }),
  notFound(apiPath) {
    const m = /^\/(projects|groups)\/([^/]+)\/variables/.exec(apiPath);
    return m ? `the ${m[1] === 'projects' ? 'project' : 'group'} "${decodedSegment(m[2]!)}" (--variables-${m[1] === 'projects' ? 'project' : 'group'} ${decodedSegment(m[2]!)})` : undefined;
  },

  async export(ctx): Promise<ExportResult> {
    const owners = [...ctx.options.projects.map((ref) => ({ container: 'projects' as const, ref })), ...ctx.options.groups.map((ref) => ({ container: 'groups' as const, ref }))];
    const entries: ExportEntry[] = [];
    const env: ExportEnv[] = [];
    let count = 0;
    const lists = await Promise.all(owners.map(async (o) => ({ o, list: await listVariables(ctx.client, apiOwner(o)) })));
    for (const { o, list } of lists) {
      const byKey = new Map<string, CiVariable[]>();
      for (const v of list) byKey.set(v.key, [...(byKey.get(v.key) ?? []), v]);
      for (const [key, scoped] of byKey) {
        const one = scoped.length === 1 ? scoped[0]! : undefined;
        const valueOf = (v: CiVariable, pointer: string): string => {
          const name = ctx.declared?.envReference(pointer) ?? envNameOf(o.ref, key, v.environment_scope);
          env.push({ name, why: `the value of ${o.container === 'projects' ? 'project' : 'group'} ${o.ref} variable ${key}${v.environment_scope === '*' ? '' : ` (scope ${v.environment_scope})`}${v.hidden ? ' (hidden on the instance: its value cannot be read, only supplied)' : ''}` });
          return `\${env:${name}}`;
        };
        const at = joinPointer('/instances', ctx.declared?.instance.name ?? '', o.container, o.ref, 'variables', key);
        const path = [o.container, o.ref, 'variables', key];
        // The fields first, then each value as a reference of its own (an entry's strings are otherwise written as literal text).
        if (one) {
          entries.push({ path, value: { ...(one.environment_scope !== '*' && { environment_scope: one.environment_scope }), ...fields(one) }, comment: COMMENT });
          entries.push({ path: [...path, 'value'], value: valueOf(one, joinPointer(at, 'value')), reference: true });
        } else {
          entries.push({ path, value: { scopes: Object.fromEntries(scoped.map((v) => [v.environment_scope, fields(v)])) }, comment: COMMENT });
          for (const v of scoped) entries.push({ path: [...path, 'scopes', v.environment_scope, 'value'], value: valueOf(v, joinPointer(at, 'scopes', v.environment_scope, 'value')), reference: true });
        }
        count += scoped.length;
      }
    }
    return { entries, env, counts: { variables: count }, summary: `${count} CI/CD variable(s) of ${owners.length} project(s) and group(s)` };
  },
};
