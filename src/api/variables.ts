/**
 * CI/CD variables of projects and groups: `/projects/:id/variables`, `/groups/:id/variables`
 * (docs/emulator.md, "CI/CD variables", for the behaviour the emulator shares with the service).
 *
 * One key may exist once per environment scope, so every request about one variable names its
 * scope (`filter[environment_scope]`): without it a key held in two scopes is a 409. A value is a
 * secret more often than not: it goes in the request body only, never in a path or a query, and
 * nothing here logs or returns it in an error.
 */
import type { ApiClient } from './client.js';
import { apiPath } from './path.js';
import type { ApiPath, PathParam } from './path.js';

/** Whose variables: a project or a group, by numeric id or full path. */
export interface VariableOwner {
  readonly kind: 'project' | 'group';
  readonly ref: PathParam;
}

/** A variable as the service shows it; `value` is null for a hidden one. */
export interface CiVariable {
  readonly key: string;
  readonly value: string | null;
  readonly variable_type: 'env_var' | 'file';
  readonly protected: boolean;
  readonly masked: boolean;
  readonly hidden?: boolean;
  readonly raw: boolean;
  readonly environment_scope: string;
  readonly description: string | null;
}

/** What a create or update sends (an update sends only what it changes, and never `masked_and_hidden`). */
export interface CiVariableProps {
  readonly value?: string;
  readonly variable_type?: 'env_var' | 'file';
  readonly protected?: boolean;
  readonly masked?: boolean;
  /** Create only: masked and hidden (the value is never shown again). */
  readonly masked_and_hidden?: boolean;
  readonly raw?: boolean;
  readonly environment_scope?: string;
  readonly description?: string;
}

const root = (o: VariableOwner): ApiPath => (o.kind === 'project' ? apiPath`/projects/${o.ref}/variables` : apiPath`/groups/${o.ref}/variables`);
const one = (o: VariableOwner, key: string): ApiPath => (o.kind === 'project' ? apiPath`/projects/${o.ref}/variables/${key}` : apiPath`/groups/${o.ref}/variables/${key}`);
const inScope = (scope: string) => ({ filter: { environment_scope: scope } });

/** Every variable of the owner, all pages (one list serves every variable plumb checks there). */
export async function listVariables(client: ApiClient, owner: VariableOwner): Promise<CiVariable[]> {
  const { items } = await client.listAll<CiVariable>({ path: root(owner) });
  return items;
}

export async function getVariable(client: ApiClient, owner: VariableOwner, key: string, scope: string): Promise<CiVariable> {
  return (await client.request<CiVariable>({ method: 'GET', path: one(owner, key), query: inScope(scope) })).body;
}

/** Creates `key` in `props.environment_scope` (400 "has already been taken" when it exists there). */
export async function createVariable(client: ApiClient, owner: VariableOwner, key: string, props: CiVariableProps): Promise<CiVariable> {
  return (await client.request<CiVariable>({ method: 'POST', path: root(owner), body: { key, ...props } })).body;
}

/** Updates the variable `key` of `scope` with the fields given. Safe to repeat (a PUT). */
export async function updateVariable(client: ApiClient, owner: VariableOwner, key: string, scope: string, props: CiVariableProps): Promise<CiVariable> {
  const { masked_and_hidden: _notOnUpdate, ...body } = props;
  return (await client.request<CiVariable>({ method: 'PUT', path: one(owner, key), query: inScope(scope), body, idempotent: true })).body;
}

export async function deleteVariable(client: ApiClient, owner: VariableOwner, key: string, scope: string): Promise<void> {
  await client.request({ method: 'DELETE', path: one(owner, key), query: inScope(scope) });
}
