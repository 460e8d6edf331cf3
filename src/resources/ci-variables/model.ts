/**
 * The CI/CD variables' desired part: per project or group (both containers,
 * src/catalogue/containers.ts) that declares `variables:` or `prune_variables:`, its variables.
 * Kept under the kind's name in `DesiredInstance.resources` and read through {@link variablesOf}.
 */
import type { VariableType } from '../../catalogue/ci-variables.js';
import type { DesiredInstance } from '../../config/model.js';

export const KIND = 'cicd_variable';

/** One variable: a key in one environment scope, every field as sent (the service's defaults filled in). */
export interface DesiredVariable {
  readonly key: string;
  readonly scope: string;
  /** The variable's declaration (`…/variables/KEY`, or `…/variables/KEY/scopes/SCOPE`). */
  readonly pointer: string;
  /** Where its value is written. */
  readonly valuePointer: string;
  /** The value: never shown, compared in memory or through a fingerprint kept in the state. */
  readonly value: string;
  /** Interpolated (`${env:…}`/`${file:…}`): a secret of the configuration, checked at plan only. */
  readonly secret: boolean;
  /** The references the value reads (`${env:DEPLOY_KEY}`), for the plan's words; empty for a literal. */
  readonly references: readonly string[];
  readonly fields: VariableFields;
}

/** Everything but the key, the scope and the value, as the API names it. */
export interface VariableFields {
  readonly variable_type: VariableType;
  readonly protected: boolean;
  readonly masked: boolean;
  /** Creation only (`masked_and_hidden`): a hidden variable's value is never returned again. */
  readonly masked_and_hidden: boolean;
  readonly raw: boolean;
  readonly description: string;
}

/** A project's or group's declared variables. */
export interface VariablesOwner {
  readonly container: 'projects' | 'groups';
  /** Numeric id or full path, as written. */
  readonly ref: string;
  readonly pointer: string;
  /** `prune_variables: true`: a live variable not declared here (by key and scope) is deleted. */
  readonly prune: boolean;
  readonly variables: readonly DesiredVariable[];
}

/** The projects and groups of the instance whose variables the configuration manages. */
export function variablesOf(instance: DesiredInstance): readonly VariablesOwner[] {
  return (instance.resources.get(KIND) as readonly VariablesOwner[] | undefined) ?? [];
}

/** The owner's noun in messages and addresses. */
export function ownerNoun(o: Pick<VariablesOwner, 'container'>): 'project' | 'group' {
  return o.container === 'projects' ? 'project' : 'group';
}

/** How people read a variable: `project platform/app variable DEPLOY_KEY (scope production)`. */
export function describeVariable(o: Pick<VariablesOwner, 'container' | 'ref'>, key: string, scope: string): string {
  return `${ownerNoun(o)} ${o.ref} variable ${key}${scope === '*' ? '' : ` (scope ${scope})`}`;
}

/** `prod.project["platform/app"].variable["DEPLOY_KEY"]`, `….variable["DEPLOY_KEY"].scope["production"]` for another scope than `*`. */
export function variableAddress(instance: string, o: Pick<VariablesOwner, 'container' | 'ref'>, key: string, scope: string): string {
  return `${ownerAddress(instance, o)}.variable[${JSON.stringify(key)}]${scope === '*' ? '' : `.scope[${JSON.stringify(scope)}]`}`;
}

/** The owner as the API module names it. */
export function apiOwner(o: Pick<VariablesOwner, 'container' | 'ref'>): { readonly kind: 'project' | 'group'; readonly ref: string } {
  return { kind: ownerNoun(o), ref: o.ref };
}

export function ownerAddress(instance: string, o: Pick<VariablesOwner, 'container' | 'ref'>): string {
  return `${instance}.${ownerNoun(o)}[${JSON.stringify(o.ref)}]`;
}
