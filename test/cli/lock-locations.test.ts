/**
 * Lock and state-backend failures say where the lock comes from (issue 29, item 10): a lock on the
 * instance that cannot be taken, or is held, is located at the instance's `lock:` block
 * (file:line:col), as every configuration problem is; a state backend's failure names `--state`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { harness, seedToken, addDays, BASE_DAY } from '../resources/group-access-tokens/helpers.js';
import type { Harness } from '../resources/group-access-tokens/helpers.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** The instance declares `lock:` (given as written); returns the `file:line:col` of that key. */
async function withLock(lock: string): Promise<string> {
  h = await harness({
    groups: [{ full_path: 'platform', access_tokens: [seedToken('ci', 'seeded-ci-location-01', { id: 7, expires_at: addDays(BASE_DAY, 3) })] }, { full_path: 'ops' }],
    projects: [{ path_with_namespace: 'ops/locks', files: { 'README.md': 'locks\n' } }],
  });
  h.config({ platform: { tokens: { ci: {} } } });
  const yaml = h.wd.read('plumb.yaml').replace('    token_env: PLUMB_TOKEN\n', `    token_env: PLUMB_TOKEN\n    lock: ${lock}\n`);
  h.wd.write('plumb.yaml', yaml);
  const line = yaml.split('\n').findIndex((l) => l.startsWith('    lock: ')) + 1;
  return `plumb.yaml:${line}:5`;
}

describe('a lock on the instance that fails', () => {
  it('is located at the lock: block when it cannot be taken', async () => {
    const at = await withLock('{project: ops/nope, path: plumb.lock}');
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_LOCK_FAILED');
    expect(r.stderr).toContain(at);
    const json = await h.run(['apply', '--auto-approve', '--json']);
    const doc = JSON.parse(json.stdout) as { diagnostics: { code: string; file?: string; line?: number; column?: number }[] };
    expect(doc.diagnostics[0]).toMatchObject({ code: 'PLUMB_LOCK_FAILED', file: 'plumb.yaml', line: Number(at.split(':')[1]), column: 5 });
  });

  it('is located at the lock: block when another apply holds it', async () => {
    const at = await withLock('{project: ops/locks, path: plumb.lock}');
    const now = Date.now();
    h.emu.state.pushFile('ops/locks', {
      path: 'plumb.lock',
      content: JSON.stringify({ plumb_lock: 1, holder: { id: 'other-1', host: 'elsewhere', pid: 1, command: 'plumb apply' }, acquired_at: new Date(now).toISOString(), expires_at: new Date(now + 3_600_000).toISOString() }),
    });
    const r = await h.run(['apply', '--auto-approve']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('PLUMB_STATE_LOCKED');
    expect(r.stderr).toContain(at);
  });
});
