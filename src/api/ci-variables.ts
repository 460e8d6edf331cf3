/**
 * CI/CD variables of a project or a group: `/projects/:id/variables`, `/groups/:id/variables`
 * (docs/emulator.md#cicd-variables). One key may exist once per environment scope, so a variable
 * is found by key **and** scope: `filter[environment_scope]` on every get, update and delete.
 *
 * A variable's value is a secret to plumb: it travels only in the request body and the answer
 * (never in a path or a query), and a hidden variable's answer holds `value: null`.
 */
import type { ApiClient } from './client.js';
import { ApiInvalidResponseError } from './errors.js';
import { apiPath } from './path.js';
import type { ApiPath, PathParam } from './path.js';

/** Who holds the variable: a project or a group, by full path or numeric id. */
export interface VariableOwner {
  readonly container: 'projects' | 'groups';
  readonly ref: PathParam;
}

/** A variable as the service shows it (Entities::Ci::Variable). */
export interface CiVariable {
  readonly key: string;
  /** `null` for a hidden variable (`masked_and_hidden` at creation): never returned again. */
  readonly value: string | null;
  readonly variable_type: 'env_var' | 'file';
  readonly protected: boolean;
  readonly masked: boolean;
  /** Absent on instances older than hidden variables (17.4). */
  readonly hidden?: boolean;
  readonly raw: boolean;
  readonly environment_scope: string;
  readonly description: string | null;
}

/** The fields a create or an update sends (`masked_and_hidden` on create only: an update cannot hide or reveal). */
export interface CiVariableFields {
  readonly value?: string;
  readonly variable_type?: 'env_var' | 'file';
  readonly protected?: boolean;
  readonly masked?: boolean;
  readonly raw?: boolean;
  readonly description?: string;
}

export interface NewCiVariable extends CiVariableFields {
  readonly key: string;
  readonly value: string;
  readonly environment_scope: string;
  readonly masked_and_hidden?: boolean;
}

const variablesPath = (o: VariableOwner): ApiPath => (o.container === 'projects' ? apiPath`/projects/${o.ref}/variables` : apiPath`/groups/${o.ref}/variables`);
const variablePath = (o: VariableOwner, key: string): ApiPath =>
  o.container === 'projects' ? apiPath`/projects/${o.ref}/variables/${key}` : apiPath`/groups/${o.ref}/variables/${key}`;

/** Every variable of the owner, all pages, in one walk. */
export async function listCiVariables(client: ApiClient, owner: VariableOwner): Promise<CiVariable[]> {
  const path = variablesPath(owner);
  const { items } = await client.listAll<unknown>({ path }, { concurrent: true });
  return items.map((v) => asVariable('GET', path, 200, v));
}

export async function createCiVariable(client: ApiClient, owner: VariableOwner, fields: NewCiVariable): Promise<CiVariable> {
  const path = variablesPath(owner);
  const res = await client.request<unknown>({ method: 'POST', path, body: fields });
  return asVariable('POST', path, res.status, res.body);
}

/** Updates the variable of `key` in `scope` (a PUT sets values, so it may be repeated). */
export async function updateCiVariable(client: ApiClient, owner: VariableOwner, key: string, scope: string, fields: CiVariableFields): Promise<CiVariable> {
  const path = variablePath(owner, key);
  const res = await client.request<unknown>({ method: 'PUT', path, query: { filter: { environment_scope: scope } }, body: fields, idempotent: true });
  return asVariable('PUT', path, res.status, res.body);
}

/** Deletes the variable of `key` in `scope` (204). */
export async function deleteCiVariable(client: ApiClient, owner: VariableOwner, key: string, scope: string): Promise<void> {
  await client.request({ method: 'DELETE', path: variablePath(owner, key), query: { filter: { environment_scope: scope } } });
}

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
