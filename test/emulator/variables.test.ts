/** CI/CD variables of projects and groups, as the real service's v4 API has them (docs/emulator.md#cicd-variables). */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEmulatorState, SeedError } from '../../src/emulator/seed.js';
import { ADMIN, DEVELOPER, MAINTAINER, OUTSIDER, OWNER, OWNER_READ, SEED, start, startTestEmulator, type Api, type TestEmulator } from './helpers.js';
import type { RunningEmulator } from '../../src/emulator/index.js';

let emulator: RunningEmulator;
let api: Api;

beforeEach(async () => {
  ({ emulator, api } = await start());
});
afterEach(() => emulator.close());

const P = '/projects/platform%2Finfra%2Fconfig/variables';
const G = '/groups/platform/variables';
const AMBIGUOUS = "There are multiple variables with provided parameters. Please use 'filter[environment_scope]'";

describe('project variables', () => {
  it('creates a variable with the real defaults and shows every field of the entity', async () => {
    const r = await api.post(P, { token: MAINTAINER, json: { key: 'DEPLOY_TOKEN', value: 'svc-abcdefgh' } });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      variable_type: 'env_var',
      key: 'DEPLOY_TOKEN',
      value: 'svc-abcdefgh',
      hidden: false,
      protected: false,
      masked: false,
      raw: false,
      environment_scope: '*',
      description: null,
    });
    const got = await api.get(`${P}/DEPLOY_TOKEN`, { token: MAINTAINER });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(r.body);
  });

  it('takes every field, as JSON or as a form, and strips the key', async () => {
    const r = await api.post(P, {
      token: MAINTAINER,
      form: { key: ' CONF ', value: 'line\nline', variable_type: 'file', protected: 'true', raw: '1', environment_scope: 'production', description: 'the config' },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ key: 'CONF', value: 'line\nline', variable_type: 'file', protected: true, raw: true, environment_scope: 'production', description: 'the config' });
  });

  it('lists the variables paginated, with the pagination headers', async () => {
    for (let i = 0; i < 25; i++) emulator.state.projectByRef('30')!.variables.push({ key: `V${i}`, value: 'x', variableType: 'env_var', protected: false, masked: false, hidden: false, raw: false, environmentScope: '*', description: null });
    const first = await api.get(P, { token: MAINTAINER });
    expect(first.status).toBe(200);
    expect(first.body).toHaveLength(20);
    expect(first.headers.get('x-total')).toBe('25');
    expect(first.headers.get('x-next-page')).toBe('2');
    const second = await api.get(P, { token: MAINTAINER, query: 'page=2' });
    expect(second.body.map((v: { key: string }) => v.key)).toEqual(['V20', 'V21', 'V22', 'V23', 'V24']);
  });

  it('refuses a bad key with the model messages', async () => {
    const bad = await api.post(P, { token: MAINTAINER, json: { key: 'MY-KEY', value: 'v' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ message: { key: ["can contain only letters, digits and '_'."] } });
    const long = await api.post(P, { token: MAINTAINER, json: { key: 'K'.repeat(256), value: 'v' } });
    expect(long.body).toEqual({ message: { key: ['is too long (maximum is 255 characters)'] } });
    const blank = await api.post(P, { token: MAINTAINER, json: { key: '  ', value: 'v' } });
    expect(blank.body).toEqual({ message: { key: ["can't be blank"] } });
    const missing = await api.post(P, { token: MAINTAINER, json: {} });
    expect(missing.body).toEqual({ error: 'key is missing, value is missing' });
    const type = await api.post(P, { token: MAINTAINER, json: { key: 'K', value: 'v', variable_type: 'secret' } });
    expect(type.body).toEqual({ error: 'variable_type does not have a valid value' });
    expect(emulator.state.projectByRef('30')!.variables).toEqual([]);
  });

  it('applies the masking rules: 8 characters or more, one line, the Base64 alphabet and @:.~ unless raw', async () => {
    const masked = async (value: string, raw = false) => (await api.post(P, { token: MAINTAINER, json: { key: `K${Math.random().toString(36).slice(2)}`, value, masked: true, raw } })).status;
    expect(await masked('short')).toBe(400);
    expect(await masked('abcdefgh')).toBe(201);
    expect(await masked('a+b/c=d@e:f.g~h-i_j')).toBe(201);
    expect(await masked('has space here')).toBe(400);
    expect(await masked('with$VARIABLE')).toBe(400);
    expect(await masked('two\nlines!')).toBe(400);
    // Raw: any character but whitespace.
    expect(await masked('with$VARIABLE!', true)).toBe(201);
    expect(await masked('has space here', true)).toBe(400);
    expect(await masked('tab\there!', true)).toBe(400);
    const r = await api.post(P, { token: MAINTAINER, json: { key: 'SHORT', value: 'short', masked: true } });
    expect(r.body).toEqual({ message: { value: ['is invalid'] } });
  });

  it('keeps one key once per environment scope; a second of the same scope is refused', async () => {
    expect((await api.post(P, { token: MAINTAINER, json: { key: 'URL', value: 'prod', environment_scope: 'production' } })).status).toBe(201);
    expect((await api.post(P, { token: MAINTAINER, json: { key: 'URL', value: 'any' } })).status).toBe(201);
    const dup = await api.post(P, { token: MAINTAINER, json: { key: 'URL', value: 'again', environment_scope: 'production' } });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ message: { key: ['(URL) has already been taken'] } });
  });

  it('answers 409 when a key names several variables, and finds one with filter[environment_scope]', async () => {
    await api.post(P, { token: MAINTAINER, json: { key: 'URL', value: 'prod', environment_scope: 'production' } });
    await api.post(P, { token: MAINTAINER, json: { key: 'URL', value: 'any' } });
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const r = await api.call(method, `${P}/URL`, { token: MAINTAINER, ...(method === 'PUT' ? { json: { value: 'x' } } : {}) });
      expect(r.status, method).toBe(409);
      expect(r.body).toEqual({ message: AMBIGUOUS });
    }
    const prod = await api.get(`${P}/URL`, { token: MAINTAINER, query: 'filter[environment_scope]=production' });
    expect(prod.body).toMatchObject({ value: 'prod', environment_scope: 'production' });
    const put = await api.put(`${P}/URL`, { token: MAINTAINER, json: { value: 'prod2', filter: { environment_scope: 'production' } } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ value: 'prod2', environment_scope: 'production' });
    const del = await api.delete(`${P}/URL`, { token: MAINTAINER, query: 'filter[environment_scope]=*' });
    expect(del.status).toBe(204);
    expect((await api.get(`${P}/URL`, { token: MAINTAINER })).body).toMatchObject({ value: 'prod2' });
  });

  it('updates the given fields only, checks the result, and refuses a move onto a taken scope', async () => {
    await api.post(P, { token: MAINTAINER, json: { key: 'TOKEN', value: 'abcdefgh12', masked: true, protected: true } });
    await api.post(P, { token: MAINTAINER, json: { key: 'TOKEN', value: 'other', environment_scope: 'staging' } });
    const r = await api.put(`${P}/TOKEN`, { token: MAINTAINER, json: { value: 'zyxwvuts98', description: 'rotated', filter: { environment_scope: '*' } } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ value: 'zyxwvuts98', masked: true, protected: true, description: 'rotated', environment_scope: '*' });
    const unmaskable = await api.put(`${P}/TOKEN`, { token: MAINTAINER, json: { value: 'no', filter: { environment_scope: '*' } } });
    expect(unmaskable.body).toEqual({ message: { value: ['is invalid'] } });
    const taken = await api.put(`${P}/TOKEN`, { token: MAINTAINER, json: { environment_scope: 'staging', filter: { environment_scope: '*' } } });
    expect(taken.body).toEqual({ message: { key: ['(TOKEN) has already been taken'] } });
    expect((await api.get(`${P}/TOKEN`, { token: MAINTAINER, query: 'filter[environment_scope]=*' })).body.value).toBe('zyxwvuts98');
  });

  it('never returns a masked-and-hidden value again, and keeps it masked', async () => {
    const r = await api.post(P, { token: MAINTAINER, json: { key: 'SECRET', value: 'glpat-abcdefgh', masked_and_hidden: true } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ key: 'SECRET', value: null, hidden: true, masked: true });
    expect((await api.get(`${P}/SECRET`, { token: MAINTAINER })).body).toMatchObject({ value: null, hidden: true });
    expect((await api.get(P, { token: MAINTAINER })).body[0]).toMatchObject({ value: null, hidden: true });
    expect(emulator.state.projectByRef('30')!.variables[0]!.value).toBe('glpat-abcdefgh');
    const unmask = await api.put(`${P}/SECRET`, { token: MAINTAINER, json: { masked: false } });
    expect(unmask.status).toBe(400);
    expect(unmask.body).toEqual({ message: { base: ['Updating masked attribute is not allowed on updates for hidden variables.'] } });
    const reveal = await api.put(`${P}/SECRET`, { token: MAINTAINER, json: { masked_and_hidden: false, value: 'glpat-zyxwvuts' } });
    expect(reveal.status).toBe(200);
    expect(reveal.body).toMatchObject({ value: null, hidden: true });
    expect(emulator.state.projectByRef('30')!.variables[0]!.value).toBe('glpat-zyxwvuts');
  });

  it('answers 404 Variable Not Found for an unknown key, and deletes with 204', async () => {
    const none = await api.get(`${P}/NOPE`, { token: MAINTAINER });
    expect(none.status).toBe(404);
    expect(none.body).toEqual({ message: '404 Variable Not Found' });
    await api.post(P, { token: MAINTAINER, json: { key: 'GONE', value: 'v' } });
    const del = await api.delete(`${P}/GONE`, { token: MAINTAINER });
    expect(del.status).toBe(204);
    expect((await api.delete(`${P}/GONE`, { token: MAINTAINER })).body).toEqual({ message: '404 Variable Not Found' });
  });

  it('needs Maintainer: a Developer is refused 403, an outsider sees no project, read_api may only read', async () => {
    expect((await api.get(P, { token: DEVELOPER })).status).toBe(403);
    expect((await api.post(P, { token: DEVELOPER, json: { key: 'K', value: 'v' } })).body).toEqual({ message: '403 Forbidden' });
    expect((await api.get(P, { token: OUTSIDER })).body).toEqual({ message: '404 Project Not Found' });
    expect((await api.get(P, { token: OWNER_READ })).status).toBe(200);
    expect((await api.post(P, { token: OWNER_READ, json: { key: 'K', value: 'v' } })).status).toBe(403);
    expect((await api.get(P)).status).toBe(401);
    expect((await api.post(P, { token: ADMIN, json: { key: 'K', value: 'v' } })).status).toBe(201);
  });
});

