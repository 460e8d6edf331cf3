import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pagesOf } from '../../src/resources/pages/model.js';
import { fromStacks, loadCdktfConfig } from '../helpers/kinds.js';
import { main } from '../../src/cli.js';
import { appSource, cdktfApp } from './helpers.js';

const TODAY = '2026-06-01';
const ENV = { PATH: process.env.PATH ?? '' };

const BAD = appSource(
  'bad',
  `import { TerraformResource, TerraformVariable } from 'cdktf';
new provider.PlumbProvider(stack, 'plumb', { url: 'https://code.example.com', tokenEnv: 'PLUMB_TOKEN' });
new applicationSettings.ApplicationSettings(stack, 'settings', { defaultProjectVisibility: 'internall', maxLoginAttempts: 10 });
const who = new TerraformVariable(stack, 'who', { type: 'string' });
new groupAccessToken.GroupAccessToken(stack, 'ci', { group: 'platform', name: 'ci', description: who.stringValue, scopes: ['api'], expiresAt: '2027-01-31', sink: { stdout: true } });
new TerraformResource(stack, 'bucket', { terraformResourceType: 'aws_s3_bucket' });
`.replace(/^import .*\n/, ''),
).replace("import { App, TerraformStack } from 'cdktf';", "import { App, TerraformResource, TerraformStack, TerraformVariable } from 'cdktf';");

