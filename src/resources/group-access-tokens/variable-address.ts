/**
 * How a ci_variable sink is named: its identity (which variable it is: instance, owner, key,
 * environment scope) and its words in plans and messages. Light: the configuration side uses it.
 */
import type { CiVariableSink } from './model.js';

/** The variable's owner as the API addresses it: a numeric id or a full path. */
export function variableOwnerOf(sink: CiVariableSink): { readonly kind: 'project' | 'group'; readonly ref: string | number } {
  const ref = (sink.project ?? sink.group)!;
  return { kind: sink.project !== undefined ? 'project' : 'group', ref: /^\d+$/.test(ref) ? Number(ref) : ref };
}

/**
 * Which variable a sink is, among every sink of the configuration: the instance that holds it (the
 * sink's `instance`, else the token's), its owner, key and environment scope. Paths compare
 * case-insensitively, as the service finds them.
 */
export function variableSinkId(tokenInstance: string, sink: CiVariableSink): string {
  const owner = sink.project !== undefined ? `project:${sink.project.toLowerCase()}` : `group:${sink.group!.toLowerCase()}`;
  return JSON.stringify([sink.instance ?? tokenInstance, owner, sink.key, sink.environmentScope]);
}

/**
 * `ci_variable platform/app DEPLOY_TOKEN` (a project), `ci_variable group platform DEPLOY_TOKEN`, with
 * ` [production]` for a scope other than `*` and ` on instance NAME` for another instance.
 */
export function describeVariable(_tokenInstance: string | undefined, sink: CiVariableSink): string {
  const owner = sink.project !== undefined ? sink.project : `group ${sink.group}`;
  return `ci_variable ${owner} ${sink.key}${sink.environmentScope !== '*' ? ` [${sink.environmentScope}]` : ''}${sink.instance !== undefined ? ` on instance ${sink.instance}` : ''}`;
}

/** `protected, masked` and the rest of what a delivery sets, for plans. */
export function variableFlags(sink: CiVariableSink): string {
  return [
    sink.protected ? 'protected' : 'not protected',
    sink.hidden ? 'masked and hidden' : sink.masked ? 'masked' : 'NOT masked',
    ...(sink.variableType === 'file' ? ['file'] : []),
    ...(!sink.raw ? ['expanded'] : []),
  ].join(', ');
}
