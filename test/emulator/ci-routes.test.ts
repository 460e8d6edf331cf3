/**
 * The emulator's CI routes as the real service answers them: the Terraform-state API (the http
 * backend protocol: GET, POST with the lock ID, lock, unlock, versions; token, basic and job-token
 * auth) and merge-request notes (list with pagination, create, update, the size limit).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addJobToken, addMergeRequest, terraformState, type RunningEmulator } from '../../src/emulator/index.js';
import { startTestEmulator } from '../helpers/emulator.js';
import { ADMIN, ADMIN_READ, DEVELOPER, MAINTAINER, OUTSIDER, SEED } from './helpers.js';

let emu: RunningEmulator;
const JOB = 'job-token-of-a-running-job-0001';
const DEV_JOB = 'job-token-of-a-developer-job-01';
const PROJECT = encodeURIComponent('platform/infra/config');

beforeAll(async () => {
  emu = await startTestEmulator({ seed: SEED });
  addJobToken(emu.state, JOB, 'max', 'platform/infra/config');
  addJobToken(emu.state, DEV_JOB, 'dev', 'platform/infra/config');
  addMergeRequest(emu.state, 'platform/infra/config', 7);
});
afterAll(async () => {
  await emu.close();
});

const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });

async function call(method: string, path: string, headers: Record<string, string>, body?: string | object) {
  const res = await fetch(`${emu.url}/api/v4${path}`, {
    method,
    headers: { ...headers, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json, headers: res.headers };
}

describe('Terraform-state API', () => {
  const url = `/projects/${PROJECT}/terraform/state/prod`;

  it('answers 404 for a state that does not exist, and 204 for one locked before any version', async () => {
    expect((await call('GET', `/projects/${PROJECT}/terraform/state/none`, { 'PRIVATE-TOKEN': ADMIN })).status).toBe(404);
    const lock = await call('POST', `/projects/${PROJECT}/terraform/state/fresh/lock`, { 'PRIVATE-TOKEN': ADMIN }, { ID: 'l1', Operation: 'OperationTypeApply' });
    expect(lock.status).toBe(200);
    expect(lock.json).toMatchObject({ ID: 'l1', Who: 'root', Operation: 'OperationTypeApply' });
    expect((await call('GET', `/projects/${PROJECT}/terraform/state/fresh`, { 'PRIVATE-TOKEN': ADMIN })).status).toBe(204);
    expect((await call('DELETE', `/projects/${PROJECT}/terraform/state/fresh/lock`, { 'PRIVATE-TOKEN': ADMIN }, { ID: 'l1' })).status).toBe(200);
  });

  it('stores versions, and refuses a write without the lock ID while locked with 409 and the holder', async () => {
    expect((await call('POST', url, basic('gitlab-ci-token', JOB), '{"v":1}')).status).toBe(200);
    expect((await call('GET', url, basic('gitlab-ci-token', JOB))).text).toBe('{"v":1}');
    expect((await call('POST', `${url}/lock`, basic('gitlab-ci-token', JOB), { ID: 'abc', Operation: 'plumb apply' })).status).toBe(200);
    const second = await call('POST', `${url}/lock`, { 'PRIVATE-TOKEN': ADMIN }, { ID: 'def' });
    expect(second.status).toBe(409);
    expect(second.json).toMatchObject({ ID: 'abc', Who: 'max', Operation: 'plumb apply' });
    expect((await call('POST', url, { 'PRIVATE-TOKEN': ADMIN }, '{"v":"sneaky"}')).status).toBe(409);
    expect((await call('POST', `${url}?ID=def`, { 'PRIVATE-TOKEN': ADMIN }, '{"v":"sneaky"}')).status).toBe(409);
    expect((await call('POST', `${url}?ID=abc`, basic('gitlab-ci-token', JOB), '{"v":2}')).status).toBe(200);
    expect((await call('DELETE', `${url}/lock`, { 'PRIVATE-TOKEN': ADMIN }, { ID: 'def' })).status).toBe(409);
    expect((await call('DELETE', `${url}/lock?ID=abc`, basic('gitlab-ci-token', JOB))).status).toBe(200);
    expect((await call('GET', url, { 'PRIVATE-TOKEN': ADMIN })).text).toBe('{"v":2}');
    expect((await call('GET', `${url}/versions/0`, { 'PRIVATE-TOKEN': ADMIN })).text).toBe('{"v":1}');
    expect(terraformState(emu.state, 'platform/infra/config', 'prod')!.versions.map((v) => v.serial)).toEqual([0, 1]);
  });

  it('lets developers and read_api tokens read only, and confines a job token to its project', async () => {
    expect((await call('GET', url, basic('gitlab-ci-token', DEV_JOB))).status).toBe(200);
    expect((await call('POST', url, basic('gitlab-ci-token', DEV_JOB), '{}')).status).toBe(403);
    expect((await call('GET', url, { 'PRIVATE-TOKEN': DEVELOPER })).status).toBe(200);
    expect((await call('GET', url, { 'PRIVATE-TOKEN': ADMIN_READ })).status).toBe(200);
    expect((await call('POST', `${url}/lock`, { 'PRIVATE-TOKEN': ADMIN_READ }, { ID: 'x' })).status).toBe(403);
    expect((await call('GET', url, { 'PRIVATE-TOKEN': OUTSIDER })).status).toBe(404);
    expect((await call('GET', url, {})).status).toBe(401);
    expect((await call('GET', url, basic('gitlab-ci-token', 'not-a-job'))).status).toBe(401);
    expect((await call('GET', url, { 'JOB-TOKEN': JOB })).status).toBe(401);
    // max maintains platform/site too, but this job token belongs to platform/infra/config
    expect((await call('GET', `/projects/${encodeURIComponent('platform/site')}/terraform/state/prod`, basic('gitlab-ci-token', JOB))).status).toBe(403);
    expect((await call('GET', `/projects/${encodeURIComponent('platform/site')}/terraform/state/prod`, { 'PRIVATE-TOKEN': MAINTAINER })).status).toBe(404);
    expect((await call('GET', url, basic('max', MAINTAINER))).status).toBe(200);
    expect((await call('GET', url, basic('dev', MAINTAINER))).status).toBe(401);
  });
});

describe('merge-request notes', () => {
  const notes = `/projects/${PROJECT}/merge_requests/7/notes`;

  it('creates, lists newest first with pagination, and updates a note', async () => {
    const created = await call('POST', notes, { 'PRIVATE-TOKEN': MAINTAINER }, { body: 'first' });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ body: 'first', author: { username: 'max' }, noteable_type: 'MergeRequest', noteable_iid: 7, system: false });
    for (let i = 0; i < 3; i++) await call('POST', notes, { 'PRIVATE-TOKEN': DEVELOPER }, { body: `n${i}` });
    const page = await call('GET', `${notes}?per_page=2`, { 'PRIVATE-TOKEN': ADMIN_READ });
    expect(page.status).toBe(200);
    expect((page.json as { body: string }[]).map((n) => n.body)).toEqual(['n2', 'n1']);
    expect(page.headers.get('x-total')).toBe('4');
    expect(page.headers.get('x-next-page')).toBe('2');
    const id = (created.json as { id: number }).id;
    expect((await call('PUT', `${notes}/${id}`, { 'PRIVATE-TOKEN': DEVELOPER }, { body: 'hijack' })).status).toBe(403);
    const updated = await call('PUT', `${notes}/${id}`, { 'PRIVATE-TOKEN': MAINTAINER }, { body: 'second' });
    expect(updated.json).toMatchObject({ id, body: 'second' });
    expect((await call('POST', notes, { 'PRIVATE-TOKEN': ADMIN_READ }, { body: 'x' })).status).toBe(403);
  });

  it('refuses a note over 1,000,000 characters and a merge request that does not exist', async () => {
    const big = await call('POST', notes, { 'PRIVATE-TOKEN': MAINTAINER }, { body: 'x'.repeat(1_000_001) });
    expect(big.status).toBe(400);
    expect(big.json).toEqual({ message: { note: ['is too long (maximum is 1000000 characters)'] } });
    expect((await call('POST', notes, { 'PRIVATE-TOKEN': MAINTAINER }, { body: 'x'.repeat(1_000_000) })).status).toBe(201);
    expect((await call('GET', `/projects/${PROJECT}/merge_requests/8/notes`, { 'PRIVATE-TOKEN': ADMIN })).status).toBe(404);
  });
});
