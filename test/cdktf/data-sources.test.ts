/**
 * The group listings as CDKTF constructs (issue 23): `plumb-gitops/cdktf` exports
 * `dataPlumbProjects.DataPlumbProjects` and `dataPlumbGroups.DataPlumbGroups`, typed, and an app
 * that loops over a listing synthesizes the data source and the `for_each` Terraform evaluates
 * (test/provider/data-sources.e2e.test.ts applies the same app with the real terraform).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FLEET_APP } from './fleet-app.js';
import { cdktfApp, root } from './helpers.js';

const TSCONFIG = JSON.stringify({
  compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, types: [] },
  include: ['*.ts'],
});

describe('the CDKTF bindings of the group listings', () => {
  it('synthesize plumb_projects and plumb_groups, and a for_each over the projects\' paths', () => {
    const dir = cdktfApp({ 'main.ts': FLEET_APP, 'tsconfig.json': TSCONFIG });
    const out = path.join(dir, 'cdktf.out');
    const synth = spawnSync(path.join(dir, 'node_modules/.bin/tsx'), ['main.ts'], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: dir, CDKTF_OUTDIR: out, CDKTF_CONTEXT_JSON: '{}', CHECKPOINT_DISABLE: '1' } });
    expect(synth.status, synth.stderr).toBe(0);
    const json = JSON.parse(readFileSync(path.join(out, 'stacks/fleet/cdk.tf.json'), 'utf8')) as {
      data: Record<string, Record<string, Record<string, unknown>>>;
      resource: Record<string, Record<string, Record<string, unknown>>>;
      output: Record<string, { value: string }>;
    };
    expect(json.data.plumb_projects!.platform).toMatchObject({ group: 'platform', exclude: ['platform/legacy/**'] });
    expect(json.data.plumb_groups!.teams).toMatchObject({ group: 'platform', include_descendants: false });
    const file = json.resource.plumb_repository_file!.security!;
    expect(file.for_each).toContain('data.plumb_projects.platform.paths');
    expect(file).toMatchObject({ project: '${each.value}', file_path: 'SECURITY.md' });
    expect(json.output.team_paths!.value).toContain('data.plumb_groups.teams.paths');
    expect(json.output.first_project!.value).toContain('data.plumb_projects.platform.projects[0].path_with_namespace');
    // And the props are typed: the app compiles under strict settings.
    const tsc = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: dir, encoding: 'utf8' });
    expect(tsc.status, tsc.stdout).toBe(0);
  });
});
