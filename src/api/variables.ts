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
import { ApiInvalidResponseError } from './errors.js';
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

/** Every variable of the owner, all pages (one list serves every variable plumb checks there), each answer checked. */
export async function listVariables(client: ApiClient, owner: VariableOwner): Promise<CiVariable[]> {
  const path = root(owner);
  const { items } = await client.listAll<unknown>({ path }, { concurrent: true });
  return items.map((v) => asVariable('GET', path, 200, v));
}

export async function getVariable(client: ApiClient, owner: VariableOwner, key: string, scope: string): Promise<CiVariable> {
  const path = one(owner, key);
  const res = await client.request<unknown>({ method: 'GET', path, query: inScope(scope) });
  return asVariable('GET', path, res.status, res.body);
}

/** Creates `key` in `props.environment_scope` (400 "has already been taken" when it exists there). */
export async function createVariable(client: ApiClient, owner: VariableOwner, key: string, props: CiVariableProps): Promise<CiVariable> {
  const path = root(owner);
  const res = await client.request<unknown>({ method: 'POST', path, body: { key, ...props } });
  return asVariable('POST', path, res.status, res.body);
}

/** Updates the variable `key` of `scope` with the fields given. Safe to repeat (a PUT). */
export async function updateVariable(client: ApiClient, owner: VariableOwner, key: string, scope: string, props: CiVariableProps): Promise<CiVariable> {
  const { masked_and_hidden: _notOnUpdate, ...body } = props;
  const path = one(owner, key);
  const res = await client.request<unknown>({ method: 'PUT', path, query: inScope(scope), body, idempotent: true });
  return asVariable('PUT', path, res.status, res.body);
}

export async function deleteVariable(client: ApiClient, owner: VariableOwner, key: string, scope: string): Promise<void> {
  await client.request({ method: 'DELETE', path: one(owner, key), query: inScope(scope) });
}

/** An answer that is a variable, or `ApiInvalidResponseError` (its value never quoted). */
function asVariable(method: string, path: ApiPath, status: number, body: unknown): CiVariable {
  const o = body as Partial<CiVariable> | null;
  if (typeof o !== 'object' || o === null || typeof o.key !== 'string' || typeof o.environment_scope !== 'string' || !(typeof o.value === 'string' || o.value === null)) {
    throw ApiInvalidResponseError.lacking(method, path, status, 'a CI/CD variable');
  }
  return {
    key: o.key,
    value: o.value,
    variable_type: o.variable_type === 'file' ? 'file' : 'env_var',
    protected: o.protected === true,
    masked: o.masked === true,
    ...(typeof o.hidden === 'boolean' && { hidden: o.hidden }),
    raw: o.raw === true,
    environment_scope: o.environment_scope,
    description: typeof o.description === 'string' ? o.description : null,
  };
}
