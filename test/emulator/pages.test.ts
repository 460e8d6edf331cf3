/** Conformance: project Pages, spec sections 2.5, 4.3 and 5. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN, DEVELOPER, MAINTAINER, OUTSIDER, OWNER, OWNER_READ, SEED, start, type Api } from './helpers.js';
import type { RunningEmulator } from '../../src/emulator/index.js';

let emulator: RunningEmulator;
let api: Api;

beforeEach(async () => {
  ({ emulator, api } = await start());
});
afterEach(() => emulator.close());

const PAGES = '/projects/platform%2Fsite/pages';

describe('GET /projects/:id/pages', () => {
  it('returns the Pages settings object of 2.5 with its deployments', async () => {
    const r = await api.get(PAGES, { token: MAINTAINER });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      url: 'https://platform.pages.example.test/site',
      is_unique_domain_enabled: false,
      force_https: false,
      primary_domain: null,
      deployments: [
        { created_at: '2025-06-01T10:00:00.000Z', url: 'https://platform.pages.example.test/site', path_prefix: '', root_directory: 'public' },
        { created_at: '2025-06-02T10:00:00.000Z', url: 'https://platform.pages.example.test/site/staging', path_prefix: 'staging', root_directory: 'dist' },
      ],
    });
  });

  it('uses the unique domain in the URL when it is enabled', async () => {
    emulator.state.projectByRef('31')!.pages!.uniqueDomainEnabled = true;
    const r = await api.get('/projects/31/pages', { token: MAINTAINER });
    expect(r.body.url).toMatch(/^https:\/\/site-[0-9a-f]{6}\.pages\.example\.test$/);
    expect(r.body.is_unique_domain_enabled).toBe(true);
  });

  it('requires at least the Maintainer role (403 for a Developer), any role for an administrator', async () => {
    expect((await api.get(PAGES, { token: DEVELOPER })).body).toEqual({ message: '403 Forbidden' });
    expect((await api.get(PAGES, { token: OWNER })).status).toBe(200);
    expect((await api.get(PAGES, { token: ADMIN })).status).toBe(200);
    expect((await api.get(PAGES, { token: OUTSIDER })).status).toBe(403);
  });

  it('requires authentication (401 without a token, even on a public project)', async () => {
    expect((await api.get(PAGES)).status).toBe(401);
  });

  it('is allowed with a read_api token', async () => {
    expect((await api.get(PAGES, { token: OWNER_READ })).status).toBe(200);
  });

  it('answers 404 Project Not Found for a project the caller cannot see', async () => {
    expect((await api.get('/projects/platform%2Finfra%2Fconfig/pages', { token: OUTSIDER })).body).toEqual({ message: '404 Project Not Found' });
  });
});

describe('a project that never deployed a site (the real lib/api/pages.rb never asks)', () => {
  const NEVER = '/projects/platform%2Fnopages/pages';

  it('answers GET with 200 and the settings object, without deployments', async () => {
    const r = await api.get(NEVER, { token: MAINTAINER });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ force_https: false, primary_domain: null, deployments: [] });
    expect(Object.keys(r.body).sort()).toEqual(['deployments', 'force_https', 'is_unique_domain_enabled', 'primary_domain', 'url']);
  });

  it('answers PATCH with 200 and keeps the change', async () => {
    const r = await api.patch(NEVER, { token: MAINTAINER, json: { pages_https_only: true } });
    expect(r).toMatchObject({ status: 200, body: { force_https: true, deployments: [] } });
    expect((await api.get(NEVER, { token: MAINTAINER })).body.force_https).toBe(true);
  });

  it('answers DELETE with 204 although nothing is deployed', async () => {
    const r = await api.delete(NEVER, { token: MAINTAINER });
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
  });

  it('answers 404 on every Pages endpoint while the project\'s Pages feature is off (pages_access_level: disabled)', async () => {
    const seed = { ...SEED, projects: SEED.projects!.map((p) => (p.id === 31 ? { ...p, pages_access_level: 'disabled' as const } : p)) };
    const { emulator: e, api: a } = await start({ seed });
    try {
      expect(await a.get(PAGES, { token: MAINTAINER })).toMatchObject({ status: 404, body: { message: '404 Not Found' } });
      expect((await a.patch(PAGES, { token: MAINTAINER, json: { pages_https_only: true } })).status).toBe(404);
      expect((await a.delete(PAGES, { token: MAINTAINER })).status).toBe(404);
      // The role check comes first: a Developer still learns only that it may not.
      expect((await a.get(PAGES, { token: DEVELOPER })).status).toBe(403);
    } finally {
      await e.close();
    }
  });

  it('takes pages: {enabled: false} in the seed as the feature off too', async () => {
    const seed = { ...SEED, projects: SEED.projects!.map((p) => (p.id === 31 ? { ...p, pages: { enabled: false } } : p)) };
    const { emulator: e, api: a } = await start({ seed });
    try {
      expect((await a.get(PAGES, { token: MAINTAINER })).status).toBe(404);
    } finally {
      await e.close();
    }
  });

  it('answers 404 for every Pages endpoint when Pages is disabled on the instance', async () => {
    const { emulator: e, api: a } = await start({ seed: { ...SEED, instance: { pages_enabled: false } } });
    try {
      expect((await a.get(PAGES, { token: MAINTAINER })).status).toBe(404);
      expect((await a.patch(PAGES, { token: MAINTAINER, json: { pages_https_only: true } })).status).toBe(404);
      expect((await a.delete(PAGES, { token: MAINTAINER })).status).toBe(404);
    } finally {
      await e.close();
    }
  });
});

describe('PATCH /projects/:id/pages', () => {
  it('updates pages_unique_domain_enabled from form fields, as in the reference request', async () => {
    const form = new FormData();
    form.append('pages_unique_domain_enabled', 'true');
    const res = await fetch(`${emulator.url}/api/v4${PAGES}`, { method: 'PATCH', headers: { 'PRIVATE-TOKEN': MAINTAINER }, body: form });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body['is_unique_domain_enabled']).toBe(true);
    expect(body['url']).toMatch(/^https:\/\/site-/);
  });

  it('updates from a JSON body and a urlencoded body', async () => {
    expect((await api.patch(PAGES, { token: MAINTAINER, json: { pages_unique_domain_enabled: true } })).body.is_unique_domain_enabled).toBe(true);
    expect((await api.patch(PAGES, { token: MAINTAINER, form: { pages_unique_domain_enabled: 'false' } })).body.is_unique_domain_enabled).toBe(false);
  });

  it('sets pages_primary_domain to one of the assigned domains, and clears it with an empty value', async () => {
    const r = await api.patch(PAGES, { token: MAINTAINER, json: { pages_primary_domain: 'docs.example.test' } });
    expect(r).toMatchObject({ status: 200, body: { primary_domain: 'docs.example.test' } });
    expect((await api.patch(PAGES, { token: MAINTAINER, json: { pages_primary_domain: '' } })).body.primary_domain).toBeNull();
  });

  it('rejects a pages_primary_domain that is not assigned to the project with 400', async () => {
    const r = await api.patch(PAGES, { token: MAINTAINER, json: { pages_primary_domain: 'elsewhere.example.test' } });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/^400 Bad request - /);
    expect((await api.get(PAGES, { token: MAINTAINER })).body.primary_domain).toBeNull();
  });

  it('forces HTTPS only when every domain has a certificate', async () => {
    const refused = await api.patch(PAGES, { token: MAINTAINER, json: { pages_https_only: true } });
    expect(refused.status).toBe(400);
    emulator.state.projectByRef('31')!.pages!.domains = emulator.state.projectByRef('31')!.pages!.domains.filter((d) => d.certificate);
    const r = await api.patch(PAGES, { token: MAINTAINER, json: { pages_https_only: true } });
    expect(r).toMatchObject({ status: 200, body: { force_https: true } });
  });

  it('rejects a non-boolean flag with a parameter error', async () => {
    expect((await api.patch(PAGES, { token: MAINTAINER, json: { pages_https_only: 'sometimes' } })).body).toEqual({ error: 'pages_https_only is invalid' });
  });

  it('requires Maintainer and the api scope', async () => {
    expect((await api.patch(PAGES, { token: DEVELOPER, json: { pages_unique_domain_enabled: true } })).status).toBe(403);
    expect((await api.patch(PAGES, { token: OWNER_READ, json: { pages_unique_domain_enabled: true } })).status).toBe(403);
  });
});

describe('DELETE /projects/:id/pages', () => {
  it('unpublishes: 204, and the deployments are gone', async () => {
    const r = await api.delete(PAGES, { token: MAINTAINER });
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expect((await api.get(PAGES, { token: MAINTAINER })).body.deployments).toEqual([]);
  });

  it('keeps answering GET and PATCH after unpublishing: 200, the settings object, no deployments', async () => {
    expect((await api.delete(PAGES, { token: MAINTAINER })).status).toBe(204);
    const got = await api.get(PAGES, { token: MAINTAINER });
    expect(got.status).toBe(200);
    expect(Object.keys(got.body).sort()).toEqual(['deployments', 'force_https', 'is_unique_domain_enabled', 'primary_domain', 'url']);
    expect(got.body.deployments).toEqual([]);
    const patched = await api.patch(PAGES, { token: MAINTAINER, json: { pages_primary_domain: 'docs.example.test' } });
    expect(patched).toMatchObject({ status: 200, body: { primary_domain: 'docs.example.test', deployments: [] } });
    expect((await api.delete(PAGES, { token: MAINTAINER })).status).toBe(204);
  });

  it('requires at least the Maintainer role', async () => {
    expect((await api.delete(PAGES, { token: DEVELOPER })).status).toBe(403);
    expect(emulator.state.projectByRef('31')!.pages!.deployments).toHaveLength(2);
  });
});

// Not from the spec (the spec documents do not have Pages domains): the real service's
// lib/api/pages_domains.rb and its entities PagesDomain and PagesDomainBasic (docs/emulator.md).
describe('GET /projects/:id/pages/domains and GET /pages/domains (not from the spec)', () => {
  const DOMAINS = '/projects/platform%2Fsite/pages/domains';

  it("lists a project's domains as Entities::PagesDomain: the certificate without an expiration field, its date in certificate_text", async () => {
    const r = await api.get(DOMAINS, { token: MAINTAINER });
    expect(r.status).toBe(200);
    const [docs, nocert] = r.body as Record<string, unknown>[];
    expect(Object.keys(docs!).sort()).toEqual(['auto_ssl_enabled', 'certificate', 'domain', 'enabled_until', 'url', 'verification_code', 'verified']);
    expect(docs).toMatchObject({ domain: 'docs.example.test', url: 'https://docs.example.test', verified: true, auto_ssl_enabled: false });
    const cert = docs!.certificate as Record<string, unknown>;
    expect(Object.keys(cert).sort()).toEqual(['certificate', 'certificate_text', 'expired', 'subject']);
    expect(cert).toMatchObject({ subject: '/CN=docs.example.test', expired: false });
    expect(cert.certificate_text).toMatch(/Not After : [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4} GMT/);
    expect(nocert).toMatchObject({ domain: 'nocert.example.test', url: 'http://nocert.example.test' });
    expect(nocert).not.toHaveProperty('certificate');
  });

  it('answers as the Pages settings do: Maintainer or above', async () => {
    expect((await api.get(DOMAINS, { token: DEVELOPER })).status).toBe(403);
    expect((await api.get(DOMAINS)).status).toBe(401);
  });

  it('lists every domain for an administrator only, as Entities::PagesDomainBasic', async () => {
    expect((await api.get('/pages/domains', { token: MAINTAINER })).status).toBe(403);
    const r = await api.get('/pages/domains', { token: ADMIN });
    expect(r.status).toBe(200);
    const docs = (r.body as Record<string, unknown>[]).find((d) => d.domain === 'docs.example.test')!;
    expect(docs).toMatchObject({ project_id: 31, verified: true, certificate_expiration: { expired: false } });
    expect(docs).not.toHaveProperty('certificate');
    expect(Date.parse((docs.certificate_expiration as { expiration: string }).expiration)).not.toBeNaN();
  });
});
