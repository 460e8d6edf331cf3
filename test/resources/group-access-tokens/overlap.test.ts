/**
 * Rotation with an overlap window (issue 31 items 4 and 5; docs/tokens.md#overlap-window), against
 * the emulator over HTTP: the successor is created and delivered while the predecessor keeps
 * working, the predecessor is revoked by the first apply after the overlap, a lost create answer
 * leaves one successor, and a delivery that fails revokes the successor and leaves the predecessor.
 */
import { chmodSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, BASE_DAY, addDays, expectNoFamilyRevoked, harness, seedToken } from './helpers.js';
import type { Harness } from './helpers.js';
import { Api } from '../../helpers/emulator.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

interface JsonPlan {
  changes: { address: string; action: string; reasons: string[]; attributes: { name: string; before?: unknown; after?: unknown }[]; deliveries?: { action: string; to: string }[] }[];
  drift: { address: string; summary: string; informational?: boolean }[];
  diagnostics: { code: string; severity: string; summary: string; file?: string; line?: number }[];
}

async function planJson(): Promise<JsonPlan> {
  const r = await h.run(['plan', '--json']);
  return JSON.parse(r.stdout) as JsonPlan;
}

const OVERLAP = { lifetime_days: 30, rotate_before_days: 7, overlap: '2d' };
const ROTATE = /\/access_tokens\/\d+\/rotate$/;
const CREATE = /^\/groups\/[^/]+\/access_tokens$/;

/** A CI/CD variable's value as the instance returns it (the sinks are masked, not hidden). */
async function variable(owner: 'projects' | 'groups', ref: string): Promise<string | undefined> {
  const r = await new Api(h.emu).get(`/${owner}/${encodeURIComponent(ref)}/variables/DEPLOY_TOKEN`, { token: ADMIN_TOKEN });
  return r.status === 200 ? (r.body as { value: string }).value : undefined;
}

/** The predecessor's secret still authenticates (a read with it answers 200). */
async function works(secret: string): Promise<boolean> {
  return (await new Api(h.emu).get('/groups/platform', { token: secret })).status === 200;
}