describe('diagnostics from a CDKTF app', () => {
  const dir = cdktfApp({ 'main.ts': BAD });
  let synthesized: ReturnType<typeof loadCdktfConfig> | undefined;
  /** The bad app, synthesized once for the tests that read its result. */
  const bad = () => (synthesized ??= loadCdktfConfig('.', { cwd: dir, env: ENV, today: TODAY }));

  it('carry the construct path of the resource with the bad value', async () => {
    const r = await bad();
    expect(r.config).toBeUndefined();
    const wrong = r.diagnostics.find((d) => d.pointer === '/instances/bad/settings/default_project_visibility');
    expect(wrong?.severity).toBe('error');
    expect(wrong?.location?.file).toBe('bad/settings');
    expect(r.sources.texts.get('bad/settings')!.split('\n')[wrong!.location!.line - 1]).toContain('"internall"');
    // plumb's constructs record where the app created them: the TypeScript line, too.
    const line = BAD.split('\n').findIndex((l) => l.includes("(stack, 'settings'")) + 1;
    expect(wrong?.related).toEqual([{ message: 'construct bad/settings is created here', location: { file: 'main.ts', line, column: 1 } }]);
  });

  it('come from a synthesized stack whose recorded creation frames are the app\'s own, relative to it: no absolute path, no Node.js or library frame (issue 21 defect 10)', () => {
    const out = path.join(dir, 'synth-out');
    const r = spawnSync(path.join(dir, 'node_modules/.bin/tsx'), ['main.ts'], { cwd: dir, env: { ...process.env, CDKTF_OUTDIR: out }, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const stack = JSON.parse(readFileSync(path.join(out, 'stacks/bad/cdk.tf.json'), 'utf8')) as { resource: Record<string, Record<string, { '//'?: { plumb_stack_trace?: string[] } }>> };
    const traces = Object.values(stack.resource).flatMap((byName) => Object.values(byName)).map((b) => b['//']?.plumb_stack_trace).filter((t) => t !== undefined);
    expect(traces.length).toBeGreaterThan(0);
    const line = BAD.split('\n').findIndex((l) => l.includes("(stack, 'settings'")) + 1;
    expect(traces.flat().some((f) => f.endsWith(`(main.ts:${line}:1)`)), JSON.stringify(traces)).toBe(true);
    for (const frame of traces.flat()) expect(frame).not.toMatch(/node:|node_modules|generated|^\/|[A-Za-z]:\\|plumb-cdktf-app/);
  });

  it('reject a Terraform expression plumb cannot resolve, at the construct that uses it, once', async () => {
    const r = await bad();
    const refs = r.diagnostics.filter((d) => d.code === 'PLUMB_CDKTF_REFERENCE');
    expect(refs).toHaveLength(1);
    expect(refs[0]!.summary).toContain('${var.who}');
    expect(refs[0]!.summary).toContain('bad/ci');
    expect(refs[0]!.location?.file).toBe('bad/ci');
    expect(r.diagnostics.filter((d) => d.pointer === refs[0]!.pointer)).toHaveLength(1);
  });

  it('ignore resources of other providers with one informational line', async () => {
    const r = await bad();
    const info = r.diagnostics.filter((d) => d.severity === 'info');
    expect(info.map((d) => [d.code, d.summary])).toEqual([['PLUMB_CDKTF_OTHER_PROVIDERS', 'Ignored 1 resource of other providers: aws_s3_bucket.bucket']]);
  });

  it('are printed by plumb validate with the construct path as the place', async () => {
    let stderr = '';
    const code = await main(['validate', '--cdktf', '.', '--now', TODAY], { stdout: () => {}, stderr: (s) => (stderr += s), isTTY: false, env: ENV, cwd: dir });
    expect(code).toBe(1);
    expect(stderr).toMatch(/--> bad\/settings:\d+:\d+/);
    expect(stderr).toContain('"default_project_visibility": "internall"');
  });

  it("point at the TypeScript line that created the construct when cdktf's synth metadata carries its stack trace", () => {
    const appDir = path.join(dir, 'app');
    const stack = {
      name: 'traced',
      json: {
        provider: { plumb: [{ url: 'https://code.example.com', token_env: 'PLUMB_TOKEN' }] },
        resource: {
          plumb_application_settings: {
            settings: {
              '//': { metadata: { path: 'traced/settings', uniqueId: 'settings', stackTrace: ['    at new ApplicationSettings (/x/node_modules/plumb-gitops/dist/generated/cdktf/application-settings/index.js:10:5)', `    at new Instance (${appDir}/main.ts:42:7)`] } },
              default_project_visibility: 'internall',
            },
          },
        },
      },
    };
    const r = fromStacks([stack], appDir, { cwd: dir, env: ENV, today: TODAY });
    const bad = r.diagnostics.find((d) => d.pointer === '/instances/traced/settings/default_project_visibility');
    expect(bad?.location?.file).toBe('traced/settings');
    expect(bad?.related).toContainEqual({ message: 'construct traced/settings is created here', location: { file: 'app/main.ts', line: 42, column: 7 } });
  });

  it('name an unknown plumb resource type and refuse count and for_each', () => {
    const stack = {
      name: 's',
      json: {
        resource: {
          plumb_application_setting: { x: { '//': { metadata: { path: 's/x' } } } },
          plumb_project_pages: { p: { '//': { metadata: { path: 's/p' } }, project: 'a/b', count: 2 } },
        },
      },
    };
    const r = fromStacks([stack], dir, { cwd: dir, env: ENV, today: TODAY });
    expect(r.diagnostics.filter((d) => d.severity === 'error').map((d) => [d.code, d.location?.file])).toEqual(
      expect.arrayContaining([
        ['PLUMB_CDKTF_UNKNOWN_TYPE', 's/x'],
        ['PLUMB_CDKTF_META_ARGUMENT', 's/p'],
      ]),
    );
    expect(r.diagnostics.find((d) => d.code === 'PLUMB_CDKTF_UNKNOWN_TYPE')?.suggestion).toContain('plumb_application_settings');
  });

  it('show a string with DEL or C1 controls escaped in the text, and keep its value as written', () => {
    const written = 'Welcome\u009b31m to\u007f us';
    const stack = {
      name: 'prod',
      json: {
        provider: { plumb: [{ url: 'https://code.example.com', token_env: 'PROD_TOKEN' }] },
        resource: { plumb_application_settings: { s: { '//': { metadata: { path: 'prod/s' } }, after_sign_up_text: written } } },
      },
    };
    const r = fromStacks([stack], dir, { cwd: dir, env: ENV, today: TODAY });
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const text = r.sources.texts.get('prod/s')!;
    expect(text).toContain('Welcome\\u009b31m to\\u007f us');
    expect(text).not.toMatch(/[\u007f-\u009f]/);
    expect(r.sources.data).toMatchObject({ instances: { prod: { settings: { after_sign_up_text: written } } } });
  });

  it('put a resource on the instance of its provider: the alias, else the stack name', () => {
    const stack = {
      name: 'prod',
      json: {
        provider: { plumb: [{ url: 'https://code.example.com', token_env: 'PROD_TOKEN' }, { alias: 'staging', url: 'https://staging.example.com', token_env: 'STAGING_TOKEN' }] },
        resource: {
          plumb_project_pages: {
            a: { '//': { metadata: { path: 'prod/a' } }, project: 'a/b', pages_https_only: true },
            b: { '//': { metadata: { path: 'prod/b' } }, project: 'a/b', pages_https_only: false, provider: 'plumb.staging' },
          },
        },
      },
    };
    const r = fromStacks([stack], dir, { cwd: dir, env: ENV, today: TODAY });
    expect(r.diagnostics).toEqual([]);
    expect(r.config!.instances.map((i) => [i.name, i.url, i.tokenEnv, pagesOf(i)[0]!.pages?.fields.pages_https_only])).toEqual([
      ['prod', 'https://code.example.com', 'PROD_TOKEN', true],
      ['staging', 'https://staging.example.com', 'STAGING_TOKEN', false],
    ]);
  });

  it('say what failed when the app does not synthesize', async () => {
    const broken = cdktfApp({ 'main.ts': 'throw new Error("the app broke here");\n' });
    const r = await loadCdktfConfig('.', { cwd: broken, env: ENV, today: TODAY });
    expect(r.diagnostics.map((d) => d.code)).toEqual(['PLUMB_CDKTF_SYNTH']);
    expect(r.diagnostics[0]!.detail).toContain('the app broke here');
  });
});