describe('group variables', () => {
  it('needs Owner of the group: a Maintainer is refused', async () => {
    expect((await api.post(G, { token: MAINTAINER, json: { key: 'K', value: 'v' } })).status).toBe(403);
    const r = await api.post(G, { token: OWNER, json: { key: 'K', value: 'abcdefgh', masked: true, environment_scope: 'prod' } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ key: 'K', masked: true, environment_scope: 'prod' });
    expect((await api.get(G, { token: OWNER })).body).toHaveLength(1);
    expect((await api.get(`${G}/K`, { token: OWNER })).body.value).toBe('abcdefgh');
    expect((await api.put(`${G}/K`, { token: OWNER, json: { protected: true } })).body.protected).toBe(true);
    expect((await api.delete(`${G}/K`, { token: OWNER })).status).toBe(204);
    expect((await api.get(`${G}/K`, { token: OWNER })).body).toEqual({ message: '404 Variable Not Found' });
  });

  it('keeps two variables of one key in two scopes and answers 409 without a filter', async () => {
    await api.post(G, { token: OWNER, json: { key: 'K', value: 'a', environment_scope: 'prod' } });
    await api.post(G, { token: OWNER, json: { key: 'K', value: 'b', environment_scope: 'dev' } });
    expect((await api.get(`${G}/K`, { token: OWNER })).body).toEqual({ message: AMBIGUOUS });
    expect((await api.get(`${G}/K`, { token: OWNER, query: 'filter[environment_scope]=dev' })).body.value).toBe('b');
  });

  it('drops the environment scope of a group variable on the free tier', async () => {
    await emulator.close();
    ({ emulator, api } = await start({ tier: 'free' }));
    const r = await api.post(G, { token: OWNER, json: { key: 'K', value: 'a', environment_scope: 'prod' } });
    expect(r.body.environment_scope).toBe('*');
  });
});

