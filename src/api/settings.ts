/**
 * Application settings: `GET/PUT /application/settings` (administrators only).
 *
 * The record has a few hundred fields that vary by tier and version, so the type names the
 * response-only ones and keeps the rest open; the catalogue (src/catalogue) is what knows the fields.
 */
import type { ApiClient } from './client.js';
import { ApiInvalidResponseError } from './errors.js';
import { apiPath } from './path.js';

export interface ApplicationSettings {
  readonly id?: number;
  readonly created_at?: string;
  readonly updated_at?: string;
  readonly [setting: string]: unknown;
}

const SETTINGS = apiPath`/application/settings`;

export async function getApplicationSettings(client: ApiClient): Promise<ApplicationSettings> {
  const res = await client.request<unknown>({ method: 'GET', path: SETTINGS });
  return asSettings('GET', res.status, res.body);
}

/**
 * Sends `changes` as a JSON body (the reference request uses query parameters; the service reads
 * JSON bodies too, and a body keeps long values such as `terms` out of URLs and access logs).
 * Marked idempotent: applying the same changes twice leaves the same record, so it is retried.
 * Settings are cached by the instance (60 s by default): a read right after may still show old values.
 */
export async function updateApplicationSettings(
  client: ApiClient,
  changes: Readonly<Record<string, unknown>>,
): Promise<ApplicationSettings> {
  const res = await client.request<unknown>({ method: 'PUT', path: SETTINGS, body: changes, idempotent: true });
  return asSettings('PUT', res.status, res.body);
}

function asSettings(method: string, status: number, body: unknown): ApplicationSettings {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw ApiInvalidResponseError.lacking(method, SETTINGS, status, 'a settings object');
  }
  return body as ApplicationSettings;
}
