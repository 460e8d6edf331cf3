/**
 * `delivery:` as the configuration says it (docs/config.md#delivering-files): its forms, its
 * default, its errors located, and how `defaults:` gives it (inherited or overridden whole).
 */
import { describe, expect, it } from 'vitest';
import { filesOf } from '../../../src/resources/repository-files/model.js';
import { loadConfig } from '../../helpers/kinds.js';
import { scratchArea } from '../../helpers/scratch.js';

const { project } = scratchArea('plumb-delivery');

function load(yaml: string) {
  const dir = project({ 'plumb.yaml': yaml });
  return loadConfig([dir], { cwd: dir, env: { PLUMB_TOKEN: 't' } });
}

const instance = (projects: string, name = 'prod') => `  ${name}:
    url: https://${name}.example.com
    token_env: PLUMB_TOKEN
    projects:
${projects}`;

const file = '        files: {README.md: {content: "hi\\n"}}\n';

function deliveries(r: ReturnType<typeof load>, name = 'prod') {
  const inst = r.config!.instances.find((i) => i.name === name)!;
  return Object.fromEntries(filesOf(inst).map((p) => [p.ref, p.delivery]));
}

describe('delivery: its forms', () => {
  it('defaults to one commit, and reads commit, skip_ci and merge_request with its fields', () => {
    const r = load(`instances:
${instance(`      g/plain:
${file}      g/commit:
        delivery: commit
${file}      g/quiet:
        delivery: {commit: {skip_ci: true}}
${file}      g/mr:
        delivery: merge_request
${file}      g/mr-full:
        delivery:
          merge_request: {branch: bots/files, title: Sync, description: Please review, labels: [bot, files], auto_merge: true, remove_source_branch: true, squash: false}
${file}`)}`);
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(deliveries(r)).toEqual({
      'g/plain': { kind: 'commit', skipCi: false },
      'g/commit': { kind: 'commit', skipCi: false, pointer: '/instances/prod/projects/g~1commit/delivery' },
      'g/quiet': { kind: 'commit', skipCi: true, pointer: '/instances/prod/projects/g~1quiet/delivery' },
      'g/mr': { kind: 'merge_request', branch: 'plumb/prod', labels: [], autoMerge: false, pointer: '/instances/prod/projects/g~1mr/delivery' },
      'g/mr-full': {
        kind: 'merge_request',
        branch: 'bots/files',
        title: 'Sync',
        description: 'Please review',
        labels: ['bot', 'files'],
        autoMerge: true,
        removeSourceBranch: true,
        squash: false,
        pointer: '/instances/prod/projects/g~1mr-full/delivery',
      },
    });
  });

  it('reports each mistake at its line: a typo, both ways at once, an unknown key, a bad branch', () => {
    const r = load(`instances:
${instance(`      g/a:
        delivery: comit
${file}      g/b:
        delivery: {commit: {}, merge_request: {}}
${file}      g/c:
        delivery: {commit: {skip_ci: true, skip: true}}
${file}      g/d:
        delivery: {merge_request: {branch: "bad..branch"}}
${file}`)}`);
    const at = (code: string) => r.diagnostics.filter((d) => d.code === code).map((d) => `${d.location?.line}:${d.location?.column}`);
    expect(at('PLUMB_ENUM_VALUE')).toEqual(['7:19']);
    expect(r.diagnostics.find((d) => d.code === 'PLUMB_ENUM_VALUE')?.suggestion).toContain('"commit"');
    expect(at('PLUMB_FILE_DELIVERY_INVALID')).toEqual(['10:19']);
    expect(at('PLUMB_UNKNOWN_KEY')).toEqual(['13:44']);
    expect(at('PLUMB_FILE_BRANCH_NAME')).toEqual(['16:44']);
  });
});

describe('delivery: in defaults', () => {
  it('is inherited whole, and an instance that declares its own replaces it whole (no mix of commit and merge_request)', () => {
    const r = load(`defaults:
  projects:
    g/app:
      delivery: {merge_request: {labels: [bot]}}
instances:
${instance(`      g/app:
${file}`, 'prod')}
${instance(`      g/app:
        delivery: {commit: {skip_ci: true}}
${file}`, 'staging')}`);
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    // The default branch name takes the inheriting instance's name.
    expect(deliveries(r, 'prod')['g/app']).toMatchObject({ kind: 'merge_request', branch: 'plumb/prod', labels: ['bot'] });
    expect(deliveries(r, 'staging')['g/app']).toEqual({ kind: 'commit', skipCi: true, pointer: '/instances/staging/projects/g~1app/delivery' });
    expect(r.sources.defaults.at('/instances/prod/projects/g~1app/delivery')?.how).toBe('inherited');
    expect(r.sources.defaults.at('/instances/staging/projects/g~1app/delivery')?.how).toBe('overridden');
  });
});