describe('seeded variables', () => {
  it('seeds project and group variables with the API defaults', async () => {
    const seeded: TestEmulator = await startTestEmulator({
      seed: {
        ...SEED,
        groups: SEED.groups!.map((g) => (g.full_path === 'platform' ? { ...g, variables: [{ key: 'GROUP_VAR', value: 'g-value-123', masked: true }] } : g)),
        projects: SEED.projects!.map((p) => (p.id === 30 ? { ...p, variables: [{ key: 'HIDDEN', value: 'abcdefgh', hidden: true, environment_scope: 'prod' }] } : p)),
      },
    });
    try {
      expect((await seeded.api.get(G, { token: OWNER })).body).toEqual([
        { variable_type: 'env_var', key: 'GROUP_VAR', value: 'g-value-123', hidden: false, protected: false, masked: true, raw: false, environment_scope: '*', description: null },
      ]);
      expect((await seeded.api.get(`${P}/HIDDEN`, { token: MAINTAINER })).body).toMatchObject({ value: null, hidden: true, masked: true, environment_scope: 'prod' });
    } finally {
      await seeded.close();
    }
  });

  it('refuses a seed variable the API would refuse, saying where', () => {
    const seed = {
      groups: [{ full_path: 'g', variables: [{ key: 'BAD-KEY', value: 'v' }, { key: 'M', value: 'short', masked: true }, { key: 'D', value: 'a' }, { key: 'D', value: 'b' }] }],
    };
    expect(() => createEmulatorState(seed)).toThrow(SeedError);
    try {
      createEmulatorState(seed);
    } catch (e) {
      expect((e as SeedError).problems).toEqual([
        "seed.groups[0].variables[0]: key can contain only letters, digits and '_'.",
        'seed.groups[0].variables[1]: value is invalid',
        'seed.groups[0].variables[3]: key (D) has already been taken',
      ]);
    }
  });
});