describe('rotation with an overlap window', () => {
  it('creates and delivers the successor to two CI/CD variables, keeps the predecessor working for the overlap, then revokes it; the plan is then empty', async () => {
    h = await harness({ projects: [{ path_with_namespace: 'platform/app' }] });
    h.config({
      platform: {
        tokens: {
          deploy: {
            scopes: ['read_api'],
            rotation: OVERLAP,
            sinks: '[{ci_variable: {project: platform/app, key: DEPLOY_TOKEN}}, {ci_variable: {group: platform, key: DEPLOY_TOKEN}}]',
          },
        },
      },
    });
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    const firstSecret = (await variable('projects', 'platform/app'))!;
    expect(await variable('groups', 'platform')).toBe(firstSecret);
    const first = h.emu.state.tokenByValue(firstSecret)!;
    expect(first.name).toBe('deploy');
    expect(first.expiresAt).toBe(addDays(BASE_DAY, 30));

    // Inside the rotation window: a rotation, by successor, shown with its overlap and the revocation's date.
    h.setToday(addDays(BASE_DAY, 24));
    const plan = await planJson();
    const c = plan.changes.find((x) => x.address.endsWith('access_token["deploy"]'))!;
    expect(c.action).toBe('rotate');
    expect(c.reasons).toEqual(['expiring-soon']);
    expect(c.attributes.find((a) => a.name === 'overlap')?.after).toBe('2d');
    expect(c.deliveries?.map((d) => d.to)).toEqual(['ci_variable platform/app DEPLOY_TOKEN (protected, masked)', 'ci_variable group platform DEPLOY_TOKEN (protected, masked)']);
    expect(c.attributes.find((a) => a.name === 'revoke_old_on')?.after).toBe(`id ${first.id}, 2d after the successor reached every sink (about ${addDays(BASE_DAY, 26)}); the first apply after that revokes it`);
    const human = await h.run(['plan']);
    expect(human.stdout).toContain('overlap');

    // Through a saved plan: its payload says what it shows (plumb show checks), and apply carries it out.
    expect((await h.run(['plan', '--out', 'plan.json'])).code).toBe(0);
    const shown = await h.run(['show', 'plan.json']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('revoke_old_on');
    const r = await h.run(['apply', 'plan.json']);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(h.count('POST', ROTATE)).toBe(0); // never the rotate call
    const secondSecret = (await variable('projects', 'platform/app'))!;
    expect(await variable('groups', 'platform')).toBe(secondSecret); // both variables, read back
    const second = h.emu.state.tokenByValue(secondSecret)!;
    expect(second.id).not.toBe(first.id);
    expect(second.name).toBe('deploy');
    expect(second.scopes).toEqual(['read_api']);
    expect(second.expiresAt).toBe(addDays(BASE_DAY, 24 + 30));
    expect(h.active('platform', 'deploy').map((t) => t.id).sort()).toEqual([first.id, second.id].sort());
    expect(await works(firstSecret)).toBe(true);
    const state = readFileSync(path.join(h.wd.dir, '.plumb/state.json'), 'utf8');
    expect(state).toContain(`"retiring"`);
    expect(state).toContain(`${addDays(BASE_DAY, 26)}T12:00:00.000Z`);

    // During the overlap: two active tokens of one name are not ambiguous; plan and drift note the revocation.
    h.setToday(addDays(BASE_DAY, 25));
    const during = await planJson();
    expect(during.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(during.changes.filter((x) => x.action !== 'no-op')).toEqual([]);
    const note = during.drift.find((d) => d.summary.startsWith(`revoke of id ${first.id} due on ${addDays(BASE_DAY, 26)} 12:00 UTC`))!;
    expect(note.informational).toBe(true);
    expect(note.address).toMatch(new RegExp(`access_token\\["deploy"\\]#${first.id}$`));
    expect((await h.run(['plan', '--detailed-exitcode'])).code).toBe(0);
    const drift = await h.run(['drift']);
    expect(drift.code).toBe(0);
    expect(drift.stdout).toContain(`revoke of id ${first.id} due on ${addDays(BASE_DAY, 26)} 12:00 UTC`);
    // The predecessor expires within 10 days, but it is revoked before: not an expiry warning.
    expect((await h.run(['drift', '--expiring-within', '10d'])).code).toBe(0);
    const md = await h.run(['plan', '--markdown', 'plan.md']);
    expect(md.code).toBe(0);
    expect(readFileSync(path.join(h.wd.dir, 'plan.md'), 'utf8')).toContain(`revoke of id ${first.id} due on`);

    // After the overlap: the first apply revokes the predecessor, a change the plan shows.
    h.setToday(addDays(BASE_DAY, 26));
    const after = await planJson();
    const revoke = after.changes.find((x) => x.action === 'delete')!;
    expect(revoke.reasons).toEqual(['overlap-ended']);
    expect(revoke.address).toMatch(new RegExp(`#${first.id}$`));
    expect((await h.run(['drift'])).code).toBe(2);
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    expect(h.emu.state.tokenById(first.id)!.revoked).toBe(true);
    expect(await works(firstSecret)).toBe(false);
    expect(h.active('platform', 'deploy').map((t) => t.id)).toEqual([second.id]);
    expect((await h.run(['plan', '--detailed-exitcode'])).code).toBe(0);
    expect(readFileSync(path.join(h.wd.dir, '.plumb/state.json'), 'utf8')).not.toContain('"retiring"');
    expectNoFamilyRevoked(h.emu);
  });

  it('recovers a lost answer to the successor\'s create: the orphan nobody holds is revoked, the create sent again, one successor remains', async () => {
    h = await harness({ groups: [{ full_path: 'platform', access_tokens: [seedToken('deploy', 'seeded-deploy-000001', { id: 7, expires_at: addDays(BASE_DAY, 3) })] }] });
    h.config({ platform: { tokens: { deploy: { rotation: OVERLAP } } } });
    // The seeded token is due: apply rotates it by successor, and the first create's answer is lost.
    h.addFault({ method: 'POST', path: '/groups/platform/access_tokens', nth: 1, action: { kind: 'drop', when: 'after' } });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stdout + r.stderr).toMatch(/whose secret nobody holds: revoked, and the create sent again/);
    expect(h.count('POST', CREATE)).toBe(2);
    const successor = h.tokenInSink('deploy')!;
    const active = h.active('platform', 'deploy').map((t) => t.id).sort((a, b) => a - b);
    expect(active).toEqual([7, successor.id]);
    const orphans = h.emu.state.tokens.filter((t) => t.kind === 'group' && t.name === 'deploy' && t.id !== 7 && t.id !== successor.id);
    expect(orphans).toHaveLength(1);
    expect(orphans[0]!.revoked).toBe(true);
    expect((await h.run(['plan', '--detailed-exitcode'])).code).toBe(0);
  });

  it('revokes the successor when a variable write is refused: the predecessor is untouched, the variable keeps its secret, apply exits 1 naming the sink', async () => {
    h = await harness({ projects: [{ path_with_namespace: 'platform/app' }] });
    h.config({ platform: { tokens: { deploy: { rotation: OVERLAP, sinks: '[{ci_variable: {project: platform/app, key: DEPLOY_TOKEN}}]' } } } });
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    const oldSecret = (await variable('projects', 'platform/app'))!;
    const old = h.emu.state.tokenByValue(oldSecret)!;
    h.setToday(addDays(BASE_DAY, 24));
    h.addFault({ method: 'PUT', path: /\/projects\/[^/]+\/variables\/DEPLOY_TOKEN$/, action: { kind: 'status', status: 403 } });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    const out = r.stdout + r.stderr;
    expect(out).toContain('PLUMB_TOKEN_SECRET_NOT_DELIVERED');
    expect(out).toMatch(/ci_variable platform\/app DEPLOY_TOKEN/);
    expect(out).toContain('the successor was revoked again');
    expect(h.active('platform', 'deploy').map((t) => t.id)).toEqual([old.id]);
    const successor = h.emu.state.tokens.find((t) => t.kind === 'group' && t.name === 'deploy' && t.id !== old.id)!;
    expect(successor.revoked).toBe(true);
    expect(await variable('projects', 'platform/app')).toBe(oldSecret);
    expect(await works(oldSecret)).toBe(true);
    expect(readFileSync(path.join(h.wd.dir, '.plumb/state.json'), 'utf8')).not.toContain('"retiring"');
  });

  it('puts back every sink already written when a later one is refused: the project variable and the file hold the predecessor again, the successor is revoked, apply exits 1 naming the sink', async () => {
    h = await harness({ projects: [{ path_with_namespace: 'platform/app' }] });
    h.config({
      platform: {
        tokens: {
          deploy: {
            rotation: OVERLAP,
            sinks: '[{ci_variable: {project: platform/app, key: DEPLOY_TOKEN}}, {ci_variable: {group: platform, key: DEPLOY_TOKEN}}, {file: secrets/deploy.token}]',
          },
        },
      },
    });
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    const oldSecret = (await variable('projects', 'platform/app'))!;
    expect(h.sinkValue('deploy')).toBe(oldSecret);
    const old = h.emu.state.tokenByValue(oldSecret)!;
    h.setToday(addDays(BASE_DAY, 24));
    h.addFault({ method: 'PUT', path: /\/groups\/[^/]+\/variables\/DEPLOY_TOKEN$/, action: { kind: 'status', status: 403 } });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    const out = r.stdout + r.stderr;
    expect(out).toMatch(/PLUMB_SINK_FAILED[^\n]*ci_variable group platform DEPLOY_TOKEN/);
    expect(out).toContain('The other sinks were restored to what they held before, and read back: ci_variable platform/app DEPLOY_TOKEN, file secrets/deploy.token.');
    expect(out).not.toContain('holds a revoked secret');
    // Read back: both hold what the first apply delivered.
    expect(await variable('projects', 'platform/app')).toBe(oldSecret);
    expect(h.sinkValue('deploy')).toBe(oldSecret);
    expect(statSync(path.join(h.wd.dir, 'secrets/deploy.token')).mode & 0o777).toBe(0o600);
    expect(await variable('groups', 'platform')).toBe(oldSecret);
    expect(await works(oldSecret)).toBe(true);
    const successor = h.emu.state.tokens.find((t) => t.kind === 'group' && t.name === 'deploy' && t.id !== old.id)!;
    expect(successor.revoked).toBe(true);
    expect(h.active('platform', 'deploy').map((t) => t.id)).toEqual([old.id]);
    expect(readFileSync(path.join(h.wd.dir, '.plumb/state.json'), 'utf8')).not.toContain('"retiring"');
  });

  it('puts back the sinks already written when a replacement (scopes changed) cannot reach another one: the old token and its secret keep working everywhere', async () => {
    h = await harness({ projects: [{ path_with_namespace: 'platform/app' }] });
    const sinks = '[{ci_variable: {project: platform/app, key: DEPLOY_TOKEN}}, {ci_variable: {group: platform, key: DEPLOY_TOKEN}}, {file: secrets/deploy.token}]';
    h.config({ platform: { tokens: { deploy: { sinks } } } });
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    const oldSecret = (await variable('projects', 'platform/app'))!;
    const old = h.emu.state.tokenByValue(oldSecret)!;
    // A new scope replaces the token (a new one first, the old one revoked once every sink has the new secret).
    h.config({ platform: { tokens: { deploy: { sinks, scopes: ['read_api', 'read_repository'] } } } });
    h.addFault({ method: 'PUT', path: /\/groups\/[^/]+\/variables\/DEPLOY_TOKEN$/, action: { kind: 'status', status: 403 } });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    const out = r.stdout + r.stderr;
    expect(out).toMatch(/PLUMB_SINK_FAILED[^\n]*ci_variable group platform DEPLOY_TOKEN/);
    expect(out).toContain('The other sinks were restored to what they held before, and read back: ci_variable platform/app DEPLOY_TOKEN, file secrets/deploy.token.');
    expect(await variable('projects', 'platform/app')).toBe(oldSecret);
    expect(h.sinkValue('deploy')).toBe(oldSecret);
    expect(await variable('groups', 'platform')).toBe(oldSecret);
    expect(await works(oldSecret)).toBe(true);
    const replacement = h.emu.state.tokens.find((t) => t.kind === 'group' && t.name === 'deploy' && t.id !== old.id)!;
    expect(replacement.revoked).toBe(true);
    expect(h.active('platform', 'deploy').map((t) => t.id)).toEqual([old.id]);
  });

  it('delivers a hidden variable after the sinks it can put back, and names it when a later sink fails: it holds a revoked secret, and the next apply delivers a fresh one', async () => {
    h = await harness({ projects: [{ path_with_namespace: 'platform/app' }] });
    h.wd.write('vault.sh', '#!/bin/sh\ncat >/dev/null\nif [ -f sealed ]; then echo "vault is sealed" >&2; exit 3; fi\n');
    chmodSync(path.join(h.wd.dir, 'vault.sh'), 0o755);
    h.config({
      platform: {
        tokens: {
          deploy: {
            rotation: OVERLAP,
            sinks: '[{ci_variable: {group: platform, key: DEPLOY_TOKEN, hidden: true}}, {command: [./vault.sh]}, {ci_variable: {project: platform/app, key: DEPLOY_TOKEN}}]',
          },
        },
      },
    });
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    const oldSecret = (await variable('projects', 'platform/app'))!;
    const hidden = () => h.emu.state.groups.find((g) => g.fullPath === 'platform')!.variables.find((v) => v.key === 'DEPLOY_TOKEN')!;
    expect(hidden().value).toBe(oldSecret);
    const old = h.emu.state.tokenByValue(oldSecret)!;
    // The hidden variable edited by hand (no longer protected): a fresh secret is due, by successor.
    expect((await new Api(h.emu).put('/groups/platform/variables/DEPLOY_TOKEN', { token: ADMIN_TOKEN, json: { protected: false } })).status).toBe(200);
    expect((await planJson()).changes.find((x) => x.address.endsWith('access_token["deploy"]'))?.reasons).toEqual(['sink-drifted']);
    h.wd.write('sealed', '');
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    const out = r.stdout + r.stderr;
    expect(out).toMatch(/PLUMB_SINK_FAILED[^\n]*command vault\.sh[^\n]*vault is sealed/);
    expect(out).toContain('ci_variable group platform DEPLOY_TOKEN holds a revoked secret: the next apply delivers a fresh one');
    expect(out).toContain('restored to what they held before, and read back: ci_variable platform/app DEPLOY_TOKEN.');
    const successor = h.emu.state.tokens.find((t) => t.kind === 'group' && t.name === 'deploy' && t.id !== old.id)!;
    expect(successor.revoked).toBe(true);
    expect(hidden().value).not.toBe(oldSecret); // the successor's, revoked: what the report says
    expect(await variable('projects', 'platform/app')).toBe(oldSecret);
    expect(await works(oldSecret)).toBe(true);
    // Nothing else would show it (a hidden value cannot be compared, its fields are as declared): the next plan still delivers there.
    const again = (await planJson()).changes.find((x) => x.address.endsWith('access_token["deploy"]'))!;
    expect(again.action).toBe('rotate');
    expect(again.reasons).toEqual(['sink-added']);
    rmSync(path.join(h.wd.dir, 'sealed'));
    const fixed = await h.run(['apply', '--auto-approve']);
    expect(fixed.code, fixed.stdout + fixed.stderr).toBe(0);
    const fresh = (await variable('projects', 'platform/app'))!;
    expect(hidden().value).toBe(fresh);
    expect(h.emu.state.tokenByValue(fresh)!.revoked).toBeFalsy();
    expect((await h.run(['plan', '--detailed-exitcode'])).code).toBe(0);
  });

  it('issues the fresh secret a drifted sink needs by successor too: the predecessor keeps working for the other consumers', async () => {
    h = await harness({ projects: [{ path_with_namespace: 'platform/app' }] });
    h.config({ platform: { tokens: { deploy: { rotation: OVERLAP, sinks: '[{ci_variable: {project: platform/app, key: DEPLOY_TOKEN}}, {ci_variable: {group: platform, key: DEPLOY_TOKEN}}]' } } } });
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    const oldSecret = (await variable('groups', 'platform'))!;
    const old = h.emu.state.tokenByValue(oldSecret)!;
    expect((await new Api(h.emu).delete('/projects/platform%2Fapp/variables/DEPLOY_TOKEN', { token: ADMIN_TOKEN })).status).toBe(204);
    const plan = await planJson();
    const c = plan.changes.find((x) => x.address.endsWith('access_token["deploy"]'))!;
    expect(c.action).toBe('rotate');
    expect(c.reasons).toEqual(['sink-drifted']);
    expect(c.attributes.find((a) => a.name === 'overlap')?.after).toBe('2d');
    expect((await h.run(['apply', '--auto-approve'])).code).toBe(0);
    const fresh = (await variable('projects', 'platform/app'))!;
    expect(await variable('groups', 'platform')).toBe(fresh);
    expect(fresh).not.toBe(oldSecret);
    expect(h.active('platform', 'deploy').map((t) => t.id)).toContain(old.id);
    expect(await works(oldSecret)).toBe(true);
    expect((await h.run(['plan', '--detailed-exitcode'])).code).toBe(0);
  });

  it('revokes the successor when its delivery fails: the predecessor is untouched and apply exits 1 naming the sink', async () => {
    h = await harness({ groups: [{ full_path: 'platform', access_tokens: [seedToken('deploy', 'seeded-deploy-000001', { id: 7, expires_at: addDays(BASE_DAY, 3) })] }] });
    h.wd.write('refuse.sh', '#!/bin/sh\necho "vault is sealed" >&2\nexit 3\n');
    chmodSync(path.join(h.wd.dir, 'refuse.sh'), 0o755);
    h.config({ platform: { tokens: { deploy: { rotation: OVERLAP, sink: '{command: [./refuse.sh]}' } } } });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain('refuse.sh');
    expect(r.stdout + r.stderr).toContain('PLUMB_TOKEN_SECRET_NOT_DELIVERED');
    expect(h.active('platform', 'deploy').map((t) => t.id)).toEqual([7]);
    const successor = h.emu.state.tokens.find((t) => t.kind === 'group' && t.name === 'deploy' && t.id !== 7)!;
    expect(successor.revoked).toBe(true);
    expect(h.emu.state.tokenById(7)!.revoked).toBeFalsy();
    expect(await works('seeded-deploy-000001')).toBe(true);
    // The next plan rotates again, by successor.
    const again = await planJson();
    expect(again.changes.find((x) => x.address.endsWith('access_token["deploy"]'))?.action).toBe('rotate');
  });
});

describe('rotation.overlap in the configuration', () => {
  it('refuses an overlap not shorter than rotate_before_days, located at the overlap', async () => {
    h = await harness();
    h.config({ platform: { tokens: { deploy: { rotation: { lifetime_days: 30, rotate_before_days: 2, overlap: '2d' } } } } });
    const r = await h.run(['validate', '--json']);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as { diagnostics: { code: string; line?: number; column?: number; summary: string }[] };
    const d = doc.diagnostics.find((x) => x.code === 'PLUMB_TOKEN_OVERLAP')!;
    expect(d.summary).toContain('shorter than rotate_before_days (2 day(s))');
    const line = readFileSync(path.join(h.wd.dir, 'plumb.yaml'), 'utf8').split('\n')[d.line! - 1]!;
    expect(line.slice(d.column! - 1)).toMatch(/^2d/);
  });

  it('refuses an overlap that is not a duration (the schema, located)', async () => {
    h = await harness();
    h.config({ platform: { tokens: { deploy: { rotation: { lifetime_days: 30, rotate_before_days: 7, overlap: '2 days' } } } } });
    const r = await h.run(['validate']);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toMatch(/plumb\.yaml:\d+:\d+/);
    expect(r.stdout + r.stderr).toContain('overlap');
  });
});
