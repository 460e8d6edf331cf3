/** The seed and setup shared by the emulator-backed client tests. */
import { startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorSeed, RunningEmulator } from '../../src/emulator/index.js';
import { ApiClient } from '../../src/api/index.js';
import type { ApiClientOptions } from '../../src/api/index.js';
import { fastSleep } from './helpers.js';

export const ADMIN_TOKEN = 'glpat-admin-secret-7f3a9c';
/** Owner of `platform`, not an administrator. */
export const OWNER_TOKEN = 'glpat-owner-secret-1b2c3d';
export const PROJECT = 'platform/infra/handbook';
/** A file path with slashes, dots, spaces and `#`. */
export const AWKWARD_FILE = 'conf/app settings.v2#1.yml';

/** The emulator's clock, fixed so expiry dates in the tests stay valid. */
export const NOW = new Date('2025-06-01T12:00:00.000Z');

export function seed(options: { readonly tokens?: number } = {}): EmulatorSeed {
  return {
    users: [
      { username: 'root', admin: true, personal_access_tokens: [{ name: 'admin', token: ADMIN_TOKEN, scopes: ['api'] }] },
      { username: 'alice', personal_access_tokens: [{ name: 'alice', token: OWNER_TOKEN, scopes: ['api'] }] },
    ],
    groups: [
      {
        full_path: 'platform',
        members: [{ username: 'alice', access_level: 50 }],
        access_tokens: Array.from({ length: options.tokens ?? 3 }, (_, i) => ({
          name: `ci-${String(i).padStart(3, '0')}`,
          token: `glgat-seeded-${String(i).padStart(4, '0')}`,
          scopes: ['read_api'],
        })),
      },
      { full_path: 'platform/infra' },
    ],
    projects: [
      {
        path_with_namespace: PROJECT,
        files: {
          'README.md': '# Handbook\n',
          [AWKWARD_FILE]: 'a: 1\nb: 2\nc: 3\n',
          'bin/run.sh': { content: '#!/bin/sh\necho hi\n', execute: true },
        },
        pages: { domains: ['handbook.example.com'], deployments: [{}] },
      },
    ],
  };
}

export interface Harness {
  readonly emulator: RunningEmulator;
  readonly client: ApiClient;
  /** The waits the client asked for (the injected sleep returns at once). */
  readonly waits: number[];
  /** Another client on the same emulator (closed with the harness). */
  clientWith(options: Partial<ApiClientOptions>): ApiClient;
  close(): Promise<void>;
}

export async function startHarness(
  options: { readonly tokens?: number; readonly client?: Partial<ApiClientOptions> } = {},
): Promise<Harness> {
  const emulator = await startTestEmulator({ seed: seed({ tokens: options.tokens }), now: () => NOW });
  const { waits, sleep } = fastSleep();
  const clients: ApiClient[] = [];
  const clientWith = (extra: Partial<ApiClientOptions>): ApiClient => {
    const c = new ApiClient({ baseUrl: emulator.url, token: ADMIN_TOKEN, sleep, random: () => 0.5, ...extra });
    clients.push(c);
    return c;
  };
  const client = clientWith(options.client ?? {});
  return {
    emulator,
    client,
    waits,
    clientWith,
    close: async () => {
      await Promise.all(clients.map((c) => c.close()));
      await emulator.close();
    },
  };
}
